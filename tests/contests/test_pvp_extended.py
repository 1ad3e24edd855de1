"""R18.8 (§2.3.1.2): two PCs in a one-on-one extended contest, played through the
services as the table does. Tamsin (Boatcraft 17) against Brannoc (Temple singer 7M):
each player acts for their own character only, both spend their own hero points,
both may stake more than they hold (§5.3.6), and each takes a consequence."""

from __future__ import annotations

import pytest

from contests.models import ContestStatus

from .conftest import ability

pytestmark = pytest.mark.django_db


@pytest.fixture
def duel(table, session, gm, alice, tamsin, brannoc):
    contest = table.frame(
        "extended", pc=tamsin, opponent={"character_id": brannoc.pk}, prize="the ferry"
    )
    table.act(
        contest,
        brannoc.player,
        "choose_ability",
        side="opponent",
        ability_id=ability(brannoc, "Temple singer").pk,
    )
    return table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )


def engine(contest):
    return contest.state["machine"]["state"]


def test_the_pc_opponent_spends_its_own_hero_point_on_its_roll(table, gm, alice, brannoc, duel):
    bob = brannoc.player
    before = brannoc.hero_points
    table.act(duel, alice, "bid", bid=3)
    # Tamsin's success v Brannoc's fumble, which his mastery bumps to a failure.
    table.act(duel, gm, "roll", rolls=(5, 20))
    assert duel.state["pending"]["outcome"]["opponent_result"] == "failure"
    table.refused(duel, alice, "hero_point", "only Brannoc's player or the GM", side="opponent")
    table.act(duel, bob, "hero_point", side="opponent")
    assert duel.state["pending"]["outcome"]["opponent_result"] == "success"
    table.act(duel, gm, "resolve")
    exchange = engine(duel)["exchanges"][-1]
    assert (exchange["defender_result"], exchange["opponent_hero_point"]) == ("success", True)
    assert engine(duel)["opponent"]["hero_points_spent"] == 1
    brannoc.refresh_from_db()
    assert brannoc.hero_points == before - 1


def test_each_pc_may_stake_up_to_its_starting_ap_5_3_6(table, gm, alice, brannoc, duel):
    table.act(duel, alice, "bid", bid=3)
    table.act(duel, gm, "roll", rolls=(1, 20))  # Tamsin's critical v Brannoc's failure
    table.act(duel, gm, "resolve")
    assert engine(duel)["turn"] == "opponent"
    held = engine(duel)["opponent_ap"]
    starting = engine(duel)["opponent"]["starting_ap"]
    assert held < starting
    # A desperation stake: more than Brannoc holds is refused only past his starting AP.
    table.refused(duel, brannoc.player, "bid", "a bid is 1 to", bid=starting + 1)
    table.act(duel, brannoc.player, "bid", bid=starting)
    table.refused(duel, alice, "bid", "Brannoc", bid=1)


def test_both_pcs_are_offered_their_state_when_it_ends(table, gm, alice, brannoc, duel):
    while duel.status == ContestStatus.RUNNING:
        if duel.state["machine"] and engine(duel)["turn"] == "opponent":
            table.act(duel, brannoc.player, "bid", bid=1)
        # Tamsin's critical v Brannoc's fumble (a failure with his mastery), each turn.
        table.act(duel, gm, "roll", rolls=(1, 20))
        table.act(duel, gm, "resolve")
    assert duel.winner == "pc"
    suggested = {s["side"]: s["state"] for s in duel.state["suggested"]}
    # The loser's consequence and the winner's benefit for the level of victory: 17
    # beat 7M (27), no clearly inferior opponent (R10).
    degree = duel.degree
    assert suggested == {
        "opponent": {"marginal": "hurt", "minor": "impaired", "major": "injured"}.get(
            degree, "dying"
        ),
        "pc": {"marginal": "fresh", "minor": "pumped", "major": "invigorated"}.get(
            degree, "heroic"
        ),
    }
