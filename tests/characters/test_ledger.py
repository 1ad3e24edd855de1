"""The ledger: every change to ratings, hero points and XP says who, when and why, shows
on the sheet as history, and the GM undoes the latest step of play or advancement."""

from __future__ import annotations

import html

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from characters import services
from characters.models import AbilityKind, Character, LedgerStep
from contests.core.rules.advancement import AdvanceChoice

from .conftest import ability

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def advance(kara, first, second):
    Character.objects.filter(pk=kara.pk).update(experience_points=10)
    kara.refresh_from_db()
    return services.character_advance_buy(
        character=kara, actor=kara.player, first=first, second=second
    )


def undo(client, kara):
    response = client.post(reverse("characters:undo", args=[kara.pk]), headers=HTMX)
    return html.unescape(response.content.decode())


def test_creation_is_in_the_ledger_from_the_first_hero_points(kara, alice):
    steps = list(LedgerStep.objects.filter(character=kara).order_by("created_at", "id"))
    first = steps[0].entries.get()
    assert (steps[0].reason, steps[0].actor, first.field, first.after) == (
        "creation",
        alice,
        "hero_points",
        3,
    )
    assert first.note == "§2.2, R15: a new character has 3 hero points"
    added = [s.entries.get().ability_name for s in steps[1:]]
    assert added[:3] == ["Mercenary", "Sardonic", "Swordplay"]
    assert len(added) == 12


def test_the_sheet_shows_the_history_with_who_when_and_why(client, kara, gm):
    advance(kara, AdvanceChoice("plus_9", "Riding"), AdvanceChoice("new_ability", "Swimming"))
    client.force_login(gm)
    sheet = html.unescape(client.get(reverse("characters:sheet", args=[kara.pk])).content.decode())
    history = sheet.split('id="history-heading"')[1]
    assert "<strong>Advance</strong>: an advance" in history
    assert "Alice" in history.split("</p>")[0]
    assert "Riding:\n              15 → 4M" in history
    assert "Swimming:\n              new at 13" in history
    assert "§7.1 advance: +9 to a standalone or breakout ability" in history
    assert '<time datetime="' in history


def test_the_gm_undoes_an_advance_while_it_is_the_latest_change(client, kara, gm):
    advance(kara, AdvanceChoice("plus_9", "Riding"), AdvanceChoice("new_ability", "Swimming"))
    client.force_login(gm)
    sheet = client.get(reverse("characters:sheet", args=[kara.pk])).content.decode()
    assert "Undo the latest step: advance (an advance)" in sheet
    assert "Undone." in undo(client, kara)
    kara.refresh_from_db()
    assert (kara.experience_points, kara.catch_ups) == (10, [])
    assert ability(kara, "Riding").rating == 15
    assert not kara.abilities.filter(name="Swimming").exists()
    undone, record = LedgerStep.objects.filter(character=kara).order_by("-id")[:2][::-1]
    assert (record.reason, record.actor) == ("undo", gm)
    assert [(e.ability_name, e.before, e.after) for e in record.entries.all()] == [
        ("", 0, 10),
        ("Riding", 24, 15),
        ("Swimming", 13, None),
        ("Riding", 24, None),  # the catch-up the advance offered goes with it
    ]
    assert (undone.reason, undone.undone_by) == ("advance", gm)


def test_undo_walks_back_one_step_at_a_time(kara, gm):
    advance(
        kara,
        AdvanceChoice("new_keyword", "Riding", breakout="Horse Archery"),
        AdvanceChoice("plus_6", "Tough"),
    )
    services.character_hero_point_spend(character=kara, actor=kara.player)
    services.character_step_undo(character=kara, actor=gm)
    kara.refresh_from_db()
    assert kara.hero_points == 3
    assert ability(kara, "Riding").kind == AbilityKind.KEYWORD
    services.character_step_undo(character=kara, actor=gm)
    assert ability(kara, "Riding").kind == AbilityKind.STANDALONE
    assert not kara.abilities.filter(name="Horse Archery").exists()
    assert ability(kara, "Tough").rating == 14
    with pytest.raises(ValidationError) as refused:
        services.character_step_undo(character=kara, actor=gm)
    assert "only the latest step of play or advancement can be undone" in str(refused.value)


def test_a_step_is_no_longer_undone_once_another_change_follows(build_kara, gm, alice):
    # An as-you-go character changes its sheet after a GM award: the award stays.
    kara = build_kara(method="as_you_go", finish=False)
    services.character_session_start(character=kara, actor=gm)
    services.character_hero_points_award(character=kara, actor=gm, count=2, reason="a duel")
    services.character_ability_remove(character=kara, actor=alice, ability=ability(kara, "Wary"))
    with pytest.raises(ValidationError):
        services.character_step_undo(character=kara, actor=gm)
    kara.refresh_from_db()
    assert kara.hero_points == 6


def test_undoing_a_session_end_gives_the_hero_points_back(kara, gm):
    services.character_session_start(character=kara, actor=gm)
    services.character_session_end(character=kara, actor=gm)
    services.character_step_undo(character=kara, actor=gm)
    kara.refresh_from_db()
    assert (kara.hero_points, kara.experience_points, kara.in_session) == (4, 0, True)


def test_a_catch_up_taken_can_be_undone_and_offered_again(kara, gm):
    advance(kara, AdvanceChoice("plus_9", "Riding"), AdvanceChoice("plus_6", "Tough"))
    riding = ability(kara, "Riding")
    services.character_catch_up_take(
        character=kara, actor=kara.player, trigger=riding, targets=[ability(kara, "Wary")]
    )
    services.character_step_undo(character=kara, actor=gm)
    kara.refresh_from_db()
    assert ability(kara, "Wary").rating == 13
    assert kara.catch_ups == [{"ability": riding.pk, "rating": 24}]


def test_a_lost_sidekick_leaves_with_its_abilities_in_the_ledger(client, alice, build_kara):
    kara = build_kara(finish=False)
    services.character_ability_remove(character=kara, actor=alice, ability=ability(kara, "Wary"))
    rex = services.character_sidekick_set(
        character=kara,
        actor=alice,
        name="Rex",
        abilities=[
            ("Loyal Dog", 26, "keyword"),
            ("Tracking", 18, "standalone"),
            ("Fierce", 13, "standalone"),
        ],
    )
    services.character_creation_finish(character=kara, actor=alice)
    client.force_login(alice)
    client.post(reverse("characters:follower_remove", args=[kara.pk, rex.pk]), headers=HTMX)
    assert not kara.followers.exists()
    assert not kara.abilities.filter(name="Loyal Dog").exists()
    step = LedgerStep.objects.filter(character=kara).first()
    assert (step.reason, step.note) == ("follower", "Rex left")
    assert [(e.ability_name, e.before, e.after) for e in step.entries.all()] == [
        ("Rex: Loyal Dog", 26, None),
        ("Rex: Tracking", 18, None),
        ("Rex: Fierce", 13, None),
    ]
