"""A contest of every kind, played through the services as the table's actions do
(`scripts`), on sheets that hold what the contests never use (`sheets`, a fixture of
tests/contests/conftest.py): the socket tests of issue 27 and the recap's of issue 30."""

from __future__ import annotations

from characters.models import Ability, AbilityKind
from tests.table import ability

# Never used in a contest: only a pick list of their player's forms names them.
PRIVATE = {
    "alice": ("Lockpicking of Ys", "Fear of Deep Water"),
    "bob": ("Ledger of Old Debts", "Dread of Horses"),
}


def give_sheets(tamsin, brannoc):
    """Each character's private ability (with a rating) and flaw, and hero points for
    the evening."""
    for character, (private, flaw) in ((tamsin, PRIVATE["alice"]), (brannoc, PRIVATE["bob"])):
        character.hero_points = 9
        character.save(update_fields=["hero_points"])
        Ability.objects.create(character=character, name=private, rating=16)
        Ability.objects.create(character=character, name=flaw, kind=AbilityKind.FLAW, rating=14)
    return {"tamsin": tamsin, "brannoc": brannoc}


def scripts(table, sheets):
    """(kind, framing, steps) for every kind of contest; a step is (who, action,
    rolls, data), played in order. Read from the database: call it synchronously."""
    tamsin, brannoc = sheets["tamsin"], sheets["brannoc"]
    boatcraft = ability(tamsin, "Boatcraft").pk
    sharp_eyes = ability(tamsin, "Sharp eyes").pk
    singer = ability(brannoc, "Temple singer").pk
    river = {"name": "The Grey River", "level": "moderate"}
    raiders = {"name": "Raiders", "rating": "14"}

    def one_on_one(kind, opponent=raiders):
        return {"kind": kind, "pc": tamsin, "opponent": opponent, "prize": "the ford"}

    def group(kind, *others, **extra):
        both = [{"character_id": tamsin.pk}, {"character_id": brannoc.pk}]
        return {"kind": kind, "prize": "the causeway", "participants": [*both, *others], **extra}

    choose_both = [
        ("alice", "choose_ability", (), {"participant": "Tamsin", "ability_id": boatcraft}),
        ("bob", "choose_ability", (), {"participant": "Brannoc", "ability_id": singer}),
    ]
    rounds = [("gm", "roll", (1, 20), {}), ("gm", "resolve", (), {})]
    return [
        (
            "simple",
            one_on_one("simple", river),
            [
                ("alice", "choose_ability", (), {"side": "pc", "ability_id": boatcraft}),
                (
                    "bob",
                    "augment",
                    (),
                    {"side": "pc", "kind": "quick", "helper_ability_id": singer},
                ),
                (
                    "alice",
                    "augment",
                    (4, 15),
                    {"side": "pc", "kind": "rolled", "ability": "Sharp eyes", "rating": 15},
                ),
                ("gm", "roll", (9, 13), {}),
                ("alice", "hero_point", (), {"side": "pc"}),
                ("gm", "resolve", (), {}),
            ],
        ),
        (
            "automatic",
            one_on_one("automatic", river),
            [
                ("alice", "choose_ability", (), {"side": "pc", "ability_id": sharp_eyes}),
                ("gm", "automatic_victory", (), {}),
                ("gm", "apply_consequences", (), {}),
            ],
        ),
        (
            "scored",
            one_on_one("scored"),
            [
                ("alice", "choose_ability", (), {"side": "pc", "ability_id": boatcraft}),
                ("gm", "roll", (9, 13), {}),
                ("alice", "hero_point", (), {"side": "pc"}),
                ("gm", "resolve", (), {}),
                *rounds,
            ],
        ),
        (
            "extended",
            one_on_one("extended", {"character_id": brannoc.pk}),
            [
                ("bob", "choose_ability", (), {"side": "opponent", "ability_id": singer}),
                ("alice", "choose_ability", (), {"side": "pc", "ability_id": boatcraft}),
                ("alice", "bid", (), {"bid": 3}),
                ("gm", "roll", (9, 13), {}),
                ("bob", "hero_point", (), {"side": "opponent"}),
                ("gm", "resolve", (), {}),
                ("bob", "bid", (), {"bid": 2}),
                ("gm", "roll", (10, 10), {}),
            ],
        ),
        (
            "chained",
            one_on_one("chained"),
            [
                ("alice", "choose_ability", (), {"side": "pc", "ability_id": boatcraft}),
                ("gm", "roll", (9, 13), {}),
                ("alice", "hero_point", (), {"side": "pc"}),
                ("gm", "resolve", (), {}),
                ("gm", "roll", (5, 16), {}),
                ("gm", "resolve", (), {}),
            ],
        ),
        (
            "group_simple",
            group("group_simple", {"name": "The Grey River", "level": "high"}),
            [
                *choose_both,
                ("alice", "boost", (), {"participant": "Tamsin"}),
                ("gm", "roll", (10, 15, 5, 18), {}),
                ("alice", "hero_point", (), {"participant": "Tamsin"}),
                ("gm", "resolve", (), {}),
            ],
        ),
        (
            "group_scored",
            group(
                "group_scored", {"name": "Raider", "rating": 14}, {"name": "Chief", "rating": 15}
            ),
            [
                *choose_both,
                ("gm", "engage", (), {"pc": "Tamsin", "opponent": "Raider"}),
                ("gm", "engage", (), {"pc": "Brannoc", "opponent": "Chief"}),
                ("gm", "play_round", (5, 16), {"pairing": 1}),
                ("alice", "hero_point", (), {"participant": "Tamsin"}),
                ("gm", "resolve", (), {}),
            ],
        ),
        (
            "group_extended",
            group("group_extended", {"name": "Chief", "rating": 15}),
            [
                *choose_both,
                ("alice", "declare", (), {"participant": "Tamsin", "targets": "Chief", "bid": 2}),
                ("bob", "declare", (), {"participant": "Brannoc", "targets": "Chief", "bid": 4}),
                ("gm", "declare", (), {"participant": "Chief", "targets": "Brannoc", "bid": 6}),
                ("gm", "act", (1, 20), {"participant": "Chief"}),
                ("gm", "resolve", (), {}),
            ],
        ),
    ]
