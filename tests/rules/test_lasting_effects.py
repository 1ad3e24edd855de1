"""R18.4-R18.6 and the unified engine API: a SideInput per side for every machine, the
stretch cap (§2.10), lasting bumps (R5.4), benefits of victory after long contests
(§5.1.1 step 6, §2.11.2) and one ContestOutcome shape."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests.core.rules import (
    ChainedContest,
    ContestOutcome,
    Modifier,
    Rating,
    Result,
    RulesError,
    ScoredContest,
    SideInput,
    State,
    simple_contest,
    simple_outcome,
)
from contests.core.rules.modifiers import stretch
from contests.core.rules.scored.tables import round_points
from contests.core.rules.simple import DEGREES, bump_with_hero_point, cap_stretched, compare_results

STRETCH = stretch()  # §2.12.1: the default -6
STRETCH_AS_BUMP = stretch("bump")
RESULTS = list(Result)


def stretched(rating: int, name: str = "Asha") -> SideInput:
    """A PC side whose ability is a stretch (-6, §2.12.1): `rating` before it."""
    return SideInput(rating, name=name, modifiers=(STRETCH,))


# ---------------------------------------------------------------------------
# SideInput
# ---------------------------------------------------------------------------


def test_a_side_totals_its_target_number_from_its_lasting_lines():
    side = SideInput(
        17,
        name="Asha",
        modifiers=(STRETCH, Modifier("augment", value=3, kind="augment")),
        states=(State.HURT, State.HEROIC),
    )
    assert side.target.rating == Rating(17 - 6 + 3 - 3)
    assert side.total_bumps == 1  # heroic (§2.11.2)
    assert side.stretched


def test_a_stretch_taken_as_a_bump_down_is_a_bump_not_a_cap_r9_r18_4():
    side = SideInput(17, modifiers=(STRETCH_AS_BUMP,))
    assert side.total_bumps == -1
    assert not side.stretched


def test_a_side_round_trips_through_json():
    side = SideInput("7M", name="Asha", modifiers=(STRETCH,), states=(State.INJURED,), bumps=1)
    assert SideInput.from_json(json.loads(json.dumps(side.to_json()))) == side


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"rating": "7Q"}, "not a rating"),
        ({"name": "Asha"}, "needs a rating"),
        ({"rating": 10, "luck": 3}, "has no luck"),
        ({"rating": 10, "states": ["sleepy"]}, "not a state"),
        ({"rating": 10, "modifiers": [{"label": "x", "value": "big"}]}, "whole number"),
        ({"rating": 10, "bumps": 1.5}, "whole number"),
        ({"rating": 10, "is_pc": "yes"}, "true or false"),
        ({"rating": 10, "is_pc": False, "modifiers": [STRETCH.to_json()]}, "is a resistance"),
        ([10], "whole number or a rating"),
    ],
)
def test_a_bad_side_is_a_rules_error_naming_the_problem(value, message):
    with pytest.raises(RulesError, match=message):
        ScoredContest(pc=value, opponent=10)


def test_unknown_setup_and_action_arguments_are_rules_errors():
    with pytest.raises(RulesError, match="takes no pc_name"):
        ScoredContest(pc=10, opponent=10, pc_name="Asha")
    contest = ChainedContest(pc=10, opponent=10)
    with pytest.raises(RulesError, match=r"play_round\(\) takes no pc_roll_again"):
        contest.play_round(pc_roll=3, opponent_roll=4, pc_roll_again=5)
    assert contest.rounds == []


# ---------------------------------------------------------------------------
# R18.4 the stretch cap (§2.10), cell by cell
# ---------------------------------------------------------------------------

# Every cell of the Simple Contest Table (§4.4.2) with the PC's stretch: its major
# and complete victories become minor; nothing else changes.
CELLS = [(pc, opponent) for pc in RESULTS for opponent in RESULTS]


@pytest.mark.parametrize(("pc", "opponent"), CELLS)
def test_the_stretch_caps_only_the_stretched_sides_major_and_complete_victories(pc, opponent):
    plain = compare_results(pc, opponent, 10, 5)
    for side in ("pc", "opponent"):
        capped = cap_stretched(plain, [side])
        if plain.winner == side and plain.degree in ("major", "complete"):
            assert (capped.winner, capped.degree, capped.capped_from) == (
                side,
                "minor",
                plain.degree,
            )
        else:
            assert (capped.winner, capped.degree, capped.capped_from) == (
                plain.winner,
                plain.degree,
                None,
            )


def test_the_srd_sentence_a_stretched_complete_victory_is_a_minor_one_2_10():
    """§2.10: "If you are using a stretch, then major or complete victories you score
    are instead treated as minor victories." A critical against a fumble, stretched."""
    outcome = simple_contest(stretched(20).target.rating, 1, Rating(10), 20)
    assert outcome.describe == "complete victory"
    assert cap_stretched(outcome, ["pc"]).describe == "minor victory"


def test_a_hero_point_spent_on_a_capped_roll_keeps_the_cap():
    outcome = cap_stretched(compare_results(Result.SUCCESS, Result.FAILURE, 5, 15), ["pc"])
    assert outcome.describe == "minor victory"
    bumped = bump_with_hero_point(outcome)  # critical v failure: major, held to minor
    assert (bumped.describe, bumped.capped_from) == ("minor victory", "major")


@given(
    pc=st.sampled_from(RESULTS),
    opponent=st.sampled_from(RESULTS),
    rolls=st.tuples(st.integers(1, 20), st.integers(1, 20)),
    sides=st.sets(st.sampled_from(["pc", "opponent"])),
)
def test_property_the_cap_never_raises_and_holds_a_stretched_winner_at_minor(
    pc, opponent, rolls, sides
):
    plain = compare_results(pc, opponent, *rolls)
    capped = cap_stretched(plain, sides)
    assert abs(capped.level) <= abs(plain.level)
    assert capped.winner == plain.winner
    if plain.winner in sides:
        assert abs(capped.level) <= 2
    assert cap_stretched(capped, sides) == capped  # applying it twice changes nothing


@pytest.mark.parametrize(
    ("pc_roll", "opponent_roll", "uncapped"),
    [(5, 20, "major"), (1, 20, "complete"), (1, 15, "major"), (5, 15, "minor")],
)
def test_a_stretched_round_of_a_scored_contest_scores_a_minor_victorys_rp(
    pc_roll, opponent_roll, uncapped
):
    """R18.4: each round of a scored contest with a stretched ability (Asha 16 - 6 =
    10 against 10)."""
    contest = ScoredContest(pc=stretched(16), opponent=10)
    scored = contest.play_round(pc_roll=pc_roll, opponent_roll=opponent_roll)
    assert scored.points == round_points("minor")
    assert contest.rounds[0]["capped_from"] == (uncapped if uncapped != "minor" else None)
    plain = ScoredContest(pc=10, opponent=10).play_round(
        pc_roll=pc_roll, opponent_roll=opponent_roll
    )
    assert plain.points == round_points(uncapped)


def test_a_resistance_beating_a_stretched_pc_is_not_capped():
    contest = ScoredContest(pc=stretched(16), opponent=10)
    scored = contest.play_round(pc_roll=20, opponent_roll=5)  # fumble v success: major
    assert (scored.winner, scored.points) == ("opponent", round_points("major"))


@pytest.mark.parametrize(
    ("pc_roll", "opponent_roll", "uncapped"),
    [
        (1, 20, "dying"),  # critical v fumble
        (5, 20, "injured"),  # success v fumble
        (1, 15, "injured"),  # critical v failure
        (5, 15, "hurt"),  # success v failure
    ],
)
def test_a_stretched_winner_of_a_chained_round_only_hurts_r18_4(pc_roll, opponent_roll, uncapped):
    """§5.4 read with §2.10: a minor victory's round inflicts hurt."""
    plain = ChainedContest(pc=10, opponent=10)
    assert plain.play_round(pc_roll=pc_roll, opponent_roll=opponent_roll)["effect"]["after"] == (
        uncapped
    )
    contest = ChainedContest(pc=stretched(16), opponent=10)
    entry = contest.play_round(pc_roll=pc_roll, opponent_roll=opponent_roll)
    assert entry["effect"] == {"side": "opponent", "before": None, "after": "hurt"}
    assert entry.get("capped_from") == (uncapped if uncapped != "hurt" else None)


def test_a_stretched_pc_is_still_wounded_in_full_by_the_resistance():
    contest = ChainedContest(pc=stretched(16), opponent=10)
    entry = contest.play_round(pc_roll=20, opponent_roll=1)  # fumble v critical
    assert entry["effect"]["after"] == "dying"


# ---------------------------------------------------------------------------
# R18.5 lasting bumps in every machine (R5.4)
# ---------------------------------------------------------------------------

HEROIC = SideInput(10, name="Asha", states=(State.HEROIC,))


def test_heroic_bumps_every_round_of_a_scored_contest():
    contest = ScoredContest(pc=HEROIC, opponent=10)
    for _ in range(2):
        scored = contest.play_round(pc_roll=5, opponent_roll=6)  # success v success
        assert scored.outcome.pc_result is Result.CRITICAL
        assert scored.outcome.describe == "minor victory"


def test_a_stretch_as_a_bump_down_lowers_every_round_of_a_chained_contest():
    contest = ChainedContest(pc=SideInput(10, modifiers=(STRETCH_AS_BUMP,)), opponent=10)
    entry = contest.play_round(pc_roll=5, opponent_roll=15)  # success, bumped to failure
    assert (entry["pc_result"], entry["effect"]) == (
        "failure",
        # failure v failure: the better roll is the higher (R6), so the PC's 5 is hurt
        {"side": "pc", "before": None, "after": "hurt"},
    )


def test_lasting_effects_change_between_rounds_and_replay():
    contest = ScoredContest(pc=SideInput(10, name="Asha"), opponent=10)
    contest.play_round(pc_roll=5, opponent_roll=6)
    assert contest.rounds[-1]["pc_result"] == "success"
    contest.update_side(side="pc", input=HEROIC)
    contest.play_round(pc_roll=5, opponent_roll=6)
    assert contest.rounds[-1]["pc_result"] == "critical"
    rebuilt = ScoredContest.from_json(json.loads(json.dumps(contest.to_json())))
    assert rebuilt.rounds == contest.rounds and rebuilt.sides == contest.sides


def test_a_side_keeps_its_name_and_controller_when_its_effects_change():
    contest = ChainedContest(pc=SideInput(10, name="Asha"), opponent=10)
    with pytest.raises(RulesError, match="keeps its name"):
        contest.update_side(side="pc", input={"rating": 10, "name": "Brann"})
    with pytest.raises(RulesError, match="keeps its name"):
        contest.update_side(
            side="opponent", input={"rating": 10, "name": "the opponent", "is_pc": True}
        )
    assert contest.actions == []


# ---------------------------------------------------------------------------
# R18.6 benefits after long contests, and one ContestOutcome
# ---------------------------------------------------------------------------


def knock_out(contest: ScoredContest, pc_roll: int, opponent_roll: int) -> ContestOutcome:
    while not contest.is_over:
        contest.play_round(pc_roll=pc_roll, opponent_roll=opponent_roll)
    assert contest.outcome is not None
    return contest.outcome


@pytest.mark.parametrize(
    ("rolls", "degree", "benefit", "consequence"),
    [
        # success v failure, 2 RP a round: 6-0, a lead of 6: major (§5.1.2)
        ((5, 15), "major", State.INVIGORATED, State.INJURED),
        # critical v fumble, 5 RP: 5-0, a lead of 5: major
        ((1, 20), "major", State.INVIGORATED, State.INJURED),
    ],
)
def test_a_pc_who_wins_a_scored_contest_gains_the_benefit_r18_6(
    rolls, degree, benefit, consequence
):
    outcome = knock_out(ScoredContest(pc=14, opponent=14), *rolls)
    assert (outcome.winner, outcome.degree, outcome.level) == ("pc", degree, 3)
    assert outcome.benefits == {"pc": benefit, "opponent": None}
    assert outcome.consequences == {"pc": None, "opponent": consequence}


def test_no_benefit_against_a_clearly_inferior_opponent_r10():
    outcome = knock_out(ScoredContest(pc=20, opponent=14), 5, 15)
    assert outcome.winner == "pc" and outcome.benefits == {"pc": None, "opponent": None}


def test_the_gms_side_gains_no_benefit_but_a_pc_opponent_does():
    gm_wins = knock_out(ScoredContest(pc=14, opponent=14), 15, 5)
    assert gm_wins.winner == "opponent" and gm_wins.benefits["opponent"] is None
    pc_wins = knock_out(ScoredContest(pc=14, opponent=SideInput(14, is_pc=True)), 15, 5)
    assert pc_wins.benefits == {"pc": None, "opponent": State.INVIGORATED}


def test_a_climax_reads_both_sides_states_from_the_table_5_1_3():
    contest = ScoredContest(pc=14, opponent=14, stakes="climax")
    contest.play_round(pc_roll=15, opponent_roll=5)  # 2 RP against the PC
    outcome = knock_out(contest, 5, 15)
    assert outcome.consequences["pc"] is State.HURT
    assert outcome.words["pc"] == "hurt"


def test_the_winner_of_a_chained_contest_gains_the_benefit_and_keeps_its_wounds():
    contest = ChainedContest(pc=14, opponent=14)
    contest.play_round(pc_roll=15, opponent_roll=5)  # the PC is hurt
    contest.play_round(pc_roll=1, opponent_roll=20)  # the opponent is dying
    outcome = contest.outcome
    assert (outcome.winner, outcome.degree) == ("pc", "complete")
    assert outcome.consequences == {"pc": State.HURT, "opponent": State.DYING}
    assert outcome.benefits == {"pc": State.HEROIC, "opponent": None}


def test_every_machine_and_the_simple_contest_answer_in_one_shape():
    simple = simple_outcome(simple_contest(14, 5, 14, 15), pc=14, opponent=14)
    scored = knock_out(ScoredContest(pc=14, opponent=14), 5, 15)
    chained = ChainedContest(pc=14, opponent=14)
    while not chained.is_over:
        chained.play_round(pc_roll=1, opponent_roll=20)
    for outcome in (simple, scored, chained.outcome):
        assert isinstance(outcome, ContestOutcome)
        data = outcome.to_json()
        assert json.loads(json.dumps(data)) == data
        assert set(data) == {
            "winner",
            "degree",
            "level",
            "ended_by",
            "consequences",
            "benefits",
            "words",
            "earlier",
        }
    assert simple.degree == "minor" and simple.benefits["pc"] is State.PUMPED
    assert ScoredContest(pc=14, opponent=14).outcome is None


@given(
    pc=st.integers(1, 60),
    opponent=st.integers(1, 60),
    rolls=st.lists(st.tuples(st.integers(1, 20), st.integers(1, 20)), min_size=1, max_size=30),
)
def test_property_only_a_pcs_winner_gains_a_benefit_and_only_the_winner(pc, opponent, rolls):
    contest = ScoredContest(pc=pc, opponent=opponent)
    for pc_roll, opponent_roll in rolls:
        if contest.is_over:
            break
        contest.play_round(pc_roll=pc_roll, opponent_roll=opponent_roll)
    outcome = contest.outcome
    if outcome is None:
        return
    assert outcome.benefits["opponent"] is None  # the GM's side
    if outcome.benefits["pc"] is not None:
        assert outcome.winner == "pc" and pc - opponent < 6
        assert outcome.benefits["pc"].rank == DEGREES.index(outcome.degree) + 1


# ---------------------------------------------------------------------------
# R18.4 in the extended and group contests
# ---------------------------------------------------------------------------

# Each cell where one side wins by two or three result steps, with the exchange's
# effect plain and with the winner stretched (bid 3): the loser's result is read one
# step below the winner's, so a critical still transfers (§5.3.1 step 4.5).
EXCHANGE_CELLS = [
    # actor, defender, plain (defender's change), stretched (defender's change)
    (Result.CRITICAL, Result.FUMBLE, -9, -3),
    (Result.CRITICAL, Result.FAILURE, -6, -3),
    (Result.SUCCESS, Result.FUMBLE, -6, -3),
]


@pytest.mark.parametrize(("actor", "defender", "plain", "capped"), EXCHANGE_CELLS)
def test_a_stretched_sides_big_exchange_wins_count_as_one_step(actor, defender, plain, capped):
    from contests.core.rules.extended.rolls import SideRoll, stretch_capped_results
    from contests.core.rules.extended.tables import exchange_effect

    rolled = (actor, defender)
    for stretched, expected in ((False, plain), (True, capped)):
        first = SideRoll("Asha", Rating(10), 1, stretched=stretched)
        read = stretch_capped_results(first, SideRoll("Ogre", Rating(10), 20), *rolled)
        assert exchange_effect(*read, 1, 20, 3).defender_change == expected
    # The stretched side losing is not capped.
    loser = SideRoll("Asha", Rating(10), 20, stretched=True)
    assert stretch_capped_results(loser, SideRoll("Ogre", Rating(10), 1), defender, actor) == (
        defender,
        actor,
    )


def test_a_stretched_pc_in_a_group_extended_contest_wins_by_one_step():
    from contests.core.rules import GroupExtendedContest

    def game(stretched):
        aria = {"name": "Aria", "side": "heroes", "pc": True, "rating": 10}
        if stretched:
            aria["stretched"] = True
        bran = {"name": "Bran", "side": "heroes", "pc": True, "rating": 10}
        orc = {"name": "Orc", "side": "orcs", "rating": 10}
        contest = GroupExtendedContest(participants=[aria, bran, orc], order="daring")
        contest.declare(name="Aria", targets=["Orc"], bid=3, daring="reckless")
        contest.declare(name="Bran", targets=["Orc"], bid=1, daring="steady")
        contest.declare(name="Orc", targets=["Aria"], bid=1, daring="steady")
        contest.act(name="Aria", actor_roll=1, defender_roll=20)  # critical v fumble
        return contest.people["Orc"].ap

    assert (game(False), game(True)) == (10 - 9, 10 - 3)


def test_a_resistance_takes_no_stretch_in_a_group_contest():
    from contests.core.rules import GroupExtendedContest, GroupScoredContest

    with pytest.raises(RulesError, match="resistance"):
        GroupExtendedContest(
            participants=[
                {"name": "Aria", "side": "heroes", "pc": True, "rating": 10},
                {"name": "Orc", "side": "orcs", "rating": 10, "stretched": True},
            ]
        )
    with pytest.raises(RulesError, match="resistance"):
        GroupScoredContest(
            participants=[
                {"name": "Aria", "side": "pc", "rating": 10},
                {"name": "Orc", "side": "opponent", "rating": 10, "stretched": True},
            ]
        )


def test_a_stretched_pairing_round_of_a_group_scored_contest_scores_a_minor_victorys_rp():
    from contests.core.rules import GroupScoredContest

    def points(stretched):
        asha = {"name": "Asha", "side": "pc", "rating": 10, "stretched": stretched}
        contest = GroupScoredContest(
            participants=[asha, {"name": "Troll", "side": "opponent", "rating": 10}],
            pairings=[["Asha", "Troll"]],
        )
        return contest.play_round(pairing=1, pc_roll=1, opponent_roll=20).points

    assert (points(False), points(True)) == (round_points("complete"), round_points("minor"))


# ---------------------------------------------------------------------------
# Hero points after the roll (§2.2, §2.3.5.5, R5.3): roll, hero_point, settle
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("machine_class", [ScoredContest, ChainedContest])
def test_a_hero_point_is_decided_after_both_results_are_known(machine_class):
    """§2.2: "You can decide to use a hero point for a bump after the die roll results
    are calculated." A failure against a success: a minor defeat, until the PC spends."""
    contest = machine_class(pc=14, opponent=14)
    contest.roll(pc_roll=16, opponent_roll=5)
    assert contest.pending.describe == "minor defeat"
    contest.hero_point(side="pc")
    assert contest.pending.describe == "marginal victory"  # success v success, 16 > 5
    contest.settle()
    assert contest.pending is None
    assert contest.rounds[-1]["pc_result"] == "success"


@pytest.mark.parametrize("machine_class", [ScoredContest, ChainedContest])
def test_the_hero_point_steps_refuse_what_the_rules_forbid_and_change_nothing(machine_class):
    contest = machine_class(pc=14, opponent=14)
    with pytest.raises(RulesError, match="roll first"):
        contest.hero_point(side="pc")
    with pytest.raises(RulesError, match="nothing is rolled: roll first"):
        contest.settle()
    contest.roll(pc_roll=1, opponent_roll=5)  # a critical v a success
    before = contest.to_json()
    for attempt, message in (
        (lambda: contest.hero_point(side="pc"), "critical"),
        (lambda: contest.hero_point(side="opponent"), "player|PC"),
        (lambda: contest.hero_point(side="gm"), "side must be"),
        (lambda: contest.play_round(pc_roll=3, opponent_roll=4), "settle it"),
        (lambda: contest.roll(pc_roll=3, opponent_roll=4), "settle it"),
    ):
        with pytest.raises(RulesError, match=message):
            attempt()
        assert contest.to_json() == before


def test_one_hero_point_per_roll_and_a_pc_opponent_may_spend_its_own():
    contest = ScoredContest(pc=14, opponent=SideInput(14, is_pc=True))
    contest.roll(pc_roll=16, opponent_roll=18)  # failure v failure
    contest.hero_point(side="opponent")
    with pytest.raises(RulesError, match="spent a hero point on this roll"):
        contest.hero_point(side="opponent")
    assert contest.pending.describe == "minor defeat"


rolls_and_points = st.lists(
    st.tuples(st.integers(1, 20), st.integers(1, 20), st.booleans()), min_size=1, max_size=10
)


@given(pc=st.integers(1, 45), opponent=st.integers(1, 45), rounds=rolls_and_points)
def test_property_three_steps_play_the_same_round_as_play_round(pc, opponent, rounds):
    for machine_class in (ScoredContest, ChainedContest):
        stepped, direct = (
            machine_class(pc=pc, opponent=opponent),
            machine_class(pc=pc, opponent=opponent),
        )
        for pc_roll, opponent_roll, spend in rounds:
            if direct.is_over:
                break
            stepped.roll(pc_roll=pc_roll, opponent_roll=opponent_roll)
            spend = spend and stepped.pending.pc_result is not Result.CRITICAL
            if spend:
                stepped.hero_point(side="pc")
            stepped.settle()
            direct.play_round(pc_roll=pc_roll, opponent_roll=opponent_roll, pc_hero_point=spend)
        assert stepped.state() == direct.state()
        rebuilt = machine_class.from_json(json.loads(json.dumps(stepped.to_json())))
        assert rebuilt.state() == stepped.state()


# ---------------------------------------------------------------------------
# The group machines' outcome, in the same shape
# ---------------------------------------------------------------------------


def test_a_group_scored_contest_gives_its_outcome_per_participant():
    from contests.core.rules import GroupScoredContest

    contest = GroupScoredContest(
        participants=[
            {"name": "Asha", "side": "pc", "rating": 14},
            {"name": "Troll", "side": "opponent", "rating": 14},
        ],
        pairings=[["Asha", "Troll"]],
    )
    assert contest.outcome is None
    while not contest.is_over:
        contest.play_round(pairing=1, pc_roll=5, opponent_roll=15)  # 2 RP a round
    outcome = contest.outcome
    assert (outcome.winner, outcome.degree, outcome.level) == ("pc", "major", 3)
    assert outcome.consequences == {"Asha": None, "Troll": State.INJURED}
    assert outcome.benefits == {"Asha": State.INVIGORATED, "Troll": None}


def test_a_group_extended_contest_gives_its_outcome_per_participant():
    from contests.core.rules import GroupExtendedContest

    contest = GroupExtendedContest(
        participants=[
            {"name": "Aria", "side": "heroes", "pc": True, "rating": 14},
            {"name": "Bran", "side": "heroes", "pc": True, "rating": 14},
            {"name": "Orc", "side": "orcs", "rating": 10},
        ],
        order="daring",
    )
    while not contest.is_over:
        for name in ("Aria", "Bran", "Orc"):
            if contest.people[name].is_in and contest.phase == "declaring":
                target = "Orc" if name != "Orc" else "Aria"
                contest.declare(name=name, targets=[target], bid=5, daring="steady")
        while contest.phase == "acting" and not contest.is_over:
            actor = contest.next_actor
            if actor == "Orc":
                contest.act(name=actor, actor_roll=20, defender_roll=5)
            else:
                contest.act(name=actor, actor_roll=5, defender_roll=20)
    outcome = contest.outcome
    assert (outcome.winner, outcome.pc_side, outcome.level > 0) == ("heroes", "heroes", True)
    assert outcome.consequences["Orc"] is not None and outcome.benefits["Orc"] is None
    assert outcome.benefits["Aria"] is not None and outcome.consequences["Aria"] is None
    assert json.loads(json.dumps(outcome.to_json())) == outcome.to_json()


def test_an_extended_exchange_takes_its_hero_points_after_the_roll():
    from contests.core.rules import ExtendedContest

    contest = ExtendedContest(pc=14, opponent=14)
    assert contest.roll(actor="pc", actor_roll=16, defender_roll=5).describe == "minor defeat"
    before = contest.to_json()
    for attempt, message in (
        (lambda: contest.hero_point(side="opponent"), "only player characters"),
        (lambda: contest.exchange(actor="pc", actor_roll=3, defender_roll=4), "settle it"),
        (lambda: contest.roll(actor="pc", actor_roll=3, defender_roll=4), "settle it"),
        (lambda: contest.unrelated_action(side="pc"), "settle it"),
    ):
        with pytest.raises(RulesError, match=message):
            attempt()
        assert contest.to_json() == before
    assert contest.hero_point(side="pc").describe == "marginal victory"
    entry = contest.settle()
    assert (entry["actor_result"], entry["hero_point"]) == ("success", True)
    assert contest.pending is None


def test_the_held_roll_refuses_what_the_rules_forbid():
    from contests.core.rules import ExtendedContest

    contest = ExtendedContest(pc=14, opponent=14)
    with pytest.raises(RulesError, match="hero points come after the roll"):
        contest.roll(actor="pc", actor_roll=3, defender_roll=4, hero_point=True)
    with pytest.raises(RulesError, match="not 'gift'"):
        contest.roll(move="gift", recipient="pc", rating=12, bid=3, roll=3, resistance_roll=4)
    contest.roll(actor="pc", actor_roll=1, defender_roll=5)  # a critical
    with pytest.raises(RulesError, match="critical"):
        contest.hero_point(side="pc")


@given(
    rounds=st.lists(
        st.tuples(st.integers(1, 20), st.integers(1, 20), st.booleans()), min_size=1, max_size=12
    )
)
def test_property_a_held_exchange_plays_as_the_one_step_exchange(rounds):
    from contests.core.rules import ExtendedContest

    held, direct = ExtendedContest(pc=15, opponent=14), ExtendedContest(pc=15, opponent=14)
    for actor_roll, defender_roll, spend in rounds:
        if direct.is_over:
            break
        actor = direct.turn
        bid = min(3, direct.bid_limit(actor))
        if bid < 1:
            break
        held.roll(actor=actor, actor_roll=actor_roll, defender_roll=defender_roll, bid=bid)
        pc_result = held.pending.pc_result
        spend = spend and pc_result is not Result.CRITICAL
        if spend:
            held.hero_point(side="pc")
        held.settle()
        direct.exchange(
            actor=actor,
            actor_roll=actor_roll,
            defender_roll=defender_roll,
            bid=bid,
            hero_point=spend,
        )
    assert held.state() == direct.state()
    rebuilt = ExtendedContest.from_json(json.loads(json.dumps(held.to_json())))
    assert rebuilt.state() == held.state()


# ---------------------------------------------------------------------------
# The group machines hold their rolls too (§2.2, R5.3): roll(move=...), hero_point, settle
# ---------------------------------------------------------------------------


def _pairing_contest():
    from contests.core.rules import GroupScoredContest

    return GroupScoredContest(
        participants=[
            {"name": "Asha", "side": "pc", "rating": 14},
            {"name": "Bran", "side": "pc", "rating": 14},
            {"name": "Troll", "side": "opponent", "rating": 14},
        ],
        pairings=[["Asha", "Troll"]],
    )


def _melee():
    from contests.core.rules import GroupExtendedContest

    contest = GroupExtendedContest(
        participants=[
            {"name": "Aria", "side": "heroes", "pc": True, "rating": 15},
            {"name": "Bran", "side": "heroes", "pc": True, "rating": 15},
            {"name": "Orc", "side": "orcs", "rating": 14},
        ]
    )
    for name, target in (("Aria", "Orc"), ("Bran", "Orc"), ("Orc", "Aria")):
        contest.declare(name=name, targets=target, bid=3)
    return contest


def test_a_group_pairings_round_takes_its_hero_point_after_the_roll():
    """§2.2 in a group scored contest: Asha fails (16 v 14) against the Troll's success,
    sees it, and spends a hero point: a success with the better roll wins."""
    contest = _pairing_contest()
    held = contest.roll(move="play_round", pairing=1, pc_roll=16, opponent_roll=5)
    assert held.outcome.describe == "minor defeat"
    assert contest.points(1) == {"pc": 0, "opponent": 0}  # nothing is played yet
    assert contest.hero_point(name="Asha").outcome.describe == "marginal victory"
    scored = contest.settle()
    assert (scored.points, contest.points(1)) == (1, {"pc": 1, "opponent": 0})
    assert contest.pending is None
    assert contest.actions[-3:] == [
        {"action": "roll", "move": "play_round", "pairing": 1, "pc_roll": 16, "opponent_roll": 5},
        {"action": "hero_point", "name": "Asha"},
        {"action": "settle"},
    ]


def test_a_held_group_roll_refuses_what_the_rules_forbid_and_changes_nothing():
    contest = _pairing_contest()
    with pytest.raises(RulesError, match="roll first"):
        contest.hero_point(name="Asha")
    with pytest.raises(RulesError, match="hero points come after the roll"):
        contest.roll(move="play_round", pairing=1, pc_roll=3, opponent_roll=4, pc_hero_point=True)
    with pytest.raises(RulesError, match="not 'engage'"):
        contest.roll(move="engage", pc="Bran", opponent="Troll")
    contest.roll(move="play_round", pairing=1, pc_roll=1, opponent_roll=5)  # a critical
    before = contest.to_json()
    for attempt, message in (
        (lambda: contest.hero_point(name="Asha"), "critical"),
        (lambda: contest.hero_point(name="Troll"), "only players"),
        (lambda: contest.hero_point(name="Bran"), "Bran has no result in this roll"),
        (lambda: contest.engage(pc="Bran", opponent="Troll"), "settle it before you engage"),
        (lambda: contest.settle(both_lose_half=True), "takes no both_lose_half"),
        (
            lambda: contest.roll(move="play_round", pairing=1, pc_roll=3, opponent_roll=4),
            "settle it",
        ),
    ):
        with pytest.raises(RulesError, match=message):
            attempt()
        assert contest.to_json() == before


def test_a_group_exchange_holds_for_both_hero_points_and_the_gms_both_fumble_call():
    """§5.3.1 footnote: the GM may have both lose 1/2x bid on a both-fumble tie; the
    call comes when the held exchange is settled."""
    contest = _melee()
    held = contest.roll(move="act", name="Aria", actor_roll=20, defender_roll=20)
    assert (held["actor_result"], held["defender_result"]) == ("fumble", "fumble")
    with pytest.raises(RulesError, match="Orc is not a PC"):
        contest.hero_point(name="Orc")
    entry = contest.settle(both_lose_half=True)
    assert entry["change"] == {"Aria": -2, "Orc": -2}


def test_a_gifters_hero_point_is_nobodys_in_the_contest():
    """§5.3.11: the gifter stands outside the contest: their hero point is named by
    nobody, and it raises the gift's roll."""
    contest = _melee()
    gift = contest.roll(
        move="gift", recipient="Aria", opponent="Orc", rating=15, bid=2, roll=5, resistance_roll=10
    )
    assert gift["result"] == "success"
    with pytest.raises(RulesError, match="Aria has no result in this roll"):
        contest.hero_point(name="Aria")
    assert contest.hero_point()["result"] == "critical"
    assert contest.settle()["hero_point"] is True


@given(rounds=rolls_and_points)
def test_property_a_held_pairing_round_plays_as_play_round(rounds):
    held, direct = _pairing_contest(), _pairing_contest()
    for pc_roll, opponent_roll, spend in rounds:
        if direct.state()["pairings"][0]["status"] != "active":  # Bran stays unpaired
            break
        result = held.roll(
            move="play_round", pairing=1, pc_roll=pc_roll, opponent_roll=opponent_roll
        )
        spend = spend and result.outcome.pc_result is not Result.CRITICAL
        if spend:
            held.hero_point(name="Asha")
        held.settle()
        direct.play_round(
            pairing=1, pc_roll=pc_roll, opponent_roll=opponent_roll, pc_hero_point=spend
        )
    assert held.state() == direct.state()
    rebuilt = type(held).from_json(json.loads(json.dumps(held.to_json())))
    assert rebuilt.state() == held.state()


@given(rounds=rolls_and_points)
def test_property_a_held_group_exchange_plays_as_act(rounds):
    held, direct = _melee(), _melee()
    for actor_roll, defender_roll, spend in rounds:
        if direct.is_over or direct.phase != "acting":
            break
        actor = direct.next_actor
        rolls = {"name": actor, "actor_roll": actor_roll, "defender_roll": defender_roll}
        try:
            direct.act(**rolls)
        except RulesError as refused:
            # What the rules refuse directly (a declared bid now over the AP held) the
            # held roll refuses too, with the same words.
            with pytest.raises(RulesError, match=re.escape(str(refused))):
                held.roll(move="act", **rolls)
            break
        direct = type(direct).from_json(direct.to_json() | {"actions": direct.actions[:-1]})
        result = held.roll(move="act", **rolls)
        spend = spend and actor != "Orc" and result["actor_result"] != "critical"
        if spend:
            held.hero_point(name=actor)
        held.settle()
        direct.act(**rolls, actor_hero_point=spend)
    assert held.state() == direct.state()
    rebuilt = type(held).from_json(json.loads(json.dumps(held.to_json())))
    assert rebuilt.state() == held.state()


# ---------------------------------------------------------------------------
# A group participant is a side like any other: its lasting lines, states and bumps
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lasting", "tn", "bumps", "capped"),
    [
        ({"modifiers": [3]}, 17, 0, False),  # a whole number is a plain modifier line
        ({"modifiers": [Modifier("hurt", -3).to_json()]}, 11, 0, False),
        ({"states": ["hurt"]}, 11, 0, False),  # §2.11: hurt is -3
        ({"bumps": 1}, 14, 1, False),  # R18.5: e.g. heroic
        ({"modifiers": [STRETCH.to_json()]}, 8, 0, True),  # §2.12.1, §2.10 (R18.4)
    ],
)
def test_a_group_participants_lasting_effects_reach_both_group_machines(lasting, tn, bumps, capped):
    from contests.core.rules import GroupExtendedContest, GroupScoredContest

    scored = GroupScoredContest(
        participants=[
            {"name": "Asha", "side": "pc", "rating": 14, **lasting},
            {"name": "Troll", "side": "opponent", "rating": 14},
        ],
        pairings=[["Asha", "Troll"]],
    )
    assert scored.state()["pairings"][0]["pc_rating"] == str(tn)
    extended = GroupExtendedContest(
        participants=[
            {"name": "Asha", "side": "pc", "pc": True, "rating": 14, **lasting},
            {"name": "Bran", "side": "pc", "pc": True, "rating": 14},
            {"name": "Troll", "side": "foe", "rating": 14},
        ]
    )
    asha = extended.people["Asha"]
    assert (asha.tn.total, asha.bumps, asha.starting_ap, asha.stretched) == (
        tn,
        bumps,
        tn,
        capped,
    )
    # A critical against a fumble: a complete victory, or a minor one when stretched.
    points = scored.play_round(pairing=1, pc_roll=1, opponent_roll=20).points
    assert points == round_points("minor" if capped else "complete")


def test_a_group_participants_lasting_bump_raises_every_roll():
    """R18.5: a lasting bump (heroic) raises each pairing round's result: a failure
    (16 against 14) becomes a success every round, beating the Troll's failure (15):
    a minor victory, 2 RP a round (§5.1.1)."""
    from contests.core.rules import GroupScoredContest

    contest = GroupScoredContest(
        participants=[
            {"name": "Asha", "side": "pc", "rating": 14, "bumps": 1},
            {"name": "Troll", "side": "opponent", "rating": 14},
        ],
        pairings=[["Asha", "Troll"]],
    )
    for _ in range(2):
        scored = contest.play_round(pairing=1, pc_roll=16, opponent_roll=15)
        assert scored.outcome.pc_result is Result.SUCCESS
    assert contest.points(1) == {"pc": 2 * round_points("minor"), "opponent": 0}


@pytest.mark.parametrize("lasting", [{"modifiers": [3]}, {"states": ["hurt"]}])
def test_a_group_resistance_takes_no_lasting_lines_or_states_r2_r18_3(lasting):
    from contests.core.rules import GroupExtendedContest, GroupScoredContest

    with pytest.raises(RulesError, match="Troll is a resistance"):
        GroupScoredContest(
            participants=[
                {"name": "Asha", "side": "pc", "rating": 14},
                {"name": "Troll", "side": "opponent", "rating": 14, **lasting},
            ]
        )
    with pytest.raises(RulesError, match="Troll is a resistance"):
        GroupExtendedContest(
            participants=[
                {"name": "Asha", "side": "pc", "pc": True, "rating": 14},
                {"name": "Bran", "side": "pc", "pc": True, "rating": 14},
                {"name": "Troll", "side": "foe", "rating": 14, **lasting},
            ]
        )
