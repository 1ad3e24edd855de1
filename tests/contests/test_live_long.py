"""Scored, extended and chained contests played through the services (issue 6)."""

from __future__ import annotations

import pytest

from contests.core.table import TableFlow
from contests.models import ContestStatus
from contests.services import ContestError

from .conftest import ability

pytestmark = pytest.mark.django_db


def frame(table, tamsin, kind):
    """Tamsin holds the bridge against Raiders (14)."""
    return table.frame(
        kind, pc=tamsin, prize="hold the bridge", opponent={"name": "Raiders", "rating": "14"}
    )


def play_round(table, contest, gm, pc_roll, opponent_roll):
    table.act(contest, gm, "roll", rolls=(pc_roll, opponent_roll))
    return table.act(contest, gm, "resolve")


def test_a_scored_contest_runs_to_five_rp_and_writes_the_consequence(
    table, session, gm, alice, tamsin
):
    """§5.1, R12: success vs failure is a minor victory (2 RP); first to 5 wins."""
    contest = frame(table, tamsin, "scored")
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    totals = []
    for _ in range(3):
        contest = play_round(table, contest, gm, 5, 16)  # TN 17 success vs TN 14 failure
        totals.append(contest.state["machine"]["state"]["pc"]["points"])
    assert totals == [2, 4, 6]
    assert contest.status == ContestStatus.RESOLVING and contest.winner == "pc"
    assert contest.events.filter(type="resolve").last().payload["totals"] == {
        "Tamsin": 6,
        "Raiders": 0,
    }
    table.act(contest, gm, "apply_consequences")
    assert contest.status == ContestStatus.FINISHED
    assert tamsin.conditions.count() == len(contest.state["applied"])


def test_scored_round_tactics_change_the_points(table, session, gm, alice, tamsin):
    """§5.2.5: a risky gambit that wins scores one more RP."""
    contest = frame(table, tamsin, "scored")
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, alice, "set_tactic", side="pc", tactic="all in", round_tactic="risky_gambit")
    contest = play_round(table, contest, gm, 5, 16)
    assert contest.state["machine"]["state"]["pc"]["points"] == 3
    assert contest.state["sides"]["pc"]["round_tactic"] == "normal"  # one round only


def test_an_extended_contest_spends_ap_by_bids_until_one_side_is_out(
    table, session, gm, alice, tamsin
):
    """§5.3, R13: starting AP = TN; success vs failure costs the loser 1x bid."""
    contest = frame(table, tamsin, "extended")
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    with pytest.raises(ContestError, match="a bid is 1 to 17 AP"):
        table.act(contest, alice, "bid", bid=18)
    table.act(contest, alice, "bid", bid=7)
    contest = play_round(table, contest, gm, 5, 16)
    assert contest.state["machine"]["state"]["opponent"]["ap"] == 14 - 7
    while contest.status == ContestStatus.RUNNING:
        contest = play_round(table, contest, gm, 5, 16)
    assert contest.winner == "pc" and contest.degree == "marginal"
    rebuilt = TableFlow.replay(
        contest.framing,
        [(e.type, e.payload["data"], _gm(gm)) for e in contest.events.order_by("seq")[1:]],
    )
    assert rebuilt.state == contest.state


def _gm(gm):
    from contests.core.table import Actor

    return Actor(user_id=gm.pk, role="gm", character_ids=frozenset())


def test_a_chained_contest_wounds_at_once_until_dying(table, session, gm, alice, tamsin):
    """§5.4, R14: each lost round worsens the loser's state, hurt -> injured -> dying."""
    contest = frame(table, tamsin, "chained")
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    states = []
    while contest.status == ContestStatus.RUNNING:
        contest = play_round(table, contest, gm, 5, 16)
        states.append(contest.events.filter(type="resolve").last().payload["totals"]["Raiders"])
    assert states == ["hurt", "injured", "dying"]
    assert contest.winner == "pc"


def test_pc_versus_pc_each_player_acts_only_for_their_character(
    table, session, gm, alice, tamsin, brannoc
):
    contest = table.frame(pc=tamsin, opponent={"character_id": brannoc.pk}, prize="")
    with pytest.raises(ContestError, match="only Brannoc's player or the GM"):
        table.act(
            contest,
            alice,
            "choose_ability",
            side="opponent",
            ability_id=ability(brannoc, "Temple singer").pk,
        )
    bob = brannoc.player
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
    table.act(contest, gm, "roll", rolls=(12, 5))
    # 7M vs 17: Brannoc's mastery bumps his success to a critical (§2.3.5.4).
    assert contest.state["pending"]["outcome"]["opponent_result"] == "critical"
    with pytest.raises(ContestError, match="cannot raise a critical"):
        table.act(contest, bob, "hero_point", side="opponent")
