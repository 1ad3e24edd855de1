"""An extended contest (§5.3, R13): sides take turns, bidding advantage points (AP).

Besides an exchange (bid, then the GM's roll), the side whose turn it is may take an
unrelated action (§5.3.7) or disengage (§5.3.9); the winner may take a parting shot
right after the exchange that decided it (§5.3.4), and characters outside the contest
may give a side AP (§5.3.11).
"""

from __future__ import annotations

from typing import Any

from ..actions.models import (
    Bid,
    CompletedDisengage,
    CompletedGift,
    CompletedPartingShot,
    CompletedUnrelatedAction,
    Holder,
)
from ..rules import DEFAULT_BID, ExtendedContest, IllegalAction, RulesError
from ..rules.simple import Side
from .base import (
    SIDES,
    ActionInput,
    Actor,
    AvailableAction,
    Dice,
    choice,
    number,
    required,
    side_of,
    text,
    words,
)
from .long import LongFlow
from .two_sides import other_side, possessive


class ExtendedFlow(LongFlow):
    KIND = "extended"
    MACHINE = ExtendedContest
    TOTALS_KIND = "AP"

    def _machine(self) -> ExtendedContest:
        return ExtendedContest.from_json(self.state["machine"])

    @staticmethod
    def _acting_side(turn: Side | None) -> Side:
        """The side whose turn it is, in a contest still being played."""
        if turn is None:
            raise IllegalAction("the contest is over: no side acts any more")
        return turn

    # -- the engine ---------------------------------------------------------------------

    def _machine_setup(self, pc: Any, opponent: Any) -> dict[str, Any]:
        # Each side as the engine takes it: a player's with its lasting lines (both, in
        # a contest between two PCs, R18.8), a resistance as its TN (R18.3).
        return {"pc": self.side_input("pc"), "opponent": self.side_input("opponent")}

    def _totals(self, machine: Any) -> dict[str, Any]:
        return {
            self.side("pc")["name"]: machine.pc_ap,
            self.side("opponent")["name"]: machine.opponent_ap,
        }

    def _opening_standing(self) -> dict[str, Any] | None:
        """Each side starts with AP equal to its target number (§5.3.1): known once
        both have an ability or rating."""
        standing: dict[str, Any] = {}
        for side in SIDES:
            tn = self.target(side)
            if tn is None:
                return None
            standing[self.side(side)["name"]] = tn.rating.total
        return standing

    def _round_line(self, pending: dict[str, Any], entry: Any, gained: dict[str, int]) -> str:
        """An exchange, parting shot or disengagement in words: whose it was, the two
        results and the AP each side lost or gained (§5.3.1, §5.3.4, §5.3.9)."""
        if not isinstance(entry, dict) or entry.get("actor") not in SIDES:
            return super()._round_line(pending, entry, gained)
        actor = self.side(entry["actor"])["name"]
        defender = self.side(other_side(entry["actor"]))["name"]
        what = {
            "exchange": f"{possessive(actor)} exchange (bid {entry.get('bid')} AP)",
            "parting_shot": f"{possessive(actor)} parting shot (bid {entry.get('bid')} AP)",
            "disengage": f"{actor} tries to disengage",
        }.get(entry["kind"], f"{actor} acts")
        results = ""
        if "actor_result" in entry and "defender_result" in entry:
            results = (
                f": {possessive(actor)} {entry['actor_result']} against "
                f"{possessive(defender)} {entry['defender_result']}"
            )
        changes = [
            f"{name} {'loses' if value < 0 else 'gains'} {abs(value)} AP"
            for name, value in gained.items()
            if value
        ]
        return f"{what}{results}: {', '.join(changes) or 'no AP change'}"

    def _decide_long(self, machine: Any) -> None:
        super()._decide_long(machine)
        if machine.ended_by == "disengaged":
            self.state["outcome"]["disengaged"] = machine.disengaged

    @property
    def turn(self) -> Side | None:
        """The side whose turn it is (the PC's before the contest starts; None once
        it is over)."""
        return self._machine().turn if self.state["machine"] else "pc"

    def bid_limit(self, side: str) -> int:
        """The most `side` may bid now: its AP once started, else its TN (R13)."""
        if self.state["machine"]:
            limit: int = self._machine().bid_limit(side)
            return limit
        tn = self.target(side)
        if tn is None:
            raise IllegalAction(f"{self.side(side)['name']} has no ability or rating yet")
        return tn.rating.total

    def _roll_bid(self) -> int:
        """The acting side's bid: as bid, else the default 3, but never more than the
        resistance has (R13)."""
        if "bid" in self.state:
            bid: int = self.state["bid"]
            return bid
        machine = self._machine()
        return max(1, min(DEFAULT_BID, machine.bid_limit(self._acting_side(machine.turn))))

    def _roll_outcome(
        self, pc_roll: int, opponent_roll: int, extra: dict[str, Any] | None = None
    ) -> Any:
        """The machine rolls the exchange (or parting shot, or disengagement) and holds
        it for hero points (§2.2, R5.3); the table shows its outcome so far."""
        extra = extra or {}
        action = extra.get("action", "exchange")
        machine = self._machine()
        change = {
            side: self._engine_target(side).rating.total - self.state["start_tn"][side]
            for side in SIDES
        }
        rolls = {"pc": pc_roll, "opponent": opponent_roll}
        if action == "disengage":
            side = extra["actor"]
            arguments: dict[str, Any] = {
                "side": side,
                "roll": rolls[side],
                "opponent_roll": rolls[other_side(side)],
            }
        else:
            # An exchange (§5.3.1): the side whose turn it is acts with its bid and the
            # other defends; a parting shot (§5.3.4): the winner acts once more.
            actor = extra["actor"] if action == "parting_shot" else self._acting_side(machine.turn)
            arguments = {
                "actor_roll": rolls[actor],
                "defender_roll": rolls[other_side(actor)],
                "bid": extra["bid"],
                "pc_modifier": change["pc"],
                "opponent_modifier": change["opponent"],
            }
            if action == "exchange":
                arguments["actor"] = actor
        machine.roll(move=action, **arguments)
        self.state["machine"] = machine.to_json()
        return machine.pending

    # -- what an actor may do now ------------------------------------------------------

    def _turn_offers(self, actor: Actor) -> list[AvailableAction]:
        """The GM's roll; the bid, an unrelated action or disengaging for the side whose
        turn it is (§5.3.1, §5.3.7, §5.3.9); AP gifts once under way (§5.3.11)."""
        offers = super()._turn_offers(actor)
        turn = self.turn
        if turn is None:  # the contest is over (offered only while it is prepared)
            return offers
        if self.controls(actor, turn) and (self.started or self.target(turn) is not None):
            limit = self.bid_limit(turn)
            if limit >= 1:
                bid = number("bid", "Bid (AP)", 1, limit, default=min(DEFAULT_BID, limit))
                # The table waits on the turn's bid until it is made; a bid made may
                # still be changed before the roll, but nobody waits on that.
                awaited = "bid" not in self.state
                offers.append(AvailableAction("bid", "Bid", (bid,), primary=awaited, under=turn))
        rated = all(self.side(s)["rating"] is not None for s in SIDES)
        if self.controls(actor, turn) and rated:
            side = self._key([(turn, self.side(turn)["name"])])
            what = words("description", "What instead")
            offers += [
                AvailableAction("unrelated_action", "Give up the exchange", (side, what)),
                AvailableAction("disengage", "Try to disengage", (side,), confirm=True),
            ]
        if self.started:
            offers += self._gift_offers(actor)
        return offers

    def _gift_offers(self, actor: Actor) -> list[AvailableAction]:
        """An AP gift from outside (§5.3.11): the GM's for anyone; a player's for their
        characters outside the contest. The bid is at most the giver's rating."""
        inside = {self.side(s)["character_id"] for s in SIDES}
        givers = sorted(set(actor.character_ids) - inside)
        inputs = (
            choice("recipient", "To", self._keys()),
            words("helper", "Giver", limit=120, required=True),
            ActionInput("rating", "rating", "Giver's rating"),
            ActionInput("bid", "int", "Bid (at most the rating)", minimum=1, default=DEFAULT_BID),
            words("ability", "Ability", limit=120),
        )
        if actor.is_gm:
            return [AvailableAction("gift", "Give AP from outside the contest", inputs)]
        if not givers:
            return []
        who = choice("helper_character_id", "Giver", ((c, f"character #{c}") for c in givers))
        return [AvailableAction("gift", "Give AP from outside the contest", (who, *inputs))]

    def _decided_offers(self, actor: Actor) -> list[AvailableAction]:
        shooter = self.parting_shot_by
        if shooter is None or not self.controls(actor, shooter):
            return []
        limit = self._machine().bid_limit(shooter)
        if limit < 1:
            return []
        bid = number("bid", "Bid (AP)", 1, limit, default=min(DEFAULT_BID, limit))
        return [
            AvailableAction(
                "parting_shot", "Take a parting shot", (bid,), confirm=True, under=shooter
            )
        ]

    # -- actions ------------------------------------------------------------------------

    def _do_bid(self, data: Bid, actor: Actor, dice: Dice) -> dict[str, Any]:
        """The acting side's bid in an extended contest (§5.3.1, R13: default 3)."""
        self._require_phase("preparing")
        turn = self._acting_side(self.turn)
        self._require_control(actor, turn, "bid: it is their turn to act")
        bid = data.bid
        limit = self.bid_limit(turn)
        if not 1 <= bid <= limit:
            raise RulesError(f"a bid is 1 to {limit} AP for {self.side(turn)['name']}; not {bid}")
        self.state["bid"] = bid
        return {"summary": f"{self.side(turn)['name']} bids {bid} AP"}

    def _own_turn(self, data: Holder, actor: Actor, what: str) -> str:
        """The side taking its turn with something other than an exchange; starts the
        engine's contest when this is the first turn (AP are figured from the TNs)."""
        self._require_phase("preparing")
        side = side_of(data.side)
        self._require_control(actor, side, what)
        if self.state["machine"] is None:
            self._require_ratings()
            self._start_machine()
        turn = self._acting_side(self._machine().turn)
        if side != turn:
            raise IllegalAction(
                f"it is {self.side(turn)['name']}'s turn: {what} takes the side's own turn"
            )
        return side

    def _do_unrelated_action(
        self, data: CompletedUnrelatedAction, actor: Actor, dice: Dice
    ) -> dict[str, Any]:
        """Give up this turn's exchange to do something else (§5.3.7); any roll it
        needs is a simple contest of its own."""
        side = self._own_turn(data, actor, "take an unrelated action")
        description = text(data.description)
        machine = self._machine()
        machine.unrelated_action(side=side, description=description)
        self.state["machine"] = machine.to_json()
        self._end_turn()
        name = self.side(side)["name"]
        return {
            "summary": f"{name} gives up the exchange"
            + (f": {description}" if description else ""),
            "totals": self._totals(machine),
            "totals_kind": "AP",
        }

    def _do_disengage(self, data: CompletedDisengage, actor: Actor, dice: Dice) -> dict[str, Any]:
        """Try to leave the contest, as the side's turn (§5.3.9): both roll; after
        hero points, `resolve` settles it (a victory ends the contest with no winner,
        a defeat hands AP to the other side)."""
        side = self._own_turn(data, actor, "disengage")
        return self._pend(dice, action="disengage", actor=side)

    @property
    def parting_shot_by(self) -> str | None:
        """The side that may take a parting shot now (§5.3.4), if any."""
        if self.phase != "resolved" or not self.state["machine"]:
            return None
        return self._machine().parting_shot_by

    def _do_parting_shot(
        self, data: CompletedPartingShot, actor: Actor, dice: Dice
    ) -> dict[str, Any]:
        """The winner acts once more right after the exchange that decided the contest
        (§5.3.4): both roll; `resolve` plays it, and a failure may revive the loser."""
        self._require_phase("resolved")
        shooter = self.parting_shot_by
        if shooter is None:
            raise IllegalAction(
                "a parting shot is for the winner of an extended contest, right after the "
                "exchange that decided it (§5.3.4)"
            )
        self._require_control(actor, shooter, "take the parting shot")
        limit = self._machine().bid_limit(shooter)
        bid = data.bid if data.bid is not None else max(1, min(DEFAULT_BID, limit))
        if not 1 <= bid <= limit:
            raise RulesError(f"a bid is 1 to {limit} AP; not {bid}")
        return self._pend(dice, action="parting_shot", actor=shooter, bid=bid)

    def _do_gift(self, data: CompletedGift, actor: Actor, dice: Dice) -> dict[str, Any]:
        """A character outside the contest tries to raise a side's AP (§5.3.11): they
        bid at most their rating and roll against twice the bid. Takes no one's turn."""
        self._require_phase("preparing")
        if self.state["machine"] is None:
            raise IllegalAction("AP gifts go to a side of an extended contest under way")
        recipient = side_of(data.recipient, "recipient")
        helper_id = data.helper_character_id
        if helper_id is not None and helper_id in {self.side(s)["character_id"] for s in SIDES}:
            raise IllegalAction("only a character outside the contest gives AP (§5.3.11)")
        if helper_id is None:
            self._require_gm(actor, "give AP for someone without a character sheet")
        elif not (actor.is_gm or helper_id in actor.character_ids):
            raise IllegalAction("only the giver's player or the GM can offer that gift")
        helper = required(data.helper, "helper")
        ability = text(data.ability)
        roll = dice.take("roll")
        resistance_roll = dice.take("resistance_roll")
        machine = self._machine()
        entry = machine.gift(
            recipient=recipient,
            rating=data.rating,
            bid=data.bid if data.bid is not None else DEFAULT_BID,
            roll=roll,
            resistance_roll=resistance_roll,
        )
        self.state["machine"] = machine.to_json()
        name = self.side(recipient)["name"]
        gainers = [
            f"{self.side(side)['name']} gains {points} AP"
            for side, points in entry["change"].items()
            if points
        ]
        return {
            "summary": f"{helper} gives {name} AP"
            + (f" with {ability}" if ability else "")
            + f": bid {entry['bid']}, {entry['outcome']}; "
            + (", ".join(gainers) or "nothing changes"),
            "rolls": [
                {
                    "who": helper,
                    "ability": ability,
                    "tn": entry["tn"],
                    "roll": roll,
                    "result": entry["result"],
                },
                {
                    "who": "the resistance",
                    "tn": entry["resistance"],
                    "roll": resistance_roll,
                    "result": entry["resistance_result"],
                },
            ],
            "totals": self._totals(machine),
            "totals_kind": "AP",
        }
