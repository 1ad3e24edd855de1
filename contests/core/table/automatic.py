"""An automatic victory (§2.3.1): no roll; the GM grants the PC the prize."""

from __future__ import annotations

from typing import Any

from ..actions.models import CompletedRoll, Nothing
from ..rules import IllegalAction
from .base import Actor, AvailableAction, Dice
from .one_on_one import TableFlow


class AutomaticFlow(TableFlow):
    KIND = "automatic"

    def _turn_offers(self, actor: Actor) -> list[AvailableAction]:
        if not actor.is_gm:
            return []
        grant = AvailableAction(
            "automatic_victory", "Grant the automatic victory", confirm=True, primary=True
        )
        return [grant]

    def _do_automatic_victory(self, data: Nothing, actor: Actor, dice: Dice) -> dict[str, Any]:
        """An automatic victory (§2.3.1): no roll; the PC overcomes the obstacle."""
        self._require_gm(actor, "grant an automatic victory")
        self._require_phase("preparing")
        self.state["outcome"] = {"winner": "pc", "degree": None, "automatic": True}
        self.state["phase"] = "resolved"
        self.state["suggested"] = []
        return {"summary": f"{self.side('pc')['name']} overcomes it: an automatic victory"}

    def _do_roll(self, data: CompletedRoll, actor: Actor, dice: Dice) -> dict[str, Any]:
        self._require_gm(actor, "call for the roll")
        self._require_phase("preparing")
        raise IllegalAction("an automatic victory needs no roll")
