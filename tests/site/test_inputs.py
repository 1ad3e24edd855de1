"""questworlds_site/inputs.py, the one reader of ids and numbers from input: the digits
0 to 9 and nothing else (issue 27, item 5), whatever int() or str.isdigit() accept."""

from __future__ import annotations

import pytest
from django import forms
from django.urls import resolve
from django.urls.exceptions import Resolver404

from campaigns.forms import InvitationForm
from characters.forms import parse_rating
from contests.core.rules import Rating
from contests.core.rules.errors import RulesError
from questworlds_site import inputs

# What int() reads as a number, or str.isdigit() calls a digit, and a person never types.
NOT_DIGITS = ["١", "٣", "１", "²", "١٢", " 1", "1 ", "\t1", "1_0", "1.0", "1.5", "0x1", "1e3"]


@pytest.mark.parametrize("value", NOT_DIGITS + ["", "-", "+", None, True, 1.0, [1]])
def test_only_digits_0_to_9_are_a_number(value):
    assert inputs.whole(value) is None
    assert inputs.whole(value, minimum=None, signed=True) is None
    assert inputs.an_id(value) is None


def test_digits_within_the_range_are_read():
    assert inputs.whole("0") == 0
    assert inputs.an_id("12") == 12
    assert inputs.an_id(str(inputs.MAX_ID)) == inputs.MAX_ID
    assert inputs.an_id(str(inputs.MAX_ID + 1)) is None
    assert inputs.an_id(str(10**30)) is None
    assert inputs.an_id("0") is None


def test_a_sign_only_where_a_negative_means_something():
    assert inputs.whole("-1") is None
    assert inputs.whole("+1") is None
    assert inputs.an_id("-1") is None
    assert inputs.whole("-3", minimum=None, signed=True) == -3
    assert inputs.whole("+3", minimum=-20, maximum=20, signed=True) == 3
    assert inputs.whole("-21", minimum=-20, maximum=20, signed=True) is None


def test_a_page_number_that_is_not_one_is_the_first_page():
    assert inputs.page_number("3") == 3
    for value in ["١", "²", "0", "-2", "", None, str(10**30)]:
        assert inputs.page_number(value) == 1


class _Form(forms.Form):
    count = inputs.WholeNumberField(min_value=1)
    change = inputs.WholeNumberField(min_value=-20, max_value=20)


@pytest.mark.parametrize("value", NOT_DIGITS)
def test_a_whole_number_field_answers_a_field_error(value):
    form = _Form({"count": value, "change": value})
    assert not form.is_valid()
    assert form.errors["count"] == [inputs.NOT_A_NUMBER]
    assert form.errors["change"] == [inputs.NOT_A_NUMBER]


def test_a_whole_number_field_bounds_to_a_database_integer_and_takes_a_sign_if_signed():
    form = _Form({"count": str(10**30), "change": "+3"})
    assert not form.is_valid()
    assert "less than or equal to 2147483647" in form.errors["count"][0]
    assert form.cleaned_data["change"] == 3
    form = _Form({"count": "-1", "change": "-3"})
    assert form.errors["count"] == [inputs.NOT_A_NUMBER]
    assert form.cleaned_data["change"] == -3


def test_an_invitation_for_arabic_indic_one_person_is_refused():
    """forms.IntegerField took "١" as 1 (int() after strip): the invitation was made."""
    form = InvitationForm({"role": "player", "days": "7", "max_uses": "١"})
    assert not form.is_valid()
    assert form.errors["max_uses"] == [inputs.NOT_A_NUMBER]


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["١", "²", "１", " 1", "+1"])
def test_id_choice_fields_refuse_what_is_no_id(value, django_user_model):
    user = django_user_model.objects.create_user(username="u1", password="x")
    assert user.pk is not None
    one = inputs.IdChoiceField(queryset=django_user_model.objects.all())
    many = inputs.IdMultipleChoiceField(queryset=django_user_model.objects.all())
    assert one.clean(str(user.pk)) == user
    assert list(many.clean([str(user.pk)])) == [user]
    with pytest.raises(forms.ValidationError):
        one.clean(value)
    with pytest.raises(forms.ValidationError):
        many.clean([value])


def test_a_route_id_past_the_largest_is_no_route():
    assert resolve("/campaigns/12/").kwargs == {"campaign_id": 12}
    for too_large in ["2147483648", "99999999999999999999"]:
        with pytest.raises(Resolver404):
            resolve(f"/campaigns/{too_large}/")


@pytest.mark.parametrize("text", ["١٧", "１７", "٣M", "7M١"])
def test_a_rating_is_written_in_digits_0_to_9(text):
    with pytest.raises(RulesError):
        Rating.parse(text)
    with pytest.raises(forms.ValidationError):
        parse_rating(text)


def test_a_breakout_bonus_is_written_in_digits_0_to_9():
    assert parse_rating("+2", breakout=True) == 2
    for text in ["+٢", "٢", "2_0", "2.0"]:
        with pytest.raises(forms.ValidationError):
            parse_rating(text, breakout=True)
