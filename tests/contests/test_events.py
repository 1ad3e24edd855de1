"""The contest's event contract (contests/events.py): one type per action, one payload
shape per type checked where events are written, one rule for who sees what."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from contests import events
from contests.core.table import load_flow
from contests.events import EventContractError, checked_payload, visible
from contests.models import ContestEvent
from contests.table_actions import KNOWN_ACTIONS

from .conftest import ability

DOCS = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def test_every_table_action_is_an_event_type_and_nothing_else_is():
    assert set(events.ACTION_TYPES) == KNOWN_ACTIONS - {"frame", "undo"}


def test_the_docs_list_exactly_the_event_types_with_their_labels():
    listed = dict(re.findall(r"^\| `([a-z_]+)` \| ([^|]+?) \|$", DOCS.read_text(), re.M))
    assert listed == events.EVENT_WORDS


@pytest.mark.parametrize(
    ("event_type", "payload", "complaint"),
    [
        ("roll", {"summary": "x", "rolls": [{"who": "Tamsin"}]}, "roll"),
        ("roll", {"summary": "x", "gm_only": True}, "gm_only"),
        ("resolve", {"summary": "x", "totals_kind": "HP"}, "totals_kind"),
        ("framed", {"summary": "x"}, "data"),
        ("undone", {"summary": "x", "undoes": "3"}, "undoes"),
        ("apply_consequences", {"summary": "x", "applied": [{"who": "Tamsin"}]}, "state"),
        ("teleport", {"summary": "x"}, "unknown event type"),
    ],
)
def test_a_payload_off_the_contract_is_refused(event_type, payload, complaint):
    with pytest.raises(EventContractError, match=complaint):
        checked_payload(event_type, payload)


@pytest.mark.django_db
def test_a_flow_writing_off_the_contract_stores_nothing(table, session, gm, alice, tamsin):
    """The check sits at the write point: the action fails whole, nothing is stored."""
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    flow_type = type(load_flow(contest.state))
    original = flow_type.apply

    def drifting(self, action, data, actor, roller):
        return {**original(self, action, data, actor, roller), "mood": "tense"}

    before = (contest.seq, contest.state)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(flow_type, "apply", drifting)
        with pytest.raises(EventContractError, match="mood"):
            table.act(contest, gm, "roll", rolls=(5, 16))
    contest.refresh_from_db()
    assert (contest.seq, contest.state) == before
    assert ContestEvent.objects.filter(contest=contest).count() == before[0]


@pytest.mark.django_db
def test_a_hidden_gm_roll_is_seen_whole_by_the_gm_alone(
    campaign, table, session, gm, alice, tamsin
):
    campaign.roll_visibility = "gm_hidden"
    campaign.save()
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(5, 16))
    payload = contest.events.get(type="roll").payload
    gm_view = visible(payload, "gm")
    assert [r["roll"] for r in gm_view["rolls"]] == [5, 16]
    assert "16" in gm_view["summary"]
    for audience in ("player", "spectator", "public"):
        seen = visible(payload, audience)
        assert [r["roll"] for r in seen["rolls"]] == [5]
        assert "16" not in seen["summary"] and "gm_summary" not in seen
