"""A chained contest (§5.4): each round's loser takes a wound, until one side is out."""

from __future__ import annotations

from typing import Any

from ..rules import ChainedContest, State, TargetNumber
from ..rules.simple import Side
from .long import LongFlow


class ChainedFlow(LongFlow):
    KIND = "chained"
    MACHINE = ChainedContest
    TOTALS_KIND = "state"
    ROUND_TACTICS = ("normal", "disengage")

    def target(self, side: str) -> TargetNumber | None:
        """The side's TN now, with the wound this contest gave it (§5.4: a consequence
        takes effect at once, R18.9: the worst one, not the sum), as a line of its own:
        what the table shows, its odds and the labels of a pending roll all use it."""
        record = self.side(side)
        wound = self._wound(side)
        if wound is None or record.get("rating") is None:
            return super().target(side)
        line = {
            "label": f"{wound.value.capitalize()} in this contest (§5.4)",
            "value": wound.modifier,
            "bumps": 0,
            "kind": "other",
        }
        return self._target_of({**record, "modifiers": [*record.get("modifiers", []), line]})

    def _engine_target(self, side: str) -> Any:
        # The engine applies the wounds itself: give it the TN without them.
        return super().target(side)

    SIDE_INPUTS = True

    def _wound(self, side: str) -> State | None:
        engine = (self.state.get("machine") or {}).get("state") or {}
        wound = engine.get(f"{side}_state")
        return State(wound) if wound else None

    def _round_args(self, change: dict[Side, int]) -> dict[str, Any]:
        return {
            "pc_modifier": change["pc"],
            "opponent_modifier": change["opponent"],
            "pc_disengages": self.side("pc")["round_tactic"] == "disengage",
            "opponent_disengages": self.side("opponent")["round_tactic"] == "disengage",
        }

    def _totals(self, machine: Any) -> dict[str, Any]:
        state = machine.state()
        return {
            self.side("pc")["name"]: state["pc_state"] or "unharmed",
            self.side("opponent")["name"]: state["opponent_state"] or "unharmed",
        }
