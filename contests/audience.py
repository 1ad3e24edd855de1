"""What one audience may see of a contest, built in Python before any template runs.

The GM sees the whole state. Players and spectators get a copy without what the GM
keeps hidden (campaign option "GM rolls hidden until revealed"): the GM's dice of the
pending roll and anything that would give them away (the opponent's result, the
outcome so far, an engine action's arguments), and a physical die the GM entered for
their own side before the roll. Templates render what they are given; none of them
decides what a player may see (issue 12).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from .table import TableFlow


@dataclass(frozen=True)
class ContestHeader:
    """What the templates read of the Contest row (not its state, which is the GM's)."""

    id: int
    campaign_id: int
    number: int
    kind_label: str

    @property
    def pk(self) -> int:
        return self.id

    def get_kind_display(self) -> str:
        return self.kind_label


def header(contest) -> ContestHeader:
    label = contest.get_kind_display()
    return ContestHeader(contest.pk, contest.campaign_id, contest.number, label)


def secret_keys(flow: TableFlow) -> set[str]:
    """The sides (one-on-one) or participants (group) whose dice are the GM's hidden ones."""
    keys = [p["name"] for p in flow.state.get("participants") or []]
    keys += list((flow.state.get("sides") or {}).keys()) if flow.KEY == "side" else []
    return {key for key in keys if flow.gm_rolls_for(key)}


def pending_for_players(pending: dict[str, Any] | None) -> dict[str, Any] | None:
    """The pending roll without the GM's hidden dice (None: nothing pending)."""
    if not pending or pending.get("revealed", True):
        return pending
    shown = copy.deepcopy(pending)
    if "opponent_roll" in shown:  # one-on-one: the opponent is the GM's
        shown["opponent_roll"] = None
        outcome = shown.get("outcome") or {}
        shown["outcome"] = {"pc_result": outcome.get("pc_result")}
    for pairing in shown.get("pairings") or []:  # group simple: per pairing
        hidden = pairing.get("hidden") or []
        for key in hidden:
            pairing[key] = None
        outcome = pairing.get("outcome") or {}
        pairing["outcome"] = {} if "roll" in hidden else {"pc_result": outcome.get("pc_result")}
    if "rolls" in shown:  # group long contests: the engine action waits
        for row in shown["rolls"]:
            if row.get("hidden"):
                row["roll"] = None
        for key in ("args", "summary"):
            shown.pop(key, None)
    return shown


def without_entered_roll(record: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in record.items() if key != "entered_roll"}


def contest_view(
    flow: TableFlow, audience: str, sides: list[dict[str, Any]]
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """(state, sides, view) for the templates of `audience`: `view` holds the few flow
    values the templates read (kind, rows, boost, outsiders, side labels)."""
    group = flow.KEY == "participant"
    state = flow.state
    rows = flow.rows if group else []
    if audience != "gm":
        secret = secret_keys(flow)
        state = {
            **state,
            "pending": pending_for_players(state.get("pending")),
            "sides": {
                key: without_entered_roll(side) if key in secret else side
                for key, side in (state.get("sides") or {}).items()
            },
            "participants": [
                without_entered_roll(p) if p["name"] in secret else p
                for p in state.get("participants") or []
            ],
        }
        sides = [without_entered_roll(s) if s["key"] in secret else s for s in sides]
        rows = [without_entered_roll(r) if r["name"] in secret else r for r in rows]
    view: dict[str, Any] = {"kind": flow.kind, "is_long": flow.is_long, "rows": rows}
    if group:
        view.update(
            boost=getattr(flow, "boost", None),
            outsiders=flow.outsiders,
            side_labels=flow.side_labels,
        )
    return state, sides, view
