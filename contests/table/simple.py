"""A simple contest (§2.2, §4.1): one roll each, decided at once.

Framed plain ("normal"), as a costly automatic victory (§2.19.2) or with graduated
goals (§2.18); a plain one may escalate into a scored or chained contest (§2.8.2).
"""

from __future__ import annotations

from typing import Any

from ..rules import IllegalAction, RulesError, costly_automatic_victory, graduated_goals
from .base import Actor, AvailableAction, Roller, choice
from .chained import ChainedFlow
from .long import LongFlow
from .one_on_one import TableFlow
from .scored import ScoredFlow
from .sides import VARIANTS

# What a simple contest escalates into (§2.8.2).
ESCALATIONS: dict[str, type[LongFlow]] = {"scored": ScoredFlow, "chained": ChainedFlow}


class SimpleFlow(TableFlow):
    KIND = "simple"
    VARIANTS = VARIANTS
    RESISTANCE_ABILITY = "Resistance"

    def _apply_framed_variant(self, outcome: dict[str, Any], level: int) -> None:
        """Costly automatic victory (§2.19.2) and graduated goals (§2.18)."""
        if self.state["variant"] == "costly":
            costly = costly_automatic_victory(level)
            outcome.update(winner="pc", costly=costly.describe)
            self.state["suggested"] = (
                [{"side": "pc", "state": costly.consequence.value}] if costly.consequence else []
            )
        elif self.state["variant"] == "graduated":
            outcome["goals"] = list(graduated_goals(level))

    @property
    def escalates(self) -> bool:
        """Only a plain simple contest escalates (§2.8.2)."""
        return self.state["variant"] == "normal"

    def _decided_offers(self, actor: Actor) -> list[AvailableAction]:
        if not actor.is_gm or not self.escalates:
            return []
        into = choice(
            "into", "Into", [("scored", "a scored contest"), ("chained", "a chained contest")]
        )
        return [AvailableAction("escalate", "Escalate the contest", (into,), confirm=True)]

    def _do_escalate(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """Continue a decided simple contest as round one of a scored or chained contest
        (§2.8.2), before its consequences are applied. The flow becomes the new kind's."""
        self._require_gm(actor, "escalate the contest")
        self._require_phase("resolved")
        into = data.get("into")
        if not self.escalates:
            raise IllegalAction("only a plain simple contest escalates (§2.8.2)")
        if into not in tuple(ESCALATIONS):
            raise RulesError("a simple contest escalates into a scored or chained contest")
        last = self.state["rounds"][-1]
        outcome = self._simple_outcome(last["pc_roll"], last["opponent_roll"], pending=last)
        pc, opponent = self.target("pc"), self.target("opponent")
        flow_class = ESCALATIONS[into]
        machine = flow_class.MACHINE.escalate(
            outcome,
            pc=self.side_input("pc"),
            opponent=self.side_input("opponent"),
            better_roll=self.state["better_roll"],
        )
        self.state.update(kind=into, machine=machine.to_json(), outcome=None, suggested=[])
        self.state["start_tn"] = {"pc": pc.rating.total, "opponent": opponent.rating.total}
        self.state["round"] = 2
        # From here on the contest is played as its new kind (`apply` undoes this too
        # when the action fails).
        self.__class__ = flow_class  # type: ignore[assignment]
        escalated: LongFlow = self  # type: ignore[assignment]
        if machine.is_over:
            escalated._decide_long(machine)
        else:
            self.state["phase"] = "preparing"
        return {
            "summary": f"The contest escalates into a {into} contest; round one was the "
            f"{outcome.describe}",
            "totals": escalated._totals(machine),
            "totals_kind": flow_class.TOTALS_KIND,
        }
