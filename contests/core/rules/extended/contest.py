"""The one-on-one extended contest: `ExtendedContest` and its actions (§5.3, R13).

Exchanges and parting shots (§5.3.1, §5.3.4), unrelated actions (§5.3.7),
disengaging (§5.3.9), switching abilities (§5.3.8) and AP gifts (§5.3.11), played on
the state of `ExtendedContestBase`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar

from ..dice import Result, Roller, d20
from ..errors import IllegalAction, RulesError
from ..inputs import read_flag, read_int, read_rating, read_roll
from ..machine import HoldsRolls, action, after_end
from ..modifiers import refuse_resistance_modifier
from ..simple import SIDES, Outcome, Side, compare_results
from .rolls import (
    ability_in_use,
    roll_disengagement,
    roll_exchange,
    roll_gift,
    unrelated_action_log,
)
from .state import ExtendedContestBase, _other
from .tables import DEFAULT_BID, outcome_words, total_modifier


class ExtendedContest(HoldsRolls, ExtendedContestBase):
    """A one-on-one extended contest: a PC against an opponent (§5.3, R13).

    Setup (all JSON-able):

    - `pc`, `opponent`: each side as a `SideInput` (rating, name, lasting modifiers,
      augments, states and bumps, `is_pc`) or a bare rating (a bare opponent is the
      resistance the GM picked, which takes no modifiers, R2). The starting AP are each
      side's TN (§5.3.1 step 2). Two PCs may contend (§2.3.1.2, R18.8): a player's
      opponent rolls its own ability, spends its own hero points, stakes up to its
      starting AP (§5.3.6) and takes a parting shot when it wins (R18.2).
    - `pc_followers`: follower ratings whose totals add to the PC's starting AP.
    - `better_roll`: "high" (default) or "low" (R6).
    - `first`: who acts first in each round, "pc" (default) or "opponent".

    A side's lasting bumps count on its every roll (R5.4, R18.5); an exchange a
    stretched side wins by two or three steps counts as won by one (§2.10, R18.4).

    Actions (keyword arguments, explicit rolls): `exchange`, `parting_shot`,
    `unrelated_action`, `disengage`, `switch_ability`, `gift`. No `final_action`:
    §5.3.5 gives it only in a group extended contest ("in a standard extended contest,
    you are defeated"). See docs/rules-extended.md.
    """

    kind = "extended"

    # -- hero points after the roll (§2.2, R5.3): roll, hero_point, settle ------------

    HELD_ACTIONS = ("exchange", "parting_shot", "disengage")
    # The PC's hero point is `hero_point` in this machine's actions.
    HERO_POINT_ARGS: ClassVar[dict[Side, str]] = {
        "pc": "hero_point",
        "opponent": "opponent_hero_point",
    }

    @action
    @after_end
    def roll(self, *, move: str = "exchange", **arguments: Any) -> Outcome:
        """Roll an exchange, a parting shot or a disengagement (`move`, with its
        arguments but the hero points) and hold it: both results are known (§2.2), a
        player may then spend a `hero_point`, and `settle` plays it. Returns the outcome
        so far, seen from the PC's side."""
        if move not in self.HELD_ACTIONS:
            raise RulesError(
                f"roll holds an exchange, a parting shot or a disengagement, not {move!r}"
            )
        if self.is_over and move != "parting_shot":
            raise IllegalAction(f"the contest is over: {move} is not allowed")
        spent = set(self.HERO_POINT_ARGS.values()) & set(arguments)
        if spent:
            raise RulesError(
                "hero points come after the roll: spend them with hero_point(side=...)"
            )
        return self._hold({"move": move, **arguments})

    def _play_held(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Play a held action without recording it again."""
        held = dict(arguments)
        method: Callable[..., dict[str, Any]] = getattr(type(self), held.pop("move")).__wrapped__
        return method(self, **held)

    def _held_outcome(self, entry: dict[str, Any], arguments: dict[str, Any]) -> Outcome:
        """The held action's two results, from the PC's side."""
        if entry["kind"] == "disengage":
            mine, theirs = entry["result"], entry["opponent_result"]
            my_roll, their_roll = entry["roll"], entry["opponent_roll"]
        else:
            mine, theirs = entry["actor_result"], entry["defender_result"]
            my_roll, their_roll = entry["actor_roll"], entry["defender_roll"]
        results = {entry["actor"]: (mine, my_roll), _other(entry["actor"]): (theirs, their_roll)}
        outcome = compare_results(
            Result[results["pc"][0].upper()],
            Result[results["opponent"][0].upper()],
            results["pc"][1],
            results["opponent"][1],
            better_roll=self.better_roll,
        )
        return replace(
            outcome,
            pc_hero_point=bool(arguments["hero_point"]),
            opponent_hero_point=bool(arguments["opponent_hero_point"]),
        )

    def _side_name(self, side: Side) -> str:
        return self._label(side)

    # -- actions --------------------------------------------------------------

    @action
    def exchange(
        self,
        *,
        actor: str,
        actor_roll: int,
        defender_roll: int,
        bid: int = DEFAULT_BID,
        hero_point: bool = False,
        pc_modifier: int = 0,
        opponent_hero_point: bool = False,
        opponent_modifier: int = 0,
    ) -> dict[str, Any]:
        """Play one exchange (§5.3.1 step 4): `actor` ("pc" or "opponent") bids and
        both sides roll. `hero_point` spends the PC's hero point on the PC's roll
        (acting or defending), `opponent_hero_point` a PC opponent's on its own;
        `*_modifier` are situational modifiers for this exchange only (R9), never on a
        resistance (R18.3). Returns the log entry."""
        self._refuse_held()
        side = self._check_side(actor)
        self._check_turn(side)
        entry = self._play(
            side,
            "exchange",
            bid,
            actor_roll,
            defender_roll,
            {"pc": hero_point, "opponent": opponent_hero_point},
            {"pc": pc_modifier, "opponent": opponent_modifier},
        )
        self.turns_taken += 1
        return entry

    def play_exchange(
        self,
        *,
        actor: str,
        bid: int = DEFAULT_BID,
        hero_point: bool = False,
        pc_modifier: int = 0,
        roller: Roller = d20,
        **opponent: Any,
    ) -> dict[str, Any]:
        """Roll both dice with `roller` and play the exchange (not itself recorded:
        the recorded action is `exchange` with the rolled numbers)."""
        actor_roll, defender_roll = roller(), roller()
        return self.exchange(
            actor=actor,
            bid=bid,
            actor_roll=actor_roll,
            defender_roll=defender_roll,
            hero_point=hero_point,
            pc_modifier=pc_modifier,
            **opponent,
        )

    @action
    @after_end
    def parting_shot(
        self,
        *,
        actor_roll: int,
        defender_roll: int,
        bid: int = DEFAULT_BID,
        hero_point: bool = False,
        pc_modifier: int = 0,
        opponent_hero_point: bool = False,
        opponent_modifier: int = 0,
    ) -> dict[str, Any]:
        """The winner acts again right after defeating the other side (§5.3.4).

        A success lowers the loser's AP further (the degree may change); a failure may
        transfer AP back and bring the loser into the contest again, which then goes
        on where it stopped. The earlier defeat stays in `defeats` for the GM, who may
        keep its consequence.
        """
        self._refuse_held()
        shooter = self.parting_shot_by
        if shooter is None:
            raise IllegalAction(
                "a parting shot is only allowed to the winner, right after the exchange "
                "that defeated the other side (§5.3.4)"
            )
        loser = _other(shooter)
        self.defeats.append({"side": loser, "ap": self.sides[loser].ap, "degree": self.degree})
        return self._play(
            shooter,
            "parting_shot",
            bid,
            actor_roll,
            defender_roll,
            {"pc": hero_point, "opponent": opponent_hero_point},
            {"pc": pc_modifier, "opponent": opponent_modifier},
        )

    def _play(
        self,
        actor: Side,
        kind: str,
        bid: Any,
        actor_roll: Any,
        defender_roll: Any,
        hero_points: dict[str, Any],
        modifiers: dict[str, Any],
    ) -> dict[str, Any]:
        defender = _other(actor)
        round_now = self.round
        bid = self._check_bid(actor, bid)
        held = self.sides[actor].ap
        actor_roll = read_roll(actor_roll, f"{self._label(actor)}'s roll")
        defender_roll = read_roll(defender_roll, f"{self._label(defender)}'s roll")
        spent = {side: read_flag(hero_points[side], f"{side}_hero_point") for side in SIDES}
        tns = {}
        for side in SIDES:
            change = read_int(modifiers[side], f"{side}_modifier")
            if change and not self.sides[side].is_pc:
                refuse_resistance_modifier(change, {"opponent": False})
            tns[side] = self.sides[side].tn + change
        exchange = roll_exchange(
            self._side_roll(actor, tns[actor], actor_roll, spent[actor]),
            self._side_roll(defender, tns[defender], defender_roll, spent[defender]),
            bid=bid,
            held=held,
            better_roll=self.better_roll,
        )
        changes = {actor: exchange.effect.actor_change, defender: exchange.effect.defender_change}
        for side in SIDES:
            self.sides[side].ap += changes[side]
            self.sides[side].used.append(self.sides[side].tn.total)
            if spent[side]:
                self.sides[side].hero_points_spent += 1
        entry = {
            "kind": kind,
            "round": round_now,
            "actor": actor,
            "defender": defender,
            **exchange.log(),
            "hero_point": spent["pc"],
            "opponent_hero_point": spent["opponent"],
            "rule": exchange.effect.rule,
            "change": {side: changes[side] for side in SIDES},
            "ap": {side: self.sides[side].ap for side in SIDES},
            "defeated": self.defeated,
        }
        self.exchanges.append(entry)
        return entry

    @action
    def unrelated_action(self, *, side: str, description: str = "") -> dict[str, Any]:
        """Forfeit this turn's exchange to do something unrelated (§5.3.7).

        Any simple contest it needs is played outside the machine; an augment won this
        way is applied with `switch_ability` (same ability, new modifier).
        """
        self._refuse_held()
        side = self._check_side(side)
        self._check_turn(side)
        entry = {
            **unrelated_action_log(self.round, side, description),
            "change": {s: 0 for s in SIDES},
            "ap": {s: self.sides[s].ap for s in SIDES},
        }
        self.exchanges.append(entry)
        self.turns_taken += 1
        return entry

    @action
    def disengage(
        self,
        *,
        side: str,
        roll: int,
        opponent_roll: int,
        rating: int | str | None = None,
        opponent_rating: int | str | None = None,
        hero_point: bool = False,
        opponent_hero_point: bool = False,
    ) -> dict[str, Any]:
        """Try to leave the contest with an unrelated action (§5.3.9).

        A simple contest of `rating` (default: the side's current ability) against
        `opponent_rating` (default: the other side's current ability or resistance).
        Any victory ends the contest with nobody winning it; any defeat keeps the side
        in and transfers part of its current AP to the other side; a tie changes
        nothing. `hero_point` is the PC's, on the PC's roll, whichever side that is;
        `opponent_hero_point` a PC opponent's (R18.8).
        """
        self._refuse_held()
        side = self._check_side(side)
        self._check_turn(side)
        round_now = self.round
        other = _other(side)
        if not self.sides[side].is_pc and rating is not None:
            raise RulesError("the GM disengages with the resistance's own rating (§5.3.9)")
        mine, bumps = ability_in_use(
            self.sides[side].tn, self.sides[side].bumps, rating, "the disengaging ability"
        )
        theirs, their_bumps = ability_in_use(
            self.sides[other].tn, self.sides[other].bumps, opponent_rating, "the opposing ability"
        )
        roll = read_roll(roll, f"the {side}'s roll")
        opponent_roll = read_roll(opponent_roll, f"the {other}'s roll")
        spent = {
            "pc": read_flag(hero_point, "hero_point"),
            "opponent": read_flag(opponent_hero_point, "opponent_hero_point"),
        }
        attempt = roll_disengagement(
            self._side_roll(side, mine, roll, spent[side], bumps, own_ability=rating is None),
            self._side_roll(
                other,
                theirs,
                opponent_roll,
                spent[other],
                their_bumps,
                own_ability=opponent_rating is None,
            ),
            current_ap=self.sides[side].ap,
            better_roll=self.better_roll,
        )
        for who in SIDES:
            if spent[who]:
                self.sides[who].hero_points_spent += 1
        self.sides[side].ap -= attempt.transfer
        self.sides[other].ap += attempt.transfer
        if attempt.left:
            self.disengaged = side
        entry = {
            "kind": "disengage",
            "round": round_now,
            "actor": side,
            **attempt.log,
            "hero_point": spent["pc"],
            "opponent_hero_point": spent["opponent"],
            "outcome": outcome_words(attempt.outcome.level),
            "left": attempt.left,
            "change": {side: -attempt.transfer, other: attempt.transfer},
            "ap": {s: self.sides[s].ap for s in SIDES},
        }
        self.exchanges.append(entry)
        self.turns_taken += 1
        return entry

    @action
    def switch_ability(
        self,
        *,
        side: str,
        rating: int | str,
        modifier: int | list[int] = 0,
        bumps: int = 0,
        stretched: bool = False,
    ) -> None:
        """Pursue the prize with another ability (§5.3.8): AP stay as they are.

        Free, and allowed from round 2: the ability the AP were figured from must be
        used in the first round (§5.3.1 step 4.1.2). Also the way to apply a new
        augment or a lasting modifier to the ability in use. A resistance takes no
        modifiers (R2) and no bumps here: the GM gives it a new rating instead.
        """
        self._refuse_held()
        side = self._check_side(side)
        if self.round == 1:
            raise IllegalAction(
                "the ability your AP were figured from must be used in the first round "
                "(§5.3.1): switch from round 2"
            )
        new_rating = read_rating(rating, "the new ability's rating")
        modifier = total_modifier(modifier, "modifier")
        bumps = read_int(bumps, "bumps")
        stretched = read_flag(stretched, "stretched")
        if not self.sides[side].is_pc and (modifier or bumps or stretched):
            raise RulesError(
                "modifiers, stretches and bumps never apply to a resistance (R2): give it "
                "another rating"
            )
        contestant = self.sides[side]
        contestant.rating, contestant.modifier, contestant.bumps = str(new_rating), modifier, bumps
        contestant.stretched = stretched

    @action
    def gift(
        self,
        *,
        recipient: str,
        rating: object,
        bid: int,
        roll: int,
        resistance_roll: int,
        hero_point: bool = False,
    ) -> dict[str, Any]:
        """An uninvolved character tries to raise a side's AP (§5.3.11).

        The gifter bids at most their rating (`rating`, masteries counting 20) and
        rolls against a resistance of twice the bid. `hero_point` is the gifter's own.
        Free: it takes no one's turn.
        """
        self._refuse_held()
        recipient = self._check_side(recipient, "recipient")
        gift = roll_gift(
            rating, bid, roll, resistance_roll, hero_point, better_roll=self.better_roll
        )
        other = _other(recipient)
        self.sides[recipient].ap += gift.recipient_gain
        self.sides[other].ap += gift.opponent_gain
        entry = {
            "kind": "gift",
            "round": self.round,
            "recipient": recipient,
            **gift.log,
            "change": {recipient: gift.recipient_gain, other: gift.opponent_gain},
            "ap": {s: self.sides[s].ap for s in SIDES},
        }
        self.exchanges.append(entry)
        return entry
