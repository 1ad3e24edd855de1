"""The database refuses what the rules forbid, whatever code tries (issue 4, §3.3, §6.5.1,
R15), on SQLite and PostgreSQL alike."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from characters.models import Ability, AbilityKind, Character, Follower

pytestmark = pytest.mark.django_db


@pytest.fixture
def hero(alice):
    return Character.objects.create(name="Kara", player=alice)


@pytest.fixture
def keyword(hero):
    return Ability.objects.create(
        character=hero, name="Mercenary", kind=AbilityKind.KEYWORD, rating=17
    )


def refused(**fields):
    with pytest.raises(IntegrityError), transaction.atomic():
        Ability.objects.create(**fields)
        # PostgreSQL checks the same-character key at commit (it is deferrable): now.
        connection.check_constraints()


def test_a_breakout_sits_under_a_keyword_of_the_same_character(hero, keyword, bob):
    other = Character.objects.create(name="Brannoc", player=bob)
    # The composite foreign key (PostgreSQL) or trigger (SQLite) of migrations 0002/0003.
    refused(character=other, name="Swordplay", kind=AbilityKind.BREAKOUT, rating=2, keyword=keyword)
    Ability.objects.create(
        character=hero, name="Swordplay", kind=AbilityKind.BREAKOUT, rating=2, keyword=keyword
    )


def test_moving_a_breakout_to_another_characters_sheet_is_refused(hero, keyword, bob):
    other = Character.objects.create(name="Brannoc", player=bob)
    breakout = Ability.objects.create(
        character=hero, name="Swordplay", kind=AbilityKind.BREAKOUT, rating=2, keyword=keyword
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Ability.objects.filter(pk=breakout.pk).update(character=other)
        connection.check_constraints()


def test_a_breakout_needs_a_keyword_and_a_keyword_sits_under_none(hero, keyword):
    refused(character=hero, name="Swordplay", kind=AbilityKind.BREAKOUT, rating=2)
    refused(character=hero, name="Guards", kind=AbilityKind.KEYWORD, rating=13, keyword=keyword)


def test_ability_names_are_unique_per_character_whatever_the_case(hero, keyword):
    refused(character=hero, name="MERCENARY", kind=AbilityKind.STANDALONE, rating=13)


def test_a_sidekick_may_share_a_name_with_its_owners_ability(hero, keyword):
    oro = Follower.objects.create(owner=hero, kind=Follower.Kind.SIDEKICK, name="Oro")
    Ability.objects.create(character=hero, follower=oro, name="Mercenary", rating=16)


def test_a_character_has_at_most_one_sidekick(hero):
    Follower.objects.create(owner=hero, kind=Follower.Kind.SIDEKICK, name="Oro")
    Follower.objects.create(owner=hero, kind=Follower.Kind.RETAINER, name="Boatmen")
    with pytest.raises(IntegrityError), transaction.atomic():
        Follower.objects.create(owner=hero, kind=Follower.Kind.SIDEKICK, name="Rex")


def test_hero_points_and_experience_never_go_below_zero(hero):
    for field in ("hero_points", "experience_points"):
        with pytest.raises(IntegrityError), transaction.atomic():
            Character.objects.filter(pk=hero.pk).update(**{field: -1})


def test_only_relationships_have_a_relationship_kind(hero):
    refused(character=hero, name="Old Sword", rating=13, relationship="ally")


def test_one_ability_per_role_of_the_concept(hero, keyword):
    keyword.creation_role = "defining"
    keyword.save()
    refused(character=hero, name="Sardonic", rating=17, creation_role="defining")
