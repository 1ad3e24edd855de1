"""The extended contest (§5.3, RULINGS.md R13): its tables and the one-on-one machine."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contests.core.rules import Modifier, SideInput
from contests.core.rules.dice import Result, fixed_rolls
from contests.core.rules.errors import IllegalAction, RulesError
from contests.core.rules.extended import (
    ExtendedContest,
    defeat_degree,
    disengagement_transfer,
    exchange_effect,
    final_action_ap,
    gifting_effect,
    lending_effect,
    starting_ap,
)
from contests.core.rules.states import State
from tests.examples import examples

C, S, F, X = Result.CRITICAL, Result.SUCCESS, Result.FAILURE, Result.FUMBLE
HALF = "half"

# §5.3.1 Extended Contest Table, transcribed from the SRD (rows: one side's result,
# columns: the other's), with R13's corrections: the fourth row labelled "Failure" is
# the fumble row and "better roll loses" reads "worse roll loses". Each cell says
# what the loser does and how many bids; HALF cells go to the worse roll.
SRD_TABLE = {
    (C, C): ("transfers", HALF),
    (C, S): ("transfers", 1),
    (C, F): ("transfers", 2),
    (C, X): ("transfers", 3),
    (S, C): ("transfers", 1),
    (S, S): ("loses", HALF),
    (S, F): ("loses", 1),
    (S, X): ("loses", 2),
    (F, C): ("transfers", 2),
    (F, S): ("loses", 1),
    (F, F): ("loses", HALF),
    (F, X): ("loses", 1),
    (X, C): ("transfers", 3),
    (X, S): ("loses", 2),
    (X, F): ("loses", 1),
    (X, X): None,  # "Tie*"
}

# The amount for a bid of 5 (an odd bid, so halves round up: 2.5 -> 3).
AMOUNT_FOR_BID_5 = {HALF: 3, 1: 5, 2: 10, 3: 15}


def expected_changes(cell, actor_roll, defender_roll):
    """(actor change, defender change) for a bid of 5, read from SRD_TABLE."""
    actor_result, defender_result = cell
    entry = SRD_TABLE[cell]
    if entry is None:
        return (0, 0)
    verb, bids = entry
    amount = AMOUNT_FOR_BID_5[bids]
    if bids == HALF:
        if actor_roll == defender_roll:
            return (0, 0)
        actor_loses = actor_roll < defender_roll  # high roll is better
    else:
        actor_loses = actor_result < defender_result
    gain = amount if verb == "transfers" else 0
    return (-amount, gain) if actor_loses else (gain, -amount)


@pytest.mark.parametrize(
    "rolls", [(9, 4), (4, 9), (6, 6)], ids=["actor-better", "defender-better", "equal"]
)
@pytest.mark.parametrize("cell", SRD_TABLE, ids=lambda c: f"{c[0].label}-{c[1].label}")
def test_extended_contest_table_cell_5_3_1(cell, rolls):
    """§5.3.1 Extended Contest Table, every cell and every roll order, bid 5."""
    effect = exchange_effect(cell[0], cell[1], rolls[0], rolls[1], 5)
    assert (effect.actor_change, effect.defender_change) == expected_changes(cell, *rolls)


def test_both_critical_transfers_half_the_bid_rounded_up_5_3_1():
    """§5.3.1 / R13: both critical, the worse roll transfers 1/2 bid (7 -> 4)."""
    effect = exchange_effect(C, C, 3, 1, 7)
    assert (effect.actor_change, effect.defender_change) == (4, -4)


def test_both_success_worse_roll_loses_half_not_the_better_5_3_1():
    """R13: "better roll loses" in the table is a typo: the worse roll loses 1/2 bid."""
    effect = exchange_effect(S, S, 12, 5, 3)
    assert (effect.actor_change, effect.defender_change) == (0, -2)


def test_better_roll_low_option_turns_the_half_cells_r6():
    """R6 campaign option better_roll="low": the lower roll is better."""
    effect = exchange_effect(F, F, 12, 15, 4, better_roll="low")
    assert (effect.actor_change, effect.defender_change) == (0, -2)


def test_multiplier_applies_to_the_actors_bid_r13():
    """R13: the multiplier is on the actor's bid, even when the actor loses."""
    effect = exchange_effect(X, C, 20, 1, 4)
    assert (effect.actor_change, effect.defender_change) == (-12, 12)


# ---------------------------------------------------------------------------
# The table through the machine, with real rolls (both ratings 10, no masteries)
# ---------------------------------------------------------------------------

ROLL_FOR = {C: 1, S: 5, F: 15, X: 20}
SAME_RESULT_ROLLS = {S: (4, 7), F: (16, 12), X: (20, 20)}  # (actor, defender)


@pytest.mark.parametrize("actor", ["pc", "opponent"])
@pytest.mark.parametrize(
    "cell", [c for c in SRD_TABLE if c != (C, C)], ids=lambda c: f"{c[0].label}-{c[1].label}"
)
def test_machine_reads_each_cell_5_3_1(cell, actor):
    """§5.3.1: an exchange played with rolls giving each pair of results, bid 5, both
    ratings 10 (the PC holds 30 AP thanks to a follower, the opponent 10)."""
    contest = ExtendedContest(pc=10, opponent=10, pc_followers=[20], first=actor)
    start = {"pc": 30, "opponent": 10}
    if cell[0] == cell[1]:
        actor_roll, defender_roll = SAME_RESULT_ROLLS[cell[0]]
    else:
        actor_roll, defender_roll = ROLL_FOR[cell[0]], ROLL_FOR[cell[1]]
    entry = contest.exchange(actor=actor, bid=5, actor_roll=actor_roll, defender_roll=defender_roll)
    defender = "opponent" if actor == "pc" else "pc"
    assert (entry["actor_result"], entry["defender_result"]) == (cell[0].label, cell[1].label)
    actor_change, defender_change = expected_changes(cell, actor_roll, defender_roll)
    assert entry["change"] == {actor: actor_change, defender: defender_change}
    assert contest.sides[actor].ap == start[actor] + actor_change
    assert contest.sides[defender].ap == start[defender] + defender_change


def test_machine_both_critical_after_a_bump_5_3_1():
    """§5.3.1: a bumped success and a natural 1 are both criticals; the better roll
    (the 5, high) takes 1/2 bid from the worse (the 1): bid 5 moves 3 AP."""
    contest = ExtendedContest(pc=SideInput(10, bumps=1), opponent=14)
    entry = contest.exchange(actor="pc", bid=5, actor_roll=5, defender_roll=1)
    assert (entry["actor_result"], entry["defender_result"]) == ("critical", "critical")
    assert (contest.pc_ap, contest.opponent_ap) == (13, 11)


def test_srd_worked_example_bid_3_opponent_loses_2x_5_3_1():
    """§5.3.1: "if you bid 3 AP and the result is 'Opponent loses 2x bid', the loser
    loses 3 x 2 = 6 AP": a success against a fumble."""
    contest = ExtendedContest(pc=15, opponent=14)
    entry = contest.exchange(actor="pc", bid=3, actor_roll=8, defender_roll=20)
    assert entry["rule"].endswith("the defender loses 2x bid")
    assert contest.opponent_ap == 14 - 6
    assert contest.pc_ap == 15


# ---------------------------------------------------------------------------
# Starting AP (§5.3.1 step 2, §5.3.2.3, R13)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "modifiers", "followers", "expected"),
    [
        (17, 0, [], 17),
        ("7M", 0, [], 27),  # a mastery counts 20
        ("3M2", 0, [], 43),
        (17, [6, -3], [], 20),  # augment +6, hurt -3
        (17, 3, ["13", "5M"], 17 + 3 + 13 + 25),  # followers add their totals
        ("18", 6, [], 24),  # 18 + 6 = 4M: still 24 AP
    ],
)
def test_starting_ap_is_the_full_total_with_modifiers_and_followers_r13(
    rating, modifiers, followers, expected
):
    assert starting_ap(rating, modifiers, followers) == expected
    lines = [modifiers] if isinstance(modifiers, int) else modifiers
    pc = SideInput(rating, modifiers=[Modifier("lasting", value=v) for v in lines if v])
    contest = ExtendedContest(pc=pc, opponent=14, pc_followers=followers)
    assert contest.pc_ap == expected
    assert contest.state()["pc"]["starting_ap"] == expected


def test_opponent_starts_with_the_resistance_total_5_3_1():
    assert ExtendedContest(pc=15, opponent="14M2").opponent_ap == 54


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ({"pc": 15, "opponent": -6}, "the opponent would start with -6 AP"),
        (
            {"pc": {"rating": 3, "modifiers": [{"label": "hurt", "value": -5}]}, "opponent": 14},
            "the PC would start with -2 AP",
        ),
        ({"pc": 15, "opponent": 14, "first": "gm"}, "first must be 'pc' or 'opponent'"),
        ({"pc": 15, "opponent": 14, "better_roll": "middle"}, "better_roll must be"),
        ({"pc": "7X", "opponent": 14}, "is not a rating"),
        ({"pc": 15.5, "opponent": 14}, "must be a whole number or a rating"),
        ({"pc": 15, "opponent": 14, "pc_followers": ["0"]}, "at least 1 to add AP"),
    ],
)
def test_setup_refuses_what_the_rules_do_not_allow(setup, message):
    with pytest.raises(RulesError, match=message):
        ExtendedContest(**setup)


# ---------------------------------------------------------------------------
# §5.3.2.4 Extended Contest Outcomes table
# ---------------------------------------------------------------------------

OUTCOME_TABLE = [
    # final AP of the loser, level, consequence for loser, benefit for winner
    (0, "marginal", State.HURT, State.FRESH),
    (-10, "marginal", State.HURT, State.FRESH),
    (-11, "minor", State.IMPAIRED, State.PUMPED),
    (-20, "minor", State.IMPAIRED, State.PUMPED),
    (-21, "major", State.INJURED, State.INVIGORATED),
    (-30, "major", State.INJURED, State.INVIGORATED),
    (-31, "complete", State.DYING, State.HEROIC),
]


@pytest.mark.parametrize(("ap", "degree", "consequence", "benefit"), OUTCOME_TABLE)
def test_outcome_table_bands_5_3_2_4(ap, degree, consequence, benefit):
    """§5.3.2.4: 0..-10 marginal, -11..-20 minor, -21..-30 major, -31 or less complete."""
    assert defeat_degree(ap) == degree


def test_outcome_table_far_below_is_complete_5_3_2_4():
    assert defeat_degree(-200) == "complete"


def test_a_side_above_zero_has_no_level_of_defeat():
    with pytest.raises(RulesError, match="still in the contest"):
        defeat_degree(1)


@pytest.mark.parametrize(("ap", "degree", "consequence", "benefit"), OUTCOME_TABLE)
def test_outcome_table_through_the_machine_5_3_2_4(ap, degree, consequence, benefit):
    """§5.3.2.4 every row and boundary: the PC (TN 10, AP 41 with followers) wins with a
    success against a failure (1x bid) on an opponent of 10 AP; the bid sets the
    opponent's final AP."""
    contest = ExtendedContest(pc=10, opponent=10, pc_followers=[16, 15])
    bid = 10 - ap
    contest.exchange(actor="pc", bid=bid, actor_roll=5, defender_roll=15)
    assert contest.opponent_ap == ap
    assert contest.is_over
    assert (contest.winner, contest.degree) == ("pc", degree)
    assert contest.consequences == {"opponent": consequence, "pc": benefit}
    assert contest.state()["consequences"] == {"opponent": str(consequence), "pc": str(benefit)}


def test_the_pc_losing_takes_the_consequence_5_3_2_4():
    contest = ExtendedContest(pc=10, opponent=10, first="opponent")
    contest.exchange(actor="opponent", bid=10, actor_roll=1, defender_roll=20)  # 3x transfer
    assert contest.pc_ap == -20
    assert (contest.winner, contest.degree) == ("opponent", "minor")
    assert contest.consequences == {"pc": State.IMPAIRED, "opponent": State.PUMPED}


def test_no_benefit_against_a_clearly_inferior_opponent_2_11_2_1():
    """§2.11.2.1 (R10): the winner's ability beat the loser's by 6 or more."""
    contest = ExtendedContest(pc=16, opponent=10)
    contest.exchange(actor="pc", bid=10, actor_roll=5, defender_roll=15)
    assert contest.winner == "pc"
    assert contest.consequences == {"opponent": State.HURT, "pc": None}


def test_benefit_when_the_margin_is_five_2_11_2_1():
    contest = ExtendedContest(pc=15, opponent=10)
    contest.exchange(actor="pc", bid=10, actor_roll=5, defender_roll=15)
    assert contest.consequences == {"opponent": State.HURT, "pc": State.FRESH}


# ---------------------------------------------------------------------------
# Bids, turns and hero points
# ---------------------------------------------------------------------------


def test_default_bid_is_3_5_3_2_1():
    contest = ExtendedContest(pc=15, opponent=14)
    entry = contest.exchange(actor="pc", actor_roll=5, defender_roll=15)
    assert entry["bid"] == 3
    assert contest.opponent_ap == 11


def test_a_bid_is_at_least_1_r13():
    contest = ExtendedContest(pc=15, opponent=14)
    with pytest.raises(IllegalAction, match="a bid is at least 1 AP, not 0"):
        contest.exchange(actor="pc", bid=0, actor_roll=5, defender_roll=15)


def test_a_bid_must_be_a_whole_number():
    contest = ExtendedContest(pc=15, opponent=14)
    with pytest.raises(RulesError, match="a bid must be a whole number"):
        contest.exchange(actor="pc", bid=2.5, actor_roll=5, defender_roll=15)


def test_pc_bid_over_starting_ap_names_the_limit_5_3_6():
    contest = ExtendedContest(pc=9, opponent=14)
    with pytest.raises(IllegalAction, match="bid 12 is over your limit of 9 AP"):
        contest.exchange(actor="pc", bid=12, actor_roll=5, defender_roll=15)


def test_desperation_stake_pc_bids_more_than_it_holds_5_3_6():
    """§5.3.6: a PC 1 AP from defeat may still stake up to the starting AP."""
    contest = ExtendedContest(pc=15, opponent=20, first="opponent")
    contest.exchange(actor="opponent", bid=14, actor_roll=5, defender_roll=16)
    assert contest.pc_ap == 1
    with pytest.raises(IllegalAction, match="bid 16 is over your limit of 15 AP"):
        contest.exchange(actor="pc", bid=16, actor_roll=5, defender_roll=16)
    entry = contest.exchange(actor="pc", bid=15, actor_roll=5, defender_roll=16)
    assert entry["desperation"] is True
    assert contest.pc_ap == 1 - 8  # success against success, the worse roll: 1/2 of 15
    assert (contest.winner, contest.degree) == ("opponent", "marginal")


def test_pc_holding_more_than_the_start_may_bid_all_of_it_5_3_6():
    contest = ExtendedContest(pc=10, opponent=14)
    contest.exchange(actor="pc", bid=5, actor_roll=1, defender_roll=15)  # +10
    contest.exchange(actor="opponent", bid=1, actor_roll=15, defender_roll=15)  # tie
    assert contest.pc_ap == 20
    assert contest.bid_limit("pc") == 20
    with pytest.raises(IllegalAction, match=r"bid 21 is over your limit of 20 AP \(all the AP"):
        contest.exchange(actor="pc", bid=21, actor_roll=15, defender_roll=15)
    contest.exchange(actor="pc", bid=20, actor_roll=15, defender_roll=15)
    assert contest.pc_ap == 20


def test_resistance_never_bids_more_than_it_has_5_3_6():
    contest = ExtendedContest(pc=15, opponent=9, first="opponent")
    with pytest.raises(IllegalAction, match="bid 10 is over the opponent's limit of 9 AP"):
        contest.exchange(actor="opponent", bid=10, actor_roll=5, defender_roll=15)
    contest.exchange(actor="opponent", bid=9, actor_roll=15, defender_roll=15)


def test_turns_alternate_action_and_response_5_3_1():
    contest = ExtendedContest(pc=15, opponent=14)
    assert (contest.turn, contest.round) == ("pc", 1)
    contest.exchange(actor="pc", bid=1, actor_roll=15, defender_roll=15)
    assert (contest.turn, contest.round) == ("opponent", 1)
    contest.exchange(actor="opponent", bid=1, actor_roll=15, defender_roll=15)
    assert (contest.turn, contest.round) == ("pc", 2)


def test_the_opponent_may_act_first():
    contest = ExtendedContest(pc=15, opponent=14, first="opponent")
    assert contest.turn == "opponent"
    with pytest.raises(IllegalAction, match="it is the opponent's turn in round 1, not the pc's"):
        contest.exchange(actor="pc", actor_roll=5, defender_roll=15)


def test_unknown_participant_is_refused():
    contest = ExtendedContest(pc=15, opponent=14)
    with pytest.raises(IllegalAction, match="unknown participant 'gm'"):
        contest.exchange(actor="gm", actor_roll=5, defender_roll=15)


def test_rolls_are_checked():
    contest = ExtendedContest(pc=15, opponent=14)
    with pytest.raises(RulesError, match="the opponent's roll"):
        contest.exchange(actor="pc", actor_roll=5, defender_roll=21)


def test_the_contest_ends_the_moment_a_side_is_at_0_5_3_1():
    """§5.3.1 step 4.6: over even in the middle of a round; no more exchanges."""
    contest = ExtendedContest(pc=15, opponent=3)
    contest.exchange(actor="pc", bid=3, actor_roll=5, defender_roll=15)
    assert contest.opponent_ap == 0
    assert contest.is_over and contest.turn is None and contest.round == 1
    assert (contest.winner, contest.degree) == ("pc", "marginal")
    with pytest.raises(IllegalAction, match="the contest is over"):
        contest.exchange(actor="opponent", bid=1, actor_roll=5, defender_roll=15)


def test_a_one_on_one_contest_has_no_final_action_5_3_5():
    """§5.3.5: "in a standard extended contest, you are defeated"; the final action is
    the group contest's (docs/rules-extended.md, ruling 16)."""
    contest = ExtendedContest(pc=15, opponent=14)
    contest.exchange(actor="pc", bid=15, actor_roll=19, defender_roll=5)
    assert contest.is_over and contest.winner == "opponent"
    assert not hasattr(contest, "final_action")
    recorded = contest.to_json()
    recorded["actions"].append(
        {"action": "final_action", "rating": 15, "roll": 3, "resistance_roll": 10}
    )
    with pytest.raises(RulesError, match="unknown action 'final_action'"):
        ExtendedContest.from_json(recorded)


def test_hero_point_raises_the_pcs_result_r5_3():
    contest = ExtendedContest(pc=10, opponent=14)
    entry = contest.exchange(actor="pc", bid=4, actor_roll=15, defender_roll=15, hero_point=True)
    assert (entry["actor_result"], entry["defender_result"]) == ("success", "failure")
    assert entry["hero_point"] is True
    assert contest.opponent_ap == 10
    assert contest.state()["pc"]["hero_points_spent"] == 1


def test_hero_point_on_defence_r5_3():
    contest = ExtendedContest(pc=10, opponent=14, first="opponent")
    entry = contest.exchange(
        actor="opponent", bid=4, actor_roll=5, defender_roll=15, hero_point=True
    )
    assert entry["defender_result"] == "success"
    assert contest.opponent_ap == 12  # success against success, 15 beats 5: half of 4
    assert contest.pc_ap == 10


def test_hero_point_refused_on_a_critical_r5_3():
    contest = ExtendedContest(pc=10, opponent=14)
    before = contest.state()
    with pytest.raises(IllegalAction, match="cannot raise a critical"):
        contest.exchange(actor="pc", bid=4, actor_roll=1, defender_roll=15, hero_point=True)
    assert contest.state() == before and contest.actions == []


def test_masteries_bump_the_results_r5():
    """R5: 10M against 14 is one bump up: a success becomes a critical (transfer)."""
    contest = ExtendedContest(pc="10M", opponent=14)
    entry = contest.exchange(actor="pc", bid=3, actor_roll=5, defender_roll=15)
    assert entry["actor_result"] == "critical"
    assert (contest.pc_ap, contest.opponent_ap) == (36, 8)


def test_a_situational_modifier_lasts_one_exchange_r9():
    contest = ExtendedContest(pc=10, opponent=14)
    entry = contest.exchange(actor="pc", bid=3, actor_roll=12, defender_roll=15, pc_modifier=3)
    assert (entry["actor_tn"], entry["actor_result"]) == ("13", "success")
    entry = contest.exchange(actor="opponent", bid=1, actor_roll=15, defender_roll=12)
    assert entry["defender_result"] == "failure"


def test_play_exchange_rolls_with_the_injected_roller():
    contest = ExtendedContest(pc=15, opponent=14)
    entry = contest.play_exchange(actor="pc", bid=3, roller=fixed_rolls(8, 20))
    assert (entry["actor_roll"], entry["defender_roll"]) == (8, 20)
    assert contest.actions[-1]["actor_roll"] == 8


# ---------------------------------------------------------------------------
# §5.3.4 Parting shot
# ---------------------------------------------------------------------------


def defeated_opponent():
    contest = ExtendedContest(pc=15, opponent=5)
    contest.exchange(actor="pc", bid=6, actor_roll=5, defender_roll=15)  # 5 - 6 = -1
    return contest


def test_parting_shot_deepens_the_defeat_5_3_4():
    contest = defeated_opponent()
    assert contest.state()["parting_shot_by"] == "pc"
    contest.parting_shot(bid=10, actor_roll=5, defender_roll=20)  # 2x bid: -21
    assert contest.opponent_ap == -21
    assert (contest.winner, contest.degree) == ("pc", "major")
    assert contest.defeats == [{"side": "opponent", "ap": -1, "degree": "marginal"}]
    assert contest.state()["parting_shot_by"] is None


def test_only_one_parting_shot_5_3_4():
    contest = defeated_opponent()
    contest.parting_shot(bid=1, actor_roll=5, defender_roll=15)
    with pytest.raises(IllegalAction, match="parting shot is only allowed"):
        contest.parting_shot(bid=1, actor_roll=5, defender_roll=15)


def test_failed_parting_shot_brings_the_loser_back_5_3_4():
    """§5.3.4: a failure may transfer AP back; the contest goes on where it stopped."""
    contest = defeated_opponent()
    contest.parting_shot(bid=3, actor_roll=16, defender_roll=1)  # critical v failure: 6
    assert (contest.pc_ap, contest.opponent_ap) == (9, 5)
    assert not contest.is_over
    assert contest.turn == "opponent"
    assert contest.defeats[0]["degree"] == "marginal"


def test_no_parting_shot_while_the_contest_runs_5_3_4():
    contest = ExtendedContest(pc=15, opponent=14)
    with pytest.raises(IllegalAction, match="parting shot"):
        contest.parting_shot(bid=3, actor_roll=5, defender_roll=15)


def test_parting_shot_can_fell_the_shooter_too():
    """A failed parting shot that drops the winner to 0 while the loser stays down:
    both are defeated, each takes the consequence of its own AP."""
    contest = ExtendedContest(pc=4, opponent=5, pc_followers=[16])  # 20 AP
    contest.exchange(actor="pc", bid=20, actor_roll=3, defender_roll=20)  # opp -35
    contest.parting_shot(bid=20, actor_roll=20, defender_roll=15)  # fumble v failure: -20
    assert (contest.pc_ap, contest.opponent_ap) == (0, -35)
    assert contest.ended_by == "both_defeated"
    assert (contest.winner, contest.degree) == (None, None)
    assert contest.consequences == {"pc": State.HURT, "opponent": State.DYING}


# ---------------------------------------------------------------------------
# §5.3.7 Unrelated action, §5.3.8 Switching abilities
# ---------------------------------------------------------------------------


def test_unrelated_action_forfeits_the_turn_5_3_7():
    contest = ExtendedContest(pc=15, opponent=14)
    contest.unrelated_action(side="pc", description="opens the door")
    assert contest.turn == "opponent"
    assert (contest.pc_ap, contest.opponent_ap) == (15, 14)
    assert contest.exchanges[-1]["description"] == "opens the door"


def test_switching_abilities_keeps_the_ap_5_3_8():
    contest = ExtendedContest(pc=15, opponent=14)
    with pytest.raises(IllegalAction, match="must be used in the first round"):
        contest.switch_ability(side="pc", rating="5M")
    contest.exchange(actor="pc", bid=1, actor_roll=15, defender_roll=15)
    contest.exchange(actor="opponent", bid=1, actor_roll=15, defender_roll=15)
    contest.switch_ability(side="pc", rating="5M", modifier=[3])
    assert contest.pc_ap == 15
    assert contest.state()["pc"]["tn"] == "8M"
    entry = contest.exchange(actor="pc", bid=2, actor_roll=7, defender_roll=15)
    assert entry["actor_result"] == "critical"  # 8M against 14: a bump up


def test_a_resistance_takes_no_modifiers_r2():
    contest = ExtendedContest(pc=15, opponent=14)
    contest.exchange(actor="pc", bid=1, actor_roll=15, defender_roll=15)
    contest.exchange(actor="opponent", bid=1, actor_roll=15, defender_roll=15)
    with pytest.raises(RulesError, match="never apply to a resistance"):
        contest.switch_ability(side="opponent", rating=14, modifier=3)
    contest.switch_ability(side="opponent", rating=20)
    assert contest.state()["opponent"]["tn"] == "20"


# ---------------------------------------------------------------------------
# §5.3.9 Disengaging: AP Transfer from Failed Disengagement table
# ---------------------------------------------------------------------------

# (level of the disengagement contest, current AP) -> AP transferred, by hand from
# the table: marginal 1/8, minor 1/4, major 1/2 of the current total (rounded up),
# complete the current total - 1; never more than the complete row.
DISENGAGE_TABLE = [
    (-1, 20, 3),
    (-2, 20, 5),
    (-3, 20, 10),
    (-4, 20, 19),
    (-1, 8, 1),
    (-2, 8, 2),
    (-3, 8, 4),
    (-4, 8, 7),
    (-1, 1, 0),
    (-3, 1, 0),
    (-4, 1, 0),
    (-3, 2, 1),
    (0, 20, 0),
    (1, 20, 0),
    (4, 20, 0),
]


@pytest.mark.parametrize(("level", "current", "expected"), DISENGAGE_TABLE)
def test_failed_disengagement_table_5_3_9(level, current, expected):
    assert disengagement_transfer(level, current) == expected


# Rolls for TN 10 against TN 4 to 9 (no masteries), giving each outcome level.
ROLLS_FOR_LEVEL = {
    4: (1, 20),
    3: (5, 20),
    2: (5, 15),
    1: (6, 3),
    0: (15, 15),
    -1: (3, 4),
    -2: (15, 3),
    -3: (20, 3),
    -4: (20, 1),
}


@pytest.mark.parametrize("level", sorted(ROLLS_FOR_LEVEL))
def test_disengage_through_the_machine_5_3_9(level):
    """§5.3.9: any victory leaves the contest; any defeat stays and transfers part of
    the current AP (PC TN 10 with 20 AP against a resistance of 6)."""
    contest = ExtendedContest(pc=10, opponent=6, pc_followers=[10])
    roll, opponent_roll = ROLLS_FOR_LEVEL[level]
    entry = contest.disengage(side="pc", roll=roll, opponent_roll=opponent_roll)
    expected = {-1: 3, -2: 5, -3: 10, -4: 19}.get(level, 0)
    assert (contest.pc_ap, contest.opponent_ap) == (20 - expected, 6 + expected)
    assert entry["left"] is (level > 0)
    if level > 0:
        assert contest.is_over and contest.ended_by == "disengaged"
        assert (contest.winner, contest.degree) == (None, None)
        assert contest.consequences == {"pc": None, "opponent": None}
    else:
        assert not contest.is_over and contest.turn == "opponent"


def test_the_gm_disengages_with_the_resistance_5_3_9():
    contest = ExtendedContest(pc=10, opponent=6, first="opponent")
    with pytest.raises(RulesError, match="resistance's own rating"):
        contest.disengage(side="opponent", rating=18, roll=3, opponent_roll=15)
    contest.disengage(side="opponent", roll=3, opponent_roll=15, opponent_rating=4)
    assert contest.disengaged == "opponent"


# ---------------------------------------------------------------------------
# §5.3.11 AP Gifting (and the final action and lending tables as pure functions;
# their machine tests are in test_extended_group.py)
# ---------------------------------------------------------------------------

# (level, bid 5) -> (recipient gains, recipient's opponent gains), by hand.
GIFTING_TABLE = {
    4: (10, 0),
    3: (5, 0),
    2: (5, 0),
    1: (3, 0),
    0: (0, 0),
    -1: (0, 3),
    -2: (0, 5),
    -3: (0, 5),
    -4: (0, 10),
}


@pytest.mark.parametrize(("level", "expected"), GIFTING_TABLE.items())
def test_gifting_table_5_3_11(level, expected):
    assert gifting_effect(level, 5) == expected


@pytest.mark.parametrize("level", sorted(ROLLS_FOR_LEVEL))
def test_gift_through_the_machine_5_3_11(level):
    """§5.3.11: a gifter of 10 bids 4 against a resistance of 8 (twice the bid)."""
    contest = ExtendedContest(pc=15, opponent=14)
    roll, resistance_roll = ROLLS_FOR_LEVEL[level]
    entry = contest.gift(
        recipient="pc", rating=10, bid=4, roll=roll, resistance_roll=resistance_roll
    )
    assert entry["resistance"] == "8"
    recipient, opponent = {4: (8, 0), 3: (4, 0), 2: (4, 0), 1: (2, 0), 0: (0, 0),
                           -1: (0, 2), -2: (0, 4), -3: (0, 4), -4: (0, 8)}[level]  # fmt: skip
    assert (contest.pc_ap, contest.opponent_ap) == (15 + recipient, 14 + opponent)
    assert contest.turn == "pc"  # a gift takes no one's turn


def test_gift_bid_may_not_exceed_the_gifters_rating_5_3_11():
    contest = ExtendedContest(pc=15, opponent=14)
    with pytest.raises(IllegalAction, match="bid 11 is over the gifter's limit of 10 AP"):
        contest.gift(recipient="pc", rating=10, bid=11, roll=5, resistance_roll=15)


# (level, starting AP 23, current AP -4) -> AP after the final action, by hand:
# victories rejoin with 1/8 (3), 1/4 (6), 1/2 (12) or all 23; defeats lose that much.
FINAL_ACTION_TABLE = {
    4: 23,
    3: 12,
    2: 6,
    1: 3,
    0: -4,
    -1: -7,
    -2: -10,
    -3: -16,
    -4: -27,
}


@pytest.mark.parametrize(("level", "expected"), FINAL_ACTION_TABLE.items())
def test_final_action_table_5_3_5(level, expected):
    assert final_action_ap(level, 23, -4) == expected


# (level, attempted 7) -> (target's change, lender's change), by hand.
LENDING_TABLE = {
    4: (7, 0),
    3: (7, -7),
    2: (7, -7),
    1: (4, -4),
    0: (0, 0),
    -1: (0, -4),
    -2: (0, -7),
    -3: (0, -7),
    -4: (-7, -7),
}


@pytest.mark.parametrize(("level", "expected"), LENDING_TABLE.items())
def test_lending_table_5_3_10(level, expected):
    assert lending_effect(level, 7) == expected


def test_outcome_levels_run_from_minus_4_to_4():
    with pytest.raises(RulesError, match="from -4 to \\+4"):
        final_action_ap(5, 10, -1)
    with pytest.raises(RulesError, match="from -4 to \\+4"):
        disengagement_transfer(-5, 10)


# ---------------------------------------------------------------------------
# Properties (hypothesis)
# ---------------------------------------------------------------------------

results = st.sampled_from(list(Result))
rolls = st.integers(1, 20)


@given(results, results, rolls, rolls, st.integers(1, 60))
def test_transfers_conserve_ap_and_losses_fall_on_one_side_r13(a, d, ar, dr, bid):
    effect = exchange_effect(a, d, ar, dr, bid)
    if effect.transfer:
        assert effect.actor_change + effect.defender_change == 0
    else:
        assert min(effect.actor_change, effect.defender_change) == -effect.amount
        assert max(effect.actor_change, effect.defender_change) == 0
    assert 0 <= effect.amount <= 3 * bid


@given(results, results, rolls, rolls, st.integers(1, 60))
def test_the_table_is_the_same_from_either_side_r13(a, d, ar, dr, bid):
    """Swapping who acts (same bid) swaps the changes: the table is symmetric."""
    one = exchange_effect(a, d, ar, dr, bid)
    other = exchange_effect(d, a, dr, ar, bid)
    assert (one.actor_change, one.defender_change) == (other.defender_change, other.actor_change)


step = st.fixed_dictionaries(
    {
        # Mostly playable bids, sometimes wild ones (to exercise the refusals).
        "bid": st.one_of(st.integers(1, 6), st.integers(1, 6), st.integers(-1, 45)),
        "actor_roll": rolls,
        "defender_roll": rolls,
        "hero_point": st.booleans(),
        "kind": st.sampled_from(["exchange"] * 6 + ["parting_shot", "unrelated", "switch", "gift"]),
    }
)
setups = st.fixed_dictionaries(
    {
        "pc": st.builds(
            lambda rating, values: SideInput(
                rating, modifiers=[Modifier("lasting", value=v) for v in values]
            ),
            st.integers(1, 45),
            st.sampled_from([[], [3], [6, -3]]),
        ),
        "opponent": st.sampled_from([5, 10, 14, "14M", 20]),
        "pc_followers": st.sampled_from([[], [13]]),
        "first": st.sampled_from(["pc", "opponent"]),
        "better_roll": st.sampled_from(["high", "low"]),
    }
)


def play(contest, move):
    side = contest.turn or contest.parting_shot_by or "pc"
    kind = move["kind"]
    if kind == "exchange":
        contest.exchange(
            actor=side,
            bid=move["bid"],
            actor_roll=move["actor_roll"],
            defender_roll=move["defender_roll"],
            hero_point=move["hero_point"],
        )
    elif kind == "parting_shot":
        contest.parting_shot(
            bid=move["bid"], actor_roll=move["actor_roll"], defender_roll=move["defender_roll"]
        )
    elif kind == "unrelated":
        contest.unrelated_action(side=side)
    elif kind == "switch":
        contest.switch_ability(side="pc", rating=move["actor_roll"] + move["bid"])
    else:
        contest.gift(
            recipient=side,
            rating=12,
            bid=move["bid"],
            roll=move["actor_roll"],
            resistance_roll=move["defender_roll"],
        )


@settings(max_examples=examples(150))
@given(setups, st.lists(step, max_size=25))
def test_replaying_the_actions_rebuilds_the_state(setup, moves):
    """Property: from_json(to_json()) replays the recorded actions to the same state;
    every refused action leaves the state and the record exactly as they were."""
    contest = ExtendedContest(**setup)
    for move in moves:
        before_state, before_actions = contest.state(), copy.deepcopy(contest.actions)
        try:
            play(contest, move)
        except RulesError:
            assert contest.state() == before_state
            assert contest.actions == before_actions
    rebuilt = ExtendedContest.from_json(contest.to_json())
    assert rebuilt.state() == contest.state()
    assert rebuilt.actions == contest.actions


@settings(max_examples=examples(150))
@given(setups, st.lists(step, max_size=25))
def test_ap_sums_move_only_as_the_tables_say(setup, moves):
    """Property: an exchange whose rule transfers leaves the AP sum unchanged; any
    other exchange lowers it by exactly what one side lost."""
    contest = ExtendedContest(**setup)
    for move in moves:
        total = contest.pc_ap + contest.opponent_ap
        try:
            play(contest, move)
        except RulesError:
            continue
        entry = contest.exchanges[-1] if contest.exchanges else None
        if move["kind"] in ("exchange", "parting_shot") and entry is not None:
            change = sum(entry["change"].values())
            assert contest.pc_ap + contest.opponent_ap == total + change
            if "transfers" in entry["rule"]:
                assert change == 0
            else:
                assert change <= 0


# R18.2 (the 2.2 changes): "only a PC should use a parting shot, not the resistance".


def defeated_pc(opponent_is_pc=False):
    opponent = SideInput(15, is_pc=opponent_is_pc)
    contest = ExtendedContest(pc=5, opponent=opponent, first="opponent")
    contest.exchange(actor="opponent", bid=6, actor_roll=5, defender_roll=15)  # 5 - 6 = -1
    return contest


def test_the_resistance_takes_no_parting_shot_r18_2():
    contest = defeated_pc()
    assert (contest.winner, contest.is_over) == ("opponent", True)
    assert contest.state()["parting_shot_by"] is None
    with pytest.raises(IllegalAction, match="parting shot is only allowed"):
        contest.parting_shot(bid=3, actor_roll=5, defender_roll=15)
    assert contest.pc_ap == -1  # nothing changed


def test_a_pc_opponent_may_take_a_parting_shot_r18_2():
    contest = defeated_pc(opponent_is_pc=True)
    assert contest.state()["parting_shot_by"] == "opponent"
    contest.parting_shot(bid=10, actor_roll=5, defender_roll=20)  # 2x bid: -21
    assert contest.pc_ap == -21


# ---------------------------------------------------------------------------
# R18.8 (§2.3.1.2): two PCs in a one-on-one extended contest
# ---------------------------------------------------------------------------


def duel(**opponent):
    return ExtendedContest(pc=SideInput(14, name="Asha"), opponent=SideInput(14, **opponent))


def test_only_a_pc_opponent_spends_hero_points_and_takes_modifiers():
    resistance = duel(is_pc=False)
    before = resistance.to_json()
    with pytest.raises(IllegalAction, match="only player characters spend hero points"):
        resistance.exchange(actor="pc", actor_roll=5, defender_roll=15, opponent_hero_point=True)
    with pytest.raises(RulesError, match="a resistance takes no modifier"):
        resistance.exchange(actor="pc", actor_roll=5, defender_roll=15, opponent_modifier=3)
    assert resistance.to_json() == before
    rival = duel(name="Brann", is_pc=True)
    entry = rival.exchange(
        actor="pc", actor_roll=5, defender_roll=15, opponent_hero_point=True, opponent_modifier=3
    )
    # Brann's 15 against 14 + 3 is a success, and his hero point makes it a critical.
    assert (entry["defender_result"], entry["opponent_hero_point"]) == ("critical", True)
    assert rival.state()["opponent"]["hero_points_spent"] == 1


def test_a_pc_opponent_may_make_a_desperation_stake_5_3_6():
    rival = duel(name="Brann", is_pc=True)
    rival.exchange(actor="pc", bid=5, actor_roll=5, defender_roll=15)  # Brann loses 5
    assert (rival.opponent_ap, rival.bid_limit("opponent")) == (9, 14)
    resistance = duel(is_pc=False)
    resistance.exchange(actor="pc", bid=5, actor_roll=5, defender_roll=15)
    assert resistance.bid_limit("opponent") == 9  # a resistance bids what it has


def test_each_pc_of_two_takes_its_state_and_the_gm_side_no_benefit():
    rival = duel(name="Brann", is_pc=True)
    rival.exchange(actor="pc", bid=14, actor_roll=5, defender_roll=15)  # Brann at 0
    outcome = rival.outcome
    assert (outcome.winner, outcome.degree) == ("pc", "marginal")
    assert outcome.consequences == {"pc": None, "opponent": State.HURT}
    assert outcome.benefits == {"pc": State.FRESH, "opponent": None}
    resistance = ExtendedContest(pc=14, opponent=10, first="opponent")
    resistance.exchange(actor="opponent", bid=10, actor_roll=5, defender_roll=20)
    assert resistance.outcome.winner == "opponent"
    assert resistance.outcome.benefits == {"pc": None, "opponent": None}
