"""A simple contest (§2.2, §4.1): one roll each, decided at once.

Framed plain ("normal"), as a costly automatic victory (§2.19.2) or with graduated
goals (§2.18); a plain one may escalate into a scored or chained contest (§2.8.2).
"""

from __future__ import annotations

from typing import Any

from ..actions.models import ConfusingTie, Escalate
from ..rules import IllegalAction, RulesError, costly_automatic_victory, graduated_goals
from ..rules.simple import confusing_tie
from ..terms import VARIANTS
from .base import Actor, AvailableAction, Dice, choice
from .chained import ChainedFlow
from .long import LongFlow
from .one_on_one import TableFlow
from .scored import ScoredFlow

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
        return bool(self.state["variant"] == "normal")

    def _decided_offers(self, actor: Actor) -> list[AvailableAction]:
        if not actor.is_gm:
            return []
        offers = []
        if self._may_rule_tie():
            offers.append(
                AvailableAction(
                    "confusing_tie", "Rule the tie a marginal victory (§2.3.5.2)", confirm=True
                )
            )
        if self.escalates and not (self.state.get("outcome") or {}).get("ruled"):
            into = choice(
                "into", "Into", [("scored", "a scored contest"), ("chained", "a chained contest")]
            )
            offers.append(
                AvailableAction("escalate", "Escalate the contest", (into,), confirm=True)
            )
        return offers

    def _may_rule_tie(self) -> bool:
        outcome = self.state.get("outcome") or {}
        return (
            outcome.get("winner") is None
            and not outcome.get("ruled")
            and not self.is_player_side("opponent")
        )

    def _do_confusing_tie(self, data: ConfusingTie, actor: Actor, dice: Dice) -> dict[str, Any]:
        """The GM rules a tie that is hard to picture a marginal victory for the PC
        (§2.3.5.2, §2.10; R18.10): the outcome, its consequences and any variant follow."""
        self._require_gm(actor, "rule a confusing tie")
        self._require_phase("resolved")
        if self.state["outcome"].get("ruled"):
            raise IllegalAction("the tie is already ruled a marginal victory (§2.3.5.2)")
        last = self.state["rounds"][-1]
        outcome = confusing_tie(
            self._simple_outcome(last["pc_roll"], last["opponent_roll"], pending=last),
            against_a_pc=self.is_player_side("opponent"),
        )
        self._decide(outcome.winner, outcome.degree)
        self.state["outcome"]["ruled"] = "a confusing tie, ruled a marginal victory (§2.3.5.2)"
        self._apply_variant(outcome.level)
        return {
            "summary": f"The GM rules the tie a marginal victory for {self.side('pc')['name']} "
            "(§2.3.5.2)"
        }

    def _do_escalate(self, data: Escalate, actor: Actor, dice: Dice) -> dict[str, Any]:
        """Continue a decided simple contest as round one of a scored or chained contest
        (§2.8.2), before its consequences are applied. The flow becomes the new kind's."""
        self._require_gm(actor, "escalate the contest")
        self._require_phase("resolved")
        into = data.into
        if not self.escalates:
            raise IllegalAction("only a plain simple contest escalates (§2.8.2)")
        if (self.state.get("outcome") or {}).get("ruled"):
            raise IllegalAction("the tie was ruled a marginal victory: confirm the outcome")
        if into not in tuple(ESCALATIONS):
            raise RulesError("a simple contest escalates into a scored or chained contest")
        last = self.state["rounds"][-1]
        outcome = self._simple_outcome(last["pc_roll"], last["opponent_roll"], pending=last)
        pc, opponent = self.rated_target("pc"), self.rated_target("opponent")
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
