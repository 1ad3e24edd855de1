"""The tables of the extended contest as pure functions (§5.3, RULINGS.md R13).

Starting AP and bids (§5.3.1 step 2, §5.3.2.1, §5.3.6), the Extended Contest Table
(§5.3.1), the outcome bands (§5.3.2.4), and the tables of final action (§5.3.5),
failed disengagement (§5.3.9), AP lending (§5.3.10) and AP gifting (§5.3.11). Every
fraction of AP rounds up (R13).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from ..dice import Result
from ..errors import IllegalAction, RulesError
from ..inputs import read_better_roll, read_int, read_rating
from ..ratings import Rating
from ..simple import DEGREES, BetterRoll
from ..states import BENEFIT_OF_VICTORY, CONSEQUENCE_OF_DEFEAT, State

DEFAULT_BID = 3
"""§5.3.2.1: the bid the GM uses when a player does not name one."""

"""§2.11.2.1 (R10): no benefit of victory when the winner's ability exceeded the
loser's by this much or more."""


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
    amount = read_int(bid, "a bid")
    if amount < 1:
        raise IllegalAction(f"a bid is at least 1 AP, not {amount}")
    if amount > limit:
        raise IllegalAction(f"bid {amount} is over {whose} limit of {limit} AP ({reason})")
    return amount


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


def better_side(actor_roll: int, defender_roll: int, better_roll: BetterRoll) -> str | None:
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
    rule = read_better_roll(better_roll)
    names = f"{actor_result.label} against {defender_result.label}"
    if actor_result == defender_result:
        if actor_result is Result.FUMBLE:
            return ExchangeEffect(None, 0, False, f"{names}: tie")
        better = better_side(actor_roll, defender_roll, rule)
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
    checked = read_int(level, "an outcome level")
    if not -4 <= checked <= 4:
        raise RulesError(f"an outcome level runs from -4 to +4, not {checked}")
    return checked


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
