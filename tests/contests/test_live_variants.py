"""Automatic, costly, graduated and pyrrhic contests, and escalation (issue 6)."""

from __future__ import annotations

import pytest

from contests.models import ContestStatus
from contests.services import ContestError

from .conftest import ability

pytestmark = pytest.mark.django_db


def frame(table, tamsin, kind="simple", **extra):
    """Tamsin crosses the ford against the Grey River (moderate)."""
    return table.frame(
        kind,
        pc=tamsin,
        prize="the ford",
        opponent={"name": "The Grey River", "level": "moderate"},
        **extra,
    )


def ready(table, contest, alice, tamsin):
    return table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )


def test_an_automatic_victory_needs_no_roll(table, session, gm, alice, tamsin):
    contest = frame(table, tamsin, kind="automatic")
    with pytest.raises(ContestError, match="needs no roll"):
        table.act(contest, gm, "roll")
    with pytest.raises(ContestError, match="only the GM"):
        table.act(contest, alice, "automatic_victory")
    table.act(contest, gm, "automatic_victory")
    assert contest.winner == "pc" and contest.status == ContestStatus.RESOLVING
    assert contest.state["suggested"] == []


def test_a_costly_automatic_victory_wins_but_costs_the_defeats_state(
    table, session, gm, alice, tamsin
):
    """§2.19.2: a minor defeat on the roll still overcomes the obstacle, impaired."""
    contest = ready(table, frame(table, tamsin, variant="costly"), alice, tamsin)
    table.act(contest, gm, "roll", rolls=(18, 3))  # failure vs success: a minor defeat
    table.act(contest, gm, "resolve")
    assert contest.state["outcome"]["winner"] == "pc"
    assert contest.state["suggested"] == [{"side": "pc", "state": "impaired"}]


@pytest.mark.parametrize(
    ("rolls", "goals"), [((1, 16), ["primary", "secondary"]), ((5, 16), ["primary"]), ((18, 5), [])]
)
def test_graduated_goals_follow_the_degree(table, session, gm, alice, tamsin, rolls, goals):
    """§2.18: both goals on a major or complete victory, the primary on a lesser one."""
    contest = ready(
        table,
        frame(table, tamsin, variant="graduated", secondary_prize="and the boat"),
        alice,
        tamsin,
    )
    table.act(contest, gm, "roll", rolls=rolls)
    table.act(contest, gm, "resolve")
    assert contest.state["outcome"]["goals"] == goals


def test_a_pyrrhic_victory_bumps_now_and_costs_at_the_end(table, session, gm, alice, tamsin):
    """§2.17, R11: a bump up; a minor victory leaves the PC dying."""
    contest = ready(table, frame(table, tamsin), alice, tamsin)
    table.act(contest, alice, "pyrrhic")
    table.act(
        contest, gm, "roll", rolls=(15, 10)
    )  # success vs success, lower roll: a marginal defeat...
    assert contest.state["pending"]["outcome"]["pc_result"] == "critical"  # ...bumped to a critical
    table.act(contest, gm, "resolve")
    assert (contest.winner, contest.degree) == ("pc", "minor")
    assert {"side": "pc", "state": "dying"} in contest.state["suggested"]


def test_a_decided_simple_contest_escalates_into_a_scored_one(table, session, gm, alice, tamsin):
    """§2.8.2: the simple contest's minor victory is round one (2 RP)."""
    contest = ready(table, frame(table, tamsin), alice, tamsin)
    table.act(contest, gm, "roll", rolls=(5, 16))
    table.act(contest, gm, "resolve")
    with pytest.raises(ContestError, match="scored or chained"):
        table.act(contest, gm, "escalate", into="extended")
    table.act(contest, gm, "escalate", into="scored")
    assert contest.kind == "scored" and contest.status == ContestStatus.RUNNING
    assert contest.state["machine"]["state"]["pc"]["points"] == 2
    table.act(contest, gm, "roll", rolls=(5, 16))
    table.act(contest, gm, "resolve")
    assert contest.state["machine"]["state"]["pc"]["points"] == 4
