"""The rolls of the extended contest, shared by the one-on-one and group machines.

Two opposed rolls read as a simple contest (masteries, bumps and hero points, R5), the
rolls of an exchange (§5.3.1 step 4) and of the simple contests of §5.3.5 and
§5.3.9-§5.3.11, and the log of an unrelated action (§5.3.7).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..dice import Result, roll_result
from ..errors import IllegalAction, RulesError
from ..inputs import read_flag, read_rating, read_roll
from ..ratings import Rating
from ..simple import BetterRoll, Outcome, bumped_results, compare_results, mastery_bumps
from .tables import (
    ExchangeEffect,
    check_bid,
    disengagement_transfer,
    exchange_effect,
    gifting_effect,
    gifting_resistance,
    outcome_words,
)

# ---------------------------------------------------------------------------
# Die results for two opposed rolls
# ---------------------------------------------------------------------------


def opposed_results(
    first: Rating,
    first_roll: int,
    second: Rating,
    second_roll: int,
    *,
    first_hero_point: bool = False,
    second_hero_point: bool = False,
    first_bumps: int = 0,
    second_bumps: int = 0,
    first_name: str = "the first side",
    second_name: str = "the second side",
) -> tuple[Result, Result]:
    """Both sides' final results: masteries and other bumps, then hero points (R5).

    A hero point raises its side's result one step and is refused on a critical.
    """
    masteries = mastery_bumps(first, second)
    first_result, second_result = bumped_results(
        roll_result(first_roll, first.target),
        roll_result(second_roll, second.target),
        pc_bumps=first_bumps + max(masteries, 0),
        opponent_bumps=second_bumps + max(-masteries, 0),
    )
    # R5.3: hero points come after every other bump, one per roll, below critical.
    if first_hero_point:
        first_result = hero_point_bump(first_result, first_name)
    if second_hero_point:
        second_result = hero_point_bump(second_result, second_name)
    return first_result, second_result


def hero_point_bump(result: Result, whose: str) -> Result:
    if result is Result.CRITICAL:
        raise IllegalAction(
            f"a hero point cannot raise a critical: {whose}'s result is already the best (R5.3)"
        )
    return result.bumped(1)


def simple_outcome(
    first: Rating,
    first_roll: int,
    second: Rating,
    second_roll: int,
    *,
    better_roll: BetterRoll = "high",
    first_hero_point: bool = False,
    second_hero_point: bool = False,
    first_bumps: int = 0,
    second_bumps: int = 0,
    first_name: str = "the first side",
    second_name: str = "the second side",
) -> Outcome:
    """A simple contest seen from the first side (§4.4, R5, R6), where either side
    may spend a hero point (the PC against a PC, or the PC defending)."""
    first_result, second_result = opposed_results(
        first,
        first_roll,
        second,
        second_roll,
        first_hero_point=first_hero_point,
        second_hero_point=second_hero_point,
        first_bumps=first_bumps,
        second_bumps=second_bumps,
        first_name=first_name,
        second_name=second_name,
    )
    return compare_results(
        first_result, second_result, first_roll, second_roll, better_roll=better_roll
    )


# ---------------------------------------------------------------------------
# Shared by the one-on-one and group machines: the rolls of an exchange (§5.3.1
# step 4) and of the simple contests of §5.3.5 and §5.3.9-§5.3.11, and the log of
# an unrelated action (§5.3.7). Each takes values already read and returns what
# happened with the fields that log it; the machines apply the AP changes and add
# who acted.
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SideRoll:
    """One side's roll in an exchange or a simple contest: who rolls (for messages),
    with which ability, the d20, whether a hero point raises the result, and bumps."""

    name: str
    ability: Rating
    roll: int
    hero_point: bool = False
    bumps: int = 0
    # §2.10 (R18.4): a stretched ability's exchanges won by two or three steps count
    # as won by one.
    stretched: bool = False


def ability_in_use(current: Rating, bumps: int, rating: Any, what: str) -> tuple[Rating, int]:
    """The ability a contestant rolls with and its bumps: its current ability with its
    lasting bumps, or `rating`, another ability named for this roll, with none
    (§5.3.9 disengaging, §5.3.10 lending)."""
    if rating is None:
        return current, bumps
    return read_rating(rating, what), 0


def _simple_outcome(first: SideRoll, second: SideRoll, better_roll: BetterRoll) -> Outcome:
    """`simple_outcome` of two sides' rolls, seen from `first`."""
    return simple_outcome(
        first.ability,
        first.roll,
        second.ability,
        second.roll,
        better_roll=better_roll,
        first_hero_point=first.hero_point,
        second_hero_point=second.hero_point,
        first_bumps=first.bumps,
        second_bumps=second.bumps,
        first_name=first.name,
        second_name=second.name,
    )


@dataclass(frozen=True, slots=True)
class Exchange:
    """One exchange as rolled (§5.3.1 step 4): both sides' final results and what the
    Extended Contest Table does to their AP."""

    bid: int
    desperation: bool
    actor: SideRoll
    defender: SideRoll
    actor_result: Result
    defender_result: Result
    effect: ExchangeEffect

    def log(self) -> dict[str, Any]:
        """The log fields from the bid to the defender's result."""
        return {
            "bid": self.bid,
            "desperation": self.desperation,
            "actor_roll": self.actor.roll,
            "defender_roll": self.defender.roll,
            "actor_tn": str(self.actor.ability),
            "defender_tn": str(self.defender.ability),
            "actor_result": self.actor_result.label,
            "defender_result": self.defender_result.label,
        }


def roll_exchange(
    actor: SideRoll, defender: SideRoll, *, bid: int, held: int, better_roll: BetterRoll
) -> Exchange:
    """Play one exchange (§5.3.1 step 4, R13): the actor bids `bid` out of the `held`
    AP (more is a desperation stake, §5.3.6), both roll, bumps and hero points apply
    (R5) and the Extended Contest Table reads the results."""
    # The two rolls are read as in a simple contest; only the table differs.
    results = _simple_outcome(actor, defender, better_roll)
    actor_result, defender_result = results.pc_result, results.opponent_result
    read_actor, read_defender = stretch_capped_results(
        actor, defender, actor_result, defender_result
    )
    effect = exchange_effect(
        read_actor, read_defender, actor.roll, defender.roll, bid, better_roll=better_roll
    )
    if (read_actor, read_defender) != (actor_result, defender_result):
        effect = replace(effect, rule=f"{effect.rule} (a stretch: won by one step, §2.10)")
    return Exchange(bid, bid > held, actor, defender, actor_result, defender_result, effect)


def stretch_capped_results(
    first: SideRoll, second: SideRoll, first_result: Result, second_result: Result
) -> tuple[Result, Result]:
    """The results an exchange's table reads: as rolled, except that a stretched side
    winning by two or three steps wins by one (§2.10 "major or complete victories are
    instead treated as minor", R18.4). The log keeps the results as rolled.

    >>> asha = SideRoll("Asha", Rating(10), 1, stretched=True)
    >>> ogre = SideRoll("Ogre", Rating(10), 20)
    >>> stretch_capped_results(asha, ogre, Result.CRITICAL, Result.FUMBLE)
    (<Result.CRITICAL: 3>, <Result.SUCCESS: 2>)
    """
    # The loser's result is read one step below the winner's, so a critical still
    # transfers what it takes (§5.3.1 step 4.5).
    if first_result - second_result >= 2 and first.stretched:
        return first_result, first_result.bumped(-1)
    if second_result - first_result >= 2 and second.stretched:
        return second_result.bumped(-1), second_result
    return first_result, second_result


@dataclass(frozen=True, slots=True)
class Disengagement:
    """A try to leave the contest as rolled (§5.3.9), seen from the side leaving."""

    outcome: Outcome
    transfer: int
    """AP the side gives the other: a defeat's part of its current AP."""
    log: dict[str, Any]
    """The log fields of the two rolls, abilities and results."""

    @property
    def left(self) -> bool:
        """Any victory leaves the contest; nobody wins it."""
        return self.outcome.level > 0


def roll_disengagement(
    leaving: SideRoll, staying: SideRoll, *, current_ap: int, better_roll: BetterRoll
) -> Disengagement:
    """The simple contest of a disengagement (§5.3.9) against the side keeping the
    other in. A defeat transfers part of the leaving side's `current_ap` to the
    staying side (the failed disengagement table); a tie changes nothing."""
    outcome = _simple_outcome(leaving, staying, better_roll)
    log = {
        "roll": leaving.roll,
        "opponent_roll": staying.roll,
        "tn": str(leaving.ability),
        "opponent_tn": str(staying.ability),
        "result": outcome.pc_result.label,
        "opponent_result": outcome.opponent_result.label,
    }
    return Disengagement(outcome, disengagement_transfer(outcome.level, current_ap), log)


def roll_against_resistance(
    roller: SideRoll, resistance: Rating, resistance_roll: int, *, better_roll: BetterRoll
) -> tuple[Outcome, dict[str, Any]]:
    """A simple contest of one ability against a resistance (§5.3.5 final action,
    §5.3.10 lending, §5.3.11 gifting): the outcome and the log fields that tell it."""
    outcome = _simple_outcome(
        roller, SideRoll("the resistance", resistance, resistance_roll), better_roll
    )
    return outcome, {
        "roll": roller.roll,
        "resistance_roll": resistance_roll,
        "tn": str(roller.ability),
        "resistance": str(resistance),
        "result": outcome.pc_result.label,
        "resistance_result": outcome.opponent_result.label,
        "hero_point": roller.hero_point,
        "outcome": outcome_words(outcome.level),
    }


@dataclass(frozen=True, slots=True)
class Gift:
    """An AP gift as rolled (§5.3.11): what the recipient and its opponent gain."""

    recipient_gain: int
    opponent_gain: int
    log: dict[str, Any]
    """The log fields from the bid to the outcome."""


def roll_gift(
    rating: Any,
    bid: Any,
    roll: Any,
    resistance_roll: Any,
    hero_point: Any,
    *,
    better_roll: BetterRoll,
) -> Gift:
    """An uninvolved character tries to raise a side's AP (§5.3.11).

    The gifter bids at most their `rating` (masteries counting 20) and rolls against a
    resistance of twice the bid; `hero_point` is the gifter's own. The AP Gifting
    table sets what the recipient, or on a defeat its opponent, gains.
    """
    gifter = read_rating(rating, "the gifter's rating")
    bid = check_bid(
        bid, gifter.total, "the gifter's", "an AP gift never exceeds the gifter's rating"
    )
    roll = read_roll(roll, "the gifter's roll")
    resistance_roll = read_roll(resistance_roll, "the resistance's roll")
    hero_point = read_flag(hero_point, "hero_point")
    outcome, log = roll_against_resistance(
        SideRoll("the gifter", gifter, roll, hero_point),
        gifting_resistance(bid),
        resistance_roll,
        better_roll=better_roll,
    )
    recipient_gain, opponent_gain = gifting_effect(outcome.level, bid)
    return Gift(recipient_gain, opponent_gain, {"bid": bid, **log})


def unrelated_action_log(round_now: int, actor: str, description: Any) -> dict[str, Any]:
    """The log fields of an unrelated action that forfeits an exchange (§5.3.7)."""
    if not isinstance(description, str):
        raise RulesError("an unrelated action's description must be text")
    return {
        "kind": "unrelated_action",
        "round": round_now,
        "actor": actor,
        "description": description,
    }
