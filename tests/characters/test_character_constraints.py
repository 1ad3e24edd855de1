"""A character's constraints are checked in memory where its player and campaign are
sure (`Character.constraint_violations`, `services.base.clean_character`), not by a
savepoint and a query each as Django's `validate_constraints` does: the memory is held
to the database here, and a hero point spent at the table costs no such round trip."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from characters import services
from characters.models import Character
from characters.services.base import clean_character

pytestmark = pytest.mark.django_db


def test_every_constraint_of_the_table_is_checked_in_memory():
    assert {c.name for c in Character._meta.constraints} == Character.CHECKED_IN_MEMORY


@pytest.mark.parametrize(
    ("field", "constraint"),
    [
        ("hero_points", "character_hero_points_not_negative"),
        ("experience_points", "character_xp_not_negative"),
    ],
)
def test_the_memory_refuses_what_the_database_refuses(build_kara, field, constraint):
    kara = build_kara()
    setattr(kara, field, -1)
    message = next(
        str(c.get_violation_error_message())
        for c in Character._meta.constraints
        if c.name == constraint
    )
    assert kara.constraint_violations() == [message]
    with pytest.raises(ValidationError):
        clean_character(kara)
    with pytest.raises(IntegrityError), transaction.atomic():
        Character.objects.filter(pk=kara.pk).update(**{field: -1})


def test_a_character_at_zero_keeps_its_sheet_valid(build_kara):
    kara = build_kara()
    kara.hero_points = kara.experience_points = 0
    assert kara.constraint_violations() == []
    clean_character(kara)


def test_spending_a_hero_point_writes_the_sheet_and_its_ledger_in_bounded_queries(
    build_kara, django_assert_max_num_queries
):
    """The lock, the sheet's abilities, the campaign's options, the character saved and
    the ledger's step and entry (and the test's savepoint pair): no query to check the
    player or the campaign exist, none per constraint."""
    kara = build_kara()
    before = kara.hero_points
    with django_assert_max_num_queries(9):
        services.character_hero_point_spend(character=kara, actor=kara.player)
    kara.refresh_from_db()
    assert kara.hero_points == before - 1


def test_a_new_characters_player_must_play_in_its_campaign(campaign, charlie):
    """The foreign keys are not checked by a query each on creation: the player's
    membership of the campaign is, and an outsider's character is refused."""
    with pytest.raises(ValidationError, match="does not play in"):
        services.character_create(player=charlie, name="Stray", campaign=campaign)
    assert not Character.objects.filter(name="Stray").exists()
