"""The public API of `contests.core.rules`, exactly as issue 3 names it (a contract).

Expected values come from the SRD and RULINGS.md, not from the code under test.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from contests.core.rules import (
    ExtendedContest,
    Outcome,
    Rating,
    Result,
    ScoredContest,
    resistance,
    roll_result,
    simple_contest,
    simple_odds,
)


@pytest.mark.parametrize(
    ("text", "total", "target", "masteries", "canonical"),
    [
        ("7M", 27, 7, 1, "7M"),
        ("7m", 27, 7, 1, "7M"),
        ("7M1", 27, 7, 1, "7M"),
        ("3M2", 43, 3, 2, "3M2"),
        ("12W", 32, 12, 1, "12M"),
        ("20M", 40, 20, 1, "20M"),
        ("27", 27, 7, 1, "7M"),
        ("14", 14, 14, 0, "14"),
    ],
)
def test_rating_parse_and_format_r1(text, total, target, masteries, canonical):
    """§2.1.2, R1."""
    rating = Rating.parse(text)
    assert (rating.total, rating.target, rating.masteries, str(rating)) == (
        total,
        target,
        masteries,
        canonical,
    )


def test_rating_arithmetic_crosses_mastery_thresholds_r1():
    assert isinstance(Rating(17) + 6, Rating)
    assert str(Rating(17) + 6) == "3M" and str(Rating.parse("1M") + -3) == "18"
    assert str(Rating(41)) == "1M2" and Rating(41) == Rating.parse("1M2")


@pytest.mark.parametrize("bad", ["", "M", "7X", "0M", "21M", "7M0", "seven"])
def test_bad_rating_text_raises_a_readable_value_error(bad):
    with pytest.raises(ValueError, match=r"\S"):
        Rating.parse(bad)


@pytest.mark.parametrize(
    ("level", "total"),
    [
        ("nearly_impossible", 54),
        ("very_high", 34),
        ("high", 20),
        ("moderate", 14),
        ("low", 8),
        ("very_low", -6),
    ],
)
def test_resistance_classes_on_base_14_r2(level, total):
    """§2.3.3, R2."""
    assert resistance(level) == Rating(total)
    assert resistance(level, base=14).total == total


def test_result_members_are_ordered_by_rank():
    assert Result.FUMBLE < Result.FAILURE < Result.SUCCESS < Result.CRITICAL
    assert roll_result(1, 10) is Result.CRITICAL
    assert roll_result(10, 10) is Result.SUCCESS
    assert roll_result(11, 10) is Result.FAILURE
    assert roll_result(20, 20) is Result.FUMBLE


def test_simple_contest_returns_the_outcome_contract():
    """§4.4.2: critical against failure is two steps, a major victory."""
    outcome = simple_contest(Rating(14), 1, Rating(14), 15)
    assert isinstance(outcome, Outcome)
    assert (outcome.winner, outcome.degree) == ("pc", "major")
    assert (outcome.pc_result, outcome.opponent_result) == (Result.CRITICAL, Result.FAILURE)
    tie = simple_contest(Rating(14), 5, Rating(14), 5)
    assert (tie.winner, tie.degree) == (None, None)
    low = simple_contest(Rating(14), 5, Rating(14), 9, better_roll="low")
    assert (low.winner, low.degree) == ("pc", "marginal")
    bumped = simple_contest(Rating(14), 15, Rating(14), 15, pc_hero_point=True)
    assert bumped.pc_result is Result.SUCCESS and bumped.winner == "pc"


def test_simple_odds_contract():
    odds = simple_odds(Rating(14), Rating(14))
    expected_keys = {
        (side, degree)
        for side in ("pc", "opponent")
        for degree in ("marginal", "minor", "major", "complete")
    } | {(None, None)}
    assert set(odds) == expected_keys
    assert all(isinstance(p, Fraction) for p in odds.values())
    assert sum(odds.values()) == 1
    # Equal ratings: a tie is an equal roll (20 of the 400 roll pairs, both fumbles included).
    assert odds[(None, None)] == Fraction(20, 400)
    # Complete victory needs a critical (roll 1) against a fumble (roll 20).
    assert odds[("pc", "complete")] == Fraction(1, 400)
    with_hp = simple_odds(Rating(14), Rating(14), hero_point=True)
    assert sum(with_hp.values()) == 1
    assert sum(p for (w, _), p in with_hp.items() if w == "pc") > sum(
        p for (w, _), p in odds.items() if w == "pc"
    )


def test_scored_contest_is_played_to_its_end_with_given_rolls():
    """§5.1, R12: a complete victory scores 5 RP and ends the contest at once."""
    contest = ScoredContest(pc=Rating(14), opponent=Rating(14))
    assert (contest.pc_points, contest.opponent_points, contest.is_over) == (0, 0, False)
    contest.play_round(pc_roll=5, opponent_roll=15)  # success vs failure: minor, 2 RP
    assert (contest.pc_points, contest.opponent_points) == (2, 0)
    contest.play_round(pc_roll=1, opponent_roll=20)  # critical vs fumble: complete, 5 RP
    assert contest.is_over and contest.winner == "pc"
    assert contest.degree is not None
    rebuilt = ScoredContest.from_json(json.loads(json.dumps(contest.to_json())))
    assert rebuilt.state() == contest.state()


def test_extended_contest_srd_worked_example_bid_3_loses_2x():
    """§5.3.1: with a bid of 3, 'opponent loses 2x bid' means 6 AP (success vs fumble)."""
    contest = ExtendedContest(pc=Rating(14), opponent=Rating(14))
    assert (contest.pc_ap, contest.opponent_ap) == (14, 14)  # R13: starting AP = the TN
    contest.exchange(actor="pc", actor_roll=5, defender_roll=20, bid=3)
    assert (contest.pc_ap, contest.opponent_ap) == (14, 8)
    assert not contest.is_over and contest.winner is None
