"""The group extended contest (§5.3.3-§5.3.11, RULINGS.md R13)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contests.core.rules.errors import IllegalAction, RulesError
from contests.core.rules.extended_group import DARING_LEVELS, GroupExtendedContest
from tests.examples import examples

# Rolls for TN 10 against TN 4 to 9 (no masteries), giving each outcome level:
# +4 complete victory ... 0 tie ... -4 complete defeat.
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


def contest(order="daring", **extra):
    """Aria (PC, TN 10, 23 AP with a follower), Bran (PC, 10 AP) against an orc (10)."""
    participants = [
        {"name": "Aria", "side": "heroes", "pc": True, "rating": 10, "followers": [13]},
        {"name": "Bran", "side": "heroes", "pc": True, "rating": 10},
        {"name": "Orc", "side": "orcs", "rating": 10},
    ]
    participants.extend(extra.pop("more", []))
    return GroupExtendedContest(participants=participants, order=order, **extra)


def declare_all(game, **bids):
    """Everyone waiting declares: heroes single out the orc, the orc Aria."""
    for name in game.awaiting_declarations:
        target = "Aria" if game.people[name].side == "orcs" else "Orc"
        bid, daring = bids.get(name, (1, "steady"))
        game.declare(name=name, targets=[target], bid=bid, daring=daring)


# ---------------------------------------------------------------------------
# Setup
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("participants", "message"),
    [
        (
            [
                {"name": "A", "side": "x", "rating": 10},
                {"name": "B", "side": "y", "rating": 10},
            ],
            "three contestants or more",
        ),
        (
            [{"name": n, "side": "x", "rating": 10} for n in "ABC"],
            "two sides or more",
        ),
        (
            [{"name": "A", "side": s, "rating": 10} for s in "xyz"],
            "two participants are named 'A'",
        ),
        (
            [
                {"name": "A", "side": "x", "rating": 10, "modifiers": 3},
                {"name": "B", "side": "y", "rating": 10},
                {"name": "C", "side": "y", "rating": 10},
            ],
            "A is a resistance",
        ),
        (
            [
                {"name": "A", "side": "x", "rating": 10, "colour": "red"},
                {"name": "B", "side": "y", "rating": 10},
                {"name": "C", "side": "y", "rating": 10},
            ],
            "unknown participant field",
        ),
        (
            [
                {"name": "A", "side": "x", "rating": -6},
                {"name": "B", "side": "y", "rating": 10},
                {"name": "C", "side": "y", "rating": 10},
            ],
            "A would start with -6 AP",
        ),
        (
            [
                {"name": "A", "side": "x", "rating": 10},
                {"name": "B", "side": "y"},
                {"name": "C", "side": "y", "rating": 10},
            ],
            "needs a rating",
        ),
    ],
)
def test_setup_refuses_what_the_rules_do_not_allow(participants, message):
    with pytest.raises(RulesError, match=message):
        GroupExtendedContest(participants=participants)


def test_unknown_order_rule_is_refused():
    with pytest.raises(RulesError, match="order must be one of daring, bid, ap"):
        contest(order="initiative")


def test_starting_ap_counts_modifiers_and_followers_r13():
    game = contest(
        more=[{"name": "Cai", "side": "heroes", "pc": True, "rating": "5M", "modifiers": [3]}]
    )
    assert game.ap == {"Aria": 23, "Bran": 10, "Orc": 10, "Cai": 28}


# ---------------------------------------------------------------------------
# §5.3.3 declarations and the order of action
# ---------------------------------------------------------------------------


def test_everyone_declares_before_the_round_begins_5_3_3():
    game = contest()
    assert game.phase == "declaring"
    assert game.awaiting_declarations == ["Aria", "Bran", "Orc"]
    with pytest.raises(IllegalAction, match="round 1 has not begun: waiting for Aria, Bran, Orc"):
        game.act(name="Aria", actor_roll=5, defender_roll=15)
    game.declare(name="Aria", targets="Orc", bid=2)
    game.declare(name="Aria", targets=["Orc"], bid=4, daring="daring")  # may change her mind
    game.declare(name="Bran", targets=["Orc"])
    assert game.phase == "declaring"
    game.declare(name="Orc", targets=["Aria", "Bran"], bid=5)
    assert game.phase == "acting"
    assert game.declarations["Aria"] == {"bid": 4, "targets": ["Orc"], "daring": "daring"}
    with pytest.raises(IllegalAction, match="declarations are closed"):
        game.declare(name="Bran", targets=["Orc"])


def test_a_declaration_singles_out_opponents_5_3_3():
    game = contest()
    with pytest.raises(IllegalAction, match="Bran is on Aria's side, not an opponent"):
        game.declare(name="Aria", targets=["Bran"])
    with pytest.raises(IllegalAction, match="unknown target 'Dragon'"):
        game.declare(name="Aria", targets=["Dragon"])
    with pytest.raises(RulesError, match="daring must be one of"):
        game.declare(name="Aria", targets=["Orc"], daring="wild")


def test_a_declared_bid_respects_the_limit_5_3_6():
    game = contest()
    with pytest.raises(IllegalAction, match="bid 11 is over Orc's limit of 10 AP"):
        game.declare(name="Orc", targets=["Aria"], bid=11)
    with pytest.raises(IllegalAction, match="bid 24 is over Aria's limit of 23 AP"):
        game.declare(name="Aria", targets=["Orc"], bid=24)


def more_contestants(order="daring"):
    return contest(
        order=order,
        more=[
            {"name": "Cai", "side": "heroes", "pc": True, "rating": 10},
            {"name": "Wolf", "side": "orcs", "rating": 12},
        ],
    )


def test_order_by_daring_then_bid_5_3_3():
    """§5.3.3 first option: most daring first; a tie goes to the higher bid; then the
    participants list."""
    game = more_contestants()
    declare_all(
        game,
        Aria=(3, "daring"),
        Bran=(2, "reckless"),
        Orc=(5, "daring"),
        Cai=(1, "cautious"),
        Wolf=(3, "daring"),
    )
    assert game.queue == ["Bran", "Orc", "Aria", "Wolf", "Cai"]


def test_order_by_bid_then_daring_5_3_3():
    """§5.3.3 second option: highest bid first; a tie goes to the more daring bid."""
    game = more_contestants(order="bid")
    declare_all(
        game,
        Aria=(3, "daring"),
        Bran=(2, "reckless"),
        Orc=(5, "daring"),
        Cai=(3, "reckless"),
        Wolf=(2, "reckless"),
    )
    assert game.queue == ["Orc", "Cai", "Aria", "Bran", "Wolf"]


def test_order_by_ap_then_bid_then_daring_5_3_3():
    """§5.3.3 third option: highest AP first; ties to the higher bid, then the more
    daring."""
    game = GroupExtendedContest(
        participants=[
            {"name": "Aria", "side": "heroes", "pc": True, "rating": 12},
            {"name": "Bran", "side": "heroes", "pc": True, "rating": 12},
            {"name": "Cai", "side": "heroes", "pc": True, "rating": 12},
            {"name": "Orc", "side": "orcs", "rating": 14},
            {"name": "Wolf", "side": "orcs", "rating": 8},
        ],
        order="ap",
    )
    game.declare(name="Aria", targets=["Orc"], bid=2, daring="cautious")
    game.declare(name="Bran", targets=["Orc"], bid=2, daring="reckless")
    game.declare(name="Cai", targets=["Orc"], bid=4, daring="cautious")
    game.declare(name="Orc", targets=["Aria"], bid=1)
    game.declare(name="Wolf", targets=["Aria"], bid=8, daring="reckless")
    assert game.queue == ["Orc", "Cai", "Bran", "Aria", "Wolf"]


def test_acting_out_of_turn_is_refused_5_3_3():
    game = contest()
    declare_all(game, Orc=(5, "reckless"))
    assert game.next_actor == "Orc"
    before = game.state()
    with pytest.raises(IllegalAction, match="it is Orc's turn in round 1, not Aria's"):
        game.act(name="Aria", actor_roll=5, defender_roll=15)
    with pytest.raises(IllegalAction, match="unknown participant 'Gm'"):
        game.act(name="Gm", actor_roll=5, defender_roll=15)
    assert game.state() == before


def test_delaying_lets_the_others_act_first_5_3_3():
    """§5.3.3: a delayed contestant may jump back in at any time during the round."""
    game = contest()
    declare_all(game, Aria=(2, "reckless"))
    assert game.queue == ["Aria", "Bran", "Orc"]
    game.delay(name="Aria")
    assert game.may_act == ["Bran", "Aria"]
    game.act(name="Bran", actor_roll=15, defender_roll=15)
    game.act(name="Aria", actor_roll=15, defender_roll=15)  # jumps in before the orc
    assert game.may_act == ["Orc"]
    game.act(name="Orc", actor_roll=15, defender_roll=15)
    assert (game.round, game.phase) == (2, "declaring")


def test_only_the_delayed_may_act_once_the_order_is_done_5_3_3():
    game = contest()
    declare_all(game, Aria=(2, "reckless"))
    game.delay(name="Aria")
    game.act(name="Bran", actor_roll=15, defender_roll=15)
    game.act(name="Orc", actor_roll=15, defender_roll=15)
    assert (game.next_actor, game.may_act) == (None, ["Aria"])
    with pytest.raises(IllegalAction, match="only Aria may still act in round 1, not Bran"):
        game.act(name="Bran", actor_roll=15, defender_roll=15)
    with pytest.raises(IllegalAction, match="Aria has already delayed"):
        game.delay(name="Aria")
    game.unrelated_action(name="Aria")
    assert game.round == 2


def test_round_ends_when_everyone_has_acted_5_3_3():
    game = contest()
    declare_all(game)
    for name in list(game.queue):
        game.unrelated_action(name=name)
    assert game.round == 2
    assert game.declarations == {}
    assert game.awaiting_declarations == ["Aria", "Bran", "Orc"]


# ---------------------------------------------------------------------------
# Exchanges, knockouts and the end (§5.3.1, §5.3.3)
# ---------------------------------------------------------------------------


def test_an_action_is_one_exchange_against_the_declared_target_5_3_1():
    """The Extended Contest Table with the actor's bid: critical against failure
    transfers 2x bid."""
    game = contest()
    declare_all(game, Aria=(4, "reckless"))
    entry = game.act(name="Aria", actor_roll=1, defender_roll=15)
    assert (entry["defender"], entry["rule"]) == (
        "Orc",
        "critical against failure: the defender transfers 2x bid",
    )
    assert game.ap == {"Aria": 31, "Bran": 10, "Orc": 2}


def test_the_gm_may_let_an_actor_change_target_or_bid_5_3_3():
    game = contest(more=[{"name": "Wolf", "side": "orcs", "rating": 12}])
    declare_all(game, Aria=(4, "reckless"))
    entry = game.act(name="Aria", target="Wolf", bid=2, actor_roll=5, defender_roll=15)
    assert (entry["defender"], entry["bid"]) == ("Wolf", 2)
    assert game.ap["Wolf"] == 10


def test_a_knocked_out_contestant_loses_its_turn_5_3_3():
    game = contest(more=[{"name": "Wolf", "side": "orcs", "rating": 12}])
    declare_all(game, Aria=(5, "reckless"))
    game.act(name="Aria", actor_roll=5, defender_roll=20)  # success v fumble: -10
    assert game.people["Orc"].status == "out"
    assert game.open_parting_shot == {"by": "Aria", "at": "Orc"}
    assert "Orc" not in game.may_act
    game.act(name="Bran", target="Wolf", actor_roll=15, defender_roll=15)
    assert game.next_actor == "Wolf"
    game.act(name="Wolf", target="Bran", actor_roll=15, defender_roll=15)
    assert (game.round, game.awaiting_declarations) == (2, ["Aria", "Bran", "Wolf"])


def test_declared_targets_all_out_need_a_new_target_5_3_3():
    game = contest(more=[{"name": "Wolf", "side": "orcs", "rating": 12}])
    declare_all(game, Aria=(5, "reckless"))
    game.act(name="Aria", actor_roll=5, defender_roll=20)
    with pytest.raises(IllegalAction, match="Bran's declared targets are all out"):
        game.act(name="Bran", actor_roll=5, defender_roll=15)
    game.act(name="Bran", target="Wolf", actor_roll=5, defender_roll=15)
    assert game.ap["Wolf"] == 11


def test_the_contest_ends_when_one_side_is_left_5_3_3():
    """The moment the last orc is out, even mid-round; its AP set the degree."""
    game = contest()
    declare_all(game, Aria=(13, "reckless"))
    game.act(name="Aria", actor_roll=5, defender_roll=15)  # 10 - 13 = -3
    assert game.is_over and game.phase == "over"
    assert (game.winner, game.degree, game.ended_by) == ("heroes", "marginal", "defeat")
    assert game.consequences == {"Aria": ["fresh"], "Bran": ["fresh"], "Orc": ["hurt"]}
    with pytest.raises(IllegalAction, match="the contest is over"):
        game.act(name="Bran", actor_roll=5, defender_roll=15)


def test_several_defeated_opponents_give_the_second_worst_level():
    """Our reading (as R12): with several defeated opponents, the side's level of
    victory is the second worst of their levels of defeat."""
    game = GroupExtendedContest(
        participants=[
            {"name": "Aria", "side": "heroes", "pc": True, "rating": 10, "followers": [20, 20]},
            {"name": "Orc", "side": "orcs", "rating": 10},
            {"name": "Wolf", "side": "orcs", "rating": 10},
            {"name": "Rat", "side": "orcs", "rating": 10},
        ],
        order="bid",
    )
    game.declare(name="Aria", targets=["Orc"], bid=45)
    for name in ("Orc", "Wolf", "Rat"):
        game.declare(name=name, targets=["Aria"], bid=1)
    game.act(name="Aria", actor_roll=5, defender_roll=15)  # Orc 10 - 45 = -35: complete
    for name in ("Wolf", "Rat"):
        game.act(name=name, actor_roll=15, defender_roll=15)
    game.declare(name="Aria", targets=["Wolf"], bid=25)
    for name in ("Wolf", "Rat"):
        game.declare(name=name, targets=["Aria"], bid=1)
    game.act(name="Aria", actor_roll=5, defender_roll=15)  # Wolf -15: minor
    game.act(name="Rat", actor_roll=15, defender_roll=15)
    game.declare(name="Aria", targets=["Rat"], bid=12)
    game.declare(name="Rat", targets=["Aria"], bid=1)
    game.act(name="Aria", actor_roll=5, defender_roll=15)  # Rat -2: marginal
    assert (game.winner, game.degree) == ("heroes", "minor")
    assert game.consequences == {
        "Aria": ["pumped"],
        "Orc": ["dying"],
        "Wolf": ["impaired"],
        "Rat": ["hurt"],
    }


def test_gm_may_have_both_lose_half_on_a_both_fumble_5_3_1_footnote():
    game = contest()
    declare_all(game, Aria=(5, "reckless"))
    with pytest.raises(IllegalAction, match="only on a both-fumble tie"):
        game.act(name="Aria", actor_roll=15, defender_roll=15, both_lose_half=True)
    entry = game.act(name="Aria", actor_roll=20, defender_roll=20, both_lose_half=True)
    assert entry["change"] == {"Aria": -3, "Orc": -3}
    assert game.ap == {"Aria": 20, "Bran": 10, "Orc": 7}


def test_both_fumble_is_a_tie_without_the_gm_5_3_1():
    game = contest()
    declare_all(game, Aria=(5, "reckless"))
    game.act(name="Aria", actor_roll=20, defender_roll=20)
    assert game.ap == {"Aria": 23, "Bran": 10, "Orc": 10}


def test_hero_points_for_actor_and_defender_pcs_only_r5_3():
    game = contest()
    declare_all(game, Orc=(2, "reckless"))
    with pytest.raises(IllegalAction, match="Orc is not a PC and has no hero points"):
        game.act(name="Orc", actor_roll=15, defender_roll=15, actor_hero_point=True)
    entry = game.act(name="Orc", actor_roll=15, defender_roll=16, defender_hero_point=True)
    assert entry["defender_result"] == "success"
    assert game.people["Aria"].hero_points_spent == 1
    assert game.ap["Orc"] == 8


def test_free_for_all_three_sides_5_3_3():
    game = GroupExtendedContest(
        participants=[
            {"name": "Aria", "side": "a", "pc": True, "rating": 10},
            {"name": "Bran", "side": "b", "pc": True, "rating": 10},
            {"name": "Orc", "side": "c", "rating": 4},
        ]
    )
    game.declare(name="Aria", targets=["Orc"], bid=5, daring="reckless")
    game.declare(name="Bran", targets=["Aria"], bid=1)
    game.declare(name="Orc", targets=["Bran"], bid=1)
    game.act(name="Aria", actor_roll=5, defender_roll=15)
    assert not game.is_over  # Aria and Bran are still on different sides
    game.act(name="Bran", actor_roll=1, defender_roll=20, bid=4)  # 3x4 = 12 from Aria
    assert game.ap == {"Aria": -2, "Bran": 22, "Orc": -1}
    assert (game.winner, game.degree) == ("b", "marginal")


# ---------------------------------------------------------------------------
# §5.3.4 Parting shot
# ---------------------------------------------------------------------------


def orc_down():
    game = contest(more=[{"name": "Wolf", "side": "orcs", "rating": 12}])
    declare_all(game, Aria=(5, "reckless"))
    game.act(name="Aria", actor_roll=5, defender_roll=20)  # Orc 10 - 10 = 0
    return game


def test_parting_shot_right_after_the_knockout_5_3_4():
    game = orc_down()
    with pytest.raises(IllegalAction, match="Bran has no parting shot"):
        game.parting_shot(name="Bran", actor_roll=5, defender_roll=15)
    game.parting_shot(name="Aria", bid=11, actor_roll=5, defender_roll=15)
    assert game.ap["Orc"] == -11
    assert game.defeats == [{"name": "Orc", "ap": 0, "degree": "marginal"}]
    assert game.next_actor == "Bran"  # the parting shot took no one's turn
    with pytest.raises(IllegalAction, match="Aria has no parting shot"):
        game.parting_shot(name="Aria", actor_roll=5, defender_roll=15)


def test_failed_parting_shot_brings_the_target_back_5_3_4():
    game = orc_down()
    entry = game.parting_shot(name="Aria", bid=2, actor_roll=16, defender_roll=1)
    assert entry["back_in"] == ["Orc"]
    assert game.ap["Orc"] == 4
    game.act(name="Bran", actor_roll=15, defender_roll=15)
    game.act(name="Orc", actor_roll=15, defender_roll=15)  # it acts in its slot again


def test_parting_shot_after_the_last_opponent_falls_5_3_4():
    game = contest()
    declare_all(game, Aria=(5, "reckless"))
    game.act(name="Aria", actor_roll=5, defender_roll=20)
    assert game.is_over
    game.parting_shot(name="Aria", bid=11, actor_roll=5, defender_roll=15)
    assert game.degree == "minor"


# ---------------------------------------------------------------------------
# §5.3.5 Final action: Final Action Results table through the machine
# ---------------------------------------------------------------------------

# (level) -> Aria's AP after a final action from -4, starting AP 23, by hand from the
# table: victories rejoin with 1/8 (3), 1/4 (6), 1/2 (12) or all (23) of the starting
# AP; defeats lose that much; a tie changes nothing.
FINAL_ACTION_AP = {4: 23, 3: 12, 2: 6, 1: 3, 0: -4, -1: -7, -2: -10, -3: -16, -4: -27}


def aria_down():
    """Aria falls to -4 AP (the orc's critical against her fumble: 3x9 = 27)."""
    game = contest(order="bid")
    declare_all(game, Orc=(9, "steady"))
    game.act(name="Orc", actor_roll=1, defender_roll=20)
    assert game.ap["Aria"] == -4 and not game.is_over
    return game


@pytest.mark.parametrize("level", sorted(FINAL_ACTION_AP))
def test_final_action_table_5_3_5(level):
    """§5.3.5: a simple contest of a relevant ability (10) against the AP below 0 (4)."""
    game = aria_down()
    roll, resistance_roll = ROLLS_FOR_LEVEL[level]
    entry = game.final_action(name="Aria", rating=10, roll=roll, resistance_roll=resistance_roll)
    assert entry["resistance"] == "4"
    assert game.ap["Aria"] == FINAL_ACTION_AP[level]
    assert game.people["Aria"].hero_points_spent == 1  # the cost, with no bump
    assert entry["back_in"] is (level > 0)
    assert game.people["Aria"].status == ("in" if level > 0 else "out")


def test_a_final_action_only_once_5_3_5():
    game = aria_down()
    game.final_action(name="Aria", rating=10, roll=15, resistance_roll=3)  # minor defeat
    with pytest.raises(IllegalAction, match="used their one final action"):
        game.final_action(name="Aria", rating=10, roll=1, resistance_roll=20)


def test_a_final_action_can_take_a_hero_point_bump_too_r5_3():
    game = aria_down()
    entry = game.final_action(name="Aria", rating=10, roll=15, resistance_roll=15, hero_point=True)
    assert entry["outcome"] == "minor victory"
    assert game.ap["Aria"] == 6
    assert game.people["Aria"].hero_points_spent == 2


def test_final_action_refusals_5_3_5():
    game = aria_down()
    with pytest.raises(IllegalAction, match="Bran is not knocked out"):
        game.final_action(name="Bran", rating=10, roll=5, resistance_roll=15)
    game = contest(order="bid")
    declare_all(game, Orc=(2, "steady"))
    game.act(name="Orc", actor_roll=5, defender_roll=20, target="Bran")  # Bran 10 - 4
    with pytest.raises(IllegalAction, match="does not use final actions for the resistance"):
        game.final_action(name="Orc", rating=10, roll=5, resistance_roll=15)


def test_a_dying_pc_has_no_final_action_5_3_5():
    """Dying allows no actions: at -31 AP or below the defeat is complete."""
    game = GroupExtendedContest(
        participants=[
            {"name": "Aria", "side": "heroes", "pc": True, "rating": 10},
            {"name": "Bran", "side": "heroes", "pc": True, "rating": 10},
            {"name": "Orc", "side": "orcs", "rating": 14},
        ],
        order="bid",
    )
    declare_all(game, Orc=(14, "steady"))
    game.act(name="Orc", actor_roll=1, defender_roll=20)  # Aria 10 - 42 = -32
    with pytest.raises(IllegalAction, match="Aria is dying at -32 AP"):
        game.final_action(name="Aria", rating=10, roll=5, resistance_roll=15)


def test_the_original_defeat_still_applies_after_a_final_action_5_3_5():
    game = aria_down()
    game.final_action(name="Aria", rating=10, roll=1, resistance_roll=20)  # back with 23
    game.act(name="Aria", bid=23, actor_roll=5, defender_roll=15)  # Orc 37 - 23 = 14
    game.act(name="Bran", bid=10, actor_roll=5, defender_roll=20)  # Orc 14 - 20 = -6
    assert (game.winner, game.degree) == ("heroes", "marginal")
    assert game.consequences == {"Aria": ["hurt", "fresh"], "Bran": ["fresh"], "Orc": ["hurt"]}


# ---------------------------------------------------------------------------
# §5.3.10 AP Lending table through the machine
# ---------------------------------------------------------------------------

# (level) -> (Aria the lender's AP, Bran the target's AP) after lending 7, by hand:
# Aria holds 23, Bran 10; the resistance is 7.
LENDING_AP = {
    4: (23, 17),
    3: (16, 17),
    2: (16, 17),
    1: (19, 14),
    0: (23, 10),
    -1: (19, 10),
    -2: (16, 10),
    -3: (16, 10),
    -4: (16, 3),
}


@pytest.mark.parametrize("level", sorted(LENDING_AP))
def test_ap_lending_table_5_3_10(level):
    game = contest()
    declare_all(game, Aria=(1, "reckless"))
    roll, resistance_roll = ROLLS_FOR_LEVEL[level]
    entry = game.lend(
        name="Aria", target="Bran", amount=7, roll=roll, resistance_roll=resistance_roll
    )
    assert entry["resistance"] == "7"
    assert (game.ap["Aria"], game.ap["Bran"]) == LENDING_AP[level]
    assert game.next_actor == "Bran"  # the loan was Aria's action


def test_lending_refusals_5_3_10():
    game = contest()
    declare_all(game, Aria=(1, "reckless"), Orc=(1, "daring"))
    with pytest.raises(IllegalAction, match="cannot lend AP to themselves"):
        game.lend(name="Aria", target="Aria", amount=3, roll=5, resistance_roll=15)
    with pytest.raises(IllegalAction, match="between PCs"):
        game.lend(name="Aria", target="Orc", amount=3, roll=5, resistance_roll=15)
    with pytest.raises(IllegalAction, match="bid 24 is over Aria's limit of 23 AP"):
        game.lend(name="Aria", target="Bran", amount=24, roll=5, resistance_roll=15)


def test_lending_goes_only_to_an_ally_5_3_10():
    game = GroupExtendedContest(
        participants=[
            {"name": "Aria", "side": "a", "pc": True, "rating": 10},
            {"name": "Bran", "side": "b", "pc": True, "rating": 10},
            {"name": "Orc", "side": "c", "rating": 10},
        ]
    )
    game.declare(name="Aria", targets=["Orc"], daring="reckless")
    game.declare(name="Bran", targets=["Orc"])
    game.declare(name="Orc", targets=["Aria"])
    with pytest.raises(IllegalAction, match="Bran is not on Aria's side"):
        game.lend(name="Aria", target="Bran", amount=3, roll=5, resistance_roll=15)


# ---------------------------------------------------------------------------
# §5.3.9 Disengaging and rejoining, §5.3.11 AP gifting, §5.3.7, §5.3.8
# ---------------------------------------------------------------------------


def test_failed_disengagement_transfers_to_the_opponent_5_3_9():
    """A major defeat transfers 1/2 of the current total (23 -> 12)."""
    game = contest()
    declare_all(game, Aria=(1, "reckless"))
    roll, opponent_roll = ROLLS_FOR_LEVEL[-3]
    entry = game.disengage(
        name="Aria",
        opponent="Orc",
        rating=10,
        opponent_rating=6,
        roll=roll,
        opponent_roll=opponent_roll,
    )
    assert entry["outcome"] == "major defeat" and entry["left"] is False
    assert (game.ap["Aria"], game.ap["Orc"]) == (11, 22)
    assert game.people["Aria"].status == "in"


def test_a_complete_defeat_leaves_one_ap_5_3_9():
    game = contest()
    declare_all(game, Aria=(1, "reckless"))
    game.disengage(name="Aria", opponent="Orc", opponent_rating=6, roll=20, opponent_roll=1)
    assert (game.ap["Aria"], game.ap["Orc"]) == (1, 32)


def test_disengaging_and_rejoining_5_3_9():
    game = contest()
    declare_all(game, Bran=(1, "reckless"))
    entry = game.disengage(name="Bran", opponent="Orc", roll=5, opponent_roll=15)
    assert entry["left"] is True
    assert game.people["Bran"].status == "withdrawn"
    assert game.may_act == ["Aria"]
    game.act(name="Aria", actor_roll=15, defender_roll=15)
    game.act(name="Orc", actor_roll=15, defender_roll=15)
    assert game.awaiting_declarations == ["Aria", "Orc"]
    game.rejoin(name="Bran", restore=5)
    assert game.ap["Bran"] == 15
    assert game.awaiting_declarations == ["Aria", "Bran", "Orc"]


def test_everyone_withdrawn_ends_the_contest_without_a_winner_5_3_9():
    game = GroupExtendedContest(
        participants=[
            {"name": "Aria", "side": "heroes", "pc": True, "rating": 10},
            {"name": "Orc", "side": "orcs", "rating": 10},
            {"name": "Wolf", "side": "orcs", "rating": 10},
        ]
    )
    game.declare(name="Aria", targets=["Orc"], daring="reckless")
    game.declare(name="Orc", targets=["Aria"])
    game.declare(name="Wolf", targets=["Aria"])
    game.disengage(name="Aria", opponent="Orc", roll=5, opponent_roll=15)
    assert (game.is_over, game.ended_by, game.winner, game.degree) == (
        True,
        "disengaged",
        None,
        None,
    )
    assert game.consequences == {"Aria": [], "Orc": [], "Wolf": []}


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        (4, (31, 10)),
        (2, (27, 10)),
        (1, (25, 10)),
        (0, (23, 10)),
        (-1, (23, 12)),
        (-3, (23, 14)),
        (-4, (23, 18)),
    ],
)
def test_gift_in_a_group_goes_to_the_recipient_or_its_opponent_5_3_11(level, expected):
    """§5.3.11: bid 4 against 8; on a defeat the named opponent gains."""
    game = contest()
    roll, resistance_roll = ROLLS_FOR_LEVEL[level]
    game.gift(
        recipient="Aria",
        opponent="Orc",
        rating=10,
        bid=4,
        roll=roll,
        resistance_roll=resistance_roll,
    )
    assert (game.ap["Aria"], game.ap["Orc"]) == expected


def test_switching_abilities_from_round_2_5_3_8():
    game = contest()
    with pytest.raises(IllegalAction, match="must be used in the first round"):
        game.switch_ability(name="Aria", rating=15)
    declare_all(game)
    for name in list(game.queue):
        game.unrelated_action(name=name, description="catches breath")
    game.switch_ability(name="Aria", rating=15, modifier=3)
    assert game.state()["participants"][0]["tn"] == "18"
    assert game.ap["Aria"] == 23
    with pytest.raises(RulesError, match="Orc is a resistance"):
        game.switch_ability(name="Orc", rating=15, modifier=3)


# ---------------------------------------------------------------------------
# Properties (hypothesis)
# ---------------------------------------------------------------------------

rolls = st.integers(1, 20)
moves = st.lists(
    st.fixed_dictionaries(
        {
            "kind": st.sampled_from(
                [
                    "declare",
                    *["act"] * 6,
                    "delay",
                    "parting_shot",
                    "final_action",
                    "lend",
                    "gift",
                    "disengage",
                    "rejoin",
                    "unrelated",
                ]
            ),
            "bid": st.one_of(st.integers(1, 6), st.integers(0, 40)),
            "roll": rolls,
            "other_roll": rolls,
            "pick": st.integers(0, 10),
            "flag": st.booleans(),
        }
    ),
    max_size=40,
)


def declare_everyone(game, move):
    """Open the round: each contestant waiting declares a small bid (within its limit)
    against one or two opponents, with a daring drawn from the move."""
    for offset, name in enumerate(game.awaiting_declarations):
        person = game.people[name]
        foes = [
            n for n in game.people if game.people[n].side != person.side and game.people[n].is_in
        ]
        game.declare(
            name=name,
            targets=foes[: 1 + (move["pick"] + offset) % 2],
            bid=min(1 + (move["bid"] + offset) % 12, person.bid_limit),
            daring=DARING_LEVELS[(move["pick"] + offset) % len(DARING_LEVELS)],
        )


def play(game, move):
    """One move, mostly a legal one: the drawn values are steered towards what the
    state allows (an out PC for a final action, a foe still in as the target), and
    left wild often enough to exercise the refusals."""
    names = list(game.people)
    pick = names[move["pick"] % len(names)]
    actor = (game.may_act or [pick])[move["pick"] % max(len(game.may_act), 1)]
    foes = [n for n in names if game.people[n].side != game.people[actor].side]
    foe = foes[move["pick"] % len(foes)]
    standing = [n for n in foes if game.people[n].is_in]
    knocked_out = [n for n in names if game.people[n].pc and game.people[n].status == "out"]
    wild = move["pick"] >= 8
    kind = move["kind"]
    if kind == "declare":
        waiting = game.awaiting_declarations or [pick]
        name = waiting[0]
        targets = [n for n in names if game.people[n].side != game.people[name].side]
        game.declare(name=name, targets=targets[: 1 + move["pick"] % 2], bid=move["bid"])
    elif kind == "act":
        declared = game.declarations.get(actor, {"bid": 1})["bid"]
        game.act(
            name=actor,
            target=None if wild or not standing else standing[0],
            bid=move["bid"] if wild else min(declared, game.people[actor].bid_limit),
            actor_roll=move["roll"],
            defender_roll=move["other_roll"],
            actor_hero_point=move["flag"] and (wild or game.people[actor].pc),
        )
    elif kind == "delay":
        game.delay(name=actor)
    elif kind == "parting_shot":
        shot = game.open_parting_shot or {"by": pick}
        game.parting_shot(
            name=shot["by"],
            bid=move["bid"],
            actor_roll=move["roll"],
            defender_roll=move["other_roll"],
        )
    elif kind == "final_action":
        game.final_action(
            name=pick if wild or not knocked_out else knocked_out[0],
            rating=10,
            roll=move["roll"],
            resistance_roll=move["other_roll"],
            hero_point=move["flag"],
        )
    elif kind == "lend":
        game.lend(
            name=actor,
            target=pick,
            amount=move["bid"],
            roll=move["roll"],
            resistance_roll=move["other_roll"],
        )
    elif kind == "gift":
        game.gift(
            recipient=actor,
            opponent=foe,
            rating=12,
            bid=move["bid"],
            roll=move["roll"],
            resistance_roll=move["other_roll"],
        )
    elif kind == "disengage":
        game.disengage(
            name=actor, opponent=foe, roll=move["roll"], opponent_roll=move["other_roll"]
        )
    elif kind == "rejoin":
        game.rejoin(name=pick)
    else:
        game.unrelated_action(name=actor)


@settings(max_examples=examples(150))
@given(st.sampled_from(["daring", "bid", "ap"]), moves)
def test_replaying_the_actions_rebuilds_the_state(order, steps):
    """Property: from_json(to_json()) rebuilds the identical state; refused actions
    leave the state and the record exactly as they were."""
    game = GroupExtendedContest(
        participants=[
            {"name": "Aria", "side": "heroes", "pc": True, "rating": 12, "followers": [8]},
            {"name": "Bran", "side": "heroes", "pc": True, "rating": "3M"},
            {"name": "Orc", "side": "orcs", "rating": 14},
            {"name": "Wolf", "side": "orcs", "rating": 9},
        ],
        order=order,
    )
    for move in steps:
        if game.phase == "declaring":
            declare_everyone(game, move)
        before_state, before_actions = game.state(), copy.deepcopy(game.actions)
        try:
            play(game, move)
        except RulesError:
            assert game.state() == before_state
            assert game.actions == before_actions
    rebuilt = GroupExtendedContest.from_json(game.to_json())
    assert rebuilt.state() == game.state()


@settings(max_examples=examples(150))
@given(st.sampled_from(["daring", "bid", "ap"]), moves)
def test_transfers_and_loans_conserve_ap(order, steps):
    """Property: an exchange that transfers, a failed disengagement and a loan at a
    major, minor or marginal victory move AP between two contestants (sum 0)."""
    game = GroupExtendedContest(
        participants=[
            {"name": "Aria", "side": "heroes", "pc": True, "rating": 12, "followers": [8]},
            {"name": "Bran", "side": "heroes", "pc": True, "rating": 10},
            {"name": "Orc", "side": "orcs", "rating": 14},
        ],
        order=order,
    )
    for move in steps:
        if game.phase == "declaring":
            declare_everyone(game, move)
        total = sum(game.ap.values())
        count = len(game.exchanges)
        try:
            play(game, move)
        except RulesError:
            continue
        if len(game.exchanges) == count:
            continue
        entry = game.exchanges[-1]
        change = sum(entry["change"].values())
        if entry["kind"] in (
            "exchange",
            "parting_shot",
            "disengage",
            "lend",
            "gift",
            "final_action",
        ):
            assert sum(game.ap.values()) == total + change
        moved = (
            (entry["kind"] in ("exchange", "parting_shot") and "transfers" in entry["rule"])
            or entry["kind"] == "disengage"
            or (
                entry["kind"] == "lend"
                and entry["outcome"] in ("marginal victory", "minor victory", "major victory")
            )
        )
        if moved:
            assert change == 0


def test_the_resistance_takes_no_parting_shot_r18_2():
    """R18.2 (2.2 changes): only a PC, or a PC's follower, takes a parting shot."""
    game = contest(more=[{"name": "Wolf", "side": "orcs", "rating": 12}])
    game.declare(name="Aria", targets=["Orc"], bid=1, daring="steady")
    game.declare(name="Bran", targets=["Orc"], bid=1, daring="steady")
    game.declare(name="Orc", targets=["Bran"], bid=10, daring="reckless")
    game.declare(name="Wolf", targets=["Aria"], bid=1, daring="steady")
    assert game.next_actor == "Orc"
    game.act(name="Orc", actor_roll=5, defender_roll=20)  # Bran: 10 - 10 x 2 or more
    assert game.people["Bran"].status == "out"
    assert game.open_parting_shot is None
    with pytest.raises(IllegalAction, match="Orc has no parting shot"):
        game.parting_shot(name="Orc", bid=1, actor_roll=5, defender_roll=15)
