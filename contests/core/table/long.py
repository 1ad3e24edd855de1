"""What the long one-on-one contests share (§5): scored, extended and chained contests
play each roll as a round of the rules engine's machine until it says the contest is
over. A kind names its machine and says how a round is played and totalled."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from ..rules import Rating, Result
from ..rules.simple import Side
from .base import SIDES
from .one_on_one import TableFlow


class LongFlow(TableFlow):
    """A one-on-one contest over rounds: the engine starts with the first roll."""

    is_long = True
    RESOLVE_LABEL = "Resolve the round"
    MACHINE: ClassVar[Any]  # the engine's contest class
    TOTALS_KIND: ClassVar[str]  # what the totals count: "RP", "AP" or "state"
    # The machine's sides are SideInputs it updates between rounds (update_side, R18.5);
    # the extended machine takes them at its start and a new ability by switch_ability.
    SIDE_INPUTS: ClassVar[bool] = False

    # -- the engine's machine ---------------------------------------------------------

    def _before_roll(self) -> None:
        if self.state["machine"] is None:
            self._start_machine()

    def standing(self) -> dict[str, Any] | None:
        """Each side's standing now (RP, AP or state), from the engine's current state
        (so an undone round is gone from it); before the first roll, what each side
        starts with, where the kind knows it."""
        if self.state["machine"] is None or not self.state.get("rounds"):
            values = self._opening_standing()
            if values is None:
                return None
        else:
            values = self._totals(self._machine())
        numbers = [v for v in values.values() if isinstance(v, int)]
        scale = max([*numbers, *(self.state.get("start_tn") or {}).values(), 1])
        return {"values": values, "kind": self.TOTALS_KIND, "scale": scale}

    def _start_machine(self) -> None:
        pc, opponent = self._engine_target("pc"), self._engine_target("opponent")
        setup: dict[str, Any] = {
            "pc": pc.rating.total,
            "opponent": opponent.rating.total,
            "better_roll": self.state["better_roll"],
            **self._machine_setup(pc, opponent),
        }
        if self.SIDE_INPUTS:
            # R18.5: the lasting effects go in once; this round's situational ones are
            # the round's own modifiers.
            setup.update(pc=self.side_input("pc"), opponent=self.side_input("opponent"))
        machine = self.MACHINE(**setup)
        self.state["machine"] = machine.to_json()
        # Later rounds' situational modifiers are the change from these TNs (R9).
        self.state["start_tn"] = {"pc": pc.rating.total, "opponent": opponent.rating.total}

    def _machine_setup(self, pc: Any, opponent: Any) -> dict[str, Any]:
        """What this kind's machine takes besides the two ratings and the better roll."""
        return {}

    def _machine(self) -> Any:
        return self.MACHINE.from_json(self.state["machine"])

    # -- a round ------------------------------------------------------------------------

    # -- a round through the machine: roll, hero points, settle (§2.2, R5.3) ------------

    def _roll_outcome(
        self, pc_roll: int, opponent_roll: int, extra: dict[str, Any] | None = None
    ) -> Any:
        """The machine rolls the round and holds it for hero points; the table shows
        the machine's own outcome so far (no preview of its own)."""
        if not self.SIDE_INPUTS:
            return super()._roll_outcome(pc_roll, opponent_roll, extra)
        machine = self._machine()
        # R18.5: a state, augment or stretch that changed since the last round changes
        # what lasts; this round's situational modifiers go with the roll.
        for side in SIDES:
            wanted = self.side_input(side)
            if machine.sides[side] != wanted:
                machine.update_side(side=side, input=wanted)
        change = {side: self.situational(side) for side in SIDES}
        machine.roll(pc_roll=pc_roll, opponent_roll=opponent_roll, **self._round_args(change))
        self.state["machine"] = machine.to_json()
        return machine.pending

    def _pending_outcome(self, pending: dict[str, Any]) -> Any:
        return self._machine().pending

    def _spend_on_roll(self, side: str, pending: dict[str, Any]) -> Any:
        machine = self._machine()
        machine.hero_point(side=side)
        self.state["machine"] = machine.to_json()
        return machine.pending

    def _round_args(self, change: dict[Side, int]) -> dict[str, Any]:
        """This kind's round arguments besides the dice (tactics, modifiers...)."""
        raise NotImplementedError

    def _settle(self, pending: dict[str, Any]) -> dict[str, Any]:
        machine = self._machine()
        before = self._totals(machine)
        entry = jsonable(machine.settle())
        self.state["machine"] = machine.to_json()
        self.state["rounds"].append({**pending, "entry": entry})
        self.state["pending"] = None
        totals = self._totals(machine)
        gained = {
            name: totals[name] - value
            for name, value in before.items()
            if isinstance(value, int) and isinstance(totals.get(name), int)
        }
        line = f"Round {self.state['round']}: {self._round_line(pending, entry, gained)}"
        self.state["last_line"] = line
        self._end_turn()
        payload = {
            "summary": f"{line} ({', '.join(f'{k} {v}' for k, v in totals.items())})",
            "totals": totals,
            "totals_kind": self.TOTALS_KIND,
        }
        if machine.is_over:
            self._decide_long(machine)
            self._apply_variant(self.level_for_pc() or 0)
        else:
            # A failed parting shot can bring the loser back (§5.3.4): play goes on.
            self.state.update(phase="preparing", outcome=None, suggested=[])
        return payload

    def _totals(self, machine: Any) -> dict[str, Any]:
        """Each side's standing, by name, for the log and the totals."""
        raise NotImplementedError

    def _opening_standing(self) -> dict[str, Any] | None:
        """Each side's standing before the first roll, by name (None if unknown)."""
        return None

    def _round_line(self, pending: dict[str, Any], entry: Any, gained: dict[str, int]) -> str:
        """A settled round in words: the results compared, the round's outcome and what
        it scored, e.g. "Tamsin's success beats the Grey River's failure: minor victory,
        2 RP to Tamsin" (§5.1.1)."""
        line = self.explain_roll(pending["outcome"])
        scored = [
            f"{value} {self.TOTALS_KIND} to {name}" for name, value in gained.items() if value
        ]
        return f"{line}, {' and '.join(scored)}" if scored else line

    def _end_turn(self) -> None:
        """After a turn or round: one-round modifiers and tactics lapse (R9)."""
        self.state["round"] += 1
        self._lapse_situational(self.side(side) for side in SIDES)
        for side in SIDES:
            self.side(side)["round_tactic"] = "normal"
        self.state.pop("bid", None)

    def _decide_long(self, machine: Any) -> None:
        """The engine says the contest is over: its winner and degree decide it, and
        where the machine gives its `outcome`, its consequences and the winner's benefit
        of victory are what the GM confirms (§5.1.1 step 6, R18.6)."""
        self._decide(machine.winner, machine.degree)
        outcome = machine.outcome
        if not self.state["apply_consequences"]:
            return
        suggested = [
            {"side": side, "state": state.value}
            for side in SIDES
            for state in (outcome.consequences[side], outcome.benefits[side])
            if state is not None
        ]
        self.state["suggested"] = [
            s for s in suggested if self.side(s["side"])["character_id"] is not None
        ]


def jsonable(value: Any) -> Any:
    if hasattr(value, "_asdict"):
        return jsonable(value._asdict())
    if hasattr(value, "to_json"):
        return value.to_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, Result):
        return value.label
    if isinstance(value, Rating):
        return str(value)
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)
