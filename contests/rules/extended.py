"""The extended contest: advantage points, bids and exchanges (§5.3, RULINGS.md R13).

This module holds the tables of §5.3 as pure functions (the exchange table, the
outcome bands, final action, failed disengagement, AP lending and AP gifting), the
rolls played on them (`roll_exchange`, `roll_disengagement`, `roll_gift`, ...) and the
one-on-one `ExtendedContest` state machine. The group contest (§5.3.3) builds on the
same functions in `extended_group.py`.

Every fraction of AP rounds up: R13 settles "round half points up" for halves, and the
eighths and quarters of the later tables follow the same rule (see
docs/rules-extended.md, "Rulings we made").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from .dice import Result, Roller, d20, roll_result
from .errors import IllegalAction, RulesError
from .inputs import read_better_roll, read_flag, read_int, read_rating, read_roll
from .machine import ContestMachine, action, after_end
from .outcomes import is_clearly_inferior
from .ratings import Rating
from .simple import DEGREES, Outcome, bumped_results, compare_results, mastery_bumps
from .states import BENEFIT_OF_VICTORY, CONSEQUENCE_OF_DEFEAT, State

DEFAULT_BID = 3
"""§5.3.2.1: the bid the GM uses when a player does not name one."""

"""§2.11.2.1 (R10): no benefit of victory when the winner's ability exceeded the
loser's by this much or more."""

Side = Literal["pc", "opponent"]
SIDES: tuple[Side, Side] = ("pc", "opponent")


# ---------------------------------------------------------------------------
# Small shared helpers
# ---------------------------------------------------------------------------


def fraction_up(value: int, numerator: int, denominator: int) -> int:
    """`value * numerator / denominator`, rounded up (R13: halves round up).

    >>> fraction_up(3, 1, 2), fraction_up(23, 1, 8), fraction_up(8, 1, 4)
    (2, 3, 2)
    """
    return -(-value * numerator // denominator)


def total_modifier(modifiers: int | Iterable[int], what: str) -> int:
    """The sum of a modifier or a list of modifiers and augment bonuses."""
    if isinstance(modifiers, int) and not isinstance(modifiers, bool):
        return modifiers
    if isinstance(modifiers, list | tuple):
        return sum(read_int(m, what) for m in modifiers)
    raise RulesError(f"{what} must be a whole number or a list of them, not {modifiers!r}")


def starting_ap(
    rating: int | str, modifiers: int | Iterable[int] = 0, followers: Iterable[int | str] = ()
) -> int:
    """A side's starting advantage points (§5.3.1 step 2, §5.3.2.3, R13).

    The full rating total with every modifier and augment (each mastery counting 20),
    plus each follower's rating total (the follower's own modifiers figured in).

    >>> starting_ap("7M", modifiers=[6, -3])
    30
    >>> starting_ap(17, followers=["13", "2M"])
    52
    """
    ap = (read_rating(rating, "the rating") + total_modifier(modifiers, "modifiers")).total
    for follower in followers:
        follower_total = read_rating(follower, "a follower's rating").total
        if follower_total < 1:
            raise RulesError(f"a follower's rating must be at least 1 to add AP, not {follower}")
        ap += follower_total
    return ap


def check_bid(bid: Any, limit: int, whose: str, reason: str) -> int:
    """Refuse a bid below 1 or over `limit` (§5.3.2.1, §5.3.6, R13)."""
    bid = read_int(bid, "a bid")
    if bid < 1:
        raise IllegalAction(f"a bid is at least 1 AP, not {bid}")
    if bid > limit:
        raise IllegalAction(f"bid {bid} is over {whose} limit of {limit} AP ({reason})")
    return bid


def pc_bid_limit(current_ap: int, start_ap: int) -> int:
    """§5.3.6 desperation stake: a PC may stake more than they have, up to their
    starting AP; what they hold above their starting AP they may also stake."""
    return max(current_ap, start_ap)


def pc_bid_reason(current_ap: int, start_ap: int) -> str:
    """Why a PC's bid limit is what it is, for the refusal message."""
    if current_ap > start_ap:
        return "all the AP you hold"
    return f"your starting AP: a desperation stake may go up to it; you hold {current_ap}"


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
    better_roll: str = "high",
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
# §5.3.1 Extended Contest Table
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExchangeEffect:
    """What one exchange does to the two sides' AP (§5.3.1, R13).

    `loser` is "actor", "defender" or None (no change). `amount` is what the loser
    loses; when `transfer` is true the other side gains the same amount.
    """

    loser: Literal["actor", "defender"] | None
    amount: int
    transfer: bool
    rule: str

    @property
    def actor_change(self) -> int:
        return self._change("actor")

    @property
    def defender_change(self) -> int:
        return self._change("defender")

    def _change(self, who: str) -> int:
        if self.loser is None:
            return 0
        if self.loser == who:
            return -self.amount
        return self.amount if self.transfer else 0


def better_side(actor_roll: int, defender_roll: int, better_roll: str) -> str | None:
    """Which roll is better, "actor" or "defender" (None when equal) (R6)."""
    if actor_roll == defender_roll:
        return None
    actor_better = (
        actor_roll > defender_roll if better_roll == "high" else actor_roll < defender_roll
    )
    return "actor" if actor_better else "defender"


def exchange_effect(
    actor_result: Result,
    defender_result: Result,
    actor_roll: int,
    defender_roll: int,
    bid: int,
    *,
    better_roll: str = "high",
) -> ExchangeEffect:
    """Read the Extended Contest Table for one exchange (§5.3.1, R13).

    The multiplier applies to the actor's bid; halves round up.

    >>> effect = exchange_effect(Result.SUCCESS, Result.FUMBLE, 7, 20, 3)
    >>> effect.actor_change, effect.defender_change, effect.rule
    (0, -6, 'success against fumble: the defender loses 2x bid')
    >>> exchange_effect(Result.CRITICAL, Result.CRITICAL, 1, 3, 5).actor_change
    -3
    """
    read_better_roll(better_roll)
    names = f"{actor_result.label} against {defender_result.label}"
    if actor_result == defender_result:
        if actor_result is Result.FUMBLE:
            return ExchangeEffect(None, 0, False, f"{names}: tie")
        better = better_side(actor_roll, defender_roll, better_roll)
        if better is None:
            return ExchangeEffect(None, 0, False, f"{names}, equal rolls: tie")
        worse: Literal["actor", "defender"] = "defender" if better == "actor" else "actor"
        # Both critical: the worse roll transfers half the bid; both success or both
        # failure: the worse roll loses it (R13: "better roll loses" is a typo).
        transfer = actor_result is Result.CRITICAL
        verb = "transfers" if transfer else "loses"
        return ExchangeEffect(
            worse,
            fraction_up(bid, 1, 2),
            transfer,
            f"{names}: the {worse}'s worse roll {verb} 1/2x bid",
        )
    if actor_result > defender_result:
        loser: Literal["actor", "defender"] = "defender"
        winning, losing = actor_result, defender_result
    else:
        loser, winning, losing = "actor", defender_result, actor_result
    # Only a critical takes AP from the other side (§5.3.1 step 4.5); one step of
    # difference costs one bid, a critical against a fumble three.
    transfer = winning is Result.CRITICAL
    multiplier = int(winning) - int(losing)
    verb = "transfers" if transfer else "loses"
    return ExchangeEffect(
        loser, bid * multiplier, transfer, f"{names}: the {loser} {verb} {multiplier}x bid"
    )


# ---------------------------------------------------------------------------
# §5.3.2.4 Extended Contest Outcomes
# ---------------------------------------------------------------------------


def defeat_degree(ap: int) -> str:
    """The loser's level of defeat from their final AP (§5.3.2.4, R13).

    >>> [defeat_degree(ap) for ap in (0, -10, -11, -20, -21, -30, -31)]
    ['marginal', 'marginal', 'minor', 'minor', 'major', 'major', 'complete']
    """
    ap = read_int(ap, "an AP total")
    if ap > 0:
        raise RulesError(f"a side with {ap} AP is still in the contest: it has no level of defeat")
    if ap >= -10:
        return "marginal"
    if ap >= -20:
        return "minor"
    if ap >= -30:
        return "major"
    return "complete"


def consequence_of(ap: int) -> State:
    """The state of adversity a defeated side's final AP suggests (§5.3.2.4)."""
    return CONSEQUENCE_OF_DEFEAT[defeat_degree(ap)]


def benefit_for(degree: str) -> State:
    """The state of fortune the winner's level of victory suggests (§5.3.2.4)."""
    return BENEFIT_OF_VICTORY[degree]


# ---------------------------------------------------------------------------
# §5.3.5 Final Action, §5.3.9 Disengaging, §5.3.10 AP Lending, §5.3.11 AP Gifting
# Each table is keyed by the signed outcome level of a simple contest: +4 complete
# victory ... +1 marginal victory, 0 tie, -1 marginal defeat ... -4 complete defeat.
# ---------------------------------------------------------------------------

# §5.3.5: the fraction of the starting AP for each degree.
_FINAL_ACTION_FRACTION = {1: (1, 8), 2: (1, 4), 3: (1, 2), 4: (1, 1)}


def check_level(level: Any) -> int:
    level = read_int(level, "an outcome level")
    if not -4 <= level <= 4:
        raise RulesError(f"an outcome level runs from -4 to +4, not {level}")
    return level


def final_action_ap(level: int, start_ap: int, current_ap: int) -> int:
    """The AP after a final action (§5.3.5 Final Action Results Table).

    A victory rejoins the contest with 1/8, 1/4, 1/2 or all of the starting AP; a
    defeat loses that much more. A tie changes nothing (a ruling: the table has no
    tie row).

    >>> final_action_ap(2, 23, -4), final_action_ap(-1, 23, -4)
    (6, -7)
    """
    level = check_level(level)
    if level == 0:
        return current_ap
    numerator, denominator = _FINAL_ACTION_FRACTION[abs(level)]
    amount = fraction_up(start_ap, numerator, denominator)
    return amount if level > 0 else current_ap - amount


# §5.3.9: the fraction of the current AP for each level of defeat.
_DISENGAGE_FRACTION = {1: (1, 8), 2: (1, 4), 3: (1, 2)}


def disengagement_transfer(level: int, current_ap: int) -> int:
    """AP a failed disengagement transfers to the opponent (§5.3.9 table).

    Marginal 1/8, minor 1/4, major 1/2 of the current total, complete the current
    total - 1. As the complete row, the worst, leaves 1 AP, no row transfers more
    (a ruling: 1/2 of 1 AP rounded up would otherwise knock the side out). Victories
    and ties transfer nothing.

    >>> [disengagement_transfer(level, 20) for level in (-1, -2, -3, -4)]
    [3, 5, 10, 19]
    """
    level = check_level(level)
    if level >= 0:
        return 0
    most = max(current_ap - 1, 0)
    if level == -4:
        return most
    numerator, denominator = _DISENGAGE_FRACTION[-level]
    return min(fraction_up(current_ap, numerator, denominator), most)


def lending_effect(level: int, amount: int) -> tuple[int, int]:
    """(target's change, lender's change) for an AP loan (§5.3.10 AP Lending table).

    >>> lending_effect(4, 7), lending_effect(1, 7), lending_effect(-4, 7)
    ((7, 0), (4, -4), (-7, -7))
    """
    level = check_level(level)
    half = fraction_up(amount, 1, 2)
    return {
        4: (amount, 0),
        3: (amount, -amount),
        2: (amount, -amount),
        1: (half, -half),
        0: (0, 0),
        -1: (0, -half),
        -2: (0, -amount),
        -3: (0, -amount),
        -4: (-amount, -amount),
    }[level]


def gifting_effect(level: int, bid: int) -> tuple[int, int]:
    """(recipient's gain, recipient's opponent's gain) for an AP gift (§5.3.11 table).

    >>> gifting_effect(4, 5), gifting_effect(1, 5), gifting_effect(-2, 5)
    ((10, 0), (3, 0), (0, 5))
    """
    level = check_level(level)
    half = fraction_up(bid, 1, 2)
    return {
        4: (2 * bid, 0),
        3: (bid, 0),
        2: (bid, 0),
        1: (half, 0),
        0: (0, 0),
        -1: (0, half),
        -2: (0, bid),
        -3: (0, bid),
        -4: (0, 2 * bid),
    }[level]


def lending_resistance(amount: int) -> Rating:
    """§5.3.10: the AP a lender attempts to lend set the resistance; we read it as
    that number (a ruling, as AP gifting's resistance is twice the bid)."""
    return Rating(amount)


def gifting_resistance(bid: int) -> Rating:
    """§5.3.11: the resistance to an AP gift is twice the bid."""
    return Rating(2 * bid)


def final_action_resistance(ap: int) -> Rating:
    """§5.3.5: a final action faces the number of AP the hero is below 0."""
    return Rating(-ap)


def outcome_words(level: int) -> str:
    if level == 0:
        return "tie"
    return f"{DEGREES[abs(level) - 1]} {'victory' if level > 0 else 'defeat'}"


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


def ability_in_use(current: Rating, bumps: int, rating: Any, what: str) -> tuple[Rating, int]:
    """The ability a contestant rolls with and its bumps: its current ability with its
    lasting bumps, or `rating`, another ability named for this roll, with none
    (§5.3.9 disengaging, §5.3.10 lending)."""
    if rating is None:
        return current, bumps
    return read_rating(rating, what), 0


def _simple_outcome(first: SideRoll, second: SideRoll, better_roll: str) -> Outcome:
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
    actor: SideRoll, defender: SideRoll, *, bid: int, held: int, better_roll: str
) -> Exchange:
    """Play one exchange (§5.3.1 step 4, R13): the actor bids `bid` out of the `held`
    AP (more is a desperation stake, §5.3.6), both roll, bumps and hero points apply
    (R5) and the Extended Contest Table reads the results."""
    # The two rolls are read as in a simple contest; only the table differs.
    results = _simple_outcome(actor, defender, better_roll)
    actor_result, defender_result = results.pc_result, results.opponent_result
    effect = exchange_effect(
        actor_result, defender_result, actor.roll, defender.roll, bid, better_roll=better_roll
    )
    return Exchange(bid, bid > held, actor, defender, actor_result, defender_result, effect)


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
    leaving: SideRoll, staying: SideRoll, *, current_ap: int, better_roll: str
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
    roller: SideRoll, resistance: Rating, resistance_roll: int, *, better_roll: str
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
    rating: Any, bid: Any, roll: Any, resistance_roll: Any, hero_point: Any, *, better_roll: str
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


# ---------------------------------------------------------------------------
# The one-on-one extended contest
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Contestant:
    """One side of a one-on-one contest: its current ability and its AP."""

    rating: str
    modifier: int
    bumps: int
    starting_ap: int
    ap: int
    hero_points_spent: int = 0
    used: list[int] = field(default_factory=list)

    @property
    def tn(self) -> Rating:
        """The current ability with its lasting modifiers (§5.3.1 step 2)."""
        return Rating.parse(self.rating) + self.modifier

    def to_json(self) -> dict[str, Any]:
        return {
            "rating": self.rating,
            "modifier": self.modifier,
            "bumps": self.bumps,
            "tn": str(self.tn),
            "starting_ap": self.starting_ap,
            "ap": self.ap,
            "hero_points_spent": self.hero_points_spent,
        }


def _other(side: str) -> Side:
    return "opponent" if side == "pc" else "pc"


class ExtendedContest(ContestMachine):
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

    def _start(
        self,
        *,
        pc: int | str,
        opponent: int | str,
        pc_modifiers: int | list[int] = 0,
        pc_followers: list[int | str] | tuple[int | str, ...] = (),
        pc_bumps: int = 0,
        better_roll: str = "high",
        first: str = "pc",
    ) -> None:
        if first not in SIDES:
            raise RulesError(f"first must be 'pc' or 'opponent', not {first!r}")
        if not isinstance(pc_followers, list | tuple):
            raise RulesError(f"pc_followers must be a list of ratings, not {pc_followers!r}")
        self.better_roll = read_better_roll(better_roll)
        self.first: Side = first  # type: ignore[assignment]
        modifier = total_modifier(pc_modifiers, "pc_modifiers")
        pc_start = starting_ap(pc, modifier, pc_followers)
        opponent_start = starting_ap(opponent)
        self.sides: dict[str, _Contestant] = {
            "pc": _Contestant(
                str(read_rating(pc, "the PC's rating")),
                modifier,
                read_int(pc_bumps, "pc_bumps"),
                pc_start,
                pc_start,
            ),
            "opponent": _Contestant(
                str(read_rating(opponent, "the opponent's rating")),
                0,
                0,
                opponent_start,
                opponent_start,
            ),
        }
        for name, contestant in self.sides.items():
            if contestant.starting_ap < 1:
                raise RulesError(
                    f"the {name} would start with {contestant.starting_ap} AP: a side needs at "
                    "least 1 AP to enter an extended contest (settle it with a simple contest)"
                )
            contestant.used.append(contestant.tn.total)
        self.turns_taken = 0
        self.exchanges: list[dict[str, Any]] = []
        self.defeats: list[dict[str, Any]] = []
        self.disengaged: Side | None = None

    # -- what the table shows -------------------------------------------------

    @property
    def pc_ap(self) -> int:
        return self.sides["pc"].ap

    @property
    def opponent_ap(self) -> int:
        return self.sides["opponent"].ap

    @property
    def round(self) -> int:
        """The current round, two exchanges each: an action and its response (§5.3.1).

        Once the contest is over, the round it ended in.
        """
        played = self.turns_taken - 1 if self.is_over and self.turns_taken else self.turns_taken
        return played // 2 + 1

    @property
    def turn(self) -> Side | None:
        """Whose action it is, or None once the contest is over."""
        if self.is_over:
            return None
        return self.first if self.turns_taken % 2 == 0 else _other(self.first)

    @property
    def defeated(self) -> list[Side]:
        """The sides at 0 AP or below (§5.3.1 step 4.6)."""
        return [side for side in SIDES if self.sides[side].ap <= 0]

    @property
    def is_over(self) -> bool:
        return bool(self.defeated) or self.disengaged is not None

    @property
    def ended_by(self) -> str | None:
        """None while running, else "defeat", "both_defeated" or "disengaged"."""
        if self.disengaged is not None:
            return "disengaged"
        defeated = self.defeated
        if not defeated:
            return None
        return "defeat" if len(defeated) == 1 else "both_defeated"

    @property
    def winner(self) -> Side | None:
        """The side still above 0 AP when the other is defeated (§5.3.1 step 4.6)."""
        if self.ended_by != "defeat":
            return None
        return _other(self.defeated[0])

    @property
    def degree(self) -> str | None:
        """The level of victory, from the loser's final AP (§5.3.2.4)."""
        if self.ended_by != "defeat":
            return None
        return defeat_degree(self.sides[self.defeated[0]].ap)

    @property
    def consequences(self) -> dict[str, State | None] | None:
        """The suggested state for each side once the contest is over (§5.3.2.4).

        The loser's consequence of defeat and the winner's benefit of victory, both
        from the loser's final AP; no benefit against a clearly inferior opponent
        (§2.11.2.1: the winner's best ability beat the loser's worst by 6 or more).
        After both sides fall in a parting shot, each takes the consequence of its
        own AP. A disengagement suggests nothing.
        """
        ended = self.ended_by
        if ended is None:
            return None
        if ended == "disengaged":
            return {"pc": None, "opponent": None}
        if ended == "both_defeated":
            return {side: consequence_of(self.sides[side].ap) for side in SIDES}
        loser = self.defeated[0]
        winner = _other(loser)
        degree = defeat_degree(self.sides[loser].ap)
        inferior = is_clearly_inferior(max(self.sides[winner].used), min(self.sides[loser].used))
        return {
            loser: CONSEQUENCE_OF_DEFEAT[degree],
            winner: None if inferior else BENEFIT_OF_VICTORY[degree],
        }

    @property
    def parting_shot_by(self) -> Side | None:
        """Who may take a parting shot now (§5.3.4): the winner, right after the
        exchange that defeated the other side."""
        if self.ended_by != "defeat" or not self.exchanges:
            return None
        # Only an exchange can be the last entry of a contest ended by a defeat if that
        # exchange caused it: nothing else is played once a side is down.
        if self.exchanges[-1]["kind"] != "exchange":
            return None
        return self.winner

    def bid_limit(self, side: str) -> int:
        """The largest bid `side` may make now (§5.3.2.1, §5.3.6, R13)."""
        contestant = self.sides[self._check_side(side)]
        if side == "pc":
            return pc_bid_limit(contestant.ap, contestant.starting_ap)
        return max(contestant.ap, 0)

    def state(self) -> dict[str, Any]:
        consequences = self.consequences
        return {
            "kind": self.kind,
            "better_roll": self.better_roll,
            "first": self.first,
            "round": self.round,
            "turn": self.turn,
            "pc": self.sides["pc"].to_json(),
            "opponent": self.sides["opponent"].to_json(),
            "pc_ap": self.pc_ap,
            "opponent_ap": self.opponent_ap,
            "exchanges": [dict(entry) for entry in self.exchanges],
            "defeats": [dict(entry) for entry in self.defeats],
            "is_over": self.is_over,
            "ended_by": self.ended_by,
            "winner": self.winner,
            "degree": self.degree,
            "disengaged": self.disengaged,
            "parting_shot_by": self.parting_shot_by,
            "consequences": (
                None
                if consequences is None
                else {side: None if s is None else str(s) for side, s in consequences.items()}
            ),
        }

    # -- checks ---------------------------------------------------------------

    def _check_side(self, side: Any, what: str = "participant") -> Side:
        if side not in SIDES:
            raise IllegalAction(f"unknown {what} {side!r}: choose 'pc' or 'opponent'")
        return side

    def _check_turn(self, side: Side) -> None:
        if side != self.turn:
            raise IllegalAction(
                f"it is the {self.turn}'s turn in round {self.round}, not the {side}'s"
            )

    def _side_roll(
        self, side: Side, ability: Rating, roll: int, hero_point: bool, bumps: int | None = None
    ) -> SideRoll:
        """`side`'s roll with `ability`: the PC's `hero_point` applies only to the PC's
        roll, and `bumps` default to the side's lasting bumps (a resistance has none, R2)."""
        return SideRoll(
            f"the {side}",
            ability,
            roll,
            hero_point and side == "pc",
            self.sides[side].bumps if bumps is None else bumps,
        )

    def _check_bid(self, side: Side, bid: Any) -> int:
        contestant = self.sides[side]
        if side == "pc":
            reason = pc_bid_reason(contestant.ap, contestant.starting_ap)
            return check_bid(bid, self.bid_limit(side), "your", reason)
        return check_bid(
            bid, self.bid_limit(side), "the opponent's", "a resistance never bids more than it has"
        )

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
