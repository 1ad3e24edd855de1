"""Group simple contest: §4.2 (outcome points), §4.5 (degree, boosts), RULINGS R7."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests.core.rules.dice import Result
from contests.core.rules.errors import RulesError
from contests.core.rules.group_simple import (
    boost_cost,
    boosted_level,
    degree_from_difference,
    group_simple_contest,
    outcome_points,
    score_pairing,
)
from contests.core.rules.simple import compare_results, simple_contest

C, S, F, FU = Result.CRITICAL, Result.SUCCESS, Result.FAILURE, Result.FUMBLE

# §4.2.2 Group Simple Contest Table, copied row by row (row and column in the order
# Critical, Success, Failure, Fumble).
GROUP_SIMPLE_CONTEST_TABLE = {
    C: (1, 2, 3, 5),
    S: (2, 1, 2, 3),
    F: (3, 2, 1, 2),
    FU: (5, 3, 2, 0),
}


@pytest.mark.parametrize("column", range(4))
@pytest.mark.parametrize("row", [C, S, F, FU])
def test_group_simple_contest_table(row, column):
    """§4.2.2 Group Simple Contest Table, cell by cell."""
    column_result = (C, S, F, FU)[column]
    assert outcome_points(row, column_result) == GROUP_SIMPLE_CONTEST_TABLE[row][column]


@pytest.mark.parametrize(
    ("pc_roll", "opponent_roll", "winner", "points"),
    [
        (3, 17, "pc", 2),  # success v failure
        (17, 3, "opponent", 2),
        (1, 20, "pc", 5),  # critical v fumble
        (20, 1, "opponent", 5),
        (9, 5, "pc", 1),  # same result: 1 to the better (high) roll
        (5, 9, "opponent", 1),
        (7, 7, None, 0),  # R7: equal rolls score nothing
        (20, 20, None, 0),  # both fumble score nothing
        (1, 1, None, 0),
        (16, 20, "pc", 2),  # failure v fumble
    ],
)
def test_score_pairing(pc_roll, opponent_roll, winner, points):
    """§4.2.1, R7: the winner of each pairing scores from the table."""
    score = score_pairing(simple_contest(14, pc_roll, 14, opponent_roll))
    assert (score.winner, score.points) == (winner, points)


def test_same_result_point_goes_to_the_better_roll_option():
    """§4.2.1: "On a tie the victory goes to the Better Roll" (low here)."""
    outcome = compare_results(S, S, 9, 5, better_roll="low")
    assert (score_pairing(outcome).winner, score_pairing(outcome).points) == ("opponent", 1)


@pytest.mark.parametrize(
    ("difference", "degree"),
    [
        (0, None),
        (1, "marginal"),
        (2, "minor"),
        (3, "major"),
        (4, "major"),
        (5, "complete"),
        (6, "complete"),
        (15, "complete"),
    ],
)
def test_degree_of_victory_table(difference, degree):
    """§4.5.1 Degree of Victory Table: 1 marginal, 2 minor, 3-4 major, 5+ complete."""
    assert degree_from_difference(difference) == degree


@pytest.mark.parametrize("difference", [-1, 1.5, True])
def test_degree_needs_a_whole_difference(difference):
    with pytest.raises(RulesError):
        degree_from_difference(difference)


@pytest.mark.parametrize(
    ("heroes", "single", "double"),
    [
        (1, 1, 2),
        (2, 1, 2),
        (3, 1, 2),
        (4, 2, 4),
        (5, 2, 4),
        (6, 2, 4),
        (7, 3, 6),
        (9, 3, 6),
        (10, 4, 8),
    ],
)
def test_boost_costs(heroes, single, double):
    """§4.5.3: 1 hero point for 1-3 heroes, 2 for 4-6, 3 for 7-9, and so on; a double
    boost costs twice as many."""
    assert boost_cost(heroes) == single
    assert boost_cost(heroes, boost=2) == double
    assert boost_cost(heroes, boost=0) == 0


@pytest.mark.parametrize(("heroes", "boost"), [(0, 1), (3, 3), (3, -1), (True, 1), (2, True)])
def test_boost_cost_checks_its_input(heroes, boost):
    with pytest.raises(RulesError):
        boost_cost(heroes, boost)


@pytest.mark.parametrize(
    ("level", "boost", "expected"),
    [
        (0, 1, 1),  # a tie becomes a marginal victory
        (0, 2, 2),
        (1, 1, 2),
        (2, 1, 3),
        (3, 1, 4),
        (4, 1, 4),  # complete is the top
        (3, 2, 4),
        (1, 2, 3),
        (-1, 1, -1),  # a defeat is not changed
        (-4, 2, -4),
        (2, 0, 2),
    ],
)
def test_boosted_level(level, boost, expected):
    """§4.5.3, R7: on a tie or a victory the boost raises the level one (two) steps."""
    assert boosted_level(level, boost) == expected


def pairing(pc_roll, opponent_roll):
    return simple_contest(14, pc_roll, 14, opponent_roll)


def test_side_totals_and_degree_from_the_difference():
    """§4.5.1: sum the OPs per side; the higher wins; the difference gives the degree."""
    group = group_simple_contest(
        [
            pairing(3, 17),  # PC 2
            pairing(1, 20),  # PC 5
            pairing(17, 3),  # opponent 2
            pairing(9, 5),  # PC 1
        ]
    )
    assert (group.pc_points, group.opponent_points) == (8, 2)
    assert (group.winner, group.degree, group.level) == ("pc", "complete", 4)


def test_equal_totals_tie_and_a_boost_makes_it_a_marginal_victory():
    """R7: equal totals tie; §4.5.3: a boost turns a tie into a marginal victory."""
    outcomes = [pairing(3, 17), pairing(17, 3)]
    assert group_simple_contest(outcomes).describe == "tie"
    boosted = group_simple_contest(outcomes, boost=1)
    assert (boosted.unboosted_level, boosted.level, boosted.describe) == (0, 1, "marginal victory")


def test_a_boost_does_not_help_a_defeated_side():
    outcomes = [pairing(17, 3), pairing(16, 1)]  # opponent 2 + 3
    group = group_simple_contest(outcomes, boost=2)
    assert (group.opponent_points, group.level, group.describe) == (5, -4, "complete defeat")


def test_to_json_lists_pairings_and_totals():
    data = group_simple_contest([pairing(3, 17)], boost=1).to_json()
    assert (data["pc_points"], data["opponent_points"], data["level"]) == (2, 0, 3)
    assert data["pairings"][0]["points"] == 2
    assert data["describe"] == "major victory"


@pytest.mark.parametrize(("outcomes", "boost"), [([], 0), ([pairing(3, 17)], 3)])
def test_group_contest_checks_its_input(outcomes, boost):
    with pytest.raises(RulesError):
        group_simple_contest(outcomes, boost=boost)


@given(
    rolls=st.lists(st.tuples(st.integers(1, 20), st.integers(1, 20)), min_size=1, max_size=9),
    pc=st.integers(1, 60),
    opponent=st.integers(1, 60),
)
def test_swapping_the_sides_mirrors_the_group_outcome(rolls, pc, opponent):
    """R7: the scoring favours neither side."""
    forward = group_simple_contest(simple_contest(pc, a, opponent, b) for a, b in rolls)
    backward = group_simple_contest(simple_contest(opponent, b, pc, a) for a, b in rolls)
    assert (forward.pc_points, forward.opponent_points) == (
        backward.opponent_points,
        backward.pc_points,
    )
    assert forward.level == -backward.level


@given(rolls=st.lists(st.tuples(st.integers(1, 20), st.integers(1, 20)), min_size=1, max_size=9))
def test_a_boost_never_lowers_the_level(rolls):
    outcomes = [simple_contest(14, a, 14, b) for a, b in rolls]
    levels = [group_simple_contest(outcomes, boost=boost).level for boost in (0, 1, 2)]
    assert levels == sorted(levels)
