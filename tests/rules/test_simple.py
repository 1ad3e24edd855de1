"""Bumps and the simple contest: §2.3.5, §4.4.2, RULINGS R5 and R6."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests.core.rules.dice import Result
from contests.core.rules.errors import IllegalAction, RulesError
from contests.core.rules.ratings import Rating
from contests.core.rules.simple import (
    Outcome,
    apply_bumps,
    bump_with_hero_point,
    bumped_results,
    compare_results,
    describe_level,
    mastery_bumps,
    net_bumps,
    simple_contest,
    winner_and_degree,
)

C, S, F, FU = Result.CRITICAL, Result.SUCCESS, Result.FAILURE, Result.FUMBLE

# Against a target of 14 (no masteries): a roll that gives each result, and a second,
# different roll giving the same result (to test the better roll).
ROLLS = {C: (1, 1), S: (5, 9), F: (16, 18), FU: (20, 20)}

# §4.4.2 Simple Contest Table, row = the PC's result, column = the opponent's.
# "better" marks the cells "Better roll = Marginal Victory, else tie".
SIMPLE_CONTEST_TABLE = {
    (C, C): "better",
    (C, S): "minor victory",
    (C, F): "major victory",
    (C, FU): "complete victory",
    (S, C): "minor defeat",
    (S, S): "better",
    (S, F): "minor victory",
    (S, FU): "major victory",
    (F, C): "major defeat",
    (F, S): "minor defeat",
    (F, F): "better",
    (F, FU): "minor victory",
    (FU, C): "complete defeat",
    (FU, S): "major defeat",
    (FU, F): "minor defeat",
    (FU, FU): "tie",  # Tie* (R6: both fumble is a tie)
}


DIFFERENT_RESULT_CELLS = [cell for cell, words in SIMPLE_CONTEST_TABLE.items() if words != "better"]


@pytest.mark.parametrize("better_roll", ["high", "low"])
@pytest.mark.parametrize(("pc_result", "opponent_result"), DIFFERENT_RESULT_CELLS)
def test_simple_contest_table_cells_decided_by_the_results(pc_result, opponent_result, better_roll):
    """§4.4.2 Simple Contest Table, cell by cell (the better roll does not matter here),
    resolved from real rolls. The same-result cells are tested below."""
    expected = SIMPLE_CONTEST_TABLE[pc_result, opponent_result]
    outcome = simple_contest(
        14, ROLLS[pc_result][0], 14, ROLLS[opponent_result][1], better_roll=better_roll
    )
    assert (outcome.pc_result, outcome.opponent_result) == (pc_result, opponent_result)
    assert outcome.describe == expected


@pytest.mark.parametrize(
    ("result", "pc_roll", "opponent_roll", "high", "low"),
    [
        # Success v success: 9 beats 5 with high better, 5 beats 9 with low.
        (S, 9, 5, "marginal victory", "marginal defeat"),
        (S, 5, 9, "marginal defeat", "marginal victory"),
        (S, 7, 7, "tie", "tie"),
        (F, 18, 16, "marginal victory", "marginal defeat"),
        (F, 16, 18, "marginal defeat", "marginal victory"),
        (F, 17, 17, "tie", "tie"),
        (C, 1, 1, "tie", "tie"),  # unbumped criticals are both 1s
    ],
)
def test_same_result_cells_go_to_the_better_roll(result, pc_roll, opponent_roll, high, low):
    """§2.3.5, §2.3.5.1, §4.4.2, R6: same result, the better roll wins marginally;
    equal rolls tie. Both better-roll options."""
    for better_roll, expected in (("high", high), ("low", low)):
        outcome = simple_contest(14, pc_roll, 14, opponent_roll, better_roll=better_roll)
        assert (outcome.pc_result, outcome.opponent_result) == (result, result)
        assert outcome.describe == expected


@pytest.mark.parametrize("better_roll", ["high", "low"])
def test_critical_against_critical_by_bumps_goes_to_the_better_roll(better_roll):
    """§4.4.2 critical v critical cell with different rolls: the PC's success on a 5 is
    bumped to a critical (a heroic bump) against the opponent's natural 1."""
    outcome = simple_contest(14, 5, 14, 1, pc_bumps=1, better_roll=better_roll)
    assert (outcome.pc_result, outcome.opponent_result) == (C, C)
    assert outcome.describe == ("marginal victory" if better_roll == "high" else "marginal defeat")


@pytest.mark.parametrize("better_roll", ["high", "low"])
def test_both_fumble_is_a_tie_whatever_the_better_roll(better_roll):
    """R6: both fumble is a tie, even when bumps made the rolls differ."""
    outcome = simple_contest(14, 20, 14, 20, better_roll=better_roll)
    assert outcome.describe == "tie"
    # A failure bumped down to a fumble against a natural fumble: still a tie.
    outcome = simple_contest(14, 17, 14, 20, pc_bumps=-1, better_roll=better_roll)
    assert (outcome.pc_result, outcome.opponent_result) == (FU, FU)
    assert outcome.winner is None


def test_compare_results_matches_the_table_for_every_cell():
    """§4.4.2: compare_results on results directly (different rolls 9 v 5)."""
    for (pc_result, opponent_result), expected in SIMPLE_CONTEST_TABLE.items():
        outcome = compare_results(pc_result, opponent_result, 9, 5)
        if expected == "better":
            expected = "marginal victory"
        assert outcome.describe == expected, (pc_result, opponent_result)


@pytest.mark.parametrize(
    ("level", "winner", "degree", "words"),
    [
        (4, "pc", "complete", "complete victory"),
        (3, "pc", "major", "major victory"),
        (2, "pc", "minor", "minor victory"),
        (1, "pc", "marginal", "marginal victory"),
        (0, None, None, "tie"),
        (-1, "opponent", "marginal", "marginal defeat"),
        (-2, "opponent", "minor", "minor defeat"),
        (-3, "opponent", "major", "major defeat"),
        (-4, "opponent", "complete", "complete defeat"),
    ],
)
def test_levels_winners_degrees_and_words(level, winner, degree, words):
    """§2.10 degrees, least to greatest: marginal, minor, major, complete."""
    assert winner_and_degree(level) == (winner, degree)
    assert describe_level(level) == words


@pytest.mark.parametrize("level", [5, -5, 1.0, True, None])
def test_a_level_outside_minus_four_to_four_is_an_error(level):
    with pytest.raises(RulesError):
        winner_and_degree(level)


# --- Bumps: §2.3.5.3-§2.3.5.5, R5 ----------------------------------------------------


def test_srd_example_7m_against_14_is_7_against_14_bumped_once():
    """§2.3.5.4: "against a resistance of 14 a PC's ability of 7M is treated as 7 vs. 14
    but we bump the result one step in the favor of the PC"."""
    outcome = simple_contest("7M", 5, 14, 16)  # success bumped to critical v failure
    assert (outcome.pc_result, outcome.opponent_result) == (C, F)
    assert outcome.describe == "major victory"
    outcome = simple_contest("7M", 12, 14, 16)  # failure bumped to success v failure
    assert (outcome.pc_result, outcome.describe) == (S, "minor victory")


def test_srd_example_3m2_against_14_bumps_twice():
    """§2.3.5.4: 3M2 is treated as 3 v 14 with two bumps for the PC."""
    outcome = simple_contest("3M2", 10, 14, 16)  # failure -> success -> critical
    assert (outcome.pc_result, outcome.opponent_result) == (C, F)
    outcome = simple_contest("3M2", 20, 14, 16)  # fumble -> failure -> success
    assert (outcome.pc_result, outcome.describe) == (S, "minor victory")


def test_a_bump_that_would_raise_a_critical_lowers_the_other_side():
    """R5.2: leftover bumps become bump downs on the other side."""
    outcome = simple_contest("1M", 1, 14, 5)  # critical, bump lowers success to failure
    assert (outcome.pc_result, outcome.opponent_result) == (C, F)
    assert outcome.describe == "major victory"
    outcome = simple_contest("3M2", 1, 14, 5)  # two leftover bumps: success to fumble
    assert (outcome.pc_result, outcome.opponent_result) == (C, FU)
    outcome = simple_contest(14, 16, "1M", 1)  # the opponent's leftover bump lowers the PC
    assert (outcome.pc_result, outcome.opponent_result) == (FU, C)
    assert outcome.describe == "complete defeat"


def test_a_fumble_cannot_go_lower():
    """R5.2: "a fumble cannot go lower"."""
    outcome = simple_contest("3M2", 1, 14, 20)
    assert (outcome.pc_result, outcome.opponent_result) == (C, FU)
    assert apply_bumps(C, FU, 3) == (C, FU)


@pytest.mark.parametrize(
    ("own", "other", "bumps", "expected"),
    [
        (FU, S, 1, (F, S)),
        (FU, S, 3, (C, S)),
        (FU, S, 4, (C, F)),
        (FU, S, 6, (C, FU)),
        (S, S, 1, (C, S)),
        (S, S, 2, (C, F)),
        (C, C, 1, (C, S)),
        (S, C, -1, (F, C)),  # a bump down lowers its own side
        (F, C, -2, (FU, C)),
        (C, F, 0, (C, F)),
    ],
)
def test_apply_bumps_step_by_step(own, other, bumps, expected):
    """R5.2, R5.4: bumps up raise own result then lower the other; bumps down lower own."""
    assert apply_bumps(own, other, bumps) == expected


@pytest.mark.parametrize(
    ("pc", "opponent", "bumps"),
    [("7M", "14", 1), ("3M2", "14", 2), ("14", "5M", -1), ("7M2", "7M", 1), ("1M3", "9M3", 0)],
)
def test_masteries_cancel_and_only_the_difference_counts(pc, opponent, bumps):
    """§2.3.5.4, R5.1: opposed masteries cancel."""
    assert mastery_bumps(Rating.parse(pc), Rating.parse(opponent)) == bumps


def test_two_masteries_against_one_is_one_against_none_for_every_roll_pair():
    """§2.3.5.4: "If you have two masteries, then you enjoy the same great advantage
    over an opponent with a single mastery as someone with one mastery has over an
    opponent with no masteries"."""
    for pc_roll, opponent_roll in itertools.product(range(1, 21), repeat=2):
        high = simple_contest("7M2", pc_roll, "12M", opponent_roll)
        low = simple_contest("7M", pc_roll, "12", opponent_roll)
        assert (high.pc_result, high.opponent_result, high.level) == (
            low.pc_result,
            low.opponent_result,
            low.level,
        )


def test_bumps_up_of_both_sides_cancel_for_every_roll_pair():
    """R5.1 applied to every bump source: a heroic PC against a heroic opponent is as
    if neither were heroic."""
    for pc_roll, opponent_roll in itertools.product(range(1, 21), repeat=2):
        both = simple_contest(14, pc_roll, 12, opponent_roll, pc_bumps=1, opponent_bumps=1)
        neither = simple_contest(14, pc_roll, 12, opponent_roll)
        assert both.level == neither.level


@pytest.mark.parametrize(
    ("pc_bumps", "opponent_bumps", "expected"),
    [(2, 1, (1, 0)), (1, 2, (0, 1)), (3, 3, (0, 0)), (2, -1, (2, -1)), (-2, 3, (-2, 3))],
)
def test_net_bumps(pc_bumps, opponent_bumps, expected):
    assert net_bumps(pc_bumps, opponent_bumps) == expected


def test_heroic_state_is_a_bump_up():
    """§2.11.2 Heroic, R5.4: an automatic bump up, applied with the masteries."""
    outcome = simple_contest(14, 16, 14, 5, pc_bumps=1)  # failure -> success v success
    assert (outcome.pc_result, outcome.describe) == (S, "marginal victory")


def test_a_stretch_taken_as_a_bump_down_lowers_the_pcs_result():
    """§2.12.1, R5.4: a stretch as a bump down to the PC's own result."""
    outcome = simple_contest(14, 5, 14, 16, pc_bumps=-1)  # success -> failure v failure
    assert (outcome.pc_result, outcome.opponent_result) == (F, F)
    assert outcome.describe == "marginal defeat"  # 5 v 16, high roll better
    outcome = simple_contest(14, 20, 14, 16, pc_bumps=-1)  # a fumble cannot go lower
    assert outcome.pc_result is FU


def test_a_mastery_and_a_bump_down_on_the_same_side_net_out():
    """R5.4: other bump sources apply with the masteries."""
    for pc_roll, opponent_roll in itertools.product(range(1, 21), repeat=2):
        stretched = simple_contest("7M", pc_roll, 14, opponent_roll, pc_bumps=-1)
        plain = simple_contest(7, pc_roll, 14, opponent_roll)
        assert stretched.level == plain.level


def test_pyrrhic_victory_bump_against_a_mastery():
    """§2.17, R11: the pyrrhic bump up cancels the opponent's one-mastery advantage."""
    outcome = simple_contest(12, 8, "12M", 8, pc_bumps=1)
    assert (outcome.pc_result, outcome.opponent_result, outcome.describe) == (S, S, "tie")


# --- Hero points: §2.3.5.5, R5.3 -----------------------------------------------------


def test_a_hero_point_bumps_the_pcs_final_result_after_masteries():
    """§2.3.5.5: a hero point is used after results including mastery bumps."""
    outcome = simple_contest(14, 16, "14M", 5, pc_hero_point=True)
    # PC failure; opponent success bumped to critical; the hero point makes a success.
    assert (outcome.pc_result, outcome.opponent_result) == (S, C)
    assert outcome.describe == "minor defeat"
    assert outcome.pc_hero_point is True


def test_a_hero_point_is_refused_on_a_critical():
    """R5.3: offered only when the result is below critical."""
    with pytest.raises(IllegalAction, match="cannot raise a critical"):
        simple_contest(14, 1, 14, 5, pc_hero_point=True)
    with pytest.raises(ValueError):  # IllegalAction is a ValueError, as it always was
        simple_contest(14, 1, 14, 5, pc_hero_point=True)
    with pytest.raises(IllegalAction):  # a PC opponent's critical, likewise
        simple_contest(14, 5, 14, 1, opponent_hero_point=True)


def test_a_hero_point_on_a_bumped_critical_is_refused():
    """R5.3: a critical reached by a mastery bump cannot be raised by a hero point."""
    with pytest.raises(IllegalAction):
        simple_contest("5M", 3, 14, 5, pc_hero_point=True)  # success bumped to critical


def test_only_one_hero_point_per_roll():
    """§2.3.5.5: "You can only spend one hero point per roll"."""
    outcome = simple_contest(14, 16, 14, 5, pc_hero_point=True)
    with pytest.raises(IllegalAction, match="one hero point"):
        bump_with_hero_point(outcome)


def test_a_pc_opponent_can_spend_a_hero_point_too():
    """§2.3.5.5 in a PC v PC contest: each player bumps their own roll."""
    outcome = simple_contest(14, 5, 14, 16, opponent_hero_point=True)
    assert (outcome.pc_result, outcome.opponent_result) == (S, S)
    assert outcome.describe == "marginal defeat"  # 5 v 16, high roll better
    assert outcome.opponent_hero_point is True


def test_spend_hero_point_after_seeing_the_results():
    """R5.3: the hero point is decided after seeing both results."""
    outcome = simple_contest(8, 9, 14, 9)
    assert outcome.describe == "minor defeat"
    after = bump_with_hero_point(outcome)
    assert (after.pc_result, after.opponent_result, after.describe) == (S, S, "tie")
    with pytest.raises(RulesError):
        bump_with_hero_point(outcome, side="gm")


@given(
    pc=st.integers(-10, 80),
    opponent=st.integers(-10, 80),
    pc_roll=st.integers(1, 20),
    opponent_roll=st.integers(1, 20),
    pc_bumps=st.integers(-3, 3),
    opponent_bumps=st.integers(-3, 3),
    better_roll=st.sampled_from(["high", "low"]),
)
def test_a_hero_point_never_lowers_the_pcs_outcome(
    pc, opponent, pc_roll, opponent_roll, pc_bumps, opponent_bumps, better_roll
):
    """R5.3: a hero point always improves a result below critical, for every roll pair."""
    kwargs = {"pc_bumps": pc_bumps, "opponent_bumps": opponent_bumps, "better_roll": better_roll}
    plain = simple_contest(pc, pc_roll, opponent, opponent_roll, **kwargs)
    if plain.pc_result is C:
        return
    spent = simple_contest(pc, pc_roll, opponent, opponent_roll, pc_hero_point=True, **kwargs)
    assert spent.level > plain.level


@given(
    pc=st.integers(-10, 80),
    opponent=st.integers(-10, 80),
    pc_roll=st.integers(1, 20),
    opponent_roll=st.integers(1, 20),
    pc_bumps=st.integers(-3, 4),
    opponent_bumps=st.integers(-3, 4),
    better_roll=st.sampled_from(["high", "low"]),
)
def test_the_contest_is_symmetric_between_the_sides(
    pc, opponent, pc_roll, opponent_roll, pc_bumps, opponent_bumps, better_roll
):
    """R5, R6: swapping the two sides mirrors the outcome (no side is favoured by the
    order bumps are applied in)."""
    forward = simple_contest(
        pc,
        pc_roll,
        opponent,
        opponent_roll,
        pc_bumps=pc_bumps,
        opponent_bumps=opponent_bumps,
        better_roll=better_roll,
    )
    backward = simple_contest(
        opponent,
        opponent_roll,
        pc,
        pc_roll,
        pc_bumps=opponent_bumps,
        opponent_bumps=pc_bumps,
        better_roll=better_roll,
    )
    assert forward.level == -backward.level
    assert (forward.pc_result, forward.opponent_result) == (
        backward.opponent_result,
        backward.pc_result,
    )


@given(
    pc_result=st.sampled_from(list(Result)),
    opponent_result=st.sampled_from(list(Result)),
    pc_bumps=st.integers(-4, 8),
    opponent_bumps=st.integers(-4, 8),
)
def test_bumped_results_only_depend_on_net_bumps(
    pc_result, opponent_result, pc_bumps, opponent_bumps
):
    """R5.1: adding the same bumps up to both sides changes nothing."""
    extra = 2
    base = bumped_results(
        pc_result, opponent_result, pc_bumps=pc_bumps, opponent_bumps=opponent_bumps
    )
    if pc_bumps >= 0 and opponent_bumps >= 0:
        more = bumped_results(
            pc_result,
            opponent_result,
            pc_bumps=pc_bumps + extra,
            opponent_bumps=opponent_bumps + extra,
        )
        assert more == base


# --- Input checks and serialisation --------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"pc_roll": 0},
        {"opponent_roll": 21},
        {"better_roll": "middle"},
        {"pc_bumps": 1.5},
        {"opponent_bumps": True},
        {"pc": "7X"},
    ],
)
def test_bad_input_is_a_rules_error(kwargs):
    args = {"pc": 14, "pc_roll": 5, "opponent": 14, "opponent_roll": 9} | kwargs
    positional = [args.pop(name) for name in ("pc", "pc_roll", "opponent", "opponent_roll")]
    with pytest.raises(RulesError):
        simple_contest(*positional, **args)


def test_outcome_to_json():
    outcome = simple_contest("7M", 5, 14, 16)
    assert outcome.to_json() == {
        "winner": "pc",
        "degree": "major",
        "level": 3,
        "describe": "major victory",
        "pc_roll": 5,
        "opponent_roll": 16,
        "pc_result": "critical",
        "opponent_result": "failure",
        "better_roll": "high",
        "pc_hero_point": False,
        "opponent_hero_point": False,
        "stretched": [],
        "capped_from": None,
    }
    assert isinstance(outcome, Outcome)
