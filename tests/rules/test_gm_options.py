"""R18.10: the options the SRD gives the GM at the table, in the engine: a confusing
tie ruled a marginal victory (§2.3.5.2, §2.10), a double fumble in a group simple
contest ruled a marginal defeat (§4.4.2 footnote), no relevant ability (§2.1.2.1)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests.core.rules import IllegalAction, Result, State, target_number
from contests.core.rules.group_simple import both_fumble_defeat, both_fumbled
from contests.core.rules.simple import NO_RELEVANT_ABILITY, compare_results, confusing_tie
from contests.core.rules.states import CONSEQUENCE_OF_DEFEAT

RESULTS = list(Result)
CELLS = [(pc, opponent) for pc in RESULTS for opponent in RESULTS]


@pytest.mark.parametrize(("pc", "opponent"), CELLS)
def test_only_a_tie_is_ruled_a_marginal_victory_2_3_5_2(pc, opponent):
    # Equal rolls: a tie whenever the results are the same (R6); two fumbles always.
    outcome = compare_results(pc, opponent, 10, 10)
    if outcome.winner is None:
        ruled = confusing_tie(outcome)
        assert (ruled.winner, ruled.degree, ruled.level) == ("pc", "marginal", 1)
        assert (ruled.pc_result, ruled.opponent_result) == (pc, opponent)  # the dice stand
    else:
        with pytest.raises(IllegalAction, match="only a tie"):
            confusing_tie(outcome)


def test_a_tie_between_two_pcs_stands_2_10():
    tie = compare_results(Result.SUCCESS, Result.SUCCESS, 7, 7)
    with pytest.raises(IllegalAction, match="two player characters"):
        confusing_tie(tie, against_a_pc=True)


@given(
    pc=st.sampled_from(RESULTS),
    opponent=st.sampled_from(RESULTS),
    rolls=st.tuples(st.integers(1, 20), st.integers(1, 20)),
    better_roll=st.sampled_from(["high", "low"]),
)
def test_property_a_ruled_tie_is_always_a_marginal_victory_and_nothing_else_moves(
    pc, opponent, rolls, better_roll
):
    outcome = compare_results(pc, opponent, *rolls, better_roll=better_roll)
    if outcome.level != 0:
        # §2.3.5.2 is about ties only: any other outcome is refused and left as it was.
        before = replace(outcome)
        with pytest.raises(IllegalAction, match="only a tie"):
            confusing_tie(outcome)
        assert outcome == before
        return
    ruled = confusing_tie(outcome)
    assert (ruled.level, ruled.describe) == (1, "marginal victory")
    # The dice and results stand: only the winner and degree are the GM's ruling.
    assert replace(ruled, winner=None, degree=None) == outcome


@given(
    pc=st.sampled_from(RESULTS),
    opponent=st.sampled_from(RESULTS),
    rolls=st.tuples(st.integers(1, 20), st.integers(1, 20)),
)
def test_property_a_double_fumble_ruling_is_a_marginal_defeat_exactly_when_both_fumble(
    pc, opponent, rolls
):
    outcome = compare_results(pc, opponent, *rolls)
    if pc is Result.FUMBLE and opponent is Result.FUMBLE:
        assert outcome.level == 0  # §4.4.2: "Tie*", whatever the rolls
        assert both_fumble_defeat(outcome) is CONSEQUENCE_OF_DEFEAT["marginal"]
    else:
        with pytest.raises(IllegalAction, match="both contestants fumbled"):
            both_fumble_defeat(outcome)


@pytest.mark.parametrize(("pc", "opponent"), CELLS)
def test_a_double_fumble_alone_is_ruled_a_marginal_defeat_4_4_2(pc, opponent):
    outcome = compare_results(pc, opponent, 20, 20)
    if (pc, opponent) == (Result.FUMBLE, Result.FUMBLE):
        assert both_fumbled(outcome)
        assert both_fumble_defeat(outcome) is State.HURT  # a marginal defeat's (R10)
    else:
        assert not both_fumbled(outcome)
        with pytest.raises(IllegalAction, match="both contestants fumbled"):
            both_fumble_defeat(outcome)


def test_no_relevant_ability_is_a_base_tn_of_6_and_takes_modifiers_2_1_2_1():
    assert NO_RELEVANT_ABILITY == 6
    tn = target_number(NO_RELEVANT_ABILITY, augments=[3], states=["hurt"])
    assert tn.rating.total == 6 + 3 - 3


@given(
    base=st.integers(1, 60),
    augments=st.lists(st.integers(-10, 10), max_size=3),
    states=st.lists(st.sampled_from(["hurt", "impaired", "injured"]), max_size=2),
)
def test_property_modifiers_move_a_base_tn_of_6_as_they_move_a_rating_2_1_2_1(
    base, augments, states
):
    # "Like ratings, it may also be subject to modifiers": the same modifiers shift a base
    # TN of 6 by the same amount as any rating.
    none = target_number(NO_RELEVANT_ABILITY, augments=augments, states=states)
    rated = target_number(base, augments=augments, states=states)
    assert none.rating.total - NO_RELEVANT_ABILITY == rated.rating.total - base
    assert none.bumps == rated.bumps
