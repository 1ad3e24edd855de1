"""Ratings, masteries and resistance classes: §2.1.2, §2.3.3, RULINGS R1 and R2."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests.core.rules.errors import RulesError
from contests.core.rules.ratings import RESISTANCE_LEVELS, Rating, resistance


@pytest.mark.parametrize(
    ("text", "total"),
    [
        ("14", 14),
        ("1", 1),
        ("20", 20),
        ("0", 0),
        ("-3", -3),
        ("27", 27),  # a plain total above 20 is read as a total
        ("7M", 27),
        ("7m", 27),
        ("7M1", 27),
        ("7m1", 27),
        ("20M", 40),
        ("1M2", 41),
        ("3M2", 43),
        ("10M2", 50),
        ("10M3", 70),
        ("12W", 32),  # R1: the genre glyph W is a synonym of M
        ("12w", 32),
        ("3W2", 43),
        ("  7M ", 27),
    ],
)
def test_it_parses_every_notation_of_r1(text, total):
    """§2.1.2, R1: the accepted notations."""
    assert Rating.parse(text).total == total


@pytest.mark.parametrize(
    "text",
    ["", "M", "M2", "0M", "21M", "0M2", "7M0", "-3M", "7X", "abc", "7M-1", "1.5", "7MM", "7 M 2 3"],
)
def test_it_refuses_anything_else_with_a_clear_error(text):
    """R1: anything else is a clear error (a RulesError, which is a ValueError)."""
    with pytest.raises(RulesError) as error:
        Rating.parse(text)
    assert repr(text) in str(error.value)
    assert isinstance(error.value, ValueError)


@pytest.mark.parametrize("value", [None, 3.5, [], True])
def test_it_refuses_values_that_are_not_ratings(value):
    with pytest.raises((RulesError, TypeError)):
        Rating.parse(value)


def test_parse_passes_ints_and_ratings_through():
    assert Rating.parse(33) == Rating(33)
    rating = Rating(12)
    assert Rating.parse(rating) is rating


@pytest.mark.parametrize("value", [1.0, "14", True, None])
def test_a_rating_total_must_be_an_int(value):
    with pytest.raises(TypeError):
        Rating(value)


@pytest.mark.parametrize(
    ("total", "target", "masteries", "text"),
    [
        (-6, -6, 0, "-6"),
        (0, 0, 0, "0"),
        (1, 1, 0, "1"),
        (14, 14, 0, "14"),
        (20, 20, 0, "20"),
        (21, 1, 1, "1M"),
        (27, 7, 1, "7M"),  # §2.1.2 worked example: 27 is 7M
        (40, 20, 1, "20M"),
        (41, 1, 2, "1M2"),
        (43, 3, 2, "3M2"),  # §2.1.2 worked example: 43 is 3M2
        (50, 10, 2, "10M2"),  # §2.1.2: 10M2 is 50
        (60, 20, 2, "20M2"),
        (61, 1, 3, "1M3"),
        (70, 10, 3, "10M3"),
    ],
)
def test_target_masteries_and_format(total, target, masteries, text):
    """§2.1.2, R1: masteries = (total - 1) // 20 above 20, target 1..20, format tM / tMm."""
    rating = Rating(total)
    assert (rating.target, rating.masteries, str(rating)) == (target, masteries, text)


@pytest.mark.parametrize(
    ("start", "modifier", "expected"),
    [
        ("17", 6, "3M"),  # R1: 17 + 6 = 3M
        ("1M", -3, "18"),  # R1: 1M - 3 = 18
        ("20", 1, "1M"),  # §2.1.2: raising 20 by one gives 1M
        ("20M", 1, "1M2"),
        ("1M2", -1, "20M"),
        ("3", -3, "0"),
        ("2", -9, "-7"),
        ("14M", -20, "14"),
    ],
)
def test_modifiers_add_to_the_total_and_cross_mastery_thresholds(start, modifier, expected):
    """§2.11 Modifiers, R1: modifiers add to the total before the mastery conversion."""
    rating = Rating.parse(start)
    changed = rating + modifier if modifier >= 0 else rating - (-modifier)
    assert str(changed) == expected
    assert str(rating + modifier) == expected


def test_addition_works_both_ways_and_with_ratings():
    assert 3 + Rating(5) == Rating(8)
    assert Rating(5) + Rating(20) == Rating(25)
    with pytest.raises(TypeError):
        Rating(5) + True  # noqa: B018 - a bool is not a modifier
    with pytest.raises(TypeError):
        Rating(5) - "3"  # noqa: B018


def test_ratings_order_by_total():
    assert Rating.parse("1M") > Rating(20) > Rating(-3)


@pytest.mark.parametrize("total", range(-40, 201))
def test_every_total_round_trips_through_its_text(total):
    """R1: parse(str(Rating(t))) == Rating(t) for every total from -40 to 200."""
    assert Rating.parse(str(Rating(total))) == Rating(total)


@given(target=st.integers(1, 20), masteries=st.integers(1, 12))
def test_target_and_masteries_notation_is_target_plus_twenty_each(target, masteries):
    """§2.1.2: "divide the ability by 20, noting a mastery for each multiple of 20"."""
    text = f"{target}M" if masteries == 1 else f"{target}M{masteries}"
    rating = Rating.parse(text)
    assert rating.total == target + 20 * masteries
    assert (rating.target, rating.masteries, str(rating)) == (target, masteries, text)


@given(total=st.integers(-100, 500))
def test_target_is_one_to_twenty_for_positive_totals(total):
    """R1: t is 1..20 whenever total >= 1; a total of 0 or less has no mastery."""
    rating = Rating(total)
    assert rating.target + 20 * rating.masteries == total
    if total >= 1:
        assert 1 <= rating.target <= 20
    else:
        assert (rating.masteries, rating.target) == (0, total)


# §2.3.3 Resistance Class Table, R2: one row per class, for base 14 and base 10.
@pytest.mark.parametrize(
    ("level", "base", "total", "text"),
    [
        ("nearly_impossible", 14, 54, "14M2"),
        ("very_high", 14, 34, "14M"),
        ("high", 14, 20, "20"),
        ("moderate", 14, 14, "14"),
        ("low", 14, 8, "8"),
        ("very_low", 14, -6, "-6"),  # base - 20 is lower than 6
        ("nearly_impossible", 10, 50, "10M2"),
        ("very_high", 10, 30, "10M"),
        ("high", 10, 16, "16"),
        ("moderate", 10, 10, "10"),
        ("low", 10, 4, "4"),
        ("very_low", 10, -10, "-10"),
        ("very_low", 26, 6, "6"),  # base - 20 = 6: equal
        ("very_low", 30, 6, "6"),  # 6 is lower than base - 20 = 10
        ("high", 17, 23, "3M"),
    ],
)
def test_resistance_class_table(level, base, total, text):
    """§2.3.3 Resistance Class Table, R2, cell by cell."""
    rating = resistance(level, base)
    assert (rating.total, str(rating)) == (total, text)


def test_base_resistance_defaults_to_14():
    """§2.3.3: "By default, the base resistance starts at 14"."""
    assert resistance("moderate") == Rating(14)
    assert RESISTANCE_LEVELS == (
        "nearly_impossible",
        "very_high",
        "high",
        "moderate",
        "low",
        "very_low",
    )


@pytest.mark.parametrize("spelling", ["Very High", "very-high", " VERY_HIGH ", "very  high"])
def test_resistance_class_names_are_forgiving(spelling):
    assert resistance(spelling) == Rating(34)


@pytest.mark.parametrize(("level", "base"), [("tough", 14), ("", 14), (3, 14), ("high", "14")])
def test_unknown_resistance_class_or_bad_base_is_an_error(level, base):
    with pytest.raises(RulesError):
        resistance(level, base)
