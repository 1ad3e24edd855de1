"""An ability's constraints are checked in memory against the sheet's rows
(`Ability.constraint_violations`), not by a savepoint and a query each as Django's
`validate_constraints` does. These tests hold the memory to the database: for every
constraint, a row the memory refuses is one PostgreSQL (or SQLite) refuses, with the
constraint's own message, and the near misses it lets through are stored."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction

from characters import services
from characters.models import Ability, AbilityKind, CreationRole

from .conftest import REX, ability

pytestmark = pytest.mark.django_db


@pytest.fixture
def sheet(alice, build_kara):
    """Kara in creation, with a flaw and her sidekick Rex: a row of every kind."""
    kara = build_kara(finish=False)
    services.character_ability_remove(character=kara, actor=alice, ability=ability(kara, "Wary"))
    services.character_sidekick_set(character=kara, actor=alice, name="Rex", abilities=REX)
    services.character_ability_add(
        character=kara, actor=alice, name="Greedy", kind=AbilityKind.FLAW
    )
    return kara


def candidate(kara, **fields) -> Ability:
    """A new row of Kara's, as a service builds one before it is checked."""
    values = {"name": "Fresh", "kind": AbilityKind.STANDALONE, "rating": 13, "position": 99}
    return Ability(character=kara, **(values | fields))


CASES = {
    # The constraint a row breaks (None: none), and the row.
    "an own ability named as another, in other letters": (
        "ability_names_unique_per_character",
        lambda kara: candidate(kara, name="sARDONIC"),
    ),
    "an own ability named as a sidekick's": (
        None,
        lambda kara: candidate(kara, name="Tracking"),
    ),
    "a flaw named as an own ability": (
        None,
        lambda kara: candidate(kara, name="Riding", kind=AbilityKind.FLAW, rating=0),
    ),
    "a flaw named as another flaw": (
        "flaw_names_unique_per_character",
        lambda kara: candidate(kara, name="greedy", kind=AbilityKind.FLAW, rating=0),
    ),
    "a sidekick's ability named as another of its own": (
        "follower_ability_names_unique",
        lambda kara: candidate(kara, name="FIERCE", follower=kara.followers.get()),
    ),
    "a sidekick's ability named as its owner's": (
        None,
        lambda kara: candidate(kara, name="Riding", follower=kara.followers.get()),
    ),
    "a second defining ability": (
        "one_ability_per_creation_role",
        lambda kara: candidate(kara, creation_role=CreationRole.DEFINING),
    ),
    "a breakout under no keyword": (
        "breakouts_have_a_keyword_keywords_do_not",
        lambda kara: candidate(kara, kind=AbilityKind.BREAKOUT, rating=2),
    ),
    "a keyword under a keyword": (
        "breakouts_have_a_keyword_keywords_do_not",
        lambda kara: candidate(kara, kind=AbilityKind.KEYWORD, keyword=ability(kara, "Mercenary")),
    ),
    "a standalone ability with a relationship kind": (
        "only_relationships_have_a_relationship_kind",
        lambda kara: candidate(kara, relationship="contact"),
    ),
    "a breakout under a keyword": (
        None,
        lambda kara: candidate(
            kara, kind=AbilityKind.BREAKOUT, rating=2, keyword=ability(kara, "Mercenary")
        ),
    ),
}


def test_every_constraint_of_the_table_but_its_key_is_checked_in_memory():
    names = {constraint.name for constraint in Ability._meta.constraints}
    assert names - Ability.CHECKED_IN_MEMORY == {"ability_id_character"}
    assert names >= Ability.CHECKED_IN_MEMORY


@pytest.mark.parametrize("case", CASES)
def test_the_memory_refuses_what_the_database_refuses(sheet, case):
    broken, build = CASES[case]
    row = build(sheet)
    found = row.constraint_violations(list(sheet.abilities.all()))
    if broken is None:
        assert found == []
        with transaction.atomic():
            row.save()
        assert sheet.abilities.filter(pk=row.pk).exists()
        return
    (constraint,) = [c for c in Ability._meta.constraints if c.name == broken]
    assert found == [str(constraint.get_violation_error_message())]
    with pytest.raises(IntegrityError) as refused, transaction.atomic():
        row.save()
    if connection.vendor == "postgresql":  # SQLite names the columns, not the constraint
        assert broken in str(refused.value)


def test_a_row_is_not_its_own_clash(sheet):
    """Renaming an ability to its own name in other letters (its row is among the rows)."""
    rows = list(sheet.abilities.all())
    riding = next(row for row in rows if row.name == "Riding")
    riding.name = "RIDING"
    assert riding.constraint_violations(rows) == []


def test_adding_a_clashing_ability_is_refused_with_the_constraints_words(sheet, alice):
    count = sheet.abilities.count()
    with pytest.raises(ValidationError) as refused:
        services.character_ability_add(character=sheet, actor=alice, name=" haggling ", rating=13)
    assert refused.value.messages == ["This character already has an ability with that name."]
    assert sheet.abilities.count() == count


def test_adding_an_ability_asks_the_database_only_for_the_sheet(
    sheet, alice, django_assert_max_num_queries
):
    """The lock, the sheet's rows before and after, the ability, the ledger: no query a
    constraint (there were a dozen, each in a savepoint)."""
    services.character_ability_remove(
        character=sheet, actor=alice, ability=ability(sheet, "Languages")
    )
    with django_assert_max_num_queries(12):
        services.character_ability_add(character=sheet, actor=alice, name="Fishing", rating=13)
    assert sheet.abilities.filter(name="Fishing").exists()
