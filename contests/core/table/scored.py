"""A scored contest (§5.1, R12): rounds of simple contests, resolution points to 5."""

from __future__ import annotations

from typing import Any

from ..rules import ScoredContest
from ..rules.simple import Side
from .long import LongFlow


class ScoredFlow(LongFlow):
    KIND = "scored"
    MACHINE = ScoredContest
    TOTALS_KIND = "RP"
    ROUND_TACTICS = ("normal", "risky_gambit", "defensive", "asymmetrical", "disengage")

    SIDE_INPUTS = True

    def _machine_setup(self, pc: Any, opponent: Any) -> dict[str, Any]:
        return {"stakes": self.state["stakes"]}

    def _round_args(self, change: dict[Side, int]) -> dict[str, Any]:
        return {
            "pc_tactic": self.side("pc")["round_tactic"],
            "opponent_tactic": self.side("opponent")["round_tactic"],
            "pc_modifier": change["pc"],
            "opponent_modifier": change["opponent"],
        }

    def _opening_standing(self) -> dict[str, Any]:
        """Both sides start with no resolution points (§5.1.1)."""
        return {self.side(side)["name"]: 0 for side in ("pc", "opponent")}

    def _totals(self, machine: Any) -> dict[str, Any]:
        return {
            self.side("pc")["name"]: machine.pc_points,
            self.side("opponent")["name"]: machine.opponent_points,
        }
