"""The group scored contest (§5.2, §5.1.4-6, R12).

Ratings of 10 make the rolls easy to read: a 1 is a critical, 5 a success, 15 a
failure and 20 a fumble. Assists roll a helper rated 14 against the resistance
classes of base 14 (moderate 14, high 20, very high 14M, nearly impossible 14M2).
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contests.core.rules.errors import IllegalAction, RulesError
from contests.core.rules.scored import TACTICS, ScoredContest
from contests.core.rules.scored_group import GroupScoredContest
from tests.examples import examples

CRIT, SUCC, FAIL, FUMB = 1, 5, 15, 20

# Rolls (pc_roll, opponent_roll) giving each degree to the PC side with equal ratings.
PC_WINS = {
    "marginal": (SUCC, 3),
    "minor": (SUCC, FAIL),
    "major": (SUCC, FUMB),
    "complete": (CRIT, FUMB),
}
OPPONENT_WINS = {degree: (b, a) for degree, (a, b) in PC_WINS.items()}

# (helper_roll, resistance_roll) for each outcome of a helper rated 14 against 14.
ASSIST_ROLLS = {
    "complete victory": (CRIT, FUMB),
    "major victory": (SUCC, FUMB),
    "minor victory": (SUCC, FAIL),
    "marginal victory": (SUCC, 3),
    "tie": (7, 7),
    "marginal defeat": (3, SUCC),
    "minor defeat": (FAIL, SUCC),
    "major defeat": (FUMB, SUCC),
    "complete defeat": (FUMB, CRIT),
}


def person(name, side, rating=10, **extra):
    return {"name": name, "side": side, "rating": rating, **extra}


def win(machine, pairing, side, degree, **options):
    pc_roll, opponent_roll = (PC_WINS if side == "pc" else OPPONENT_WINS)[degree]
    return machine.play_round(
        pairing=pairing, pc_roll=pc_roll, opponent_roll=opponent_roll, **options
    )


def tie(machine, pairing):
    return machine.play_round(pairing=pairing, pc_roll=7, opponent_roll=7)


def two_on_two(**setup):
    """Asha v Troll (#1) and Bren v Orc (#2)."""
    return GroupScoredContest(
        participants=[
            person("Asha", "pc"),
            person("Bren", "pc"),
            person("Troll", "opponent"),
            person("Orc", "opponent"),
        ],
        pairings=[["Asha", "Troll"], ["Bren", "Orc"]],
        **setup,
    )


def unchanged(machine, attempt, match, error=IllegalAction):
    before = copy.deepcopy(machine.to_json())
    with pytest.raises(error, match=match):
        attempt()
    assert machine.to_json() == before


# ---------------------------------------------------------------------------
# §5.2.1 pairings, group rounds and the end
# ---------------------------------------------------------------------------


def test_each_pairing_plays_once_per_group_round_5_2_1():
    machine = two_on_two()
    assert machine.waiting() == [1, 2]
    win(machine, 1, "pc", "minor")
    assert machine.waiting() == [2]
    unchanged(
        machine,
        lambda: win(machine, 1, "pc", "minor"),
        r"pairing #1 \(Asha vs Troll\) has already played round 1; play #2 \(Bren vs Orc\)",
    )
    win(machine, 2, "opponent", "minor")
    assert machine.round == 2
    assert machine.waiting() == [1, 2]


def test_the_gm_chooses_the_order_within_a_round_5_2_1():
    machine = two_on_two()
    win(machine, 2, "pc", "minor")
    win(machine, 1, "pc", "minor")
    assert machine.round == 2


def test_each_pairing_is_first_to_five_and_the_side_left_standing_wins_5_2_1():
    machine = two_on_two()
    win(machine, 1, "pc", "complete")  # Troll is out
    assert not machine.is_over
    assert machine.state()["pairings"][0]["status"] == "won"
    win(machine, 2, "opponent", "major")  # Bren 0 - 3
    win(machine, 2, "pc", "complete")  # Bren 5 - 3: Orc is out too
    assert machine.is_over
    assert machine.winner == "pc"


def test_a_free_winner_may_engage_an_opponent_already_paired_5_2_1():
    machine = two_on_two()
    win(machine, 1, "pc", "complete")  # Asha is free
    win(machine, 2, "opponent", "minor")
    new = machine.engage(pc="Asha", opponent="Orc")
    assert new == 3
    assert machine.pairing_between("Asha", "Orc") == 3
    # A new pairing starts at 0 - 0; Orc's 2 RP against Bren do not count there.
    assert machine.points(3) == {"pc": 0, "opponent": 0}
    win(machine, 3, "pc", "complete")  # Orc out: the pairing with Bren ends too
    assert machine.is_over and machine.winner == "pc"
    assert machine.state()["pairings"][1]["status"] == "ended"


def test_the_opposition_wins_when_no_pc_is_left_5_2():
    machine = two_on_two()
    win(machine, 1, "opponent", "complete")
    win(machine, 2, "opponent", "complete")
    assert machine.is_over and machine.winner == "opponent"


def test_losing_a_pairing_is_not_losing_the_contest_5_2():
    machine = two_on_two()
    win(machine, 1, "opponent", "complete")  # Asha is out
    assert not machine.is_over
    win(machine, 2, "pc", "complete")  # Orc is out; Troll still stands
    assert not machine.is_over
    machine.engage(pc="Bren", opponent="Troll")
    win(machine, 3, "pc", "complete")
    assert machine.winner == "pc"


def test_nothing_is_allowed_after_the_end():
    machine = two_on_two()
    win(machine, 1, "opponent", "complete")
    win(machine, 2, "opponent", "complete")
    unchanged(machine, lambda: machine.engage(pc="Asha", opponent="Orc"), "the contest is over")


@pytest.mark.parametrize(
    ("attempt", "match"),
    [
        (lambda m: m.play_round(pairing=9, pc_roll=5, opponent_roll=5), "no pairing #9"),
        (lambda m: m.engage(pc="Zed", opponent="Orc"), "no participant named 'Zed'"),
        (lambda m: m.engage(pc="Troll", opponent="Orc"), "Troll is on the opponent side"),
        (lambda m: m.engage(pc="Asha", opponent="Troll"), "already paired"),
        (
            lambda m: m.assist(helper="Zed", recipient="Asha", helper_roll=5, resistance_roll=5),
            "no participant named 'Zed'",
        ),
        (
            lambda m: m.parting_shot(shooter="Asha", target="Ghost", shooter_roll=5, target_roll=5),
            "no participant named 'Ghost'",
        ),
    ],
)
def test_acting_for_someone_not_in_the_contest_is_illegal(attempt, match):
    machine = two_on_two()
    unchanged(machine, lambda: attempt(machine), match)


def test_a_defeated_participant_cannot_be_paired_again():
    machine = two_on_two()
    win(machine, 1, "opponent", "complete")
    unchanged(machine, lambda: machine.engage(pc="Asha", opponent="Orc"), "out of the contest")


def test_a_closed_pairing_plays_no_more():
    machine = two_on_two()
    win(machine, 1, "pc", "complete")
    win(machine, 2, "pc", "minor")
    unchanged(machine, lambda: win(machine, 1, "pc", "minor"), r"pairing #1 .* is over")


# ---------------------------------------------------------------------------
# §5.2.3 assists
# ---------------------------------------------------------------------------


def assist_table():
    """Asha (free, rated 14) can assist Bren, who has 2 RP against him from Orc."""
    machine = GroupScoredContest(
        participants=[
            person("Asha", "pc", 14),
            person("Bren", "pc"),
            person("Cato", "pc", 14),
            person("Orc", "opponent"),
            person("Troll", "opponent"),
        ],
        pairings=[["Bren", "Orc"]],
    )
    win(machine, 1, "opponent", "minor")
    return machine


ASSIST_CELLS = [
    ("complete victory", 0),  # -4, never below 0
    ("major victory", 0),  # -3
    ("minor victory", 0),  # -2
    ("marginal victory", 1),  # -1
    ("tie", 2),
    ("marginal defeat", 2),  # 0
    ("minor defeat", 3),  # +1
    ("major defeat", 4),  # +2
    ("complete defeat", 5),  # +3: Bren is knocked out
]


@pytest.mark.parametrize(("outcome", "score"), ASSIST_CELLS)
def test_assist_table_cell_in_play_5_2_3(outcome, score):
    machine = assist_table()
    helper_roll, resistance_roll = ASSIST_ROLLS[outcome]
    result = machine.assist(
        helper="Asha", recipient="Bren", helper_roll=helper_roll, resistance_roll=resistance_roll
    )
    assert result.describe == outcome
    assert machine.points(1) == {"pc": 0, "opponent": score}
    entry = machine.log[-1]
    assert (entry["kind"], entry["resistance"], entry["score_against"]) == (
        "assist",
        "moderate",
        score,
    )
    bren = next(p for p in machine.state()["participants"] if p["name"] == "Bren")
    assert bren["status"] == ("defeated" if score >= 5 else "active")


def test_successive_assists_face_rising_resistance_whoever_helps_5_2_3():
    machine = assist_table()
    levels = []
    for helper in ("Asha", "Cato", "Asha", "Cato", "Asha"):
        machine.assist(helper=helper, recipient="Bren", helper_roll=CRIT, resistance_roll=FUMB)
        levels.append(machine.log[-1]["resistance"])
        tie(machine, 1)  # the pairing plays; the next group round begins
    assert levels == ["moderate", "high", "very_high", "nearly_impossible", "nearly_impossible"]


def test_the_gm_may_shift_the_starting_resistance_one_step_5_2_3():
    machine = assist_table()
    machine.assist(
        helper="Asha", recipient="Bren", helper_roll=7, resistance_roll=7, resistance_shift=-1
    )
    assert machine.log[-1]["resistance"] == "low"


def test_the_next_resistance_is_in_the_state():
    machine = assist_table()
    machine.assist(helper="Asha", recipient="Bren", helper_roll=7, resistance_roll=7)
    bren = next(p for p in machine.state()["participants"] if p["name"] == "Bren")
    assert (bren["assists_received"], bren["next_assist_resistance"]) == (1, "high")


def test_an_assist_against_very_high_resistance_is_hard():
    machine = assist_table()
    machine.assist(helper="Asha", recipient="Bren", helper_roll=7, resistance_roll=7)
    tie(machine, 1)
    machine.assist(helper="Cato", recipient="Bren", helper_roll=7, resistance_roll=7)
    tie(machine, 1)
    # Very high is 14M: its mastery bumps its success to a critical.
    outcome = machine.assist(helper="Asha", recipient="Bren", helper_roll=SUCC, resistance_roll=9)
    assert outcome.describe == "minor defeat"
    assert machine.points(1)["opponent"] == 3


def test_an_enmeshed_participant_cannot_assist_5_2_2():
    machine = two_on_two()
    unchanged(
        machine,
        lambda: machine.assist(helper="Asha", recipient="Bren", helper_roll=5, resistance_roll=5),
        "Asha is enmeshed in pairing #1",
    )


def test_one_unrelated_action_per_round_5_2_2():
    machine = assist_table()
    machine.assist(helper="Asha", recipient="Bren", helper_roll=7, resistance_roll=7)
    unchanged(
        machine,
        lambda: machine.assist(helper="Asha", recipient="Bren", helper_roll=7, resistance_roll=7),
        "already taken an unrelated action in round 2",
    )


def test_assists_only_go_to_enmeshed_teammates_5_2_3():
    machine = assist_table()
    unchanged(
        machine,
        lambda: machine.assist(helper="Asha", recipient="Cato", helper_roll=5, resistance_roll=5),
        "Cato is not enmeshed in a round",
    )
    unchanged(
        machine,
        lambda: machine.assist(helper="Troll", recipient="Bren", helper_roll=5, resistance_roll=5),
        "only assist a teammate",
    )


def test_an_assist_names_the_pairing_when_the_recipient_has_several():
    machine = GroupScoredContest(
        participants=[
            person("Asha", "pc"),
            person("Bren", "pc"),
            person("Troll", "opponent"),
            person("Orc", "opponent"),
        ],
        pairings=[["Bren", "Troll"], ["Bren", "Orc"]],
    )
    win(machine, 1, "opponent", "minor")
    win(machine, 2, "opponent", "marginal")
    unchanged(
        machine,
        lambda: machine.assist(helper="Asha", recipient="Bren", helper_roll=5, resistance_roll=5),
        "name the pairing",
    )
    machine.assist(
        helper="Asha", recipient="Bren", helper_roll=SUCC, resistance_roll=FAIL, pairing=1
    )
    assert machine.points(1)["opponent"] == 0
    assert machine.points(2)["opponent"] == 1


def test_a_hero_point_on_an_assist():
    machine = assist_table()
    outcome = machine.assist(
        helper="Asha", recipient="Bren", helper_roll=FAIL, resistance_roll=SUCC, hero_point=True
    )
    assert outcome.describe == "marginal victory"  # success v success, 15 beats 5
    assert machine.points(1)["opponent"] == 1
    unchanged(
        machine,
        lambda: machine.assist(
            helper="Cato", recipient="Bren", helper_roll=CRIT, resistance_roll=5, hero_point=True
        ),
        "cannot raise Cato's critical",
    )


# ---------------------------------------------------------------------------
# Hero points in rounds (R5.3)
# ---------------------------------------------------------------------------


def test_hero_points_are_counted_and_refused_for_the_gm():
    machine = two_on_two()
    # Asha's success (3) is raised to a critical: she wins a minor victory instead.
    assert win(machine, 1, "opponent", "marginal", pc_hero_point=True).points == 2
    asha = next(p for p in machine.state()["participants"] if p["name"] == "Asha")
    assert asha["hero_points_spent"] == 1
    unchanged(
        machine,
        lambda: win(machine, 2, "pc", "minor", opponent_hero_point=True),
        "Orc is the GM's",
    )
    unchanged(
        machine,
        lambda: machine.play_round(pairing=2, pc_roll=CRIT, opponent_roll=5, pc_hero_point=True),
        "cannot raise Bren's critical",
    )


# ---------------------------------------------------------------------------
# §5.2.4 followers
# ---------------------------------------------------------------------------


def with_followers(**setup):
    return GroupScoredContest(
        participants=[
            person("Asha", "pc"),
            person("Squire", "pc", 10, role="secondary", owner="Asha"),
            person("Bren", "pc"),
            person("Rex", "pc", 10, role="follower", owner="Bren"),
            person("Dog", "pc", 14, role="supporter", owner="Bren"),
            person("Troll", "opponent"),
            person("Orc", "opponent"),
            person("Goblin", "opponent"),
        ],
        pairings=[["Asha", "Troll"], ["Rex", "Orc"]],
        **setup,
    )


def test_a_follower_contestant_leaves_at_three_then_takes_two_more_5_2_4():
    machine = with_followers()
    win(machine, 2, "opponent", "minor")  # Rex 0 - 2
    tie(machine, 1)
    assert machine.points(2) == {"pc": 0, "opponent": 2}
    win(machine, 2, "opponent", "marginal")  # 3 against Rex: out, and 2 more
    assert machine.points(2) == {"pc": 0, "opponent": 5}
    rex = next(p for p in machine.state()["participants"] if p["name"] == "Rex")
    assert rex["status"] == "defeated"
    assert rex["points_against"] == 5
    assert machine.consequence_of("Rex") == "injured"  # rising action, a lead of 5


def test_a_follower_contestant_stays_at_two():
    machine = with_followers()
    win(machine, 2, "opponent", "minor")
    assert machine.state()["participants"][3]["status"] == "active"


def test_followers_spend_their_owners_hero_points_r5():
    """§5.2.4, R5.3: a follower has no hero points of its own; its owner pays for the
    bump on its roll."""
    machine = with_followers()
    win(machine, 2, "opponent", "marginal", pc_hero_point=True)  # on Rex's roll
    spent = {p["name"]: p["hero_points_spent"] for p in machine.state()["participants"]}
    assert (spent["Bren"], spent["Rex"]) == (1, 0)


def test_a_secondary_contestant_takes_shifted_points_and_leaves_at_three_5_2_4():
    machine = with_followers()
    win(machine, 1, "opponent", "major")  # Asha 0 - 3
    machine.shift_points(owner="Asha", follower="Squire", pairing=1, points=2)
    assert machine.points(1) == {"pc": 0, "opponent": 1}
    squire = next(p for p in machine.state()["participants"] if p["name"] == "Squire")
    assert (squire["status"], squire["shifted_points"]) == ("active", 2)
    win(machine, 2, "pc", "marginal")
    # Troll's minor brings Asha to 3; she shifts 1 more onto Squire within the round.
    win(machine, 1, "opponent", "minor", pc_shift={"Squire": 1})
    assert machine.points(1) == {"pc": 0, "opponent": 2}
    squire = next(p for p in machine.state()["participants"] if p["name"] == "Squire")
    assert (squire["status"], squire["shifted_points"]) == ("defeated", 5)
    assert machine.consequence_of("Squire") == "injured"  # 5 RP against, rising action


def test_shifting_within_a_round_can_save_the_owner_5_2_4():
    machine = with_followers()
    win(machine, 1, "opponent", "major")  # Asha 0 - 3
    win(machine, 2, "pc", "marginal")
    win(machine, 1, "opponent", "minor", pc_shift={"Squire": 2})  # 5, shifted to 3
    assert machine.points(1)["opponent"] == 3
    assert machine.state()["participants"][0]["status"] == "active"


def test_shifting_is_limited_to_the_points_against_5_2_4():
    machine = with_followers()
    win(machine, 1, "opponent", "marginal")
    unchanged(
        machine,
        lambda: machine.shift_points(owner="Asha", follower="Squire", pairing=1, points=2),
        "Asha has 1 RP against them",
    )
    unchanged(
        machine,
        lambda: machine.shift_points(owner="Asha", follower="Dog", pairing=1, points=1),
        "Dog is not a secondary contestant of Asha",
    )


def test_a_secondary_contestant_does_not_roll_5_2_4():
    machine = with_followers()
    unchanged(
        machine, lambda: machine.engage(pc="Squire", opponent="Goblin"), "Squire is a secondary"
    )
    unchanged(
        machine,
        lambda: machine.assist(helper="Squire", recipient="Asha", helper_roll=5, resistance_roll=5),
        "secondary contestant: they do not roll",
    )


def test_a_supporter_assists_but_is_not_paired_5_2_4():
    machine = with_followers()
    win(machine, 2, "opponent", "minor")  # Rex 0 - 2
    machine.assist(helper="Dog", recipient="Rex", helper_roll=SUCC, resistance_roll=FAIL)
    assert machine.points(2)["opponent"] == 0
    unchanged(machine, lambda: machine.engage(pc="Dog", opponent="Goblin"), "Dog is a supporter")


def test_supporters_and_secondaries_do_not_keep_a_side_standing_5_2_4():
    machine = with_followers()
    win(machine, 1, "opponent", "complete")  # Asha out
    win(machine, 2, "opponent", "major")  # Rex out
    assert not machine.is_over  # Bren stands, unpaired
    machine.engage(pc="Bren", opponent="Goblin")
    win(machine, 3, "opponent", "complete")
    assert machine.is_over and machine.winner == "opponent"


@pytest.mark.parametrize(
    ("degree", "rolls", "points"),
    [
        ("marginal", (SUCC, 3), 3),  # X = 1, +2
        ("minor", (SUCC, FAIL), 4),
        ("major", (SUCC, FUMB), 5),
        ("complete", (CRIT, FUMB), 7),
    ],
)
def test_an_unengaged_opponent_removes_a_follower_with_x_plus_2_5_2_4(degree, rolls, points):
    machine = with_followers()
    remover_roll, follower_roll = rolls
    outcome = machine.remove_follower(
        remover="Goblin", follower="Dog", remover_roll=remover_roll, follower_roll=follower_roll
    )
    assert outcome.degree == degree
    dog = next(p for p in machine.state()["participants"] if p["name"] == "Dog")
    assert (dog["status"], dog["points_against"]) == ("defeated", points)
    assert machine.log[-1]["removed"] is True


def test_a_follower_who_resists_removal_stays_5_2_4():
    machine = with_followers()
    machine.remove_follower(remover="Goblin", follower="Dog", remover_roll=FAIL, follower_roll=SUCC)
    dog = next(p for p in machine.state()["participants"] if p["name"] == "Dog")
    assert dog["status"] == "active"


def test_removing_a_follower_contestant_ends_their_pairing_5_2_4():
    machine = with_followers()
    machine.remove_follower(remover="Goblin", follower="Rex", remover_roll=SUCC, follower_roll=FAIL)
    assert machine.state()["pairings"][1]["status"] == "ended"
    assert machine.consequence_of("Rex") == "impaired"  # 2 + 2 = 4 against: rising lead of 4


def test_only_unengaged_opponents_remove_followers_5_2_4():
    machine = with_followers()
    unchanged(
        machine,
        lambda: machine.remove_follower(
            remover="Troll", follower="Dog", remover_roll=5, follower_roll=15
        ),
        "Troll is enmeshed",
    )
    unchanged(
        machine,
        lambda: machine.remove_follower(
            remover="Goblin", follower="Bren", remover_roll=5, follower_roll=15
        ),
        "Bren is not a follower",
    )


# ---------------------------------------------------------------------------
# §5.2.5-6 gambits and defensive responses in pairings
# ---------------------------------------------------------------------------


def test_gambits_and_defensive_responses_per_pairing_5_2_5_and_5_2_6():
    machine = two_on_two()
    assert win(machine, 1, "pc", "minor", pc_tactic="risky_gambit").points == 3
    assert win(machine, 2, "opponent", "major", pc_tactic="defensive").points == 1
    assert (
        win(
            machine,
            1,
            "opponent",
            "marginal",
            pc_tactic="risky_gambit",
            opponent_tactic="risky_gambit",
        ).points
        == 3
    )
    assert machine.points(1) == {"pc": 3, "opponent": 3}


# ---------------------------------------------------------------------------
# §5.1.6 disengaging, §5.1.5 asymmetrical rounds and §5.2.2 unrelated actions
# ---------------------------------------------------------------------------


def test_a_disengaged_participant_is_out_with_consequences_settled_5_1_6():
    machine = two_on_two()
    win(machine, 1, "pc", "minor")
    win(machine, 2, "opponent", "major")  # Bren 0 - 3
    win(machine, 2, "pc", "marginal", pc_tactic="disengage")
    assert not machine.is_over
    assert machine.state()["pairings"][1]["status"] == "disengaged"
    # Rising action: Bren escapes unharmed, settled at once.
    assert machine.consequence_of("Bren") == "unharmed"
    # Orc is free to engage Asha.
    machine.engage(pc="Asha", opponent="Orc")
    unchanged(machine, lambda: machine.engage(pc="Bren", opponent="Troll"), "disengaged")
    # Bren may still take unrelated actions, such as an assist (§5.2.2).
    machine.assist(helper="Bren", recipient="Asha", pairing=1, helper_roll=7, resistance_roll=7)


def test_a_disengagement_at_a_climax_counts_the_points_5_1_6():
    machine = two_on_two(stakes="climax")
    win(machine, 1, "pc", "minor")
    win(machine, 2, "opponent", "major")  # Bren 0 - 3
    win(machine, 2, "pc", "marginal", pc_tactic="disengage")
    assert machine.consequence_of("Bren") == "hurt"  # 3 against, not a loser


def test_the_last_pc_disengaging_loses_the_contest_for_the_side_5_1_6():
    machine = GroupScoredContest(
        participants=[person("Asha", "pc"), person("Troll", "opponent")],
        pairings=[["Asha", "Troll"]],
    )
    win(machine, 1, "pc", "minor", pc_tactic="disengage")
    assert machine.is_over and machine.winner == "opponent"
    assert machine.degree is None  # nobody was defeated
    assert machine.consequences() == {"Asha": "unharmed", "Troll": "unharmed"}


def test_an_asymmetrical_round_in_a_pairing_5_1_5():
    machine = two_on_two()
    scored = win(machine, 1, "pc", "complete", pc_tactic="asymmetrical", pc_rating=12)
    assert (scored.points, scored.objective_achieved) == (0, "pc")
    assert machine.log[-1]["pc_rating"] == "12"
    assert machine.points(1) == {"pc": 0, "opponent": 0}


def test_an_unrelated_action_by_a_free_participant_5_2_2():
    machine = assist_table()
    outcome = machine.unrelated_action(
        participant="Asha", roll=SUCC, resistance_roll=FUMB, resistance_level="high"
    )
    assert outcome.describe == "major victory"
    assert machine.log[-1]["resistance"] == "20"
    machine.unrelated_action(participant="Cato", roll=3, resistance_roll=4, resistance_rating="7M")
    assert machine.log[-1]["resistance"] == "7M"
    unchanged(
        machine,
        lambda: machine.unrelated_action(participant="Bren", roll=5, resistance_roll=5),
        "Bren is enmeshed",
    )


# ---------------------------------------------------------------------------
# §5.1.4 parting shots in a group
# ---------------------------------------------------------------------------


def test_a_parting_shot_right_after_the_knockout_5_1_4():
    machine = two_on_two()
    win(machine, 1, "pc", "major")  # 3
    win(machine, 2, "pc", "marginal")
    win(machine, 1, "pc", "minor")  # 5: Troll is out; the knock-out round scored 2
    assert machine.parting_shots_open() == ["Troll"]
    outcome = machine.parting_shot(
        shooter="Asha", target="Troll", shooter_roll=SUCC, target_roll=FAIL
    )
    assert outcome.describe == "minor victory"
    assert machine.points(1)["pc"] == 7
    assert machine.parting_shots_open() == []
    unchanged(
        machine,
        lambda: machine.parting_shot(shooter="Bren", target="Troll", shooter_roll=5, target_roll=9),
        "not just knocked out",
    )


def test_a_failed_parting_shot_revives_and_reopens_the_pairing_5_1_4():
    machine = two_on_two()
    win(machine, 1, "pc", "major")  # 3
    win(machine, 2, "pc", "marginal")
    win(machine, 1, "pc", "minor")  # 5, the knock-out round scored 2
    machine.parting_shot(shooter="Asha", target="Troll", shooter_roll=3, target_roll=SUCC)
    assert machine.points(1)["pc"] == 4
    assert machine.state()["pairings"][0]["status"] == "active"
    troll = next(p for p in machine.state()["participants"] if p["name"] == "Troll")
    assert troll["status"] == "active"
    assert machine.log[-1]["revived"] is True


def test_a_parting_shot_after_the_last_knockout_may_revive_the_contest_5_1_4():
    machine = GroupScoredContest(
        participants=[person("Asha", "pc"), person("Troll", "opponent")],
        pairings=[["Asha", "Troll"]],
    )
    win(machine, 1, "pc", "complete")
    assert machine.is_over
    machine.parting_shot(shooter="Asha", target="Troll", shooter_roll=FUMB, target_roll=CRIT)
    assert not machine.is_over  # 5 - 5 = 0: Troll is back
    assert machine.points(1) == {"pc": 0, "opponent": 0}


def test_an_unengaged_teammate_may_take_the_parting_shot_5_1_4():
    machine = GroupScoredContest(
        participants=[
            person("Asha", "pc"),
            person("Bren", "pc"),
            person("Troll", "opponent"),
            person("Orc", "opponent"),
        ],
        pairings=[["Asha", "Troll"], ["Asha", "Orc"]],
    )
    win(machine, 1, "pc", "complete")
    machine.parting_shot(shooter="Bren", target="Troll", shooter_roll=SUCC, target_roll=3)
    assert machine.points(1)["pc"] == 6


def test_parting_shot_window_closes_after_the_next_round_5_1_4():
    machine = two_on_two()
    win(machine, 1, "pc", "complete")  # round 1: Troll out
    win(machine, 2, "pc", "marginal")  # round 2 begins
    assert machine.parting_shots_open() == ["Troll"]
    win(machine, 2, "pc", "marginal")  # round 3 begins
    assert machine.parting_shots_open() == []
    unchanged(
        machine,
        lambda: machine.parting_shot(shooter="Asha", target="Troll", shooter_roll=5, target_roll=9),
        "not just knocked out",
    )


def test_no_parting_shot_by_the_gm_or_at_a_teammate_5_1_4():
    machine = two_on_two()
    win(machine, 1, "opponent", "complete")  # Asha out
    unchanged(
        machine,
        lambda: machine.parting_shot(shooter="Troll", target="Asha", shooter_roll=5, target_roll=9),
        "the GM does not make parting shots",
    )
    win(machine, 2, "opponent", "marginal")
    unchanged(
        machine,
        lambda: machine.parting_shot(shooter="Bren", target="Asha", shooter_roll=5, target_roll=9),
        "teammate",
    )


def test_an_enmeshed_pc_cannot_take_the_parting_shot_5_1_4():
    machine = GroupScoredContest(
        participants=[person("Asha", "pc"), person("Troll", "opponent"), person("Orc", "opponent")],
        pairings=[["Asha", "Troll"], ["Asha", "Orc"]],
    )
    win(machine, 1, "pc", "complete")
    unchanged(
        machine,
        lambda: machine.parting_shot(shooter="Asha", target="Troll", shooter_roll=5, target_roll=9),
        "Asha is enmeshed in pairing #2",
    )


# ---------------------------------------------------------------------------
# Consequences and the group victory level (§5.1.2, §5.1.3, §5.2, R12)
# ---------------------------------------------------------------------------


def three_opponents(**setup):
    return GroupScoredContest(
        participants=[
            person("Asha", "pc"),
            person("Bren", "pc"),
            person("Cato", "pc"),
            person("Troll", "opponent"),
            person("Orc", "opponent"),
            person("Goblin", "opponent"),
        ],
        pairings=[["Asha", "Troll"], ["Bren", "Orc"], ["Cato", "Goblin"]],
        **setup,
    )


def test_group_victory_level_is_the_second_worst_consequence_rising_action_5_2():
    machine = three_opponents()
    win(machine, 1, "pc", "complete", opponent_tactic="risky_gambit")  # Troll: lead 7, dying
    win(machine, 2, "pc", "major")  # Orc 3
    win(machine, 3, "pc", "minor")  # Goblin 2
    win(machine, 2, "pc", "minor")  # Orc: lead 5, injured
    win(machine, 3, "opponent", "minor")  # Goblin 2 - 2
    win(machine, 3, "pc", "major")  # Goblin: 5 - 2, a lead of 3: impaired
    assert machine.is_over
    assert machine.consequences() == {
        "Asha": "unharmed",
        "Bren": "unharmed",
        "Cato": "unharmed",
        "Troll": "dying",
        "Orc": "injured",
        "Goblin": "impaired",
    }
    assert machine.degree == "major"  # the second-worst: injured


def test_group_victory_level_with_one_opponent_is_theirs_5_2():
    machine = GroupScoredContest(
        participants=[person("Asha", "pc"), person("Bren", "pc"), person("Troll", "opponent")],
        pairings=[["Asha", "Troll"], ["Bren", "Troll"]],
    )
    win(machine, 1, "pc", "minor")
    win(machine, 2, "pc", "major")
    win(machine, 1, "pc", "major")  # Asha 5 - 0: Troll out, injured
    assert machine.degree == "major"
    assert machine.state()["pairings"][1]["status"] == "ended"


def test_rising_action_uses_the_last_opponent_engaged_5_1_2():
    machine = GroupScoredContest(
        participants=[
            person("Asha", "pc"),
            person("Bren", "pc"),
            person("Troll", "opponent"),
            person("Orc", "opponent"),
        ],
        pairings=[["Asha", "Troll"], ["Bren", "Orc"]],
    )
    win(machine, 1, "opponent", "major")  # Asha 0 - 3
    win(machine, 2, "pc", "marginal")
    win(machine, 1, "pc", "complete")  # Asha 5 - 3 knocks Troll out
    machine.engage(pc="Asha", opponent="Orc")
    win(machine, 2, "pc", "minor")  # Bren 3 - 0
    win(machine, 3, "pc", "complete")  # Asha 5 - 0: Orc out
    # Asha's last pairing was a 5 - 0 win: unharmed, though Troll scored 3 on her.
    assert machine.consequence_of("Asha") == "unharmed"
    # Bren's pairing ended when Orc fell elsewhere: no decided pairing, unharmed.
    assert machine.consequence_of("Bren") == "unharmed"
    assert machine.consequence_of("Troll") == "hurt"  # a lead of 2
    assert machine.consequence_of("Orc") == "injured"


def test_a_knocked_out_participant_reads_the_pairing_that_took_them_out_5_1_2():
    """Bren wins the later pairing #3 first, then falls in the older pairing #2: his
    individual outcome is that defeat, not the earlier-listed victory."""
    machine = two_on_two()
    win(machine, 1, "opponent", "complete")  # Asha out
    win(machine, 2, "opponent", "major")  # Bren 0 - 3 against Orc
    machine.engage(pc="Bren", opponent="Troll")
    win(machine, 3, "pc", "complete")  # Troll out: Bren 5 - 0
    win(machine, 2, "opponent", "minor")  # Bren 0 - 5 against Orc: out
    assert machine.is_over and machine.winner == "opponent"
    assert machine.consequence_of("Bren") == "injured"  # a lead of 5 against him
    assert machine.consequence_of("Asha") == "injured"
    assert machine.degree == "major"


def test_climax_adds_up_the_points_of_every_pairing_5_1_3():
    machine = GroupScoredContest(
        participants=[
            person("Asha", "pc"),
            person("Bren", "pc"),
            person("Troll", "opponent"),
            person("Orc", "opponent"),
        ],
        pairings=[["Asha", "Troll"], ["Asha", "Orc"], ["Bren", "Orc"]],
        stakes="climax",
    )
    win(machine, 1, "opponent", "minor")  # 2 against Asha
    win(machine, 2, "opponent", "marginal")  # 1 more
    win(machine, 3, "pc", "complete")  # Orc out (5 against, +1: injured)
    win(machine, 1, "pc", "complete")  # Troll out (5 against, +1: injured)
    assert machine.is_over
    assert machine.points_against("Asha") == 3
    consequences = machine.consequences()
    assert consequences["Asha"] == "hurt"
    assert consequences["Troll"] == "injured"
    assert consequences["Orc"] == "injured"
    assert machine.degree == "major"


def test_consequences_of_the_active_wait_for_the_end():
    machine = two_on_two()
    win(machine, 1, "pc", "complete")
    assert machine.consequence_of("Troll") == "injured"  # out: settled (provisionally)
    unchanged(machine, lambda: machine.consequence_of("Asha"), "settled when they leave")
    unchanged(machine, machine.consequences, "no consequence is certain")


# ---------------------------------------------------------------------------
# §5.2.7 joining in progress and §5.2.8 switching abilities
# ---------------------------------------------------------------------------


def test_joining_in_progress_then_engaging_5_2_7():
    machine = two_on_two()
    win(machine, 1, "opponent", "major")
    machine.join(name="Dara", side="pc", rating="12")
    machine.engage(pc="Dara", opponent="Troll")
    win(machine, 3, "pc", "minor")
    assert machine.points(3) == {"pc": 2, "opponent": 0}
    unchanged(
        machine,
        lambda: machine.join(name="Dara", side="pc", rating="12"),
        "names must be unique",
        RulesError,
    )


def test_a_joining_follower_takes_the_owners_player_flag():
    machine = two_on_two()
    machine.join(name="Hound", side="pc", rating=8, role="supporter", owner="Asha")
    hound = next(p for p in machine.state()["participants"] if p["name"] == "Hound")
    assert hound["player"] is True


def test_switching_ability_in_a_pairing_5_2_8():
    machine = two_on_two()
    machine.switch_ability(pairing=1, participant="Asha", rating="10M")
    opponent = machine.state()["pairings"][0]["opponent"]
    machine.switch_ability(pairing=1, participant=opponent, rating=12)
    pairing = machine.state()["pairings"][0]
    assert (pairing["pc_rating"], pairing["opponent_rating"]) == ("10M", "12")
    scored = win(machine, 1, "pc", "marginal")  # success bumped to critical v success
    assert scored.outcome.describe == "minor victory"
    unchanged(
        machine,
        lambda: machine.switch_ability(pairing=1, participant="Bren", rating=12),
        "Bren is not in active pairing #1",
    )


# ---------------------------------------------------------------------------
# Setup
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("participants", "message"),
    [
        ([person("Asha", "pc")], "needs a contestant on the opponent side"),
        ([person("Asha", "pc"), person("Asha", "opponent")], "names must be unique"),
        ([person("Asha", "gm"), person("Troll", "opponent")], "side must be"),
        ([person("Asha", "pc", "7Q"), person("Troll", "opponent")], "not a rating"),
        (
            [person("Asha", "pc"), person("Troll", "opponent"), person("Rex", "pc", role="pet")],
            "role must be one of",
        ),
        (
            [
                person("Asha", "pc"),
                person("Troll", "opponent"),
                person("Rex", "pc", role="follower"),
            ],
            "name their owner",
        ),
        (
            [
                person("Asha", "pc"),
                person("Troll", "opponent"),
                person("Rex", "pc", role="follower", owner="Troll"),
            ],
            "must be a contestant on the same side",
        ),
        (
            [person("Asha", "pc", extra_field=1), person("Troll", "opponent")],
            "unknown participant field",
        ),
        (
            [person("Asha", "pc", role="follower", owner="Bren"), person("Troll", "opponent")],
            "must be a contestant on the same side",
        ),
    ],
)
def test_bad_setups_are_refused(participants, message):
    with pytest.raises(RulesError, match=message):
        GroupScoredContest(participants=participants)


def test_state_is_json():
    machine = with_followers(stakes="climax")
    win(machine, 1, "pc", "minor")
    state = machine.state()
    assert json.loads(json.dumps(state)) == state
    assert state["pairings"][0]["pc_points"] == 2
    assert state["participants"][1]["role"] == "secondary"


def test_roll_round_records_rolls():
    from contests.core.rules.dice import fixed_rolls

    machine = two_on_two()
    machine.roll_round(pairing=1, roller=fixed_rolls(SUCC, FAIL))
    assert machine.actions == [
        {"action": "play_round", "pairing": 1, "pc_roll": SUCC, "opponent_roll": FAIL}
    ]


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

round_options = st.fixed_dictionaries(
    {"pc_roll": st.integers(1, 20), "opponent_roll": st.integers(1, 20)},
    optional={
        "pc_tactic": st.sampled_from(TACTICS),
        "opponent_tactic": st.sampled_from(TACTICS),
        "pc_hero_point": st.booleans(),
        "pc_modifier": st.sampled_from([-3, 0, 3]),
    },
)


@given(
    rounds=st.lists(round_options, max_size=12), stakes=st.sampled_from(["rising_action", "climax"])
)
def test_property_one_pairing_plays_like_the_one_on_one_contest(rounds, stakes):
    single = ScoredContest(pc=12, opponent="3M", stakes=stakes)
    group = GroupScoredContest(
        participants=[person("Asha", "pc", 12), person("Troll", "opponent", "3M")],
        pairings=[["Asha", "Troll"]],
        stakes=stakes,
    )
    for options in rounds:
        if single.is_over:
            break
        try:
            single.play_round(**options)
        except IllegalAction:
            with pytest.raises(IllegalAction):
                group.play_round(pairing=1, **options)
            continue
        group.play_round(pairing=1, **options)
        assert group.points(1) == single.points
    assert group.is_over == single.is_over
    assert group.winner == single.winner
    assert group.degree == single.degree
    if single.is_over:
        expected = single.consequences()
        assert group.consequences() == {"Asha": expected["pc"], "Troll": expected["opponent"]}


# Mostly plausible actions, with a few wrong names and sides mixed in.
pc_names = st.sampled_from(["Asha", "Bren", "Rex", "Squire", "Dog", "Troll", "Nobody"])
opponent_names = st.sampled_from(["Troll", "Orc", "Goblin", "Rex", "Nobody"])
roll = st.integers(1, 20)
play = st.tuples(st.just("play"), st.integers(0, 5), round_options)
# Big wins either way, so that knock-outs, ends and parting shots come up often.
decisive = st.tuples(
    st.just("play"),
    st.integers(0, 4),
    st.sampled_from([CRIT, SUCC, FUMB]).flatmap(
        lambda pc_roll: st.fixed_dictionaries(
            {"pc_roll": st.just(pc_roll), "opponent_roll": st.sampled_from([CRIT, SUCC, FUMB])}
        )
    ),
)
operations = st.one_of(
    play,
    decisive,
    decisive,
    decisive,
    st.tuples(st.just("engage"), pc_names, opponent_names),
    st.tuples(st.just("pair"), st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.just("pair"), st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.just("open_shot"), pc_names, roll, roll),
    st.tuples(st.just("assist"), pc_names, pc_names, roll, roll),
    st.tuples(st.just("shot"), pc_names, opponent_names, roll, roll),
    st.tuples(st.just("shift"), st.integers(1, 4), st.integers(1, 3)),
    st.tuples(st.just("remove"), opponent_names, pc_names, roll, roll),
)


def apply(machine, operation):
    kind, *args = operation
    if kind == "play":
        # Mostly a pairing still waiting this round; sometimes a wrong number.
        waiting = machine.waiting()
        pairing = waiting[args[0] % len(waiting)] if waiting and args[0] < 5 else args[0]
        return machine.play_round(pairing=pairing, **args[1])
    if kind == "engage":
        return machine.engage(pc=args[0], opponent=args[1])
    if kind == "pair":
        # Two participants still standing, chosen by index.
        standing = [
            p
            for p in machine.state()["participants"]
            if p["status"] == "active" and p["role"] in ("contestant", "follower")
        ]
        pcs = [p["name"] for p in standing if p["side"] == "pc"] or ["Nobody"]
        opponents = [p["name"] for p in standing if p["side"] == "opponent"] or ["Nobody"]
        return machine.engage(
            pc=pcs[args[0] % len(pcs)], opponent=opponents[args[1] % len(opponents)]
        )
    if kind == "open_shot":
        targets = machine.parting_shots_open() or ["Nobody"]
        return machine.parting_shot(
            shooter=args[0], target=targets[0], shooter_roll=args[1], target_roll=args[2]
        )
    if kind == "assist":
        return machine.assist(
            helper=args[0], recipient=args[1], helper_roll=args[2], resistance_roll=args[3]
        )
    if kind == "shot":
        return machine.parting_shot(
            shooter=args[0], target=args[1], shooter_roll=args[2], target_roll=args[3]
        )
    if kind == "shift":
        return machine.shift_points(
            owner="Asha", follower="Squire", pairing=args[0], points=args[1]
        )
    return machine.remove_follower(
        remover=args[0], follower=args[1], remover_roll=args[2], follower_roll=args[3]
    )


@settings(max_examples=examples(150))
@given(
    operations=st.lists(operations, min_size=5, max_size=40),
    stakes=st.sampled_from(["rising_action", "climax"]),
)
def test_property_group_play_keeps_the_rules_and_replays(operations, stakes):
    machine = with_followers(stakes=stakes)
    for operation in operations:
        before = copy.deepcopy(machine.to_json())
        try:
            apply(machine, operation)
        except RulesError:
            assert machine.to_json() == before  # an illegal action changes nothing
            continue
        state = machine.state()
        for pairing in state["pairings"]:
            assert pairing["pc_points"] >= 0 and pairing["opponent_points"] >= 0
            if pairing["status"] == "won" and pairing["kind"] == "contest":
                won, lost = ("pc", "opponent") if pairing["winner"] == "pc" else ("opponent", "pc")
                assert pairing[f"{won}_points"] >= 5 > pairing[f"{lost}_points"]
            if pairing["status"] == "active":
                assert pairing["pc_points"] < 5 and pairing["opponent_points"] < 5
        for participant in state["participants"]:
            assert participant["points_against"] >= 0
            if participant["status"] != "active" or state["is_over"]:
                assert participant["consequence"] is not None
        standing = {
            side: any(
                p["side"] == side
                and p["role"] in ("contestant", "follower")
                and p["status"] == "active"
                for p in state["participants"]
            )
            for side in ("pc", "opponent")
        }
        assert state["is_over"] == (not all(standing.values()))
        if state["is_over"]:
            assert standing[state["winner"]]
    data = json.loads(json.dumps(machine.to_json()))
    rebuilt = GroupScoredContest.from_json(data)
    assert rebuilt.state() == machine.state()


short_contest_operations = st.one_of(
    decisive,
    decisive,
    decisive,
    play,
    st.tuples(st.just("pair"), st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.just("open_shot"), st.sampled_from(["Asha", "Bren"]), roll, roll),
    st.tuples(
        st.just("assist"),
        st.sampled_from(["Asha", "Bren"]),
        st.sampled_from(["Asha", "Bren"]),
        roll,
        roll,
    ),
)


@settings(max_examples=examples(150))
@given(
    operations=st.lists(short_contest_operations, min_size=10, max_size=40),
    stakes=st.sampled_from(["rising_action", "climax"]),
)
def test_property_two_on_two_contests_end_by_the_rules_and_replay(operations, stakes):
    machine = two_on_two(stakes=stakes)
    for operation in operations:
        before = copy.deepcopy(machine.to_json())
        try:
            apply(machine, operation)
        except RulesError:
            assert machine.to_json() == before
            continue
        if machine.is_over:
            defeated = [
                p["name"]
                for p in machine.state()["participants"]
                if p["side"] != machine.winner and p["status"] == "defeated"
            ]
            # A level exactly when some loser was knocked out (not all disengaged).
            assert (machine.degree is None) == (not defeated)
            assert machine.degree in ("marginal", "minor", "major", "complete", None)
            consequences = machine.consequences()
            assert set(consequences) == {"Asha", "Bren", "Troll", "Orc"}
            for name in defeated:
                assert consequences[name] not in ("unharmed", "dazed")
    rebuilt = GroupScoredContest.from_json(json.loads(json.dumps(machine.to_json())))
    assert rebuilt.state() == machine.state()
