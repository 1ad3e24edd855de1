"""The one-on-one extended contest: `ExtendedContest` and its actions (§5.3, R13).

Exchanges and parting shots (§5.3.1, §5.3.4), unrelated actions (§5.3.7),
disengaging (§5.3.9), switching abilities (§5.3.8) and AP gifts (§5.3.11), played on
the state of `ExtendedContestBase`.
"""

from __future__ import annotations

from typing import Any

from ..dice import Roller, d20
from ..errors import IllegalAction, RulesError
from ..inputs import read_flag, read_int, read_rating, read_roll
from ..machine import action, after_end
from .rolls import (
    ability_in_use,
    roll_disengagement,
    roll_exchange,
    roll_gift,
    unrelated_action_log,
)
from .state import SIDES, ExtendedContestBase, Side, _other
from .tables import DEFAULT_BID, outcome_words, total_modifier


class ExtendedContest(ExtendedContestBase):
    """A one-on-one extended contest: a PC against an opponent (§5.3, R13).

    Setup (all JSON-able):

    - `pc`, `opponent`: the ratings (int totals or notation such as "7M"); the
      opponent is the resistance the GM picked.
    - `pc_modifiers`: a modifier, or a list of modifiers and augment bonuses, that
      apply to the PC's ability for the whole contest (modifiers never apply to a
      resistance, R2).
    - `pc_followers`: follower ratings whose totals add to the PC's starting AP.
    - `pc_bumps`: lasting bumps on the PC's rolls (heroic +1, pyrrhic +1, a stretch as
      a bump down -1...).
    - `better_roll`: "high" (default) or "low" (R6).
    - `first`: who acts first in each round, "pc" (default) or "opponent".

    Actions (keyword arguments, explicit rolls): `exchange`, `parting_shot`,
    `unrelated_action`, `disengage`, `switch_ability`, `gift`. No `final_action`:
    §5.3.5 gives it only in a group extended contest ("in a standard extended contest,
    you are defeated"). See docs/rules-extended.md.
    """

    kind = "extended"

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
    ) -> dict[str, Any]:
        """Play one exchange (§5.3.1 step 4): `actor` ("pc" or "opponent") bids and
        both sides roll. `hero_point` spends the PC's hero point on the PC's roll
        (acting or defending); `pc_modifier` is a situational modifier to the PC's
        ability for this exchange only (R9). Returns the log entry."""
        side = self._check_side(actor)
        self._check_turn(side)
        entry = self._play(
            side, "exchange", bid, actor_roll, defender_roll, hero_point, pc_modifier
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
    ) -> dict[str, Any]:
        """The winner acts again right after defeating the other side (§5.3.4).

        A success lowers the loser's AP further (the degree may change); a failure may
        transfer AP back and bring the loser into the contest again, which then goes
        on where it stopped. The earlier defeat stays in `defeats` for the GM, who may
        keep its consequence.
        """
        shooter = self.parting_shot_by
        if shooter is None:
            raise IllegalAction(
                "a parting shot is only allowed to the winner, right after the exchange "
                "that defeated the other side (§5.3.4)"
            )
        loser = _other(shooter)
        self.defeats.append({"side": loser, "ap": self.sides[loser].ap, "degree": self.degree})
        return self._play(
            shooter, "parting_shot", bid, actor_roll, defender_roll, hero_point, pc_modifier
        )

    def _play(
        self,
        actor: Side,
        kind: str,
        bid: Any,
        actor_roll: Any,
        defender_roll: Any,
        hero_point: Any,
        pc_modifier: Any,
    ) -> dict[str, Any]:
        defender = _other(actor)
        round_now = self.round
        bid = self._check_bid(actor, bid)
        held = self.sides[actor].ap
        actor_roll = read_roll(actor_roll, f"the {actor}'s roll")
        defender_roll = read_roll(defender_roll, f"the {defender}'s roll")
        hero_point = read_flag(hero_point, "hero_point")
        pc_modifier = read_int(pc_modifier, "pc_modifier")
        tns = {side: self.sides[side].tn for side in SIDES}
        tns["pc"] = tns["pc"] + pc_modifier
        exchange = roll_exchange(
            self._side_roll(actor, tns[actor], actor_roll, hero_point),
            self._side_roll(defender, tns[defender], defender_roll, hero_point),
            bid=bid,
            held=held,
            better_roll=self.better_roll,
        )
        changes = {actor: exchange.effect.actor_change, defender: exchange.effect.defender_change}
        for side in SIDES:
            self.sides[side].ap += changes[side]
            self.sides[side].used.append(self.sides[side].tn.total)
        if hero_point:
            self.sides["pc"].hero_points_spent += 1
        entry = {
            "kind": kind,
            "round": round_now,
            "actor": actor,
            "defender": defender,
            **exchange.log(),
            "hero_point": hero_point,
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
    ) -> dict[str, Any]:
        """Try to leave the contest with an unrelated action (§5.3.9).

        A simple contest of `rating` (default: the side's current ability) against
        `opponent_rating` (default: the other side's current ability or resistance).
        Any victory ends the contest with nobody winning it; any defeat keeps the side
        in and transfers part of its current AP to the other side; a tie changes
        nothing. `hero_point` is the PC's, on the PC's roll, whichever side that is.
        """
        side = self._check_side(side)
        self._check_turn(side)
        round_now = self.round
        other = _other(side)
        if side == "opponent" and rating is not None:
            raise RulesError("the GM disengages with the resistance's own rating (§5.3.9)")
        mine, bumps = ability_in_use(
            self.sides[side].tn, self.sides[side].bumps, rating, "the disengaging ability"
        )
        theirs, their_bumps = ability_in_use(
            self.sides[other].tn, self.sides[other].bumps, opponent_rating, "the opposing ability"
        )
        roll = read_roll(roll, f"the {side}'s roll")
        opponent_roll = read_roll(opponent_roll, f"the {other}'s roll")
        hero_point = read_flag(hero_point, "hero_point")
        attempt = roll_disengagement(
            self._side_roll(side, mine, roll, hero_point, bumps),
            self._side_roll(other, theirs, opponent_roll, hero_point, their_bumps),
            current_ap=self.sides[side].ap,
            better_roll=self.better_roll,
        )
        if hero_point:
            self.sides["pc"].hero_points_spent += 1
        self.sides[side].ap -= attempt.transfer
        self.sides[other].ap += attempt.transfer
        if attempt.left:
            self.disengaged = side
        entry = {
            "kind": "disengage",
            "round": round_now,
            "actor": side,
            **attempt.log,
            "hero_point": hero_point,
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
        self, *, side: str, rating: int | str, modifier: int | list[int] = 0, bumps: int = 0
    ) -> None:
        """Pursue the prize with another ability (§5.3.8): AP stay as they are.

        Free, and allowed from round 2: the ability the AP were figured from must be
        used in the first round (§5.3.1 step 4.1.2). Also the way to apply a new
        augment or a lasting modifier to the ability in use. A resistance takes no
        modifiers (R2) and no bumps here: the GM gives it a new rating instead.
        """
        side = self._check_side(side)
        if self.round == 1:
            raise IllegalAction(
                "the ability your AP were figured from must be used in the first round "
                "(§5.3.1): switch from round 2"
            )
        new_rating = read_rating(rating, "the new ability's rating")
        modifier = total_modifier(modifier, "modifier")
        bumps = read_int(bumps, "bumps")
        if side == "opponent" and (modifier or bumps):
            raise RulesError(
                "modifiers and bumps never apply to a resistance (R2): give it another rating"
            )
        contestant = self.sides[side]
        contestant.rating, contestant.modifier, contestant.bumps = str(new_rating), modifier, bumps

    @action
    def gift(
        self,
        *,
        recipient: str,
        rating: int | str,
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
