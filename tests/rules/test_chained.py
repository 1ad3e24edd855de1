"""The chained contest (§5.4, RULINGS.md R14) and escalation (§2.8.2)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests.core.rules import SideInput
from contests.core.rules.chained import ChainedContest, chained_round_effect, worsen
from contests.core.rules.dice import Result, fixed_rolls
from contests.core.rules.errors import IllegalAction, RulesError
from contests.core.rules.ratings import Rating
from contests.core.rules.simple import simple_contest
from contests.core.rules.states import State

C, S, F, X = Result.CRITICAL, Result.SUCCESS, Result.FAILURE, Result.FUMBLE
WORSE = "worse roll is hurt"

# §5.4 Chained Contest Table, transcribed from the SRD: rows are the player's result,
# columns the opponent's.
SRD_TABLE = {
    (C, C): WORSE,
    (C, S): ("opponent", "hurt"),
    (C, F): ("opponent", "injured"),
    (C, X): ("opponent", "dying"),
    (S, C): ("pc", "hurt"),
    (S, S): WORSE,
    (S, F): ("opponent", "hurt"),
    (S, X): ("opponent", "injured"),
    (F, C): ("pc", "injured"),
    (F, S): ("pc", "hurt"),
    (F, F): WORSE,
    (F, X): ("opponent", "hurt"),
    (X, C): ("pc", "dying"),
    (X, S): ("pc", "injured"),
    (X, F): ("pc", "hurt"),
    (X, X): None,  # "Both make a mistake. No effect on contest."
}


@pytest.mark.parametrize(("cell", "expected"), SRD_TABLE.items(), ids=str)
def test_chained_contest_table_cell_5_4(cell, expected):
    """§5.4 table, every cell: a worse-roll cell hurts the worse roll (high is better)
    and does nothing on equal rolls."""
    pc_result, opponent_result = cell
    if expected == WORSE:
        assert chained_round_effect(pc_result, opponent_result, 3, 9) == ("pc", "hurt")
        assert chained_round_effect(pc_result, opponent_result, 9, 3) == ("opponent", "hurt")
        assert chained_round_effect(pc_result, opponent_result, 6, 6) is None
    else:
        assert chained_round_effect(pc_result, opponent_result, 3, 9) == expected
        assert chained_round_effect(pc_result, opponent_result, 9, 3) == expected


def test_worse_roll_follows_the_low_better_roll_option_r6():
    """R6 campaign option: with better_roll="low" the higher roll is the worse one."""
    assert chained_round_effect(S, S, 3, 9, better_roll="low") == ("opponent", "hurt")


# §5.4 ladder within one contest: hurt -> injured -> dying, injured -> dying.
LADDER = [
    (None, "hurt", State.HURT),
    (State.HURT, "hurt", State.INJURED),
    (State.INJURED, "hurt", State.DYING),
    (None, "injured", State.INJURED),
    (State.HURT, "injured", State.INJURED),
    (State.INJURED, "injured", State.DYING),
    (None, "dying", State.DYING),
    (State.HURT, "dying", State.DYING),
    (State.INJURED, "dying", State.DYING),
]


@pytest.mark.parametrize(("before", "infliction", "after"), LADDER)
def test_chained_ladder_5_4(before, infliction, after):
    """§5.4: "If already hurt in this contest, Injured. If already injured, Dying"."""
    assert worsen(before, infliction) is after


# Rolls giving each result at TN 10 (no masteries): critical, success, failure, fumble.
ROLL = {C: 1, S: 5, F: 15, X: 20}


def _machine_rolls(pc_result, opponent_result):
    """Rolls (and hero points) giving these results at 10 vs 10, the PC's roll the
    better one on the same result."""
    if (pc_result, opponent_result) == (C, C):
        # Two criticals with different rolls need a bump: a hero point lifts the PC's
        # success (5) to a critical; the opponent's natural 1 is the worse roll.
        return {"pc_roll": 5, "opponent_roll": 1, "pc_hero_point": True}
    if pc_result is opponent_result and pc_result in (S, F):
        return {"pc_roll": ROLL[pc_result] + 2, "opponent_roll": ROLL[pc_result]}
    return {"pc_roll": ROLL[pc_result], "opponent_roll": ROLL[opponent_result]}


@pytest.mark.parametrize(("cell", "expected"), SRD_TABLE.items(), ids=str)
def test_chained_machine_applies_each_cell_5_4(cell, expected):
    """§5.4 through the machine: fresh contestants at 10 vs 10, each cell of the table."""
    contest = ChainedContest(pc=10, opponent=10)
    entry = contest.play_round(**_machine_rolls(*cell))
    assert (entry["pc_result"], entry["opponent_result"]) == (cell[0].label, cell[1].label)
    if expected is None:
        assert entry["effect"] is None
        assert contest.consequences() == {"pc": None, "opponent": None}
        return
    side, state = ("opponent", "hurt") if expected == WORSE else expected
    assert entry["effect"] == {"side": side, "before": None, "after": state}
    assert contest.consequences()[side] == state
    assert contest.is_over is (state == "dying")


def test_equal_rolls_on_the_same_result_change_nothing_5_4():
    contest = ChainedContest(pc=10, opponent=10)
    entry = contest.play_round(pc_roll=6, opponent_roll=6)
    assert entry["effect"] is None and entry["winner"] is None


def test_penalties_take_effect_at_once_r14():
    """R14: the hurt side's TN drops 3 for the next round; injured replaces hurt (-9)."""
    contest = ChainedContest(pc=12, opponent=12)
    contest.play_round(pc_roll=15, opponent_roll=5)  # failure vs success: PC hurt
    assert contest.state()["pc_tn"] == 9
    # A 10 would have succeeded at 12; at 9 it fails.
    entry = contest.play_round(pc_roll=10, opponent_roll=15)
    assert entry["pc_tn"] == 9 and entry["pc_result"] == "failure"
    assert entry["effect"] == {"side": "pc", "before": "hurt", "after": "injured"}
    assert contest.state()["pc_tn"] == 3
    entry = contest.play_round(pc_roll=15, opponent_roll=5)
    assert entry["effect"] == {"side": "pc", "before": "injured", "after": "dying"}
    assert contest.is_over
    assert (contest.winner, contest.degree, contest.end) == ("opponent", "complete", "dying")


def test_situational_modifier_lasts_one_round_r9():
    contest = ChainedContest(pc=10, opponent=10)
    entry = contest.play_round(pc_roll=12, opponent_roll=15, pc_modifier=3)
    assert entry["pc_tn"] == 13 and entry["pc_result"] == "success"
    assert contest.state()["pc_tn"] == 10


def test_masteries_bump_before_the_table_r5():
    """1M vs 14: the PC's critical cannot rise, so the bump lowers the opponent's
    success to a failure: critical vs failure injures the opponent."""
    contest = ChainedContest(pc="1M", opponent=14)
    entry = contest.play_round(pc_roll=1, opponent_roll=5)
    assert (entry["pc_result"], entry["opponent_result"]) == ("critical", "failure")
    assert contest.consequences()["opponent"] == "injured"


def test_contest_over_on_dying_refuses_more_rounds():
    contest = ChainedContest(pc=10, opponent=10)
    contest.play_round(pc_roll=1, opponent_roll=20)  # complete mercy
    assert contest.is_over and contest.winner == "pc"
    with pytest.raises(IllegalAction, match="the contest is over"):
        contest.play_round(pc_roll=5, opponent_roll=5)


def test_a_side_disengages_by_winning_a_round_it_declared_r14():
    contest = ChainedContest(pc=10, opponent=10)
    entry = contest.play_round(pc_roll=5, opponent_roll=15, pc_disengages=True)
    assert entry["disengaged"] == "pc" and entry["effect"] is None
    assert contest.consequences() == {"pc": None, "opponent": None}
    assert contest.is_over and contest.end == "pc_disengaged"
    assert contest.winner is None and contest.degree is None


def test_a_disengaging_side_that_loses_is_wounded_and_stays_r14():
    contest = ChainedContest(pc=10, opponent=10)
    entry = contest.play_round(pc_roll=15, opponent_roll=5, pc_disengages=True)
    assert entry["disengaged"] is None
    assert contest.consequences()["pc"] == "hurt"
    assert not contest.is_over


def test_the_opponent_can_disengage_too_r14():
    contest = ChainedContest(pc=10, opponent=10)
    contest.play_round(pc_roll=15, opponent_roll=5, opponent_disengages=True)
    assert contest.end == "opponent_disengaged"
    assert contest.consequences()["pc"] is None


def test_a_tie_lets_nobody_disengage():
    contest = ChainedContest(pc=10, opponent=10)
    contest.play_round(pc_roll=6, opponent_roll=6, pc_disengages=True)
    assert not contest.is_over


def test_both_sides_leaving_end_the_contest_without_a_roll_5_4():
    contest = ChainedContest(pc=10, opponent=10)
    with pytest.raises(IllegalAction, match="mutual_disengage"):
        contest.play_round(pc_roll=5, opponent_roll=5, pc_disengages=True, opponent_disengages=True)
    contest.mutual_disengage()
    assert contest.end == "both_disengaged" and contest.winner is None


def test_hero_point_on_a_critical_is_refused_and_changes_nothing_r5():
    contest = ChainedContest(pc=10, opponent=10)
    with pytest.raises(IllegalAction, match="cannot raise the PC's critical"):
        contest.play_round(pc_roll=1, opponent_roll=5, pc_hero_point=True)
    assert contest.rounds == [] and contest.actions == []


def test_hero_point_raises_the_result_one_step_r5():
    contest = ChainedContest(pc=10, opponent=10)
    entry = contest.play_round(pc_roll=15, opponent_roll=15, pc_hero_point=True)
    assert entry["pc_result"] == "success"
    assert contest.consequences()["opponent"] == "hurt"


def test_only_a_pc_opponent_spends_hero_points():
    with pytest.raises(IllegalAction, match="not a PC"):
        ChainedContest(pc=10, opponent=10).play_round(
            pc_roll=5, opponent_roll=15, opponent_hero_point=True
        )
    contest = ChainedContest(pc=10, opponent=SideInput(10, is_pc=True))
    entry = contest.play_round(pc_roll=5, opponent_roll=15, opponent_hero_point=True)
    assert entry["opponent_result"] == "success"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pc_roll": 0, "opponent_roll": 5}, "pc_roll"),
        ({"pc_roll": 5, "opponent_roll": 21}, "opponent_roll"),
        ({"pc_roll": 5, "opponent_roll": 5, "pc_modifier": "3"}, "pc_modifier"),
    ],
)
def test_bad_input_is_a_rules_error(kwargs, message):
    with pytest.raises(RulesError, match=message):
        ChainedContest(pc=10, opponent=10).play_round(**kwargs)


def test_bad_setup_is_a_rules_error():
    with pytest.raises(RulesError, match="'seventeen' is not a rating"):
        ChainedContest(pc="seventeen", opponent=10)
    with pytest.raises(RulesError, match="no surprise"):
        ChainedContest(pc=10, opponent=10, surprise=True)
    with pytest.raises(RulesError, match="better_roll"):
        ChainedContest(pc=10, opponent=10, better_roll="middle")


def test_escalation_from_a_simple_contest_outcome_2_8_2():
    """§2.8.2: the simple contest's outcome becomes round one of a chained contest."""
    outcome = simple_contest(Rating(15), 4, Rating(14), 17)  # success vs failure
    contest = ChainedContest.escalate(outcome, pc=15, opponent=14)
    assert contest.rounds[0]["escalated"] is True
    assert contest.consequences() == {"pc": None, "opponent": "hurt"}
    assert contest.state()["opponent_tn"] == 11
    contest.play_round(pc_roll=4, opponent_roll=17)
    assert contest.consequences()["opponent"] == "injured"


def test_escalation_keeps_the_simple_contests_bumps_2_8_2():
    """The Outcome's final results count as they stand (a hero point made a success)."""
    outcome = simple_contest(Rating(10), 15, Rating(10), 12, pc_hero_point=True)
    contest = ChainedContest.escalate(outcome, pc=10, opponent=10)
    assert contest.rounds[0]["pc_result"] == "success"
    assert contest.consequences()["opponent"] == "hurt"


def test_escalation_from_rolls_2_8_2():
    contest = ChainedContest.escalate(pc=10, opponent=10, pc_roll=20, opponent_roll=1)
    assert contest.is_over and contest.winner == "opponent"


def test_escalation_needs_an_outcome_or_rolls():
    with pytest.raises(RulesError, match="Outcome or both of its rolls"):
        ChainedContest.escalate(pc=10, opponent=10, pc_roll=5)
    outcome = simple_contest(Rating(10), 5, Rating(10), 6)
    with pytest.raises(RulesError, match="not both"):
        ChainedContest.escalate(outcome, pc=10, opponent=10, pc_roll=5)


def test_escalation_only_as_round_one():
    contest = ChainedContest(pc=10, opponent=10)
    contest.play_round(pc_roll=6, opponent_roll=6)
    with pytest.raises(IllegalAction, match="already played 1 round"):
        contest.first_round_from_simple(
            pc_result="success", opponent_result="failure", pc_roll=5, opponent_roll=15
        )
    with pytest.raises(RulesError, match="pc_result"):
        ChainedContest(pc=10, opponent=10).first_round_from_simple(
            pc_result="great", opponent_result="failure", pc_roll=5, opponent_roll=15
        )


def test_roll_round_uses_the_injected_roller():
    contest = ChainedContest(pc=10, opponent=10)
    contest.roll_round(fixed_rolls(5, 15))
    assert contest.actions == [{"action": "play_round", "pc_roll": 5, "opponent_roll": 15}]


def test_replay_from_json_rebuilds_the_same_state():
    contest = ChainedContest(pc="3M", opponent=18, better_roll="low")
    contest.play_round(pc_roll=8, opponent_roll=3)
    contest.play_round(pc_roll=17, opponent_roll=2, pc_modifier=-3)
    rebuilt = ChainedContest.from_json(contest.to_json())
    assert rebuilt.state() == contest.state()


ratings = st.integers(min_value=-5, max_value=60)
rolls = st.integers(min_value=1, max_value=20)


@given(
    pc=ratings,
    opponent=ratings,
    rounds=st.lists(st.tuples(rolls, rolls), min_size=1, max_size=30),
)
def test_chained_invariants(pc, opponent, rounds):
    """Whatever the dice: at most one side is wounded per round, states only worsen
    along hurt -> injured -> dying, TNs carry the state's penalty, the contest is over
    exactly when a side is dying, and a replay rebuilds it."""
    ladder = [None, "hurt", "injured", "dying"]
    contest = ChainedContest(pc=pc, opponent=opponent)
    for pc_roll, opponent_roll in rounds:
        if contest.is_over:
            break
        before = contest.consequences()
        entry = contest.play_round(pc_roll=pc_roll, opponent_roll=opponent_roll)
        after = contest.consequences()
        changed = [side for side in before if before[side] != after[side]]
        assert len(changed) <= 1
        for side in before:
            assert ladder.index(after[side]) >= ladder.index(before[side])
        if changed:
            assert entry["effect"]["side"] == changed[0]
            assert entry["winner"] != changed[0]
        penalties = {None: 0, "hurt": -3, "injured": -9, "dying": 0}
        assert contest.state()["pc_tn"] == pc + penalties[after["pc"]]
        assert contest.state()["opponent_tn"] == opponent + penalties[after["opponent"]]
        assert contest.is_over == ("dying" in after.values())
    assert ChainedContest.from_json(contest.to_json()).state() == contest.state()
