"""Characters' fixtures: sheets built through the services as a player would, for the
personas of tests/conftest.py."""

from __future__ import annotations

import pytest

from characters import services
from characters.models import AbilityKind, CreationRole

# A finished list-method sheet (§3.5): 12 abilities, 20 points, at most 10 on one.
KARA_ABILITIES = [
    # name, kind, rating, keyword, extra
    ("Mercenary", AbilityKind.KEYWORD, 22, None, {"creation_role": CreationRole.DEFINING}),
    ("Sardonic", AbilityKind.STANDALONE, 20, None, {"creation_role": CreationRole.DISTINGUISHING}),
    ("Swordplay", AbilityKind.BREAKOUT, 4, "Mercenary", {}),
    ("Riding", AbilityKind.STANDALONE, 15, None, {}),
    ("Haggling", AbilityKind.STANDALONE, 15, None, {}),
    ("Salt Waste Lore", AbilityKind.STANDALONE, 14, None, {}),
    ("Old Sword", AbilityKind.STANDALONE, 14, None, {}),
    ("Tough", AbilityKind.STANDALONE, 14, None, {}),
    ("Gambling", AbilityKind.STANDALONE, 14, None, {}),
    ("Caravan Guards", AbilityKind.RELATIONSHIP, 13, None, {"relationship": "contact"}),
    ("Languages", AbilityKind.STANDALONE, 13, None, {}),
    ("Wary", AbilityKind.STANDALONE, 13, None, {}),
]


def add_abilities(character, actor, rows=KARA_ABILITIES):
    made = {}
    for name, kind, rating, keyword, extra in rows:
        made[name] = services.character_ability_add(
            character=character,
            actor=actor,
            name=name,
            kind=kind,
            rating=rating,
            keyword=made.get(keyword) if keyword else None,
            **extra,
        )
    return made


def kara_create(*, player, campaign, finish=True, method="list", rows=None):
    """Kara, `player`'s list-method mercenary, built through the services as a player
    builds her; finished unless told otherwise."""
    character = services.character_create(
        player=player,
        name="Kara",
        concept="sardonic ex-mercenary",
        creation_method=method,
        campaign=campaign,
        traits=["scarred cheek", "salt-white hair", "a notched sword"],
    )
    add_abilities(character, player, rows or KARA_ABILITIES)
    if finish:
        services.character_creation_finish(character=character, actor=player)
    character.refresh_from_db()
    return character


@pytest.fixture
def build_kara(alice, campaign):
    """Build Kara, alice's list-method mercenary; finished unless told otherwise."""

    def build(*, finish=True, campaign=campaign, method="list", player=alice, rows=None):
        return kara_create(
            player=player, campaign=campaign, finish=finish, method=method, rows=rows
        )

    return build


@pytest.fixture
def kara(build_kara):
    return build_kara()


def ability(character, name):
    return character.abilities.get(name=name)


REX = [("Loyal Dog", 26, "keyword"), ("Tracking", 18, "standalone"), ("Fierce", 13, "standalone")]


@pytest.fixture
def kara_with_rex(alice, build_kara):
    """Kara in play with her sidekick Rex (the twelfth ability, §3.5)."""
    kara = build_kara(finish=False)
    services.character_ability_remove(character=kara, actor=alice, ability=ability(kara, "Wary"))
    services.character_sidekick_set(character=kara, actor=alice, name="Rex", abilities=REX)
    services.character_creation_finish(character=kara, actor=alice)
    kara.refresh_from_db()
    return kara
