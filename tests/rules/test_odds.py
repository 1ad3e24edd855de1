"""Exact odds of a simple contest (§2.3.4, §2.3.5, §4.4.2, §2.4.1; R3-R6, R8)."""

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import odds as bench_odds
from contests.core.rules.augments import AUGMENT_BONUS_BY_LEVEL
from contests.core.rules.dice import Result
from contests.core.rules.errors import RulesError
from contests.core.rules.odds import (
    OUTCOME_KEYS,
    augment_odds,
    clear_odds_cache,
    defeat_chance,
    hero_point_effect,
    odds_summary,
    simple_odds,
    victory_chance,
)
from contests.core.rules.simple import bump_with_hero_point, simple_contest
from tests.examples import examples

ALL_KEYS = {
    ("pc", "marginal"),
    ("pc", "minor"),
    ("pc", "major"),
    ("pc", "complete"),
    (None, None),
    ("opponent", "marginal"),
    ("opponent", "minor"),
    ("opponent", "major"),
    ("opponent", "complete"),
}


def brute_force(
    pc, opponent, *, better_roll="high", hero_point=False, pc_bumps=0, opponent_bumps=0
):
    """Enumerate all 400 roll pairs through simple_contest, spending the hero point on
    every result below critical."""
    counts = Counter()
    for pc_roll, opponent_roll in itertools.product(range(1, 21), repeat=2):
        outcome = simple_contest(
            pc,
            pc_roll,
            opponent,
            opponent_roll,
            better_roll=better_roll,
            pc_bumps=pc_bumps,
            opponent_bumps=opponent_bumps,
        )
        if hero_point and outcome.pc_result is not Result.CRITICAL:
            outcome = bump_with_hero_point(outcome)
        counts[outcome.winner, outcome.degree] += 1
    return {key: Fraction(counts[key], 400) for key in ALL_KEYS}


def test_fourteen_against_fourteen_by_hand():
    """Worked by hand: each side has 1 critical face, 13 successes (2-14), 5 failures
    (15-19), 1 fumble. Same-result pairs: 1 critical pair (tie), 169 success pairs (13
    ties, 78 won on the higher roll), 25 failure pairs (5 ties, 10 won), 1 fumble pair
    (tie). Different results: a critical v a success is minor (1 x 13 each way)..."""
    odds = simple_odds(14, 14)
    assert set(odds) == ALL_KEYS
    assert odds["pc", "marginal"] == Fraction(78 + 10, 400)
    assert odds[None, None] == Fraction(1 + 13 + 5 + 1, 400)
    # critical v failure 1x5, success v fumble 13x1: major
    assert odds["pc", "major"] == Fraction(5 + 13, 400)
    # critical v success 13, success v failure 65, failure v fumble 5: minor
    assert odds["pc", "minor"] == Fraction(13 + 65 + 5, 400)
    assert odds["pc", "complete"] == Fraction(1, 400)  # critical v fumble
    assert odds["opponent", "complete"] == Fraction(1, 400)
    assert sum(odds.values()) == 1


def test_fourteen_against_fourteen_with_a_hero_point_by_hand():
    """With the hero point on every non-critical result the PC loses only when a success
    (15-19, a raised failure) meets a critical (5 pairs), or a raised fumble meets a
    critical (1, major) or a success (13, minor)."""
    odds = simple_odds(14, 14, hero_point=True)
    assert defeat_chance(odds) == Fraction(5 + 1 + 13, 400)
    assert odds["opponent", "major"] == Fraction(1, 400)
    assert odds[None, None] == Fraction(1, 400)  # both natural 1s


@pytest.mark.parametrize("better_roll", ["high", "low"])
@pytest.mark.parametrize("hero_point", [False, True])
@pytest.mark.parametrize(
    ("pc", "opponent", "pc_bumps", "opponent_bumps"),
    [
        (14, 14, 0, 0),
        ("7M", 14, 0, 0),
        ("3M2", "12M", 0, 0),
        (1, 20, 0, 0),
        (-3, 14, 0, 0),
        (0, -6, 0, 0),
        (20, "1M", 1, 0),
        (17, 9, -1, 1),
        (12, 12, 2, 1),
        ("10M3", 5, 0, -1),
        (19, 20, 7, -5),
    ],
)
def test_odds_agree_with_brute_force_enumeration(
    pc, opponent, pc_bumps, opponent_bumps, hero_point, better_roll
):
    """The arithmetic count equals the enumeration of all 400 roll pairs."""
    kwargs = {
        "better_roll": better_roll,
        "hero_point": hero_point,
        "pc_bumps": pc_bumps,
        "opponent_bumps": opponent_bumps,
    }
    assert simple_odds(pc, opponent, **kwargs) == brute_force(pc, opponent, **kwargs)


ratings = st.integers(-25, 90)
options = st.fixed_dictionaries(
    {
        "better_roll": st.sampled_from(["high", "low"]),
        "hero_point": st.booleans(),
        "pc_bumps": st.integers(-4, 8),
        "opponent_bumps": st.integers(-4, 8),
    }
)


@settings(max_examples=examples(60))
@given(pc=ratings, opponent=ratings, kwargs=options)
def test_odds_agree_with_brute_force_on_random_inputs(pc, opponent, kwargs):
    assert simple_odds(pc, opponent, **kwargs) == brute_force(pc, opponent, **kwargs)


@given(pc=ratings, opponent=ratings, kwargs=options)
def test_odds_have_all_nine_keys_and_sum_to_exactly_one(pc, opponent, kwargs):
    odds = simple_odds(pc, opponent, **kwargs)
    assert set(odds) == ALL_KEYS
    assert all(isinstance(p, Fraction) and p >= 0 for p in odds.values())
    assert sum(odds.values()) == 1


@given(pc=ratings, opponent=ratings, kwargs=options.filter(lambda o: o["pc_bumps"] >= 0))
def test_a_higher_pc_rating_never_lowers_the_chance_of_victory(pc, opponent, kwargs):
    """Across mastery thresholds too (20 -> 1M, 40 -> 1M2), as long as the PC takes
    no bump down (see the next test for why)."""
    lower = victory_chance(simple_odds(pc, opponent, **kwargs))
    higher = victory_chance(simple_odds(pc + 1, opponent, **kwargs))
    assert higher >= lower


def test_a_bump_down_makes_a_new_mastery_a_loss_against_a_master():
    """R1, R5: 21 is 1M, a target of 1. Against 1M the masteries cancel and a PC with a
    bump down (a stretch taken as one, a final action) rolls against 1: a success
    only on a 1. At 20 the master's bump up was cancelled by nothing the PC holds,
    but the PC's 20 fails into a plain failure at worst. So one point more can lose."""
    options = {"pc_bumps": -1, "opponent_bumps": -1}
    at_20 = victory_chance(simple_odds(20, 21, **options))
    at_21 = victory_chance(simple_odds(21, 21, **options))
    assert (at_20, at_21) == (Fraction(19, 40), Fraction(19, 400))


@given(pc=st.integers(1, 90), opponent=st.integers(1, 90), kwargs=options)
def test_masteries_of_both_sides_cancel(pc, opponent, kwargs):
    """§2.3.5.4, R5.1: adding 20 (a mastery) to both sides gives the same odds."""
    assert simple_odds(pc + 20, opponent + 20, **kwargs) == simple_odds(pc, opponent, **kwargs)


@given(pc=ratings, opponent=ratings, kwargs=options)
def test_a_hero_point_never_lowers_the_chance_of_victory(pc, opponent, kwargs):
    """R5.3: at every threshold, the hero point's odds are at least as good."""
    kwargs = kwargs | {"hero_point": False}
    without = simple_odds(pc, opponent, **kwargs)
    with_point = simple_odds(pc, opponent, **(kwargs | {"hero_point": True}))
    assert victory_chance(with_point) >= victory_chance(without)
    # At least as likely to reach every level or better (first-order dominance).
    levels_best_first = list(OUTCOME_KEYS)
    for index in range(len(levels_best_first)):
        best = levels_best_first[: index + 1]
        assert sum(with_point[k] for k in best) >= sum(without[k] for k in best)


@given(
    pc=ratings,
    opponent=ratings,
    pc_roll=st.integers(1, 20),
    opponent_roll=st.integers(1, 20),
    kwargs=options,
)
def test_a_hero_point_never_lowers_the_outcome_of_a_roll_pair(
    pc, opponent, pc_roll, opponent_roll, kwargs
):
    """R5.3: for every roll pair, spending the hero point never makes it worse."""
    kwargs.pop("hero_point")
    plain = simple_contest(pc, pc_roll, opponent, opponent_roll, **kwargs)
    if plain.pc_result is Result.CRITICAL:
        assert hero_point_effect(plain) is None
        return
    assert bump_with_hero_point(plain).level > plain.level


def test_results_are_copies_callers_cannot_corrupt_the_cache():
    odds = simple_odds(14, 14)
    odds["pc", "marginal"] = Fraction(1)
    assert simple_odds(14, 14)["pc", "marginal"] == Fraction(88, 400)


def test_clearing_the_cache_changes_nothing_but_time():
    before = simple_odds("5M", 17, hero_point=True)
    clear_odds_cache()
    assert simple_odds("5M", 17, hero_point=True) == before
    clear_odds_cache(keep_result_tables=True)
    assert simple_odds("5M", 17, hero_point=True) == before


@pytest.mark.parametrize(
    "kwargs",
    [{"better_roll": "middle"}, {"pc_bumps": 1.5}, {"opponent_bumps": True}, {"pc": "7X"}],
)
def test_bad_input_is_a_rules_error(kwargs):
    args = {"pc": 14, "opponent": 14} | kwargs
    with pytest.raises(RulesError):
        simple_odds(args.pop("pc"), args.pop("opponent"), **args)


# --- Summary and hero point phrasing -------------------------------------------------


def test_odds_summary_with_and_without_a_hero_point():
    summary = odds_summary(14, 14)
    assert summary.victory == Fraction(190, 400)  # 88 + 83 + 18 + 1
    assert summary.tie == Fraction(20, 400)
    assert summary.defeat == Fraction(190, 400)
    assert summary.defeat_with_hero_point == Fraction(19, 400)
    assert summary.tie_with_hero_point == Fraction(1, 400)
    assert summary.victory_with_hero_point == Fraction(380, 400)
    assert summary.hero_point_gain == Fraction(190, 400)
    assert summary.to_json() == {
        "victory": 47.5,
        "tie": 5.0,
        "defeat": 47.5,
        "victory_with_hero_point": 95.0,
        "tie_with_hero_point": 0.2,
        "defeat_with_hero_point": 4.8,
        "hero_point_gain": 47.5,
    }


@pytest.mark.parametrize(
    ("pc", "pc_roll", "opponent", "opponent_roll", "expected"),
    [
        (8, 9, 14, 9, "turns a minor defeat into a tie"),  # failure v success, equal rolls
        (14, 16, 14, 9, "turns a minor defeat into a marginal victory"),  # 16 beats 9
        (14, 16, 14, 1, "turns a major defeat into a minor defeat"),
        (14, 20, 14, 1, "turns a complete defeat into a major defeat"),
        (14, 9, 14, 9, "turns a tie into a minor victory"),
        (14, 5, 14, 20, "turns a major victory into a complete victory"),
        (14, 20, 14, 20, "turns a tie into a minor victory"),  # both fumble
    ],
)
def test_hero_point_effect_phrases_the_change(pc, pc_roll, opponent, opponent_roll, expected):
    """§2.3.5.5: what the hero point would do, in words for the UI."""
    assert hero_point_effect(simple_contest(pc, pc_roll, opponent, opponent_roll)) == expected


def test_no_hero_point_effect_on_a_critical_or_once_spent():
    assert hero_point_effect(simple_contest(14, 1, 14, 5)) is None
    assert hero_point_effect(simple_contest(14, 5, 14, 9, pc_hero_point=True)) is None


# --- Augment odds: §2.4.1 ------------------------------------------------------------


def brute_force_augment(augmenting, base, hero_point=False):
    counts = Counter()
    for roll, resistance_roll in itertools.product(range(1, 21), repeat=2):
        outcome = simple_contest(augmenting, roll, base, resistance_roll)
        if hero_point and outcome.pc_result is not Result.CRITICAL:
            outcome = bump_with_hero_point(outcome)
        counts[AUGMENT_BONUS_BY_LEVEL[outcome.level]] += 1
    return {bonus: Fraction(counts[bonus], 400) for bonus in (20, 9, 6, 3, 0, -3)}


@pytest.mark.parametrize(
    ("augmenting", "base", "hero_point"),
    [(17, 14, False), (17, 14, True), ("5M", 14, False), (13, 10, False), (8, 18, True)],
)
def test_augment_odds_agree_with_brute_force(augmenting, base, hero_point):
    """§2.4.1: an augment contest is a simple contest against a moderate resistance."""
    odds = augment_odds(augmenting, base=base, hero_point=hero_point)
    assert odds == brute_force_augment(augmenting, base, hero_point)
    assert list(odds) == [20, 9, 6, 3, 0, -3]
    assert sum(odds.values()) == 1


def test_augment_odds_by_hand_for_a_17_against_14():
    """+M needs a critical (roll 1) against a fumble (20): 1 pair; -3 needs a fumble
    against a critical: 1 pair."""
    odds = augment_odds(17)
    assert odds[20] == Fraction(1, 400)
    assert odds[-3] == Fraction(1, 400)


# --- The benchmark script ------------------------------------------------------------


@pytest.mark.bench
def test_the_benchmark_runs_and_reports_figures():
    """The benchmark script runs (no timing asserts: the machine varies)."""
    figures = bench_odds.run(calls=30)
    assert figures["calls"] == 30
    for kind in ("cold", "uncached", "cached"):
        assert set(figures[kind]) == {"median_us", "p99_us", "max_us"}
        assert 0 < figures[kind]["median_us"] <= figures[kind]["p99_us"] <= figures[kind]["max_us"]
