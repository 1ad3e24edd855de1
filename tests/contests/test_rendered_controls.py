"""The contest panel's action forms come from `available_actions`: for each audience,
the forms rendered (`<input name="action" value=...>`) are exactly the actions the flow
offers the GM, each player (in their own copy) or nobody (spectators, and the public
copy a player without forms reads).

One-on-one kinds, played through their phases at a live table. The GM's copy also has
the table's own undo, which is the service's and not a flow action."""

from __future__ import annotations

import re

import pytest

from characters.models import Character
from contests.core.table import Actor, load_flow
from contests.live import render_contest
from tests.table import ability

FORM = re.compile(
    r'<form(?P<attrs>[^>]*)>\s*<input type="hidden" name="action" value="(?P<action>[^"]+)"'
)


def forms(html: str) -> list[str]:
    """The action of every action form."""
    return [match.group("action") for match in FORM.finditer(html)]


def offered(contest, actor: Actor) -> set[str]:
    contest.refresh_from_db()
    points = dict(
        Character.objects.filter(campaign_id=contest.campaign_id).values_list("id", "hero_points")
    )
    return {a.action for a in load_flow(contest.state).available_actions(actor, points)}


def check(contest, players) -> None:
    """Each audience's copy shows exactly what the flow offers it."""
    contest.refresh_from_db()
    gm = forms(render_contest(contest, "gm"))
    expected = offered(contest, Actor(user_id=0, role="gm"))
    if contest.seq > 1:
        expected.add("undo")
    assert set(gm) == expected

    for user, characters in players:
        actor = Actor(user_id=user.pk, role="player", character_ids=frozenset(characters))
        mine = set(forms(render_contest(contest, "player", reader=user.pk)))
        assert mine == offered(contest, actor), (user, contest.state["phase"])

    assert forms(render_contest(contest, "spectator")) == []
    assert forms(render_contest(contest, "player")) == []  # the public copy


@pytest.fixture
def cast(alice, bob, tamsin, brannoc):
    return [(alice, [tamsin.pk]), (bob, [brannoc.pk])]


@pytest.mark.parametrize("kind", ["simple", "scored", "chained", "automatic"])
def test_a_contest_shows_each_audience_its_actions(table, session, gm, alice, tamsin, cast, kind):
    contest = table.frame(kind, pc=tamsin)
    check(contest, cast)
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "modifier", side="pc", kind="situational", value=-3)
    check(contest, cast)
    if kind == "automatic":
        table.act(contest, gm, "automatic_victory")
        check(contest, cast)
        return
    table.act(contest, gm, "roll", rolls=(9, 13))
    check(contest, cast)
    table.act(contest, alice, "hero_point", side="pc", rolls=(9,))
    check(contest, cast)
    table.act(contest, gm, "resolve")
    check(contest, cast)
    contest.refresh_from_db()
    if contest.state["phase"] == "resolved":
        table.act(contest, gm, "apply_consequences")
        check(contest, cast)


def test_a_pc_against_pc_contest_shows_both_players_their_sides(
    table, session, gm, alice, bob, tamsin, brannoc, cast
):
    contest = table.frame("simple", pc=tamsin, opponent={"character_id": brannoc.pk})
    check(contest, cast)
    table.act(
        contest,
        bob,
        "choose_ability",
        side="opponent",
        ability_id=ability(brannoc, "Temple singer").pk,
    )
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    check(contest, cast)
    table.act(contest, gm, "roll", rolls=(9, 13))
    check(contest, cast)


def test_an_extended_contest_shows_bids_and_gifts(table, session, gm, alice, tamsin, cast):
    boatcraft = ability(tamsin, "Boatcraft")
    contest = table.frame(
        "extended",
        pc={"character_id": tamsin.pk, "ability_id": boatcraft.pk},
        opponent={"name": "Raiders", "rating": "14"},
    )
    check(contest, cast)
    table.act(contest, alice, "bid", bid=3)
    check(contest, cast)
    table.act(contest, gm, "roll", rolls=(9, 13))
    check(contest, cast)
    table.act(contest, gm, "resolve")
    check(contest, cast)


# -- group contests: the same principle, each participant's forms under their panel ------


def group(table, kind, participants, **extra):
    return table.frame(kind, prize="hold the causeway", participants=participants, **extra)


def sheet(character, name):
    return {"character_id": character.pk, "ability_id": ability(character, name).pk}


def test_a_group_simple_contest_shows_each_audience_its_actions(
    table, session, gm, alice, bob, tamsin, brannoc, cast
):
    contest = group(
        table,
        "group_simple",
        [
            {"character_id": tamsin.pk},
            sheet(brannoc, "Temple singer"),
            {"name": "The Grey River", "level": "high"},
        ],
    )
    check(contest, cast)
    table.act(
        contest,
        alice,
        "choose_ability",
        participant="Tamsin",
        ability_id=ability(tamsin, "Boatcraft").pk,
    )
    table.act(contest, alice, "boost", participant="Tamsin")
    table.act(contest, gm, "modifier", participant="Tamsin", kind="situational", value=3)
    check(contest, cast)
    table.act(contest, gm, "roll", rolls=(10, 15, 5, 18))
    check(contest, cast)
    table.act(contest, alice, "hero_point", participant="Tamsin")
    check(contest, cast)
    table.act(contest, gm, "resolve")
    check(contest, cast)
    table.act(contest, gm, "apply_consequences")
    check(contest, cast)


def test_a_group_scored_contest_shows_each_audience_its_actions(
    table, session, gm, alice, bob, tamsin, brannoc, cast
):
    contest = group(
        table,
        "group_scored",
        [
            sheet(tamsin, "Boatcraft"),
            sheet(brannoc, "Temple singer"),
            {"name": "Oro", "rating": 13, "side": "pc", "role": "supporter", "owner": "Tamsin"},
            {"name": "Raider", "rating": 14},
            {"name": "Chief", "rating": 15},
        ],
    )
    check(contest, cast)
    table.act(contest, gm, "engage", pc="Tamsin", opponent="Raider")
    table.act(contest, gm, "engage", pc="Brannoc", opponent="Chief")
    check(contest, cast)
    table.act(contest, gm, "play_round", rolls=(5, 16), pairing=1)
    check(contest, cast)
    table.act(contest, gm, "resolve")
    check(contest, cast)
    table.act(contest, alice, "assist", rolls=(3, 17), participant="Oro", recipient="Tamsin")
    check(contest, cast)


def test_a_group_extended_contest_shows_each_audience_its_actions(
    table, session, gm, alice, bob, tamsin, brannoc, cast
):
    contest = group(
        table,
        "group_extended",
        [
            sheet(tamsin, "Boatcraft"),
            sheet(brannoc, "Temple singer"),
            {"name": "Chief", "rating": 15},
        ],
    )
    check(contest, cast)
    table.act(contest, alice, "declare", participant="Tamsin", targets="Chief", bid=2)
    table.act(contest, bob, "declare", participant="Brannoc", targets="Chief", bid=4)
    check(contest, cast)
    table.act(contest, gm, "declare", participant="Chief", targets="Brannoc", bid=6)
    check(contest, cast)
    table.act(contest, gm, "act", rolls=(13, 11), participant="Chief")
    check(contest, cast)
    table.act(contest, gm, "resolve")
    check(contest, cast)
