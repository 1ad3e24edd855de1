"""The demo campaign's characters have full sheets that the rules engine accepts."""

from __future__ import annotations

import pytest

from campaigns.demo import demo_campaign_create
from characters.models import Character
from characters.translate import creation_problems

pytestmark = pytest.mark.django_db


def test_the_demo_characters_are_finished_and_valid_by_the_rules():
    demo_campaign_create()
    characters = {c.name: c for c in Character.objects.all()}
    assert set(characters) == {"Tamsin Reedwalker", "Brannoc Ironmouth"}
    for character in characters.values():
        abilities = list(character.abilities.all())
        followers = list(character.followers.all())
        problems = creation_problems(character, abilities, followers, finished=True)
        assert [str(p) for p in problems] == [], character.name
        assert character.creation_complete and character.hero_points == 3
    tamsin = characters["Tamsin Reedwalker"]
    assert tamsin.creation_method == "list"
    oro = tamsin.followers.get()
    assert (oro.kind, oro.name, oro.abilities.count()) == ("sidekick", "Oro", 3)
    assert characters["Brannoc Ironmouth"].creation_method == "prose"
