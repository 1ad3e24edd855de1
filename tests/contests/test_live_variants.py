"""Automatic, costly, graduated and pyrrhic contests, and escalation (issue 6)."""

from __future__ import annotations

import pytest

from contests.models import ContestStatus
from contests.rules import fixed_rolls
from contests.services import ContestError, contest_act, contest_frame

from .conftest import ability, key

pytestmark = pytest.mark.django_db


def frame(campaign, gm, tamsin, kind="simple", **extra):
    return contest_frame(
        campaign=campaign,
        user=gm,
        idempotency_key=key(),
        data={
            "kind": kind,
            "prize": "the ford",
            "pc": {"character_id": tamsin.pk},
            "opponent": {"name": "The Grey River", "level": "moderate"},
            **extra,
        },
    ).contest


def act(contest, user, action, rolls=(), **data):
    contest_act(
        contest_id=contest.pk,
        user=user,
        action=action,
        data=data,
        idempotency_key=key(),
        roller=fixed_rolls(*rolls),
    )
    contest.refresh_from_db()
    return contest


def ready(contest, alice, tamsin):
    return act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )


def test_an_automatic_victory_needs_no_roll(campaign, session, gm, alice, tamsin):
    contest = frame(campaign, gm, tamsin, kind="automatic")
    with pytest.raises(ContestError, match="needs no roll"):
        act(contest, gm, "roll")
    with pytest.raises(ContestError, match="only the GM"):
        act(contest, alice, "automatic_victory")
    act(contest, gm, "automatic_victory")
    assert contest.winner == "pc" and contest.status == ContestStatus.RESOLVING
    assert contest.state["suggested"] == []


def test_a_costly_automatic_victory_wins_but_costs_the_defeats_state(
    campaign, session, gm, alice, tamsin
):
    """§2.19.2: a minor defeat on the roll still overcomes the obstacle, impaired."""
    contest = ready(frame(campaign, gm, tamsin, variant="costly"), alice, tamsin)
    act(contest, gm, "roll", rolls=(18, 3))  # failure vs success: a minor defeat
    act(contest, gm, "resolve")
    assert contest.state["outcome"]["winner"] == "pc"
    assert contest.state["suggested"] == [{"side": "pc", "state": "impaired"}]


@pytest.mark.parametrize(
    ("rolls", "goals"), [((1, 16), ["primary", "secondary"]), ((5, 16), ["primary"]), ((18, 5), [])]
)
def test_graduated_goals_follow_the_degree(campaign, session, gm, alice, tamsin, rolls, goals):
    """§2.18: both goals on a major or complete victory, the primary on a lesser one."""
    contest = ready(
        frame(campaign, gm, tamsin, variant="graduated", secondary_prize="and the boat"),
        alice,
        tamsin,
    )
    act(contest, gm, "roll", rolls=rolls)
    act(contest, gm, "resolve")
    assert contest.state["outcome"]["goals"] == goals


def test_a_pyrrhic_victory_bumps_now_and_costs_at_the_end(campaign, session, gm, alice, tamsin):
    """§2.17, R11: a bump up; a minor victory leaves the PC dying."""
    contest = ready(frame(campaign, gm, tamsin), alice, tamsin)
    act(contest, alice, "pyrrhic")
    act(contest, gm, "roll", rolls=(15, 10))  # success vs success, lower roll: a marginal defeat...
    assert contest.state["pending"]["outcome"]["pc_result"] == "critical"  # ...bumped to a critical
    act(contest, gm, "resolve")
    assert (contest.winner, contest.degree) == ("pc", "minor")
    assert {"side": "pc", "state": "dying"} in contest.state["suggested"]


def test_a_decided_simple_contest_escalates_into_a_scored_one(campaign, session, gm, alice, tamsin):
    """§2.8.2: the simple contest's minor victory is round one (2 RP)."""
    contest = ready(frame(campaign, gm, tamsin), alice, tamsin)
    act(contest, gm, "roll", rolls=(5, 16))
    act(contest, gm, "resolve")
    with pytest.raises(ContestError, match="scored or chained"):
        act(contest, gm, "escalate", into="extended")
    act(contest, gm, "escalate", into="scored")
    assert contest.kind == "scored" and contest.status == ContestStatus.RUNNING
    assert contest.state["machine"]["state"]["pc"]["points"] == 2
    act(contest, gm, "roll", rolls=(5, 16))
    act(contest, gm, "resolve")
    assert contest.state["machine"]["state"]["pc"]["points"] == 4
