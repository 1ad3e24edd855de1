"""Scored contest tables and the one-on-one ScoredContest (§5.1, §5.2.5-6, §2.8.2, R12).

Expected values are copied from the SRD tables and RULINGS.md R12, never computed by
the code under test. Ratings of 10 make the rolls easy to read: a 1 is a critical,
5 a success, 15 a failure and 20 a fumble.
"""

from __future__ import annotations

import contextlib
import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contests.core.rules import SideInput
from contests.core.rules.dice import Result
from contests.core.rules.errors import IllegalAction, RulesError
from contests.core.rules.ratings import Rating
from contests.core.rules.scored import (
    TACTICS,
    ScoredContest,
    assist_resistance,
    assist_score_change,
    assisted_score,
    climax_consequence,
    contest_outcome,
    group_victory_level,
    parting_shot_score,
    resolution_points,
    rising_action,
    round_points,
    score_round,
    victory_level,
)
from contests.core.rules.simple import compare_results, simple_contest
from tests.examples import examples

CRIT, SUCC, FAIL, FUMB = 1, 5, 15, 20

# Rolls (pc_roll, opponent_roll) giving each degree to the PC with both ratings 10.
PC_WINS = {
    "marginal": (SUCC, 3),  # both succeed, the PC's roll is higher
    "minor": (SUCC, FAIL),
    "major": (SUCC, FUMB),
    "complete": (CRIT, FUMB),
}
OPPONENT_WINS = {degree: (b, a) for degree, (a, b) in PC_WINS.items()}


def contest(
    *, pc=10, opponent=10, pc_name="PC", opponent_name="Opponent", opponent_is_pc=False, **setup
):
    """A scored contest built the way every machine is: a SideInput per side."""
    return ScoredContest(
        pc=SideInput(pc, name=pc_name),
        opponent=SideInput(opponent, name=opponent_name, is_pc=opponent_is_pc),
        **setup,
    )


def win(machine, side, degree, **options):
    pc_roll, opponent_roll = (PC_WINS if side == "pc" else OPPONENT_WINS)[degree]
    return machine.play_round(pc_roll=pc_roll, opponent_roll=opponent_roll, **options)


# ---------------------------------------------------------------------------
# §5.1.1 resolution points and the Resource Point Table
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("degree", "points"), [("marginal", 1), ("minor", 2), ("major", 3), ("complete", 5)]
)
def test_resolution_points_per_degree_5_1_1(degree, points):
    assert resolution_points(degree) == points


def test_resolution_points_refuse_an_unknown_degree():
    with pytest.raises(RulesError, match="degree must be one of"):
        resolution_points("total")


# §5.1.1 Resource Point Table: rows are one side's result, columns the other's.
RESOURCE_POINT_TABLE = {
    (Result.CRITICAL, Result.CRITICAL): 1,
    (Result.CRITICAL, Result.SUCCESS): 2,
    (Result.CRITICAL, Result.FAILURE): 3,
    (Result.CRITICAL, Result.FUMBLE): 5,
    (Result.SUCCESS, Result.CRITICAL): 2,
    (Result.SUCCESS, Result.SUCCESS): 1,
    (Result.SUCCESS, Result.FAILURE): 2,
    (Result.SUCCESS, Result.FUMBLE): 3,
    (Result.FAILURE, Result.CRITICAL): 3,
    (Result.FAILURE, Result.SUCCESS): 2,
    (Result.FAILURE, Result.FAILURE): 1,
    (Result.FAILURE, Result.FUMBLE): 2,
    (Result.FUMBLE, Result.CRITICAL): 5,
    (Result.FUMBLE, Result.SUCCESS): 3,
    (Result.FUMBLE, Result.FAILURE): 2,
    (Result.FUMBLE, Result.FUMBLE): 0,  # "n/a": both fumble is a tie (R6)
}


@pytest.mark.parametrize(("results", "points"), RESOURCE_POINT_TABLE.items())
def test_resource_point_table_cell_5_1_1(results, points):
    pc_result, opponent_result = results
    # Distinct rolls: on equal results the PC's higher roll wins the marginal victory.
    outcome = compare_results(pc_result, opponent_result, 9, 4)
    scored = score_round(outcome)
    assert scored.points == points
    if points:
        expected_winner = "opponent" if opponent_result > pc_result else "pc"
        assert scored.scored_by == expected_winner
    else:
        assert scored.scored_by is None


def test_a_tie_scores_nothing_5_1_1():
    scored = score_round(compare_results(Result.SUCCESS, Result.SUCCESS, 7, 7))
    assert (scored.points, scored.scored_by) == (0, None)


# ---------------------------------------------------------------------------
# §5.2.5 risky gambits and §5.2.6 defensive responses (R12), cell by cell
# ---------------------------------------------------------------------------

# (winner's tactic, loser's tactic) -> RP for marginal, minor, major, complete.
TACTIC_TABLE = {
    ("normal", "normal"): (1, 2, 3, 5),
    ("normal", "risky_gambit"): (3, 4, 5, 7),  # the gambler's loss gives +2
    ("normal", "defensive"): (0, 0, 1, 3),  # the defender's loss concedes 2 less
    ("risky_gambit", "normal"): (2, 3, 4, 6),  # the gambler's win scores +1
    ("risky_gambit", "risky_gambit"): (3, 4, 5, 7),  # both gamble: the winner +2
    ("risky_gambit", "defensive"): (0, 1, 2, 4),  # +1 - 2
    ("defensive", "normal"): (0, 1, 2, 4),  # the defender's win scores 1 less
    ("defensive", "risky_gambit"): (2, 3, 4, 6),  # +2 - 1
    ("defensive", "defensive"): (0, 0, 0, 2),  # -1 - 2
}
TACTIC_CELLS = [
    (winner, loser, degree, expected[i])
    for (winner, loser), expected in TACTIC_TABLE.items()
    for i, degree in enumerate(("marginal", "minor", "major", "complete"))
]


@pytest.mark.parametrize(("winner", "loser", "degree", "points"), TACTIC_CELLS)
def test_gambit_and_defensive_cell_5_2_5_and_5_2_6(winner, loser, degree, points):
    assert round_points(degree, winner_tactic=winner, loser_tactic=loser) == points


@pytest.mark.parametrize(("winner", "loser", "degree", "points"), TACTIC_CELLS)
def test_tactic_cells_in_a_played_round_either_side(winner, loser, degree, points):
    pc_wins = contest()
    assert win(pc_wins, "pc", degree, pc_tactic=winner, opponent_tactic=loser).points == points
    assert pc_wins.pc_points == points
    opponent_wins = contest()
    win(opponent_wins, "opponent", degree, pc_tactic=loser, opponent_tactic=winner)
    assert opponent_wins.opponent_points == points


@pytest.mark.parametrize("winner", ["asymmetrical", "disengage"])
@pytest.mark.parametrize("loser", TACTICS)
@pytest.mark.parametrize("degree", ["marginal", "minor", "major", "complete"])
def test_an_asymmetrical_win_scores_nothing_5_1_5(winner, loser, degree):
    assert round_points(degree, winner_tactic=winner, loser_tactic=loser) == 0


@pytest.mark.parametrize(
    ("winner", "points"), [("normal", 2), ("risky_gambit", 3), ("defensive", 1)]
)
@pytest.mark.parametrize("loser", ["asymmetrical", "disengage"])
def test_an_asymmetrical_loser_still_concedes_5_1_5(winner, loser, points):
    assert round_points("minor", winner_tactic=winner, loser_tactic=loser) == points


def test_unknown_tactic_is_refused():
    with pytest.raises(RulesError, match="tactic must be one of"):
        round_points("minor", winner_tactic="berserk")
    machine = contest()
    with pytest.raises(RulesError, match="tactic must be one of"):
        machine.play_round(pc_roll=5, opponent_roll=5, pc_tactic="berserk")
    assert machine.actions == []


# ---------------------------------------------------------------------------
# §5.1.2 rising action and §5.1.3 climax tables
# ---------------------------------------------------------------------------

RISING_ACTION_ROWS = [
    (1, "hurt", "hurt", "marginal"),
    (2, "hurt", "unharmed", "marginal"),
    (3, "impaired", "unharmed", "minor"),
    (4, "impaired", "unharmed", "minor"),
    (5, "injured", "unharmed", "major"),
    (6, "injured", "unharmed", "major"),
    (7, "dying", "unharmed", "complete"),
    (8, "dead", "unharmed", "complete"),
    (9, "dead", "unharmed", "complete"),
    (10, "dead", "unharmed", "complete"),  # R12: differences are capped at 9
    (14, "dead", "unharmed", "complete"),
]


@pytest.mark.parametrize(("difference", "loser", "winner", "degree"), RISING_ACTION_ROWS)
def test_rising_action_table_row_5_1_2(difference, loser, winner, degree):
    row = rising_action(difference)
    assert (row.loser, row.winner, row.degree) == (loser, winner, degree)


@pytest.mark.parametrize("difference", [0, -3])
def test_rising_action_needs_a_winner_ahead(difference):
    with pytest.raises(RulesError, match="ahead by 1 RP or more"):
        rising_action(difference)


CLIMAX_ROWS = [
    (0, "unharmed"),
    (1, "dazed"),
    (2, "hurt"),
    (3, "hurt"),
    (4, "impaired"),
    (5, "impaired"),
    (6, "injured"),
    (7, "injured"),
    (8, "dying"),
    (9, "dead"),
    (10, "dead"),
    (17, "dead"),
]


@pytest.mark.parametrize(("total", "consequence"), CLIMAX_ROWS)
def test_climactic_state_of_adversity_table_row_5_1_3(total, consequence):
    assert climax_consequence(total, lost=False) == consequence


@pytest.mark.parametrize(("total", "consequence"), CLIMAX_ROWS)
def test_climax_adds_1_when_the_side_lost_5_1_3(total, consequence):
    if total >= 1:
        assert climax_consequence(total - 1, lost=True) == consequence


def test_climax_refuses_negative_points():
    with pytest.raises(RulesError, match="cannot be negative"):
        climax_consequence(-1, lost=False)


@pytest.mark.parametrize(
    ("consequence", "degree"),
    [
        ("hurt", "marginal"),
        ("impaired", "minor"),
        ("injured", "major"),
        ("dying", "complete"),  # R12: the table's "Hurt" here is a typo
        ("dead", "complete"),
    ],
)
def test_climactic_outcome_table_row_5_1_3(consequence, degree):
    assert victory_level(consequence) == degree


@pytest.mark.parametrize("consequence", ["unharmed", "dazed"])
def test_no_victory_level_from_an_unharmed_loser(consequence):
    with pytest.raises(RulesError, match="not a consequence of defeat"):
        victory_level(consequence)


@pytest.mark.parametrize(
    ("consequences", "degree"),
    [
        (["injured"], "major"),  # §5.2: one opponent: their consequence
        (["dead", "hurt"], "marginal"),  # two: the second-worst
        (["hurt", "dead", "impaired"], "minor"),
        (["dead", "dying", "hurt"], "complete"),
        (["injured", "injured", "hurt"], "major"),
        ([], None),  # nobody defeated (all disengaged)
    ],
)
def test_group_victory_level_5_2(consequences, degree):
    assert group_victory_level(consequences) == degree


# ---------------------------------------------------------------------------
# §5.2.3 assist table and escalating resistance (pure functions)
# ---------------------------------------------------------------------------

ASSIST_TABLE = [
    (4, -4),  # complete victory
    (3, -3),  # major victory
    (2, -2),  # minor victory
    (1, -1),  # marginal victory
    (0, 0),  # tie (not in the table: no change)
    (-1, 0),  # marginal defeat
    (-2, 1),  # minor defeat
    (-3, 2),  # major defeat
    (-4, 3),  # complete defeat
]


@pytest.mark.parametrize(("level", "change"), ASSIST_TABLE)
def test_assist_table_row_5_2_3(level, change):
    assert assist_score_change(level) == change


@pytest.mark.parametrize(("level", "change"), ASSIST_TABLE)
def test_assisted_score_never_below_zero_5_2_3(level, change):
    for score in range(0, 8):
        assert assisted_score(score, level) == max(score + change, 0)


@pytest.mark.parametrize(
    ("previous", "shift", "level"),
    [
        (0, 0, "moderate"),
        (1, 0, "high"),
        (2, 0, "very_high"),
        (3, 0, "nearly_impossible"),
        (4, 0, "nearly_impossible"),
        (0, -1, "low"),
        (1, -1, "moderate"),
        (0, 1, "high"),
        (2, 1, "nearly_impossible"),
    ],
)
def test_successive_assist_resistances_5_2_3(previous, shift, level):
    assert assist_resistance(previous, shift) == level


def test_assist_resistance_shift_is_one_step_at_most():
    with pytest.raises(RulesError, match="one step at most"):
        assist_resistance(0, 2)


# ---------------------------------------------------------------------------
# §5.1.4 parting shot (pure function)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "knockout", "level", "expected"),
    [
        (5, 3, 1, 6),  # a marginal victory adds 1
        (5, 3, 2, 7),
        (5, 3, 3, 8),
        (5, 3, 4, 10),  # a complete victory adds 5
        (5, 3, 0, 5),  # a tie changes nothing
        (6, 3, -1, 5),  # the target's marginal victory takes 1 off
        (6, 3, -2, 4),
        (6, 3, -3, 3),
        (6, 3, -4, 3),  # only the 3 RP of the knock-out round can come off
        (7, 5, -4, 2),
    ],
)
def test_parting_shot_score_5_1_4(score, knockout, level, expected):
    assert parting_shot_score(score, knockout, level) == expected


# ---------------------------------------------------------------------------
# Hero points, modifiers and bumps in a round (R5)
# ---------------------------------------------------------------------------


def test_a_hero_point_raises_the_pc_result_one_step():
    machine = contest()
    scored = machine.play_round(pc_roll=FAIL, opponent_roll=SUCC, pc_hero_point=True)
    # failure raised to success against a success: the PC's roll 15 beats 5.
    assert (scored.winner, scored.outcome.degree, machine.pc_points) == ("pc", "marginal", 1)
    assert machine.rounds[0]["pc_hero_point"] is True
    assert machine.rounds[0]["pc_result"] == "success"


def test_a_hero_point_on_a_critical_is_illegal_and_changes_nothing():
    machine = contest()
    win(machine, "pc", "minor")
    before = copy.deepcopy(machine.to_json())
    with pytest.raises(IllegalAction, match="cannot raise PC's critical"):
        machine.play_round(pc_roll=CRIT, opponent_roll=SUCC, pc_hero_point=True)
    assert machine.to_json() == before


def test_a_hero_point_after_a_mastery_bump_to_critical_is_illegal():
    machine = contest(pc="10M", opponent=10)
    with pytest.raises(IllegalAction, match="critical"):
        machine.play_round(pc_roll=SUCC, opponent_roll=SUCC, pc_hero_point=True)


def test_the_gms_opponent_spends_no_hero_points():
    machine = contest(opponent_name="Crowsky")
    with pytest.raises(IllegalAction, match="Crowsky is the GM's"):
        machine.play_round(pc_roll=SUCC, opponent_roll=FAIL, opponent_hero_point=True)
    assert machine.rounds == []


def test_an_opponent_pc_may_spend_a_hero_point_5_1_1():
    machine = contest(opponent_is_pc=True)
    scored = machine.play_round(pc_roll=SUCC, opponent_roll=FAIL, opponent_hero_point=True)
    assert scored.outcome.opponent_result is Result.SUCCESS
    # Both succeed now, and the opponent's 15 is the better (higher) roll.
    assert scored.winner == "opponent"
    assert (machine.pc_points, machine.opponent_points) == (0, 1)


def test_both_hero_points_in_one_round():
    machine = contest(opponent_is_pc=True)
    scored = machine.play_round(
        pc_roll=FAIL, opponent_roll=FUMB, pc_hero_point=True, opponent_hero_point=True
    )
    # success against failure: a minor victory.
    assert (scored.outcome.pc_result, scored.outcome.opponent_result) == (
        Result.SUCCESS,
        Result.FAILURE,
    )
    assert machine.pc_points == 2


def test_a_modifier_lasts_one_round_r9():
    machine = contest()
    scored = machine.play_round(pc_roll=12, opponent_roll=FAIL, pc_modifier=3)
    assert scored.outcome.pc_result is Result.SUCCESS  # 12 against 13
    assert machine.rounds[0]["pc_rating"] == "13"
    scored = machine.play_round(pc_roll=12, opponent_roll=FAIL)
    assert scored.outcome.pc_result is Result.FAILURE  # back to 10


def test_a_bump_down_lowers_the_result():
    machine = contest()
    scored = machine.play_round(pc_roll=SUCC, opponent_roll=FAIL, pc_bumps=-1)
    assert scored.outcome.pc_result is Result.FAILURE


def test_contest_outcome_names_the_side_in_its_message():
    with pytest.raises(IllegalAction, match="cannot raise Asha's critical"):
        contest_outcome(Rating(10), CRIT, Rating(10), 4, pc_hero_point=True, pc_label="Asha")


def test_bad_rolls_are_rules_errors_naming_the_roller():
    machine = contest(pc_name="Billiard")
    with pytest.raises(RulesError, match="Billiard's roll"):
        machine.play_round(pc_roll=21, opponent_roll=4)
    with pytest.raises(RulesError, match="Billiard's roll"):
        machine.play_round(pc_roll=True, opponent_roll=4)


# ---------------------------------------------------------------------------
# The one-on-one contest: first to 5, degree and consequences
# ---------------------------------------------------------------------------


def test_first_to_five_wins_5_1_1():
    machine = contest()
    win(machine, "pc", "major")  # 3 - 0
    win(machine, "opponent", "minor")  # 3 - 2
    assert not machine.is_over
    assert (machine.winner, machine.degree) == (None, None)
    win(machine, "pc", "minor")  # 5 - 2
    assert machine.is_over
    assert (machine.pc_points, machine.opponent_points) == (5, 2)
    assert machine.points == {"pc": 5, "opponent": 2}
    assert (machine.winner, machine.ended_by) == ("pc", "knockout")


def test_no_round_after_the_end():
    machine = contest()
    win(machine, "opponent", "complete")
    before = machine.to_json()
    with pytest.raises(IllegalAction, match="the contest is over"):
        win(machine, "pc", "minor")
    assert machine.to_json() == before


@pytest.mark.parametrize(
    ("rounds", "pc", "opponent", "degree"),
    [
        # 5 - 3: a lead of 2
        ([("pc", "major"), ("opponent", "major"), ("pc", "minor")], "unharmed", "hurt", "marginal"),
        # 0 - 6: a lead of 6
        ([("opponent", "major"), ("opponent", "major")], "injured", "unharmed", "major"),
        # 5 - 0
        ([("pc", "complete")], "unharmed", "injured", "major"),
        # 5 - 1: a lead of 4
        ([("opponent", "marginal"), ("pc", "complete")], "unharmed", "impaired", "minor"),
        # 5 - 4: a lead of 1 hurts the winner too
        (
            [("opponent", "minor"), ("opponent", "minor"), ("pc", "complete")],
            "hurt",
            "hurt",
            "marginal",
        ),
        # 2 - 5: a lead of 3
        ([("pc", "minor"), ("opponent", "complete")], "impaired", "unharmed", "minor"),
    ],
)
def test_rising_action_consequences_of_a_played_contest_5_1_2(rounds, pc, opponent, degree):
    machine = contest()
    for side, won in rounds:
        win(machine, side, won)
    assert machine.is_over
    assert machine.consequences() == {"pc": pc, "opponent": opponent}
    assert machine.degree == degree


def test_rising_action_difference_above_nine_reads_row_nine_5_1_2():
    machine = contest()
    win(machine, "pc", "complete", opponent_tactic="risky_gambit")  # 5 + 2 = 7
    assert machine.is_over and machine.pc_points == 7
    assert machine.consequences()["opponent"] == "dying"
    second = contest()
    win(second, "pc", "major")
    win(second, "pc", "complete", pc_tactic="risky_gambit", opponent_tactic="risky_gambit")
    assert second.pc_points == 10  # 3 + 5 + 2
    assert second.consequences() == {"pc": "unharmed", "opponent": "dead"}
    assert second.degree == "complete"


def test_climax_consequences_of_a_won_contest_5_1_3():
    machine = contest(stakes="climax")
    win(machine, "opponent", "major")  # 0 - 3
    win(machine, "opponent", "marginal")  # 0 - 4
    win(machine, "pc", "complete")  # 5 - 4
    # The PC has 4 RP against them: impaired even in victory. The opponent lost:
    # 5 + 1 = 6, injured, so the PC's victory is major.
    assert machine.consequences() == {"pc": "impaired", "opponent": "injured"}
    assert machine.degree == "major"


def test_climax_consequences_of_a_lost_contest_5_1_3():
    machine = contest(stakes="climax")
    win(machine, "pc", "minor")  # 2 - 0
    win(machine, "opponent", "complete", opponent_tactic="risky_gambit")  # 2 - 6
    # 6 RP against the PC, +1 for losing: 7, injured; the opponent has 2 against: hurt.
    assert machine.consequences() == {"pc": "injured", "opponent": "hurt"}
    assert (machine.winner, machine.degree) == ("opponent", "major")


def test_consequences_wait_for_the_end_5_1_1():
    machine = contest()
    win(machine, "pc", "major")
    with pytest.raises(IllegalAction, match="no consequence is certain"):
        machine.consequences()
    assert machine.state()["consequences"] is None


# ---------------------------------------------------------------------------
# §5.1.5 asymmetrical rounds and §5.1.6 disengaging
# ---------------------------------------------------------------------------


def test_an_asymmetrical_round_won_scores_nothing_but_achieves_the_aim_5_1_5():
    machine = contest()
    scored = win(machine, "pc", "major", pc_tactic="asymmetrical", pc_rating=12)
    assert (scored.points, scored.scored_by, scored.objective_achieved) == (0, None, "pc")
    assert machine.points == {"pc": 0, "opponent": 0}
    assert machine.rounds[0]["objective_achieved"] == "pc"
    assert machine.rounds[0]["pc_rating"] == "12"
    assert not machine.is_over


def test_an_asymmetrical_round_lost_still_concedes_5_1_5():
    machine = contest()
    scored = win(machine, "opponent", "major", pc_tactic="asymmetrical")
    assert (scored.points, scored.objective_achieved) == (3, None)
    assert machine.opponent_points == 3


def test_a_won_disengagement_ends_the_contest_unharmed_5_1_6():
    machine = contest()
    win(machine, "opponent", "major")  # 0 - 3
    scored = win(machine, "pc", "marginal", pc_tactic="disengage")
    assert scored.escaped == "pc"
    assert machine.is_over
    assert (machine.winner, machine.ended_by, machine.degree) == ("opponent", "disengagement", None)
    assert machine.points == {"pc": 0, "opponent": 3}
    assert machine.consequences() == {"pc": "unharmed", "opponent": "unharmed"}
    assert not machine.parting_shot_available


def test_a_disengagement_at_a_climax_still_counts_the_rp_5_1_6():
    machine = contest(stakes="climax")
    win(machine, "opponent", "major")  # 0 - 3
    win(machine, "pc", "minor", pc_tactic="disengage")
    # 3 RP against the PC, who did not lose: hurt. The opponent: nothing against.
    assert machine.consequences() == {"pc": "hurt", "opponent": "unharmed"}


def test_a_failed_disengagement_concedes_as_a_normal_round_5_1_6():
    machine = contest()
    scored = win(machine, "opponent", "minor", pc_tactic="disengage")
    assert (scored.escaped, machine.opponent_points, machine.is_over) == (None, 2, False)


def test_a_tied_disengagement_neither_escapes_nor_concedes_5_1_6():
    machine = contest()
    scored = machine.play_round(pc_roll=7, opponent_roll=7, pc_tactic="disengage")
    assert (scored.escaped, machine.points, machine.is_over) == (
        None,
        {"pc": 0, "opponent": 0},
        False,
    )


def test_the_opponent_can_disengage_too():
    machine = contest()
    win(machine, "opponent", "minor", opponent_tactic="disengage")
    assert (machine.winner, machine.ended_by) == ("pc", "disengagement")


# ---------------------------------------------------------------------------
# §5.1.4 parting shots in the one-on-one contest
# ---------------------------------------------------------------------------


def knocked_out_opponent(**setup):
    machine = contest(**setup)
    win(machine, "pc", "minor")  # 2 - 0
    win(machine, "pc", "major")  # 5 - 0, the knock-out round scored 3
    return machine


def test_a_successful_parting_shot_adds_its_rp_5_1_4():
    machine = knocked_out_opponent()
    assert machine.parting_shot_available
    outcome = machine.parting_shot(pc_roll=SUCC, opponent_roll=FAIL)  # minor: +2
    assert outcome.winner == "pc"
    assert machine.pc_points == 7
    assert machine.is_over and not machine.parting_shot_available
    assert machine.consequences()["opponent"] == "dying"  # a lead of 7
    assert machine.rounds[-1]["kind"] == "parting_shot"
    assert machine.rounds[-1]["change"] == 2


def test_a_failed_parting_shot_can_bring_the_opponent_back_5_1_4():
    machine = knocked_out_opponent()
    machine.parting_shot(pc_roll=FAIL, opponent_roll=SUCC)  # the opponent's minor: -2
    assert machine.pc_points == 3
    assert not machine.is_over
    assert (machine.winner, machine.degree, machine.ended_by) == (None, None, None)
    assert machine.rounds[-1]["revived"] is True
    win(machine, "pc", "minor")  # play goes on: 5 - 0 again
    assert machine.is_over and machine.parting_shot_available


def test_a_failed_parting_shot_that_leaves_five_keeps_the_opponent_out_5_1_4():
    machine = contest()
    win(machine, "pc", "minor")  # 2
    win(machine, "pc", "minor")  # 4
    win(machine, "pc", "major")  # 7, the knock-out round scored 3
    machine.parting_shot(pc_roll=3, opponent_roll=SUCC)  # the opponent's marginal: -1
    assert machine.pc_points == 6
    assert machine.is_over and machine.winner == "pc"


def test_a_failed_parting_shot_takes_off_no_more_than_the_knockout_round_5_1_4():
    machine = contest()
    win(machine, "pc", "minor")  # 2
    win(machine, "pc", "minor")  # 4
    win(machine, "pc", "marginal")  # 5, the knock-out round scored 1
    machine.parting_shot(pc_roll=FUMB, opponent_roll=CRIT)  # the opponent's complete: 5
    assert machine.pc_points == 4
    assert not machine.is_over


def test_a_tied_parting_shot_changes_nothing_5_1_4():
    machine = knocked_out_opponent()
    machine.parting_shot(pc_roll=8, opponent_roll=8)
    assert machine.pc_points == 5 and machine.is_over


def test_only_one_parting_shot_per_knockout_5_1_4():
    machine = knocked_out_opponent()
    machine.parting_shot(pc_roll=SUCC, opponent_roll=FAIL)
    before = machine.to_json()
    with pytest.raises(IllegalAction, match="right after a knock-out"):
        machine.parting_shot(pc_roll=SUCC, opponent_roll=FAIL)
    assert machine.to_json() == before


def test_no_parting_shot_before_a_knockout_5_1_4():
    machine = contest()
    win(machine, "pc", "minor")
    with pytest.raises(IllegalAction, match="right after a knock-out"):
        machine.parting_shot(pc_roll=SUCC, opponent_roll=FAIL)


def test_the_gm_makes_no_parting_shot_5_1_4():
    machine = contest()
    win(machine, "opponent", "complete")
    assert not machine.parting_shot_available
    with pytest.raises(IllegalAction, match="the GM does not make parting shots"):
        machine.parting_shot(pc_roll=SUCC, opponent_roll=FAIL)


def test_an_opponent_pc_may_make_a_parting_shot_5_1_4():
    machine = contest(opponent_is_pc=True)
    win(machine, "opponent", "complete")
    assert machine.parting_shot_available
    machine.parting_shot(pc_roll=FAIL, opponent_roll=SUCC)  # the shooter's minor: +2
    assert machine.opponent_points == 7


def test_a_parting_shot_with_another_ability_5_1_4():
    machine = knocked_out_opponent()
    machine.parting_shot(pc_roll=12, opponent_roll=FAIL, pc_rating=13)
    assert machine.rounds[-1]["pc_rating"] == "13"
    assert machine.pc_points == 7


# ---------------------------------------------------------------------------
# §5.2.8 switching abilities
# ---------------------------------------------------------------------------


def test_switching_ability_changes_later_rounds_and_maybe_the_resistance_5_2_8():
    machine = contest()
    machine.switch_ability(side="pc", rating="10M")
    machine.switch_ability(side="opponent", rating=8)
    assert machine.ratings == {"pc": "10M", "opponent": "8"}
    scored = machine.play_round(pc_roll=SUCC, opponent_roll=SUCC)
    # The mastery bumps the PC's success to a critical: a minor victory.
    assert scored.outcome.pc_result is Result.CRITICAL
    assert machine.pc_points == 2


def test_switching_needs_a_side_and_a_rating():
    machine = contest()
    with pytest.raises(RulesError, match="side must be"):
        machine.switch_ability(side="gm", rating=12)
    with pytest.raises(RulesError, match="not a rating"):
        machine.switch_ability(side="pc", rating="twelve")
    assert machine.ratings == {"pc": "10", "opponent": "10"}


# ---------------------------------------------------------------------------
# §2.8.2 escalating contests
# ---------------------------------------------------------------------------


def test_srd_example_billiard_escalates_against_crowsky_2_8_2():
    """§2.8.2: Billiard's marginal victory over Crowsky becomes round one of a scored
    contest, scoring 1 RP against Crowsky; adjudication begins with round two."""
    outcome = simple_contest(Rating(14), 9, Rating(14), 4)
    assert outcome.describe == "marginal victory"
    machine = ScoredContest.escalate(
        outcome,
        pc=SideInput(14, name="Billiard"),
        opponent=SideInput(14, name="Crowsky", is_pc=False),
    )
    assert (machine.pc_points, machine.opponent_points) == (1, 0)
    first = machine.rounds[0]
    assert (first["kind"], first["degree"], first["pc_roll"]) == ("escalated", "marginal", 9)
    machine.play_round(pc_roll=SUCC, opponent_roll=FAIL)
    assert machine.rounds[1]["number"] == 2
    assert machine.pc_points == 3


def test_escalating_from_rolls():
    machine = ScoredContest.escalate(pc=10, opponent=10, pc_roll=FAIL, opponent_roll=SUCC)
    assert machine.opponent_points == 2  # the opponent's minor victory
    with_hero = ScoredContest.escalate(
        pc=10, opponent=10, pc_roll=FAIL, opponent_roll=SUCC, pc_hero_point=True
    )
    assert with_hero.pc_points == 1  # success v success, the PC's 15 is higher


def test_escalating_a_complete_victory_ends_at_once():
    machine = ScoredContest.escalate(pc=10, opponent=10, pc_roll=CRIT, opponent_roll=FUMB)
    assert machine.is_over and machine.winner == "pc"
    assert machine.parting_shot_available


def test_escalating_a_tie_scores_nothing():
    machine = ScoredContest.escalate(pc=10, opponent=10, pc_roll=7, opponent_roll=7)
    assert machine.points == {"pc": 0, "opponent": 0}
    assert machine.rounds[0]["outcome"] == "tie"


def test_an_escalated_contest_replays():
    machine = ScoredContest.escalate(pc=10, opponent=10, pc_roll=SUCC, opponent_roll=FAIL)
    win(machine, "opponent", "major")
    data = json.loads(json.dumps(machine.to_json()))
    assert ScoredContest.from_json(data).state() == machine.state()


def test_escalating_needs_an_outcome_or_rolls():
    with pytest.raises(RulesError, match="Outcome or both rolls"):
        ScoredContest.escalate(pc=10, opponent=10, pc_roll=4)


def test_a_malformed_first_round_is_refused():
    with pytest.raises(RulesError, match="first_round needs a degree"):
        ScoredContest(pc=10, opponent=10, first_round={"winner": "pc", "degree": None})


# ---------------------------------------------------------------------------
# Setup and state
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ({"pc": "7Q", "opponent": 10}, "not a rating"),
        ({"pc": 10, "opponent": 10, "stakes": "finale"}, "stakes must be"),
        ({"pc": 10, "opponent": 10, "better_roll": "middle"}, "better_roll must be"),
        ({"pc": [10], "opponent": 10}, "must be a whole number or a rating"),
        ({"pc": 10, "opponent": {"rating": 10, "is_pc": "yes"}}, "true or false"),
        ({"pc": 10, "opponent": 10, "opponent_is_pc": True}, "no opponent_is_pc"),
        ({"pc": {"rating": 10, "is_pc": False}, "opponent": 10}, "a player controls it"),
        ({"pc": {"rating": 10, "luck": 3}, "opponent": 10}, "a side has no luck"),
    ],
)
def test_bad_setups_are_refused(setup, message):
    with pytest.raises(RulesError, match=message):
        ScoredContest(**setup)


def test_low_better_roll_option_r6():
    machine = contest(better_roll="low")
    scored = machine.play_round(pc_roll=3, opponent_roll=SUCC)
    assert scored.winner == "pc"


def test_state_is_json_and_names_everything():
    machine = contest(pc_name="Billiard", opponent_name="Crowsky", opponent="1M")
    win(machine, "pc", "minor")
    state = machine.state()
    assert json.loads(json.dumps(state)) == state
    assert state["pc"] == {"name": "Billiard", "rating": "10", "points": 0}
    assert state["opponent"]["name"] == "Crowsky"
    assert state["opponent"]["rating"] == "1M"
    assert state["rounds"][0]["pc_result"] == "success"
    assert state["is_over"] is False


def test_roll_round_records_the_rolled_numbers():
    from contests.core.rules.dice import fixed_rolls

    machine = contest()
    machine.roll_round(roller=fixed_rolls(SUCC, FAIL), pc_tactic="risky_gambit")
    assert machine.actions == [
        {
            "action": "play_round",
            "pc_roll": SUCC,
            "opponent_roll": FAIL,
            "pc_tactic": "risky_gambit",
        }
    ]
    assert machine.pc_points == 3


def test_actions_take_keyword_arguments_only():
    machine = contest()
    with pytest.raises(TypeError):
        machine.play_round(5, 15)


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

round_options = st.fixed_dictionaries(
    {"pc_roll": st.integers(1, 20), "opponent_roll": st.integers(1, 20)},
    optional={
        "pc_tactic": st.sampled_from(TACTICS),
        "opponent_tactic": st.sampled_from(TACTICS),
        "pc_hero_point": st.booleans(),
        "pc_modifier": st.sampled_from([-6, -3, 0, 3, 6]),
        "opponent_modifier": st.sampled_from([-6, -3, 0, 3, 6]),
        "pc_bumps": st.integers(-1, 1),
    },
)
ratings = st.one_of(st.integers(1, 45), st.sampled_from(["7M", "14", "3M2", "20"]))


@settings(max_examples=examples(150))
@given(
    pc=ratings,
    opponent=ratings,
    stakes=st.sampled_from(["rising_action", "climax"]),
    rounds=st.lists(round_options, max_size=12),
    shot=st.none() | st.tuples(st.integers(1, 20), st.integers(1, 20)),
    opponent_is_pc=st.booleans(),
)
def test_property_play_replays_and_keeps_the_rules(
    pc, opponent, stakes, rounds, shot, opponent_is_pc
):
    machine = contest(pc=pc, opponent=opponent, stakes=stakes, opponent_is_pc=opponent_is_pc)
    for options in rounds:
        if machine.is_over:
            break
        before = copy.deepcopy(machine.to_json())
        points_before = machine.points
        if options.get("opponent_modifier") and not opponent_is_pc:
            # R18.3: a GM resistance takes no modifier; the round is refused, unplayed.
            with pytest.raises(RulesError, match="a resistance takes no modifier"):
                machine.play_round(**options)
            assert machine.to_json() == before
            continue
        try:
            scored = machine.play_round(**options)
        except IllegalAction:
            # Only a hero point on a critical is illegal here; nothing changed.
            assert options.get("pc_hero_point")
            assert machine.to_json() == before
            continue
        points = machine.points
        # RP never negative and only the round's scorer gains, by the round's points.
        assert all(value >= 0 for value in points.values())
        for side in ("pc", "opponent"):
            gained = points[side] - points_before[side]
            assert gained == (scored.points if scored.scored_by == side else 0)
        # The contest ends exactly when a side reaches 5, or on a won disengagement.
        reached = max(points.values()) >= 5
        assert machine.is_over == (reached or scored.escaped is not None)
        if machine.is_over and machine.ended_by == "knockout":
            assert points[machine.winner] >= 5 > points[machine.loser]
            assert machine.degree in ("marginal", "minor", "major", "complete")
            assert set(machine.consequences()) == {"pc", "opponent"}
    if shot and machine.parting_shot_available:
        machine.parting_shot(pc_roll=shot[0], opponent_roll=shot[1])
        assert all(value >= 0 for value in machine.points.values())
    data = json.loads(json.dumps(machine.to_json()))
    rebuilt = ScoredContest.from_json(data)
    assert rebuilt.state() == machine.state()
    assert rebuilt.actions == machine.actions


@given(rounds=st.lists(round_options, min_size=1, max_size=10), late=round_options)
def test_property_illegal_actions_leave_the_state_unchanged(rounds, late):
    machine = contest()
    for options in rounds:
        with contextlib.suppress(RulesError):  # an illegal round changes nothing anyway
            machine.play_round(**options)
        if machine.is_over:
            break
    before = copy.deepcopy(machine.to_json())
    attempts = [
        lambda: machine.play_round(**{**late, "opponent_hero_point": True}),
        lambda: machine.play_round(**{**late, "pc_roll": 0}),
        lambda: machine.switch_ability(side="nobody", rating=10),
    ]
    if not machine.parting_shot_available:
        attempts.append(lambda: machine.parting_shot(pc_roll=5, opponent_roll=5))
    for attempt in attempts:
        with pytest.raises(RulesError):
            attempt()
        assert machine.to_json() == before
