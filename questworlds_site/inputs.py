"""The one reader of ids and whole numbers from input: form fields, query strings, URL
captures and the table's socket frames (through contests/core/actions/fields.py).

ASCII digits only. Python's int() takes far more than a person types: any Unicode
decimal digit ("١" is 1, full-width "１" too), surrounding spaces, underscores ("1_0")
and signs, while str.isdigit() says yes to "²", which int() then refuses (a 500 where
it was trusted). Here a number is `[0-9]{1,10}`, with a leading sign only where a
negative number means something, and within the range a PostgreSQL integer holds (a
larger one would be a DataError, another 500). Anything else is "not a number": None,
or a field's clear error, never an exception.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.urls import converters, register_converter

from contests.core.numbers import DIGITS, MAX_ID, MIN_INT, an_id, whole

__all__ = ["DIGITS", "MAX_ID", "MIN_INT", "an_id", "whole"]

NOT_A_NUMBER = "Enter a whole number in the digits 0 to 9 (such as 3)."


def coerce_id(value: Any) -> int:
    """An id or a ValueError: the `coerce` of a TypedChoiceField, which turns the error
    into the field's "Select a valid choice"."""
    number = an_id(value)
    if number is None:
        raise ValueError(f"{value!r} is not an id")
    return number


def coerce_whole(value: Any) -> int:
    """A whole number, a sign allowed (a TypedChoiceField's values such as "-1")."""
    number = whole(value, minimum=None, signed=True)
    if number is None:
        raise ValueError(f"{value!r} is not a whole number")
    return number


def page_number(value: Any) -> int:
    """A page of a list from the query string: a bad one is the first page."""
    return whole(value, minimum=1) or 1


# -- forms ----------------------------------------------------------------------------------


class WholeNumberField(forms.IntegerField):
    """forms.IntegerField read by `whole`: "١", " 1", "1_0", "1.0" or 10**30 get the
    field's error instead of being taken (or crashing the save). A sign is taken only
    where the field allows a negative number; the range defaults to a PostgreSQL
    integer's."""

    default_error_messages = {"invalid": NOT_A_NUMBER}

    def __init__(self, *, min_value: int | None = None, max_value: int | None = None, **kwargs):
        lowest = MIN_INT if min_value is None else min_value
        super().__init__(
            min_value=lowest, max_value=MAX_ID if max_value is None else max_value, **kwargs
        )
        self.signed = lowest < 0

    def to_python(self, value: Any) -> int | None:
        if value in self.empty_values:
            return None
        signed = self.signed
        # Out of range is the validators' clearer "at most ..." / "at least ...".
        number = whole(value, minimum=None, maximum=10**DIGITS, signed=signed)
        if number is None:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return number


def model_choices(form: forms.BaseForm, name: str) -> forms.ModelChoiceField[Any]:
    """The form's field `name`, a model choice field whose queryset the form narrows
    (django-stubs types `form.fields` as plain Fields)."""
    field = form.fields[name]
    assert isinstance(field, forms.ModelChoiceField), f"{name} is no model choice field"
    return field


def choice_field(form: forms.BaseForm, name: str) -> forms.ChoiceField:
    """The form's field `name`, a choice field whose choices the form fills in."""
    field = form.fields[name]
    assert isinstance(field, forms.ChoiceField), f"{name} is no choice field"
    return field


def id_choices(form: forms.BaseForm, name: str) -> IdChoiceField:
    """The form's IdChoiceField `name`, whose queryset and labels the form sets."""
    field = form.fields[name]
    assert isinstance(field, IdChoiceField), f"{name} is no IdChoiceField"
    return field


def max_length_of(form: type[forms.Form], name: str) -> int | None:
    """The most characters the form's text field `name` takes."""
    field = form.base_fields[name]
    assert isinstance(field, forms.CharField), f"{name} is no text field"
    return field.max_length


class IdChoiceField(forms.ModelChoiceField):
    """A ModelChoiceField whose value must be an id in ASCII digits: the database would
    take "١" as 1 and answer 500 to "²". A form may label the options its own way
    (`label_of`, set on the form's copy of the field)."""

    label_of: Callable[[Any], str] | None = None

    def label_from_instance(self, obj: Any) -> str:
        return super().label_from_instance(obj) if self.label_of is None else self.label_of(obj)

    def to_python(self, value: Any) -> Any:
        if value in self.empty_values:
            return None
        if self.to_field_name is None and an_id(value) is None:
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice")
        return super().to_python(value)


class IdMultipleChoiceField(forms.ModelMultipleChoiceField):
    """A ModelMultipleChoiceField whose values must each be an id in ASCII digits."""

    def _check_values(self, value: Any) -> Any:
        for pk in value:
            if an_id(pk) is None:
                raise ValidationError(
                    self.error_messages["invalid_pk_value"],
                    code="invalid_pk_value",
                    params={"pk": pk},
                )
        # django-stubs leaves out this private method of ModelMultipleChoiceField.
        return super()._check_values(value)  # type: ignore[misc]


# -- URL captures ---------------------------------------------------------------------------


class IdConverter(converters.IntConverter):
    """`<id:name>` in a route: ASCII digits (as `<int:>`), and no larger than a
    PostgreSQL integer, so /campaigns/99999999999999999999/ is a plain 404."""

    regex = f"[0-9]{{1,{len(str(MAX_ID))}}}"

    def to_python(self, value: str) -> int:
        number = whole(value)
        if number is None:
            raise ValueError("not an id")  # the resolver reads this as "no match": 404
        return number


def register_converters() -> None:
    """Make `<id:...>` known to every route (called once, from an AppConfig.ready)."""
    if "id" not in converters.get_converters():
        register_converter(IdConverter, "id")
