"""Exact odds of a simple contest, for the live table's "your chances" display.

§2.3.4 die results, §2.3.5 bumps and hero points, §4.4.2 Simple Contest Table,
§2.4.1 augment table; RULINGS.md R3-R6, R8.

Each side's die gives each result on one run of consecutive faces, so the 400 roll
pairs fall into at most 16 blocks of (PC result, opponent result). Within a block the
bumps are the same for every pair, so only blocks whose final results are equal need
the rolls compared, and that is counted arithmetically. The answer depends on a few
small numbers only (the two targets clipped to 0..19, the net bumps clipped to -3..6,
better_roll and hero_point), and is cached by them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .augments import AUGMENT_BONUS_BY_LEVEL, AUGMENT_BONUSES
from .dice import Result, rolls_giving
from .errors import RulesError
from .ratings import DEFAULT_BASE_RESISTANCE, Rating, resistance
from .simple import (
    BetterRoll,
    Degree,
    Outcome,
    Winner,
    bump_with_hero_point,
    bumped_results,
    mastery_bumps,
    net_bumps,
    winner_and_degree,
)

_LEVELS_BEST_FIRST = (4, 3, 2, 1, 0, -1, -2, -3, -4)

OUTCOME_KEYS: tuple[tuple[Winner, Degree], ...] = tuple(
    winner_and_degree(level) for level in _LEVELS_BEST_FIRST
)
"""The nine outcomes, best for the PC first: ("pc", "complete") .. (None, None) ..
("opponent", "complete")."""

_ROLL_PAIRS = 400


def simple_odds(
    pc: Rating | int | str,
    opponent: Rating | int | str,
    *,
    better_roll: BetterRoll = "high",
    hero_point: bool = False,
    pc_bumps: int = 0,
    opponent_bumps: int = 0,
) -> dict[tuple[Winner, Degree], Fraction]:
    """The exact chance of every outcome of a simple contest (§4.4, R5, R6).

    Keys are (winner, degree) pairs, all nine always present: ("pc", "marginal") ..
    ("opponent", "complete") and (None, None) for a tie. The fractions sum to exactly 1.
    With `hero_point=True` the PC spends one hero point on every result below critical:
    a bump up always improves the outcome (R5.3), so that is the best use of it.

    >>> odds = simple_odds(14, 14)
    >>> odds["pc", "marginal"], odds[None, None], sum(odds.values())
    (Fraction(11, 50), Fraction(1, 20), Fraction(1, 1))
    """
    pc, opponent = Rating.parse(pc), Rating.parse(opponent)
    if better_roll not in ("high", "low"):
        raise RulesError(f"better_roll must be 'high' or 'low', not {better_roll!r}")
    for name, bumps in (("pc_bumps", pc_bumps), ("opponent_bumps", opponent_bumps)):
        if isinstance(bumps, bool) or not isinstance(bumps, int):
            raise RulesError(f"{name} must be a whole number, not {bumps!r}")
    masteries = mastery_bumps(pc, opponent)
    net_pc, net_opponent = net_bumps(
        pc_bumps + max(masteries, 0), opponent_bumps + max(-masteries, 0)
    )
    return dict(
        _cached_odds(
            _clip(pc.target, 0, 19),
            _clip(opponent.target, 0, 19),
            # More than 6 bumps up (3 to raise a fumble to a critical, 3 to push the
            # other side down to a fumble) or 3 down change nothing further.
            _clip(net_pc, -3, 6),
            _clip(net_opponent, -3, 6),
            better_roll,
            bool(hero_point),
        )
    )


def clear_odds_cache(*, keep_result_tables: bool = False) -> None:
    """Forget every cached answer (the benchmark uses it to time uncached calls).

    With `keep_result_tables`, keep the small tables of final results per bump count
    (at most 200 of them, so a running server soon holds them all).
    """
    _cached_odds.cache_clear()
    if not keep_result_tables:
        _final_results.cache_clear()


def _clip(value: int, low: int, high: int) -> int:
    # Targets of 0 or less all fail alike (R4); 19 and 20 both succeed on 2..19 (R3).
    return low if value < low else high if value > high else value


@functools.lru_cache(maxsize=65536)
def _cached_odds(
    pc_target: int,
    opponent_target: int,
    pc_bumps: int,
    opponent_bumps: int,
    better_roll: BetterRoll,
    hero_point: bool,
) -> tuple[tuple[tuple[Winner, Degree], Fraction], ...]:
    counts = _level_counts(
        pc_target, opponent_target, pc_bumps, opponent_bumps, better_roll, hero_point
    )
    return tuple(
        (key, Fraction(counts[level + 4], _ROLL_PAIRS))
        for level, key in zip(_LEVELS_BEST_FIRST, OUTCOME_KEYS, strict=True)
    )


def _level_counts(
    pc_target: int,
    opponent_target: int,
    pc_bumps: int,
    opponent_bumps: int,
    better_roll: BetterRoll,
    hero_point: bool,
) -> list[int]:
    """How many of the 400 roll pairs give each level; index = level + 4."""
    counts = [0] * 9
    final = _final_results(pc_bumps, opponent_bumps, hero_point)
    pc_faces = [(r, f) for r, f in rolls_giving(pc_target).items() if f]
    opponent_faces = [(r, f) for r, f in rolls_giving(opponent_target).items() if f]
    for pc_raw, pc_rolls in pc_faces:
        for opponent_raw, opponent_rolls in opponent_faces:
            pairs = len(pc_rolls) * len(opponent_rolls)
            pc_result, opponent_result = final[pc_raw, opponent_raw]
            difference = pc_result - opponent_result
            if difference:
                # §4.4.2: one step apart is minor (level 2) .. three is complete (4).
                level = difference + 1 if difference > 0 else difference - 1
                counts[level + 4] += pairs
            elif pc_result is Result.FUMBLE:
                counts[4] += pairs  # R6: both fumble is a tie
            else:
                higher, equal = _pairs_higher_and_equal(pc_rolls, opponent_rolls)
                lower = pairs - higher - equal
                pc_better = higher if better_roll == "high" else lower
                counts[5] += pc_better  # §2.3.5.1: the better roll wins a marginal victory
                counts[3] += pairs - pc_better - equal
                counts[4] += equal  # equal rolls: a tie
    return counts


@functools.lru_cache(maxsize=256)
def _final_results(
    pc_bumps: int, opponent_bumps: int, hero_point: bool
) -> dict[tuple[Result, Result], tuple[Result, Result]]:
    """Final results for each pair of die results under these bumps (at most 200 such
    tables exist: bumps are clipped to -3..6)."""
    table = {}
    for pc_raw in Result:
        for opponent_raw in Result:
            pc_result, opponent_result = bumped_results(
                pc_raw, opponent_raw, pc_bumps=pc_bumps, opponent_bumps=opponent_bumps
            )
            if hero_point and pc_result is not Result.CRITICAL:
                pc_result = pc_result.bumped(1)  # §2.3.5.5, after every other bump
            table[pc_raw, opponent_raw] = (pc_result, opponent_result)
    return table


def _pairs_higher_and_equal(pc_rolls: range, opponent_rolls: range) -> tuple[int, int]:
    """Among pairs from two runs of faces: how many have the PC's roll higher, and equal."""
    low, size = opponent_rolls.start, len(opponent_rolls)
    higher = 0
    for roll in pc_rolls:
        below = roll - low  # opponent faces under this roll, before clipping to the run
        higher += size if below > size else below if below > 0 else 0
    equal = max(0, min(pc_rolls.stop, opponent_rolls.stop) - max(pc_rolls.start, low))
    return higher, equal


def victory_chance(odds: dict[tuple[Winner, Degree], Fraction]) -> Fraction:
    """The chance the PC wins at any degree."""
    return sum((p for (winner, _), p in odds.items() if winner == "pc"), Fraction(0))


def defeat_chance(odds: dict[tuple[Winner, Degree], Fraction]) -> Fraction:
    """The chance the PC loses at any degree."""
    return sum((p for (winner, _), p in odds.items() if winner == "opponent"), Fraction(0))


def outcome_percentages(odds: dict[tuple[Winner, Degree], Fraction]) -> list[tuple[str, float]]:
    """Every outcome in words, from the PC's side, with its chance in per cent rounded to
    two decimals, in the order of `odds` (best first from `simple_odds`): for display.

    >>> outcome_percentages(simple_odds(14, 14))[2:6]
    [('minor victory', 20.75), ('marginal victory', 22.0), ('tie', 5.0), ('marginal defeat', 22.0)]
    """
    return [
        (
            "tie" if winner is None else f"{degree} {'victory' if winner == 'pc' else 'defeat'}",
            round(float(chance) * 100, 2),
        )
        for (winner, degree), chance in odds.items()
    ]


@dataclass(frozen=True, slots=True)
class OddsSummary:
    """Victory, tie and defeat chances with and without spending the hero point."""

    victory: Fraction
    tie: Fraction
    defeat: Fraction
    victory_with_hero_point: Fraction
    tie_with_hero_point: Fraction
    defeat_with_hero_point: Fraction

    @property
    def hero_point_gain(self) -> Fraction:
        """How much a hero point raises the chance of victory."""
        return self.victory_with_hero_point - self.victory

    # The percentages `to_json` gives, worked out once: a summary is frozen, and shared
    # by every panel that shows the same odds (`odds_summary`; issue 29).
    _percentages: tuple[tuple[str, float], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = (
            "victory",
            "tie",
            "defeat",
            "victory_with_hero_point",
            "tie_with_hero_point",
            "defeat_with_hero_point",
            "hero_point_gain",
        )
        shown = tuple((name, round(float(getattr(self, name)) * 100, 1)) for name in names)
        object.__setattr__(self, "_percentages", shown)

    def to_json(self) -> dict[str, Any]:
        """Percentages rounded to one decimal, for display."""
        return dict(self._percentages)


# Remembered: a contest's panel shows its odds on every step while abilities are chosen,
# and the same few targets come back (the sum of Fractions was 5% of a broadcast's
# rendering, issue 29). The summary is frozen, so it is shared as it is.
@functools.lru_cache(maxsize=4096)
def odds_summary(
    pc: Rating | int | str,
    opponent: Rating | int | str,
    *,
    better_roll: BetterRoll = "high",
    pc_bumps: int = 0,
    opponent_bumps: int = 0,
) -> OddsSummary:
    """Victory, tie and defeat chances, with and without a hero point (§2.3.5.5).

    >>> summary = odds_summary(14, 14)
    >>> summary.to_json()["victory"], summary.to_json()["victory_with_hero_point"]
    (47.5, 95.0)
    """
    without, with_point = (
        simple_odds(
            pc,
            opponent,
            better_roll=better_roll,
            hero_point=hero_point,
            pc_bumps=pc_bumps,
            opponent_bumps=opponent_bumps,
        )
        for hero_point in (False, True)
    )
    return OddsSummary(
        victory=victory_chance(without),
        tie=without[None, None],
        defeat=defeat_chance(without),
        victory_with_hero_point=victory_chance(with_point),
        tie_with_hero_point=with_point[None, None],
        defeat_with_hero_point=defeat_chance(with_point),
    )


def augment_odds(
    augmenting: Rating | int | str,
    *,
    base: int = DEFAULT_BASE_RESISTANCE,
    better_roll: BetterRoll = "high",
    hero_point: bool = False,
    bumps: int = 0,
) -> dict[int, Fraction]:
    """The chance of each rolled-augment bonus: 20, 9, 6, 3, 0, -3 (§2.4.1, R8).

    The augment contest faces a moderate resistance (the base).

    >>> odds = augment_odds(17)
    >>> odds[20], odds[-3], sum(odds.values())
    (Fraction(1, 400), Fraction(1, 400), Fraction(1, 1))
    """
    odds = simple_odds(
        augmenting,
        resistance("moderate", base),
        better_roll=better_roll,
        hero_point=hero_point,
        pc_bumps=bumps,
    )
    chances = dict.fromkeys(AUGMENT_BONUSES, Fraction(0))
    for level, key in zip(_LEVELS_BEST_FIRST, OUTCOME_KEYS, strict=True):
        chances[AUGMENT_BONUS_BY_LEVEL[level]] += odds[key]
    return chances


def hero_point_effect(outcome: Outcome) -> str | None:
    """What spending a hero point would do to this outcome, in words for the UI
    (§2.3.5.5); None when no hero point can be spent (a critical, or already spent).

    >>> from contests.core.rules.simple import simple_contest
    >>> hero_point_effect(simple_contest(8, 9, 14, 9))
    'turns a minor defeat into a tie'
    >>> hero_point_effect(simple_contest(14, 9, 14, 9))
    'turns a tie into a minor victory'
    """
    if outcome.pc_hero_point or outcome.pc_result is Result.CRITICAL:
        return None
    after = bump_with_hero_point(outcome)
    return f"turns a {outcome.describe} into a {after.describe}"
