"""A chained contest is shown as it is played (issue 13): a wound lowers the TN at once
(§5.4), and the TN shown, its odds, the labels of a pending roll and the archive all use
the lowered TN; undoing a round takes its wound off everything shown."""

from __future__ import annotations

import re

import pytest

from contests import live
from contests.core.table import load_flow

from .conftest import ability
from .test_live_long import frame

pytestmark = pytest.mark.django_db


def played(table, contest, gm, *rounds):
    for pc_roll, opponent_roll in rounds:
        table.act(contest, gm, "roll", rolls=(pc_roll, opponent_roll))
        contest = table.act(contest, gm, "resolve")
    return contest


@pytest.fixture
def chained(table, session, alice, tamsin):
    """Tamsin (Boatcraft 17) holds the bridge against Raiders (14)."""
    contest = frame(table, tamsin, "chained")
    boatcraft = ability(tamsin, "Boatcraft")
    table.act(contest, alice, "choose_ability", side="pc", ability_id=boatcraft.pk)
    return contest


def test_a_wound_lowers_the_tn_shown_its_odds_and_the_labels_at_once(table, gm, chained):
    # Round 1: Tamsin fails (18 > 17), the Raiders succeed: she is hurt (§5.4 table).
    contest = played(table, chained, gm, (18, 5))
    flow = load_flow(contest.state)
    tn = flow.target("pc")
    assert tn.rating.total == 14  # 17, hurt -3
    assert "Hurt in this contest (§5.4)" in tn.describe
    unhurt = load_flow({**contest.state, "machine": None}).odds()["summary"]
    assert flow.odds()["summary"] != unhurt  # 14 vs 14 now, not 17 vs 14
    assert flow.odds()["summary"].victory == flow.odds()["summary"].defeat
    panel = live.render_contest(contest, "gm")
    assert re.search(r"TN\D{0,40}14", panel)

    # Round 2: a 15 succeeded at 17; at 14 it fails, in the pending roll as in the engine.
    contest = table.act(contest, gm, "roll", rolls=(15, 5))
    assert contest.state["pending"]["outcome"]["pc_result"] == "failure"
    for audience in ("gm", "player"):
        assert "15</strong> (failure)" in live.render_contest(contest, audience)
    contest = table.act(contest, gm, "resolve")
    assert contest.state["machine"]["state"]["pc_state"] == "injured"
    # The log (and so the archive) records the TN the roll was made against.
    roll = contest.events.filter(type="roll").order_by("-seq").first()
    assert roll.payload["rolls"][0]["tn"] == "14"


def test_undoing_a_round_takes_its_wound_off_everything_shown(table, gm, chained):
    contest = played(table, chained, gm, (18, 5), (18, 5))  # hurt, then injured
    assert live.contest_context(contest, "gm")["totals"]["values"]["Tamsin"] == "injured"
    contest = table.act(contest, gm, "undo")  # the second round's resolve
    contest = table.act(contest, gm, "undo")  # ... and its roll
    context = live.contest_context(contest, "player")  # as after a reload
    assert context["totals"]["values"]["Tamsin"] == "hurt"
    assert load_flow(contest.state).target("pc").rating.total == 14
    contest = table.act(contest, gm, "undo")
    contest = table.act(contest, gm, "undo")
    assert live.contest_context(contest, "player")["totals"] is None  # no round left
    assert load_flow(contest.state).target("pc").rating.total == 17
