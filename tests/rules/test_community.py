"""Community resources and support (§8, RULINGS.md R17)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests.core.rules.community import (
    Community,
    ResourceChange,
    average_rating,
    depletion_penalty,
    outcome_level,
    own_augments_allowed,
    social_penalty,
    social_penalty_in_force,
)
from contests.core.rules.errors import RulesError
from contests.core.rules.ratings import Rating
from contests.core.rules.simple import simple_contest

NAMES = ["Wealth", "Morale", "Diplomacy", "Military", "Magic"]

# Rolls giving each outcome for a resource at 10 against a resistance of 10 (R6, high
# roll better): level -> (resource roll, resistance roll).
ROLLS_FOR_LEVEL = {
    4: (1, 20),  # critical vs fumble
    3: (1, 15),  # critical vs failure
    2: (5, 15),  # success vs failure
    1: (7, 5),  # success vs success, better roll
    0: (5, 5),  # equal rolls: tie
    -1: (5, 7),
    -2: (15, 5),
    -3: (15, 1),
    -4: (20, 1),
}


def test_rolls_for_level_are_what_the_simple_contest_says():
    for level, (own, other) in ROLLS_FOR_LEVEL.items():
        assert simple_contest(Rating(10), own, Rating(10), other).level == level


def village():
    return Community.founded(NAMES)


def single(rating=10):
    return Community({"Wealth": rating})


# ------------------------------------------------------------------ design (§8.1)


def test_starting_ratings_8_1_3():
    """R17: 12W, 9W, 18, 18, 12 are totals 32, 29, 18, 18, 12."""
    community = village()
    assert [r.rating for r in community.resources.values()] == [32, 29, 18, 18, 12]
    assert [row["rating"] for row in community.notation()] == ["12W", "9W", "18", "18", "12"]
    assert [row["rating"] for row in community.notation(glyph="M")][:2] == ["12M", "9M"]


def test_founding_needs_five_names_8_1_3():
    with pytest.raises(RulesError, match="you named 4"):
        Community.founded(NAMES[:4])


@pytest.mark.parametrize(
    ("resources", "message"),
    [
        ({}, "at least one resource"),
        ({f"R{n}": 13 for n in range(6)}, "at most 5 resources .* not 6"),
        ({"Wealth": "lots"}, "resource Wealth: 'lots' is not a rating"),
        ([("Wealth", 13), ("wealth", 13)], "two resources are named 'wealth'"),
        ({"": 13}, "needs a name"),
    ],
)
def test_community_validates_its_resources_8_1_1(resources, message):
    with pytest.raises(RulesError, match=message):
        Community(resources)


def test_ratings_parse_in_any_notation_r1():
    community = Community({"Wealth": "12W", "Magic": "3M2", "Morale": 15})
    assert [r.rating for r in community.resources.values()] == [32, 43, 15]


@pytest.mark.parametrize(
    ("totals", "average"),
    [
        ([32, 29, 18, 18, 12], 22),  # 21.8
        ([10, 11], 11),  # 10.5 rounds half up
        ([10, 10, 11], 10),  # 10.33
        ([-1, 0], 0),  # -0.5 rounds up to 0
        ([13], 13),
    ],
)
def test_average_is_rounded_half_up_r17(totals, average):
    assert average_rating(totals) == Rating(average)


def test_notation_columns_8_1_4():
    community = village()
    community.draw("Wealth", "minor victory")
    row = community.notation()[0]
    assert row == {
        "name": "Wealth",
        "rating": "12W",
        "total": -3,
        "pc": 0,
        "background": 0,
        "crisis": 0,
        "effective": "9W",
    }


# ------------------------------------------------------------------ depletion (§8.2)

# §8.2 Resource Depletion Table, transcribed: outcome -> penalty.
DEPLETION_TABLE = [
    ("complete victory", 0),
    ("major victory", -3),
    ("minor victory", -3),
    ("marginal victory", -3),
    ("marginal defeat", -6),
    ("minor defeat", -6),
    ("major defeat", -6),
    ("complete defeat", -9),
]


@pytest.mark.parametrize(("outcome", "penalty"), DEPLETION_TABLE)
def test_resource_depletion_table_8_2(outcome, penalty):
    assert depletion_penalty(outcome) == penalty
    community = single(20)
    changes = community.draw("Wealth", outcome)
    assert community.resource("Wealth").total == penalty
    assert community.effective("Wealth") == Rating(20 + penalty)
    assert changes == (
        [] if penalty == 0 else [ResourceChange("Wealth", "total", 0, penalty, changes[0].reason)]
    )


def test_a_tie_depletes_like_the_mildest_use():
    """Ruling: a tie is not in the table; the resource was still spent: -3."""
    assert depletion_penalty("tie") == -3


@pytest.mark.parametrize(
    ("outcome", "penalty"),
    [
        ("complete victory", 0),
        ("marginal victory", 0),
        ("tie", -3),
        ("marginal defeat", -6),
        ("complete defeat", -9),
    ],
)
def test_failing_to_secure_the_prize_penalises_social_abilities_8_2(outcome, penalty):
    assert social_penalty(outcome) == penalty


# §8.2 optional rule: (penalty, drawn in, now) -> in force with the option off, on.
IN_FORCE_CELLS = [
    (-7, 2, 2, -7, -7),
    (-7, 2, 3, 0, -4),
    (-7, 2, 4, 0, -1),
    (-7, 2, 5, 0, 0),
    (-7, 2, 9, 0, 0),
    (-3, 1, 1, -3, -3),
    (-3, 1, 2, 0, 0),
    (-6, 1, 2, 0, -3),
    (-6, 1, 3, 0, 0),
    (-9, 4, 5, 0, -6),
    (-9, 4, 6, 0, -3),
    (-9, 4, 7, 0, 0),
    (0, 1, 1, 0, 0),
    (0, 1, 3, 0, 0),
]


@pytest.mark.parametrize(("penalty", "drawn_in", "now", "off", "on"), IN_FORCE_CELLS)
def test_a_social_penalty_ends_with_its_interval_or_sheds_3_per_interval_8_2(
    penalty, drawn_in, now, off, on
):
    assert social_penalty_in_force(penalty, drawn_in, now, linger=False) == off
    assert social_penalty_in_force(penalty, drawn_in, now, linger=True) == on


@pytest.mark.parametrize(
    ("penalty", "drawn_in", "now", "message"),
    [
        (3, 1, 1, "0 or negative"),
        (-3, 0, 1, "1 or more"),
        (-3, 2, 1, "not in force"),
        (-3.0, 1, 1, "whole number"),
        (-3, 1, True, "whole number"),
    ],
)
def test_a_social_penalty_in_force_refuses_nonsense(penalty, drawn_in, now, message):
    with pytest.raises(RulesError, match=message):
        social_penalty_in_force(penalty, drawn_in, now, linger=True)


@given(
    penalty=st.integers(min_value=-30, max_value=0),
    drawn_in=st.integers(min_value=1, max_value=50),
    later=st.integers(min_value=0, max_value=20),
    linger=st.booleans(),
)
def test_a_lingering_social_penalty_only_fades_8_2(penalty, drawn_in, later, linger):
    now = drawn_in + later
    left = social_penalty_in_force(penalty, drawn_in, now, linger=linger)
    after = social_penalty_in_force(penalty, drawn_in, now + 1, linger=linger)
    assert penalty <= left <= 0  # never positive, never worse than the draw's penalty
    assert left <= after  # non-decreasing over the intervals
    # 0 from the interval where shedding 3 per interval end would pass 0 (off: the next).
    gone_from = drawn_in + (-(penalty // 3) if linger else 1) if penalty else drawn_in
    assert (left == 0) == (now >= gone_from)
    if linger and left:
        assert left == penalty + 3 * later


def test_depletions_add_up_and_the_outcome_may_be_an_outcome_object():
    community = single(20)
    community.draw("Wealth", simple_contest(Rating(10), 15, Rating(14), 5))  # minor defeat
    community.draw("Wealth", -4)
    assert community.resource("Wealth").total == -15


def test_withdrawing_depletes_as_a_major_defeat_8_2_2():
    community = single()
    community.withdraw("Wealth")
    assert community.resource("Wealth").total == -6


def test_required_resource_use_8_2_1():
    community = village()
    community.require_resource("Hire mercenaries", "wealth")
    assert community.required_resource("Hire mercenaries") == "Wealth"
    assert community.required_resource("Sing") is None
    assert own_augments_allowed(required_resource_augment=True) == 2
    assert own_augments_allowed(required_resource_augment=False) == 1
    with pytest.raises(RulesError, match="no resource named 'Gold'"):
        community.require_resource("Bribe", "Gold")


# ------------------------------------------------------------------ penalties (§8.2.2)

# §2.11.1 Consequences of Defeat Table as resource penalties; complete: -9 (ruling).
CONSEQUENCES = [
    ("marginal defeat", -3),
    ("minor defeat", -6),
    ("major defeat", -9),
    ("complete defeat", -9),
]


@pytest.mark.parametrize(("outcome", "penalty"), CONSEQUENCES)
def test_penalties_from_a_simple_contest_defeat_8_2_2(outcome, penalty):
    community = single()
    community.penalize("Wealth", outcome)
    assert community.resource("Wealth").total == penalty


@pytest.mark.parametrize("outcome", ["tie", "marginal victory"])
def test_only_a_defeat_penalises(outcome):
    with pytest.raises(RulesError, match="follows a defeat"):
        single().penalize("Wealth", outcome)


@pytest.mark.parametrize(
    ("states", "penalty"),
    [
        (["hurt"], -3),  # one defeated member: theirs
        (["injured"], -9),
        (["dying", "hurt"], -3),  # second worst
        (["hurt", "impaired", "dying"], -6),
        (["injured", "injured", "hurt"], -9),
        (["dead", "dying"], -9),
    ],
)
def test_long_contest_penalty_is_the_second_worst_state_8_2_2(states, penalty):
    community = single()
    community.penalize_after_long_contest("Wealth", states)
    assert community.resource("Wealth").total == penalty


@pytest.mark.parametrize(
    ("states", "message"),
    [([], "name the states"), (["fresh"], "fresh is not"), (["sad"], "'sad' is not")],
)
def test_long_contest_penalty_validates_states(states, message):
    with pytest.raises(RulesError, match=message):
        single().penalize_after_long_contest("Wealth", states)


# ------------------------------------------------------------------ bolstering (§8.2.3)

# §2.11.2 Benefits of Victory Table as resource bonuses; complete (a bump): +9 (ruling).
BENEFITS = [
    ("marginal victory", 3),
    ("minor victory", 6),
    ("major victory", 9),
    ("complete victory", 9),
]


@pytest.mark.parametrize(("outcome", "bonus"), BENEFITS)
def test_bolstering_bonuses_go_to_total_and_pc_columns_8_2_3(outcome, bonus):
    community = single()
    community.bolster("Wealth", outcome)
    resource = community.resource("Wealth")
    assert (resource.total, resource.pc) == (bonus, bonus)


@pytest.mark.parametrize(
    ("penalty", "bonus", "total", "pc"),
    [(-9, 3, -6, 0), (-6, 6, 0, 0), (-3, 6, 3, 3), (-6, 9, 3, 3)],
)
def test_a_reduced_penalty_leaves_the_pc_column_blank_8_1_4(penalty, bonus, total, pc):
    """§8.1.4: PC activity that reduces a penalty without eliminating it changes only
    the Total column; only the part above 0 enters the PC column."""
    community = single()
    community.resource("Wealth").total = penalty
    level = {3: "marginal victory", 6: "minor victory", 9: "major victory"}[bonus]
    community.bolster("Wealth", level)
    resource = community.resource("Wealth")
    assert (resource.total, resource.pc) == (total, pc)


@pytest.mark.parametrize("outcome", ["tie", "minor defeat"])
def test_bolstering_needs_a_victory_8_2_3(outcome):
    with pytest.raises(RulesError, match="bolstering needs a victory"):
        single().bolster("Wealth", outcome)


# ------------------------------------------------------------------ background (§8.2.4)

# §8.2.4 Resource Fluctuation Table, transcribed: outcome level -> modifier.
FLUCTUATION_TABLE = [
    (4, 9),  # complete victory
    (3, 6),
    (2, 3),
    (1, 0),
    (-1, 0),
    (-2, -3),
    (-3, -6),
    (-4, -9),
    (0, 0),  # tie: between two zeros
]


@pytest.mark.parametrize(("level", "modifier"), FLUCTUATION_TABLE)
def test_resource_fluctuation_table_8_2_4(level, modifier):
    community = single(10)  # the average of one resource is itself: 10 vs 10
    changes = community.background_events({"Wealth": ROLLS_FOR_LEVEL[level]})
    resource = community.resource("Wealth")
    assert resource.total == modifier
    assert resource.background == max(modifier, 0)
    assert resource.pc == 0  # uncemented
    assert len(changes) == (0 if modifier == 0 else 1 if modifier < 0 else 2)
    assert community.tests[-1]["level"] == level


def test_background_events_roll_against_the_average_8_2_4():
    community = village()  # average 21.8 -> 22 = 2M
    rolls = {
        "Wealth": (3, 5),
        "Morale": (3, 5),
        "Diplomacy": (3, 5),
        "Military": (3, 5),
        "Magic": (3, 5),
    }
    community.background_events(rolls)
    assert {t["resistance"] for t in community.tests} == {22}
    # The resistance 2M rolls 5: a failure. 12W and 9W succeed on a 3 and masteries
    # cancel: minor victory, +3. The 18s and 12 succeed, but the resistance's mastery
    # bumps its failure to a success and its 5 beats their 3: marginal defeat, 0.
    assert [t["outcome"] for t in community.tests] == [
        "minor victory",
        "minor victory",
        "marginal defeat",
        "marginal defeat",
        "marginal defeat",
    ]
    assert [r.total for r in community.resources.values()] == [3, 3, 0, 0, 0]


def test_background_events_once_per_interval_and_every_resource_8_2_4():
    community = village()
    with pytest.raises(RulesError, match="missing rolls for Magic"):
        community.background_events({name: (5, 5) for name in NAMES[:4]})
    with pytest.raises(RulesError, match="no roll is due for Gold"):
        community.background_events({**{name: (5, 5) for name in NAMES}, "Gold": (5, 5)})
    with pytest.raises(RulesError, match="Wealth: a d20 roll"):
        community.background_events({**{name: (5, 5) for name in NAMES}, "Wealth": (0, 5)})
    with pytest.raises(RulesError, match="needs two rolls"):
        community.background_events({**{name: (5, 5) for name in NAMES}, "Wealth": (5,)})
    assert community.tests == []  # nothing rolled by the refused calls
    community.background_events({name: (5, 5) for name in NAMES})
    with pytest.raises(RulesError, match="interval 1 are rolled already"):
        community.background_events({name: (5, 5) for name in NAMES})


# ------------------------------------------------------------------ crisis (§8.2.5)


def test_crisis_tests_roll_the_penalised_resources_8_2_5():
    community = village()
    community.draw("Magic", "complete defeat")  # 12 - 9 = 3
    assert community.penalized() == ["Magic"]
    with pytest.raises(RulesError, match="missing rolls for Magic; no roll is due for Wealth"):
        community.crisis_tests({"Wealth": (5, 5)})
    # Magic at 3 vs 2M: a failure (10) against the mastery-bumped success: major defeat.
    changes = community.crisis_tests({"Magic": (10, 5)})
    assert community.tests[-1]["rating"] == 3 and community.tests[-1]["resistance"] == 22
    assert [(c.column, c.before, c.after) for c in changes] == [("crisis", 0, 1)]
    assert "a crisis starts" in changes[0].reason
    changes = community.crisis_tests({"Magic": (10, 5)})
    assert [(c.column, c.before, c.after) for c in changes] == [("crisis", 1, 2)]
    assert "worsens" in changes[0].reason
    # Bolstering reverses the crisis.
    changes = community.bolster("Magic", "minor victory")
    assert ("crisis", 2, 0) in [(c.column, c.before, c.after) for c in changes]


def test_a_crisis_test_won_changes_nothing_8_2_5():
    community = village()
    community.draw("Wealth", "minor defeat")  # 12W - 6 = 6W
    assert community.crisis_tests({"Wealth": (1, 20)}) == []
    assert community.resource("Wealth").crisis == 0


# ------------------------------------------------------------------ cementing (§8.2.6)


def test_cementing_moves_the_background_bonus_to_the_pc_column_8_2_6():
    community = single(10)
    community.background_events({"Wealth": ROLLS_FOR_LEVEL[3]})  # +6
    changes = community.cement("Wealth")
    resource = community.resource("Wealth")
    assert (resource.total, resource.pc, resource.background) == (6, 6, 0)
    assert [(c.column, c.before, c.after) for c in changes] == [("pc", 0, 6), ("background", 6, 0)]
    with pytest.raises(RulesError, match="no background event bonus to cement"):
        community.cement("Wealth")


# ------------------------------------------------------------------ interval end (§8.3)

# §8.3: PC column -> rating rise (1 per 3, at most 3).
RISES = [(0, 0), (2, 0), (3, 1), (5, 1), (6, 2), (8, 2), (9, 3), (12, 3), (30, 3)]
# §8.3: Total column penalty -> rating drop (1 per 3, at most 2).
DROPS = [(0, 0), (-2, 0), (-3, 1), (-5, 1), (-6, 2), (-9, 2), (-30, 2)]


@pytest.mark.parametrize(("pc", "rise"), RISES)
def test_pc_bonuses_raise_the_rating_at_interval_end_8_3(pc, rise):
    community = single(15)
    resource = community.resource("Wealth")
    resource.pc, resource.total = pc, pc
    community.end_interval(1)
    assert resource.rating == 15 + rise
    assert (resource.total, resource.pc, resource.background, resource.crisis) == (0, 0, 0, 0)


@pytest.mark.parametrize(("total", "drop"), DROPS)
def test_penalties_lower_the_rating_at_interval_end_8_3(total, drop):
    community = single(15)
    community.resource("Wealth").total = total
    community.end_interval(1)
    assert community.resource("Wealth").rating == 15 - drop


def test_uncemented_background_bonuses_vanish_8_3():
    community = single(10)
    community.background_events({"Wealth": ROLLS_FOR_LEVEL[4]})  # +9, not cemented
    community.end_interval(1)
    assert community.resource("Wealth").rating == 10


def test_pc_bonus_and_later_penalty_both_count_8_3():
    """Ruling: the columns are read as written: PC 6 (+2) and Total -3 (-1): net +1."""
    community = single(15)
    community.bolster("Wealth", "minor victory")  # Total 6, PC 6
    community.draw("Wealth", "major defeat")  # Total 0
    community.draw("Wealth", "marginal victory")  # Total -3
    community.end_interval(1)
    assert community.resource("Wealth").rating == 16


def test_interval_end_is_idempotent_8_3():
    community = single(15)
    community.resource("Wealth").total = -6
    first = community.end_interval(1)
    assert [(c.column, c.before, c.after) for c in first] == [("rating", 15, 13), ("total", -6, 0)]
    assert community.end_interval(1) == []
    assert community.resource("Wealth").rating == 13
    assert community.interval == 2 and community.last_ended == 1
    with pytest.raises(RulesError, match="interval 2 is the current one, not 3"):
        community.end_interval(3)


def test_plot_events_change_the_rating_8_4():
    community = village()
    changes = community.plot_event("Morale", -5, reason="the temple burned")
    assert changes == [
        ResourceChange("Morale", "rating", 29, 24, "§8.4 plot event (the temple burned)")
    ]
    with pytest.raises(RulesError, match="whole number"):
        community.plot_event("Morale", 0)


def test_outcome_words_are_validated():
    with pytest.raises(RulesError, match="not an outcome"):
        outcome_level("a big win")
    with pytest.raises(RulesError, match="-4 to 4"):
        outcome_level(5)


# ------------------------------------------------------------------ flow


def test_three_intervals_with_fixed_dice():
    """A community through three intervals: background events, play, interval end."""
    community = Community.founded(["Wealth", "Morale", "Diplomacy", "Military", "Magic"])
    start = {name: r.rating for name, r in community.resources.items()}
    assert start == {"Wealth": 32, "Morale": 29, "Diplomacy": 18, "Military": 18, "Magic": 12}

    # Interval 1: the resistance is the average 109 / 5 = 21.8 -> 22 = 2M (target 2).
    assert community.average() == Rating(22)
    community.background_events(
        {
            "Wealth": (2, 2),  # success vs success, masteries cancel, equal rolls: tie, 0
            "Morale": (15, 16),  # failure vs failure, the resistance rolled higher: 0
            "Diplomacy": (5, 15),  # success vs failure bumped to success, 15 > 5: 0
            "Military": (20, 1),  # fumble vs critical: complete defeat, -9
            "Magic": (1, 20),  # critical vs fumble bumped to failure: major victory, +6
        }
    )
    totals = {name: r.total for name, r in community.resources.items()}
    assert totals == {"Wealth": 0, "Morale": 0, "Diplomacy": 0, "Military": -9, "Magic": 6}
    community.cement("Magic")  # the PCs overcome a major story obstacle: PC column 6
    community.draw("Wealth", "minor victory")  # Total -3
    assert community.penalized() == ["Wealth", "Military"]
    # Military at 9 fails a 12; the resistance's 4 fails, bumped to a success: minor
    # defeat, a crisis. Wealth at 9M succeeds on a 2 against an 18: no crisis.
    community.crisis_tests({"Military": (12, 4), "Wealth": (2, 18)})
    assert [r.crisis for r in community.resources.values()] == [0, 0, 0, 1, 0]
    community.bolster("Military", "major victory")  # -9 + 9 = 0, the crisis reversed
    assert community.resource("Military").crisis == 0
    community.end_interval(1)
    ratings = {name: r.rating for name, r in community.resources.items()}
    # Magic: PC 6 -> +2; Wealth: Total -3 -> -1.
    assert ratings == {"Wealth": 31, "Morale": 29, "Diplomacy": 18, "Military": 18, "Magic": 14}

    # Interval 2: 110 / 5 = 22 = 2M again; the resistance rolls 5, a failure.
    assert community.average() == Rating(22)
    community.background_events({name: (5, 5) for name in community.resources})
    # 11W and 9W succeed against a failure, masteries cancel: minor victory, +3. The
    # others succeed against the bumped success on equal rolls: tie, 0.
    assert [r.total for r in community.resources.values()] == [3, 3, 0, 0, 0]
    community.withdraw("Morale")  # +3 - 6 = -3
    community.end_interval(2)
    ratings = {name: r.rating for name, r in community.resources.items()}
    # Wealth's +3 was never cemented: no rise. Morale: Total -3 -> -1.
    assert ratings == {"Wealth": 31, "Morale": 28, "Diplomacy": 18, "Military": 18, "Magic": 14}

    # Interval 3: 109 / 5 = 21.8 -> 22 = 2M; the resistance fumbles.
    assert community.average() == Rating(22)
    community.background_events({name: (1, 20) for name in community.resources})
    # Critical vs fumble for the two masteries (they cancel): complete victory, +9;
    # the others face a fumble bumped to a failure: major victory, +6.
    assert [r.total for r in community.resources.values()] == [9, 9, 6, 6, 6]
    community.cement("Diplomacy")  # PC 6
    community.bolster("Diplomacy", "marginal victory")  # PC 6 + 3 = 9 -> +3
    community.end_interval(3)
    ratings = {name: r.rating for name, r in community.resources.items()}
    assert ratings == {"Wealth": 31, "Morale": 28, "Diplomacy": 21, "Military": 18, "Magic": 14}
    assert community.interval == 4
    rebuilt = Community.from_json(json.loads(json.dumps(community.to_json())))
    assert rebuilt.to_json() == community.to_json()


# ------------------------------------------------------------------ properties

operations = st.lists(
    st.one_of(
        st.tuples(st.just("draw"), st.sampled_from(NAMES), st.integers(-4, 4)),
        st.tuples(st.just("bolster"), st.sampled_from(NAMES), st.integers(1, 4)),
        st.tuples(st.just("penalize"), st.sampled_from(NAMES), st.integers(-4, -1)),
        st.tuples(st.just("withdraw"), st.sampled_from(NAMES), st.just(0)),
    ),
    max_size=25,
)


@given(
    ops=operations,
    rolls=st.lists(st.tuples(st.integers(1, 20), st.integers(1, 20)), min_size=5, max_size=5),
)
def test_interval_end_bounds_and_resets(ops, rolls):
    """§8.3 whatever happened: each rating moves between -2 and +3, the columns reset,
    a second end changes nothing, and the JSON round trip is exact."""
    community = village()
    community.background_events(dict(zip(NAMES, rolls, strict=True)))
    for op, name, level in ops:
        if op == "withdraw":
            community.withdraw(name)
        else:
            getattr(community, op)(name, level)
    rebuilt = Community.from_json(json.loads(json.dumps(community.to_json())))
    assert rebuilt.to_json() == community.to_json()
    before = {name: r.rating for name, r in community.resources.items()}
    community.end_interval(1)
    for name, resource in community.resources.items():
        assert -2 <= resource.rating - before[name] <= 3
        assert (resource.total, resource.pc, resource.background, resource.crisis) == (0, 0, 0, 0)
    assert community.end_interval(1) == []
