"""Die results: §2.3.4 Die Rolls, RULINGS R3 (criticals, fumbles) and R4 (target <= 0)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests.core.rules.dice import Result, check_roll, d20, fixed_rolls, roll_result, rolls_giving
from contests.core.rules.errors import RulesError

C, S, F, FU = Result.CRITICAL, Result.SUCCESS, Result.FAILURE, Result.FUMBLE


def expected_result(roll, target):
    """R3/R4 written out independently of the code under test."""
    if roll == 20:
        return FU
    if target <= 0:
        return F
    if roll == 1:
        return C
    return S if roll <= target else F


# Whole rows of the 20 faces for a few targets, written out literally.
LITERAL_ROWS = {
    # target: results for rolls 1..20
    1: [C] + [F] * 18 + [FU],  # R3: a 1 is a critical even when the target is 1
    2: [C, S] + [F] * 17 + [FU],
    14: [C] + [S] * 13 + [F] * 5 + [FU],
    19: [C] + [S] * 18 + [FU],
    20: [C] + [S] * 18 + [FU],  # R3: a 20 is a fumble even when the target is 20
    0: [F] * 19 + [FU],  # R4: target 0 always fails, except a 20 stays a fumble
    -6: [F] * 19 + [FU],
}


@pytest.mark.parametrize("target", sorted(LITERAL_ROWS))
def test_literal_rows_of_the_die_result_table(target):
    """§2.3.4, R3, R4: every face against targets 1, 2, 14, 19, 20, 0 and -6."""
    assert [roll_result(roll, target) for roll in range(1, 21)] == LITERAL_ROWS[target]


@pytest.mark.parametrize("target", [-40, -1, 0, 1, 2, 7, 13, 14, 18, 19, 20])
@pytest.mark.parametrize("roll", range(1, 21))
def test_every_roll_against_several_targets(roll, target):
    """§2.3.4, R3, R4: each roll 1..20 against targets including 0, negative, 1 and 20."""
    assert roll_result(roll, target) == expected_result(roll, target)


@pytest.mark.parametrize("target", range(-3, 24))
def test_rolls_giving_lists_exactly_the_faces_of_each_result(target):
    """The runs of faces the odds module counts agree with roll_result face by face."""
    runs = rolls_giving(target)
    assert set(runs) == set(Result)
    for result, faces in runs.items():
        assert [roll for roll in range(1, 21) if roll_result(roll, target) == result] == list(faces)


@pytest.mark.parametrize("roll", [0, 21, -1, 1.0, "3", True, None])
def test_a_roll_must_be_1_to_20(roll):
    with pytest.raises(RulesError):
        check_roll(roll)
    with pytest.raises(RulesError):
        roll_result(roll, 14)


def test_a_target_must_be_a_whole_number():
    with pytest.raises(RulesError):
        roll_result(5, 14.0)


def test_results_are_ordered_fumble_failure_success_critical():
    """§2.3.5: critical > success > failure > fumble."""
    assert FU < F < S < C
    assert [r.label for r in Result] == ["fumble", "failure", "success", "critical"]


@pytest.mark.parametrize(
    ("start", "steps", "end"),
    [
        (FU, 1, F),
        (F, 1, S),
        (S, 1, C),
        (C, 1, C),  # clamped at the top
        (C, -1, S),
        (S, -1, F),
        (F, -1, FU),
        (FU, -1, FU),  # clamped at the bottom
        (FU, 3, C),
        (C, -3, FU),
        (F, 9, C),
        (F, 0, F),
    ],
)
def test_bumped_moves_steps_and_clamps(start, steps, end):
    """§2.3.5.3: a bump moves a result one step."""
    assert start.bumped(steps) is end


def test_fixed_rolls_returns_rolls_in_order_then_stops():
    roll = fixed_rolls(3, 17, 20)
    assert [roll(), roll(), roll()] == [3, 17, 20]
    with pytest.raises(RuntimeError):
        roll()


def test_d20_gives_every_face_and_nothing_else():
    faces = {d20() for _ in range(3000)}
    assert faces == set(range(1, 21))


@given(roll=st.integers(1, 20), target=st.integers(-50, 50))
def test_a_higher_target_never_gives_a_worse_result(roll, target):
    """§2.3.4: raising the target number can only help a given roll."""
    assert roll_result(roll, target + 1) >= roll_result(roll, target)
