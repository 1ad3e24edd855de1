"""Export a character as JSON and import it back: the same sheet comes back, and a bad
file says what is wrong and creates nothing."""

from __future__ import annotations

import copy
import html
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from characters import services
from characters.models import Ability, Character, Follower, LedgerStep
from characters.selectors import character_export
from contests.core.rules.advancement import AdvanceChoice

from .conftest import ability

pytestmark = pytest.mark.django_db


@pytest.fixture
def rich_kara(kara, gm):
    """Kara after some play: a retainer, experience, an advance that made Tough a keyword
    with a breakout, and a catch-up still on offer."""
    services.character_follower_add(character=kara, actor=kara.player, name="Camel Drivers")
    Character.objects.filter(pk=kara.pk).update(experience_points=14, notes="Owes the Salt King.")
    kara.refresh_from_db()
    services.character_advance_buy(
        character=kara,
        actor=kara.player,
        first=AdvanceChoice("plus_9", "Riding"),
        second=AdvanceChoice("new_keyword", "Tough", breakout="Iron Stomach"),
    )
    kara.refresh_from_db()
    return kara


def upload(client, data, name="kara.json"):
    body = data if isinstance(data, bytes) else json.dumps(data).encode()
    response = client.post(
        reverse("characters:import"), {"file": SimpleUploadedFile(name, body)}, follow=True
    )
    return response, html.unescape(response.content.decode())


def test_an_export_imports_back_as_the_same_sheet(client, rich_kara, alice):
    client.force_login(alice)
    response = client.get(reverse("characters:export", args=[rich_kara.pk]))
    assert response["Content-Disposition"] == 'attachment; filename="kara.json"'
    exported = json.loads(response.content)
    assert exported["catch_ups"] == [{"ability": "Riding", "rating": 24}]
    response, page = upload(client, exported)
    copy_of_kara = Character.objects.exclude(pk=rich_kara.pk).get()
    assert response.redirect_chain[-1][0] == reverse("characters:sheet", args=[copy_of_kara.pk])
    assert "Kara is imported." in page
    assert character_export(copy_of_kara) == exported
    assert (copy_of_kara.player, copy_of_kara.campaign) == (alice, None)
    assert ability(copy_of_kara, "Iron Stomach").keyword == ability(copy_of_kara, "Tough")
    step = LedgerStep.objects.filter(character=copy_of_kara).get()
    assert step.reason == "import" and step.entries.count() == 15  # 13 abilities, HP, XP


def test_a_sidekick_and_flaws_travel_too(alice, build_kara):
    kara = build_kara(finish=False)
    services.character_ability_remove(character=kara, actor=alice, ability=ability(kara, "Wary"))
    services.character_sidekick_set(
        character=kara,
        actor=alice,
        name="Rex",
        abilities=[
            ("Loyal Dog", 26, "keyword"),
            ("Tracking", 18, "standalone"),
            ("Fierce", 13, "standalone"),
        ],
    )
    services.character_ability_add(character=kara, actor=alice, name="Greedy", kind="flaw")
    exported = character_export(kara)
    again = services.character_import(player=alice, data=copy.deepcopy(exported))
    assert character_export(again) == exported
    assert [a.name for a in again.followers.get().abilities.all()] == [
        "Loyal Dog",
        "Tracking",
        "Fierce",
    ]


def broken(exported, change):
    data = copy.deepcopy(exported)
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="something else"), "This is not a character export"),
        (lambda d: d.update(version=2), "this site reads version 1"),
        (lambda d: d.update(hero_points=-1), "Ensure this value is greater than or equal to 0."),
        (
            lambda d: d.update(hero_points="three"),
            "hero_points must be a whole number, not 'three'",
        ),
        (
            lambda d: d["abilities"][2].update(keyword="Priest"),
            "Swordplay sits under 'Priest', which is not one of the keywords (§3.3).",
        ),
        (
            lambda d: d["abilities"][3].update(name="Swordplay"),
            "This character already has an ability with that name.",
        ),
        (
            lambda d: d["abilities"][3].update(rating=True),
            "ability 4: rating must be a whole number",
        ),
        (
            lambda d: (
                d["followers"].append({"kind": "sidekick", "name": "Rex"})
                or d["followers"].append({"kind": "sidekick", "name": "Oro"})
            ),
            "A character has one sidekick at most (§6.5.1).",
        ),
        (
            lambda d: d["catch_ups"].append({"ability": "Juggling", "rating": 21}),
            "names none of the abilities",
        ),
        (
            lambda d: d.update(creation_complete=False) or d["abilities"][3].update(rating=30),
            "§3.2: Riding has 17 extra points; at most 10 on one ability",
        ),
    ],
)
def test_a_bad_file_says_what_is_wrong_and_creates_nothing(client, kara, alice, change, message):
    client.force_login(alice)
    exported = character_export(kara)
    before = (Character.objects.count(), Ability.objects.count(), Follower.objects.count())
    response, page = upload(client, broken(exported, change))
    assert response.status_code == 400  # the form comes back with what is wrong
    assert message in page
    assert (Character.objects.count(), Ability.objects.count(), Follower.objects.count()) == before


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            b"{not json",
            "The file is not valid JSON: Expecting property name enclosed in double quotes "
            "at line 1, column 2.",
        ),
        (b"\xff\xfe", "The file is not text (UTF-8 JSON)."),
        (b"[1, 2]", "This is not a character export"),
    ],
)
def test_a_file_that_is_not_an_export_is_refused(client, alice, body, message):
    client.force_login(alice)
    response, page = upload(client, body)
    assert message in page
    assert not Character.objects.exists()
