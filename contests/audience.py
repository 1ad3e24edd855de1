"""What one audience may see of a contest, built in Python before any template runs.

The templates get a view of the contest (`contest_view`), never the flow, its state or
the Contest row: the few state values they show, copied, and the pending roll as
plain values. The GM's view is complete. Players and spectators get one without what
the GM keeps hidden (campaign option "GM rolls hidden until revealed"): the GM's dice
of the pending roll and anything that would give them away (the opponent's result,
the outcome so far, an engine action's arguments and summary), and a physical die the
GM entered for their own side before the roll. A hidden value is absent from their
view, with a `secret` mark that the templates render as "in secret"; none of them
decides what a player may see (issue 12).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from django.urls import get_script_prefix, get_urlconf, reverse

from .core.table import BaseFlow, GroupFlow
from .core.table.extended import ExtendedFlow
from .core.table.state import copy_state
from .models import ContestKind

_KIND_LABELS: dict[str, str] = {str(value): str(label) for value, label in ContestKind.choices}

# The state values the templates show; everything else in the state stays out.
STATE_KEYS = (
    "kind",
    "phase",
    "round",
    "prize",
    "obstacle",
    "variant",
    "secondary_prize",
    "stakes",
    "order",
    "pc_side",
    "apply_consequences",
    "outcome",
    "suggested",
    "applied",
    "narration",
    "last_line",
    "bid",
)
# What the group table shows of a long group contest's engine (rules/*_group.py).
ENGINE_KEYS = ("round", "phase", "order", "delayed", "pairings", "declarations")


@dataclass(frozen=True)
class ContestHeader:
    """What the templates read of the Contest row (not its state, which is the GM's)."""

    id: int
    campaign_id: int
    number: int
    kind_label: str
    # Where the panel's forms post: reversed once per panel, not once per form (the
    # `{% url %}` of every form was 5% of a busy process's CPU, bench.http_path).
    act_url: str

    @property
    def pk(self) -> int:
        return self.id

    def get_kind_display(self) -> str:
        return self.kind_label


def header(contest) -> ContestHeader:
    # The kind's words from the choices, not `get_kind_display` (which builds a dict of
    # the choices on every call).
    label = _KIND_LABELS.get(contest.kind) or contest.get_kind_display()
    act_url = _act_url(contest.campaign_id, get_urlconf(), get_script_prefix())
    return ContestHeader(contest.pk, contest.campaign_id, contest.number, label, act_url)


@functools.lru_cache(maxsize=4096)
def _act_url(campaign_id: int, urlconf: str | None, prefix: str) -> str:
    """Where a table's forms post, for each URLconf and script prefix: reversed once a
    table, not on every broadcast (a tenth of a step's rendering, issue 29)."""
    return reverse("table_act", args=[campaign_id], urlconf=urlconf)


def secret_keys(flow: BaseFlow) -> set[str]:
    """The sides (one-on-one) or participants (group) whose dice are the GM's hidden ones."""
    keys = [p["name"] for p in flow.state.get("participants") or []]
    keys += list((flow.state.get("sides") or {}).keys()) if flow.KEY == "side" else []
    return {key for key in keys if flow.gm_rolls_for(key)}


def hidden_from_players(flow: BaseFlow) -> bool:
    """Whether the players' view of the contest differs from the GM's now: a side or
    participant whose dice are the GM's hidden ones (`secret_keys`), or a pending roll
    whose GM dice are not yet revealed (`pending_view`). `contest_view` reads the
    audience for nothing else."""
    return bool(secret_keys(flow)) or flow.hides_gm_roll("player")


def pending_view(flow: BaseFlow, audience: str) -> dict[str, Any] | None:
    """The pending roll as `audience` may see it (None: nothing pending): `secret` says
    the GM's dice are hidden from them, and each hidden die (and what it decides) is
    None, marked `secret` where it is shown as rolled in secret."""
    pending = flow.state.get("pending")
    if not pending:
        return None
    hiding = flow.hides_gm_roll(audience)
    if "pairings" in pending:  # group simple: each PC against the resistance
        return {"secret": hiding, "pairings": [_pairing(p, hiding) for p in pending["pairings"]]}
    if "rolls" in pending:  # a long group contest: an engine action waits
        rolls = []
        for row in pending["rolls"]:
            secret = hiding and bool(row.get("hidden"))
            rolls.append(
                {"who": row["who"], "secret": secret, "roll": None if secret else row["roll"]}
            )
        summary = None if hiding else pending.get("summary")
        return {"secret": hiding, "rolls": rolls, "summary": summary}
    outcome = pending.get("outcome") or {}
    return {  # one-on-one: the opponent's die is the GM's
        "secret": hiding,
        "pc_roll": pending["pc_roll"],
        "pc_result": outcome.get("pc_result"),
        "pc_hero_point": pending.get("pc_hero_point", False),
        "opponent_roll": None if hiding else pending["opponent_roll"],
        "opponent_result": None if hiding else outcome.get("opponent_result"),
        "describe": None if hiding else outcome.get("describe"),
    }


def _pairing(pairing: dict[str, Any], hiding: bool) -> dict[str, Any]:
    hidden = (pairing.get("hidden") or []) if hiding else []
    roll_secret, resistance_secret = "roll" in hidden, "resistance_roll" in hidden
    outcome = pairing.get("outcome") or {}
    decided = not (roll_secret or resistance_secret)
    return {
        "participant": pairing["participant"],
        "hero_point": pairing.get("hero_point", False),
        "secret": not decided,
        "roll_secret": roll_secret,
        "roll": None if roll_secret else pairing["roll"],
        "pc_result": None if roll_secret else outcome.get("pc_result"),
        "resistance_secret": resistance_secret,
        "resistance_roll": None if resistance_secret else pairing["resistance_roll"],
        "opponent_result": outcome.get("opponent_result") if decided else None,
        "describe": outcome.get("describe") if decided else None,
    }


def _record(record: dict[str, Any], secret: bool) -> dict[str, Any]:
    """A copy of a side or participant; without a die the GM entered when it is secret."""
    return {
        key: copy_state(value)
        for key, value in record.items()
        if not (secret and key == "entered_roll")
    }


def _tn(tn: Any) -> dict[str, Any] | None:
    """A target number as plain values (rules `TargetNumber`)."""
    if tn is None:
        return None
    return {
        "rating": str(tn.rating),
        "bumps": tn.bumps,
        "lines": len(tn.lines),
        "describe": tn.describe,
    }


def contest_view(
    flow: BaseFlow, audience: str, sides: list[dict[str, Any]], rows: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(sides, view) for the templates of `audience`: copies, sharing nothing with the
    flow's state. `sides` and `rows` are the one-on-one sides (with their TN and sheet)
    and the group participants (`GroupFlow.rows`) read once for every audience."""
    secret = secret_keys(flow) if audience != "gm" else set()
    state = flow.state
    view: dict[str, Any] = {key: copy_state(state.get(key)) for key in STATE_KEYS}
    view.update(
        is_long=flow.is_long,
        started=flow.started,
        pending=pending_view(flow, audience),
        rows=[_record(row, row["name"] in secret) for row in rows],
    )
    turn = flow.turn if isinstance(flow, ExtendedFlow) else None
    if turn is not None and flow.phase in ("preparing", "rolled"):
        # Whose exchange it is (§5.3.1): the contest's header says it to everyone.
        view["turn_name"] = flow.side(turn)["name"]
    if isinstance(flow, GroupFlow):
        engine = (state.get("machine") or {}).get("state") or {}
        view.update(
            engine={key: copy_state(engine[key]) for key in ENGINE_KEYS if key in engine},
            boost=getattr(flow, "boost", None),
            outsiders=copy_state(flow.outsiders),
            side_labels=flow.side_labels,
        )
    # A side's sheet (Ability rows) serves the forms (live/controls.py); the TN as plain values.
    shown_sides = []
    for side in sides:
        record = {key: value for key, value in side.items() if key not in ("sheet", "tn")}
        shown_sides.append({**_record(record, side["key"] in secret), "tn": _tn(side.get("tn"))})
    return shown_sides, view
