"""A sidekick in play (§6.5.2): lost to a defeat, kept on record; a new one made without
a hero point, or a retainer promoted, with §6.5.1's abilities as the engine checks them
at creation; each a ledger step the GM may undo; only the player or the GM."""

from __future__ import annotations

import html

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from characters import services
from characters.forms import ConditionForm
from characters.models import Follower, LedgerStep
from characters.selectors import character_export

from .conftest import REX
from .test_sheet import big_sheet

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}

MIRA = [("Sneak Thief", 24, "keyword"), ("Climbing", 20, "standalone"), ("Lucky", 13, "standalone")]


def rex_of(kara):
    return kara.followers.get(name="Rex")


def lose_rex(kara, actor, reason="killed by the salt wyrm"):
    return services.character_sidekick_lose(
        character=kara, actor=actor, follower=rex_of(kara), reason=reason
    )


def replace(kara, actor, abilities=MIRA, **changes):
    fields = {"name": "Mira", "origin": "Rex's killer's own thief, turned by kindness"}
    return services.character_sidekick_replace(
        character=kara, actor=actor, abilities=abilities, **{**fields, **changes}
    )


def text(response) -> str:
    return html.unescape(response.content.decode())


# --------------------------------------------------------------------- losing


def test_a_lost_sidekick_stays_on_record_with_its_reason(client, alice, kara_with_rex):
    kara = kara_with_rex
    rex = lose_rex(kara, alice)
    rex.refresh_from_db()
    assert rex.lost_at is not None and rex.lost_reason == "killed by the salt wyrm"
    assert rex.abilities.count() == 3  # kept for history
    step = kara.ledger.first()
    assert (step.reason, step.note) == ("sidekick_lost", "Rex lost: killed by the salt wyrm")
    assert [(e.ability_name, e.before, e.after) for e in step.entries.all()] == [
        ("Rex: Loyal Dog", 26, None),
        ("Rex: Tracking", 18, None),
        ("Rex: Fierce", 13, None),
    ]
    client.force_login(alice)
    sheet = text(client.get(reverse("characters:sheet", args=[kara.pk])))
    assert "Sidekick <strong>Rex</strong>, lost: killed by the salt wyrm" in sheet
    assert "Sidekick: Rex" not in sheet  # its abilities are no longer shown as yours
    assert "Loyal Dog" not in sheet.split('id="followers-heading"')[0]


def test_losing_needs_a_reason_and_play(alice, kara_with_rex, build_kara):
    kara = kara_with_rex
    with pytest.raises(ValidationError, match="§6.5.2: say how Rex was lost"):
        lose_rex(kara, alice, reason="  ")
    lose_rex(kara, alice)
    with pytest.raises(ValidationError, match="Rex is already lost"):
        lose_rex(kara, alice)
    retainer = services.character_follower_add(character=kara, actor=alice, name="Camel Drivers")
    with pytest.raises(ValidationError, match="not this character's sidekick"):
        services.character_sidekick_lose(
            character=kara, actor=alice, follower=retainer, reason="fled"
        )


def test_a_lost_sidekicks_abilities_are_offered_nowhere(gm, alice, kara_with_rex):
    kara = kara_with_rex
    offered = lambda: {a.name for a in ConditionForm(character=kara).fields["abilities"].queryset}  # noqa: E731
    assert "Loyal Dog" in offered()
    lose_rex(kara, alice)
    assert "Loyal Dog" not in offered() and "Riding" in offered()
    exported = character_export(kara)
    assert exported["followers"][0]["lost_reason"] == "killed by the salt wyrm"


def test_the_lose_form_refuses_a_blank_reason_and_changes_nothing(client, alice, kara_with_rex):
    kara = kara_with_rex
    client.force_login(alice)
    url = reverse("characters:sidekick_lose", args=[kara.pk, rex_of(kara).pk])
    page = text(client.post(url, {"reason": ""}, headers=HTMX))
    assert "This field is required." in page
    assert rex_of(kara).lost_at is None
    page = text(client.post(url, {"reason": "left to wed a miller"}, headers=HTMX))
    assert "Rex is lost: left to wed a miller." in page


# --------------------------------------------------------------------- replacing


def test_a_new_sidekick_costs_no_hero_point(alice, kara_with_rex):
    kara = kara_with_rex
    hero_points = kara.hero_points
    lose_rex(kara, alice)
    mira = replace(kara, alice)
    kara.refresh_from_db()
    assert kara.hero_points == hero_points
    assert (mira.kind, mira.lost, mira.origin) == (
        "sidekick",
        False,
        "Rex's killer's own thief, turned by kindness",
    )
    assert [(a.name, a.rating, a.kind) for a in mira.abilities.all()] == MIRA
    step = kara.ledger.first()
    assert step.reason == "sidekick_new"
    assert [(e.ability_name, e.before, e.after) for e in step.entries.all()] == [
        ("Mira: Sneak Thief", None, 24),
        ("Mira: Climbing", None, 20),
        ("Mira: Lucky", None, 13),
    ]


@pytest.mark.parametrize(
    ("abilities", "changes", "message"),
    [
        (MIRA[:2], {}, "§6.5.1: a sidekick starts with three abilities; Mira has 2"),
        (
            [MIRA[0], ("Climbing", 19, "standalone"), MIRA[2]],
            {},
            "§6.5.1: Mira: you spent 14 of 15 points; allocate them all",
        ),
        (
            [*MIRA[:2], ("Lucky", 14, "standalone")],
            {},
            "§6.5.1: Mira: you spent 16 of 15 points",
        ),
        (
            [("Sneak Thief", 27, "keyword"), ("Climbing", 17, "standalone"), MIRA[2]],
            {},
            "§6.5.1: Mira's Sneak Thief has 11 extra points; at most 10 on one ability",
        ),
        (
            [("Sneak Thief", 30, "keyword"), ("Climbing", 12, "standalone"), MIRA[2]],
            {},
            "§6.5.1: Mira's Climbing is rated 12 but starts at 13; points only raise ratings",
        ),
        (
            [*MIRA[:2], ("Lucky", 14, "breakout")],
            {},
            "Mira's abilities are standalone abilities or keywords (§6.5.1).",
        ),
        (MIRA, {"origin": " "}, "§6.5.2: explain how Mira has come to be your new follower."),
    ],
)
def test_a_new_sidekick_follows_6_5_1_or_nothing_changes(
    alice, kara_with_rex, abilities, changes, message
):
    kara = kara_with_rex
    lose_rex(kara, alice)
    steps = kara.ledger.count()
    with pytest.raises(ValidationError) as refused:
        replace(kara, alice, abilities, **changes)
    assert message in refused.value.messages
    assert list(kara.followers.values_list("name", flat=True)) == ["Rex"]
    assert kara.ledger.count() == steps


def test_no_new_sidekick_while_one_serves_nor_during_creation(alice, kara_with_rex, build_kara):
    with pytest.raises(ValidationError, match="§6.5.1: Rex is still your sidekick"):
        replace(kara_with_rex, alice)
    in_creation = build_kara(finish=False)
    with pytest.raises(ValidationError, match="During creation the sidekick is written"):
        replace(in_creation, alice)


def test_a_new_sidekick_takes_a_name_no_follower_has(alice, kara_with_rex):
    """A lost sidekick keeps its name: the sheet, the ledger and the campaign export tell
    followers (and their abilities) apart by it."""
    lose_rex(kara_with_rex, alice)
    with pytest.raises(ValidationError, match="already has a follower named Rex"):
        replace(kara_with_rex, alice, name="rex")
    assert kara_with_rex.followers.filter(kind="sidekick").count() == 1
    assert replace(kara_with_rex, alice, name="Rex the Second").name == "Rex the Second"


def test_the_sheet_form_names_the_rule_and_changes_nothing(client, alice, kara_with_rex):
    kara = kara_with_rex
    lose_rex(kara, alice)
    client.force_login(alice)
    sheet = text(client.get(reverse("characters:sheet", args=[kara.pk])))
    assert "A new sidekick (§6.5.2)" in sheet
    data = {
        "name": "Mira",
        "origin": "turned by kindness",
        "ability_1": "Sneak Thief",
        "rating_1": "24",
        "keyword_1": "on",
        "ability_2": "Climbing",
        "rating_2": "20",
        "ability_3": "Lucky",
        "rating_3": "14",
    }
    url = reverse("characters:sidekick_new", args=[kara.pk])
    page = text(client.post(url, data, headers=HTMX))
    assert "§6.5.1: Mira: you spent 16 of 15 points" in page
    assert not kara.followers.filter(name="Mira").exists()
    page = text(client.post(url, {**data, "origin": ""}, headers=HTMX))
    assert "This field is required." in page
    page = text(client.post(url, {**data, "rating_3": "13"}, headers=HTMX))
    assert "Mira is your sidekick now; no hero point spent." in page
    assert kara.followers.get(name="Mira").abilities.get(name="Sneak Thief").kind == "keyword"


# --------------------------------------------------------------------- promoting


def test_a_retainer_is_promoted_to_sidekick(client, alice, kara_with_rex):
    kara = kara_with_rex
    drivers = services.character_follower_add(character=kara, actor=alice, name="Camel Drivers")
    lose_rex(kara, alice)
    client.force_login(alice)
    url = reverse("characters:sidekick_new", args=[kara.pk])
    form = text(client.get(f"{url}?retainer={drivers.pk}", headers=HTMX))
    assert "Promote Camel Drivers to sidekick (§6.5.2)" in form
    assert 'value="Camel Drivers"' in form
    data = {
        "retainer": drivers.pk,
        "name": "Hasim",
        "origin": "the eldest driver, who pulled Kara from the wyrm's pit",
        "ability_1": "Camel Driver",
        "rating_1": "26",
        "keyword_1": "on",
        "ability_2": "Desert Lore",
        "rating_2": "18",
        "ability_3": "Stubborn",
        "rating_3": "13",
    }
    page = text(client.post(url, data, headers=HTMX))
    assert "Hasim is your sidekick now; no hero point spent." in page
    drivers.refresh_from_db()
    assert (drivers.kind, drivers.name) == ("sidekick", "Hasim")
    assert drivers.abilities.count() == 3
    step = kara.ledger.first()
    assert step.reason == "promotion"
    assert step.entries.first().note == "retainer → sidekick (§6.5.2)"


def test_only_a_retainer_of_this_character_is_promoted(alice, kara_with_rex, build_kara):
    kara = kara_with_rex
    lose_rex(kara, alice)
    with pytest.raises(ValidationError, match="not one of this character's retainers"):
        services.character_retainer_promote(
            character=kara,
            actor=alice,
            retainer=rex_of(kara),
            name="Rex",
            origin="back from the dead",
            abilities=REX,
        )


# --------------------------------------------------------------------- the constraint


def test_two_sidekicks_in_service_are_refused_by_the_database(alice, kara_with_rex):
    kara = kara_with_rex
    with pytest.raises(IntegrityError), transaction.atomic():
        Follower.objects.create(owner=kara, kind=Follower.Kind.SIDEKICK, name="Mira")
    lose_rex(kara, alice)
    Follower.objects.create(owner=kara, kind=Follower.Kind.SIDEKICK, name="Mira")
    assert kara.followers.filter(kind="sidekick").count() == 2


def test_a_lost_follower_has_a_reason_in_the_database(kara_with_rex):
    with pytest.raises(IntegrityError), transaction.atomic():
        Follower.objects.filter(name="Rex").update(lost_at="2025-01-01T00:00:00Z")


def test_a_lost_and_a_new_sidekick_travel_in_the_export(alice, kara_with_rex):
    kara = kara_with_rex
    lose_rex(kara, alice)
    replace(kara, alice)
    copy = services.character_import(player=alice, data=character_export(kara))
    rex, mira = copy.followers.get(name="Rex"), copy.followers.get(name="Mira")
    assert (rex.lost, rex.lost_reason, mira.lost) == (True, "killed by the salt wyrm", False)


# --------------------------------------------------------------------- undo


def test_the_gm_undoes_each_step_while_it_is_the_latest(gm, alice, kara_with_rex):
    kara = kara_with_rex
    drivers = services.character_follower_add(character=kara, actor=alice, name="Camel Drivers")
    lose_rex(kara, alice)
    services.character_retainer_promote(
        character=kara,
        actor=alice,
        retainer=drivers,
        name="Hasim",
        origin="the eldest driver",
        abilities=MIRA,
    )
    assert services.undoable_step(kara).reason == "promotion"
    services.character_step_undo(character=kara, actor=gm)
    drivers.refresh_from_db()
    assert (drivers.kind, drivers.name, drivers.origin) == ("retainer", "Camel Drivers", "")
    assert not drivers.abilities.exists()
    assert services.undoable_step(kara).reason == "sidekick_lost"
    services.character_step_undo(character=kara, actor=gm)
    rex = rex_of(kara)
    assert (rex.lost_at, rex.lost_reason, rex.abilities.count()) == (None, "", 3)
    undo = kara.ledger.first()
    assert undo.reason == "undo"
    assert [(e.ability_name, e.before, e.after) for e in undo.entries.all()] == [
        ("Rex: Loyal Dog", None, 26),
        ("Rex: Tracking", None, 18),
        ("Rex: Fierce", None, 13),
    ]


def test_undoing_a_new_sidekick_removes_it(gm, alice, kara_with_rex):
    kara = kara_with_rex
    lose_rex(kara, alice)
    replace(kara, alice)
    services.character_step_undo(character=kara, actor=gm)
    assert list(kara.followers.values_list("name", flat=True)) == ["Rex"]
    assert not kara.abilities.filter(name="Sneak Thief").exists()
    assert LedgerStep.objects.get(reason="sidekick_new").undone_by == gm


def test_a_later_step_keeps_a_sidekick_step_from_undo(gm, alice, kara_with_rex):
    kara = kara_with_rex
    lose_rex(kara, alice)
    services.character_hero_point_spend(character=kara, actor=alice)
    assert services.undoable_step(kara).reason == "hp_spend"


# --------------------------------------------------------------------- who may


@pytest.fixture
def people(alice, gm, bob, charlie):
    return {"owner": alice, "gm": gm, "member": bob, "outsider": charlie}


@pytest.mark.parametrize(
    ("persona", "status"),
    [("owner", 200), ("gm", 200), ("member", 404), ("outsider", 404)],
)
def test_it_validates_who_may_lose_replace_and_promote(
    client, people, kara_with_rex, persona, status
):
    kara = kara_with_rex
    drivers = services.character_follower_add(character=kara, actor=kara.player, name="Drivers")
    client.force_login(people[persona])
    url = reverse("characters:sidekick_lose", args=[kara.pk, rex_of(kara).pk])
    assert client.post(url, {"reason": "killed"}, headers=HTMX).status_code == status
    assert rex_of(kara).lost == (status == 200)
    new = reverse("characters:sidekick_new", args=[kara.pk])
    assert client.get(f"{new}?retainer={drivers.pk}", headers=HTMX).status_code == status
    data = {"name": "Mira", "origin": "met on the road"}
    data |= {f"ability_{i}": n for i, (n, _, _) in enumerate(MIRA, 1)}
    data |= {f"rating_{i}": str(r) for i, (_, r, _) in enumerate(MIRA, 1)}
    if status == 200:
        lost = kara.followers.get(name="Rex")
        assert client.post(new, data, headers=HTMX).status_code == 200
        assert kara.followers.get(name="Mira").lost_at is None and lost.lost
    else:
        Follower.objects.filter(pk=rex_of(kara).pk).update(
            lost_at="2025-01-01T00:00:00Z", lost_reason="killed"
        )
        assert client.post(new, data, headers=HTMX).status_code == 404
        assert not kara.followers.filter(name="Mira").exists()


@pytest.mark.parametrize("persona", ["owner", "gm", "member"])
def test_the_controls_show_only_to_the_player_and_the_gm(client, people, kara_with_rex, persona):
    kara = kara_with_rex
    services.character_follower_add(character=kara, actor=kara.player, name="Drivers")
    client.force_login(people[persona])
    response = client.get(reverse("characters:sheet", args=[kara.pk]))
    if persona == "member":
        assert response.status_code == 404
        return
    assert "Rex is lost (§6.5.2)" in text(response)
    lose_rex(kara, kara.player)
    sheet = text(client.get(reverse("characters:sheet", args=[kara.pk])))
    assert "A new sidekick (§6.5.2)" in sheet and "Promote to sidekick" in sheet


def test_a_spectator_sees_no_sheet_and_may_do_nothing(client, sam, campaign, kara_with_rex):
    from campaigns.models import Membership, Role

    Membership.objects.get_or_create(campaign=campaign, user=sam, defaults={"role": Role.SPECTATOR})
    client.force_login(sam)
    url = reverse("characters:sidekick_lose", args=[kara_with_rex.pk, rex_of(kara_with_rex).pk])
    assert client.post(url, {"reason": "killed"}).status_code == 404
    assert rex_of(kara_with_rex).lost_at is None


# --------------------------------------------------------------------- the sheet's queries


@pytest.mark.parametrize("persona", ["alice", "gm"])
def test_the_sheet_stays_in_its_query_bound_with_lost_and_new_sidekicks(
    client, alice, gm, campaign, django_assert_max_num_queries, persona
):
    big = big_sheet(alice, campaign)
    rex = big.followers.get(name="Rex")
    services.character_follower_add(character=big, actor=alice, name="Drivers")
    services.character_sidekick_lose(character=big, actor=alice, follower=rex, reason="killed")
    client.force_login({"alice": alice, "gm": gm}[persona])
    url = reverse("characters:sheet", args=[big.pk])
    with django_assert_max_num_queries(12):  # the bound of test_sheet.py
        sheet = text(client.get(url))
    assert "A new sidekick (§6.5.2)" in sheet
    replace(big, alice)
    with django_assert_max_num_queries(12):
        sheet = text(client.get(url))
    assert "Sidekick: Mira" in sheet and "Sidekick <strong>Rex</strong>, lost: killed" in sheet
