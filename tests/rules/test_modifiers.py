"""Modifiers and target numbers: §2.11-§2.15, §3.3 flaws; RULINGS R9, R10."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests.core.rules.augments import AugmentTracker
from contests.core.rules.errors import IllegalAction, RulesError
from contests.core.rules.modifiers import (
    Modifier,
    adjust_resistance,
    combined_rating,
    flaw,
    flaw_penalty,
    situational,
    split_mob,
    state_modifier,
    stretch,
    target_number,
)
from contests.core.rules.ratings import Rating
from contests.core.rules.simple import simple_contest
from contests.core.rules.states import State


@pytest.mark.parametrize(("penalty", "value"), [(3, -3), (6, -6), (9, -9), (-6, -6), (-9, -9)])
def test_stretch_penalties(penalty, value):
    """§2.12.1, R9: a stretch is -3, -6 or -9."""
    modifier = stretch(penalty)
    assert (modifier.value, modifier.bumps, modifier.kind) == (value, 0, "stretch")


def test_the_default_stretch_is_minus_six():
    """§2.12.1: "A default stretch penalty should be -6"."""
    assert stretch().value == -6


def test_a_stretch_can_be_a_bump_down():
    """§2.12.1, R9: "or a bump down"."""
    modifier = stretch("bump")
    assert (modifier.value, modifier.bumps) == (0, -1)


@pytest.mark.parametrize("penalty", [0, 4, 12, "big", True])
def test_other_stretches_are_refused(penalty):
    with pytest.raises(RulesError):
        stretch(penalty)


@pytest.mark.parametrize("value", [6, 3, -3, -6])
def test_situational_modifiers(value):
    """§2.12.2: +6, +3, -3 or -6; they last one round in a long contest (R9)."""
    modifier = situational(value, "high ground")
    assert (modifier.value, modifier.label, modifier.lasts_one_round) == (
        value,
        "high ground",
        True,
    )


@pytest.mark.parametrize("value", [0, 1, 2, 9, -9, 4, True])
def test_other_situational_modifiers_are_refused(value):
    """§2.12.2: less than 3 is not worth the bother; more than 6 is disproportionate."""
    with pytest.raises(RulesError):
        situational(value)


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (13, 13, 13),
        (13, 14, 14),  # 13.5 rounds half up
        (12, 17, 15),  # 14.5 -> 15
        (10, 13, 12),  # 11.5 -> 12
        (17, "5M", 21),  # 21: masteries count as 20 each
        (0, -3, -1),  # -1.5 rounds half up to -1
        (-4, -6, -5),
        ("7M", "3M2", 35),
    ],
)
def test_combined_abilities_average_rounded_half_up(first, second, expected):
    """§2.13, R9: average the two ratings, rounded half up."""
    assert combined_rating(first, second) == Rating(expected)


@pytest.mark.parametrize(
    ("rating", "penalty"),
    [
        (19, -4),  # §3.3's own example
        (17, -3),  # 3.4
        (18, -4),  # 3.6
        (12, -2),  # 2.4
        (13, -3),  # 2.6
        (15, -3),
        (10, -2),
        (2, 0),  # 0.4
        (3, -1),  # 0.6
        (25, -5),
        ("1M", -4),  # 21 -> 4.2
        ("3M", -5),  # 23 -> 4.6
        (0, 0),
    ],
)
def test_flaw_as_penalty_is_a_fifth_rounded_half_up(rating, penalty):
    """§3.3, R9: "Divide the value by 5 and round (a flaw of 19 imposes a -4 penalty)"."""
    assert flaw_penalty(rating) == penalty
    assert flaw(rating, "Can't stand snakes").value == penalty


@given(rating=st.integers(1, 200))
def test_flaw_penalty_is_the_nearest_whole_fifth(rating):
    """§3.3: the penalty is within half a point of rating / 5 (never zero past 2)."""
    assert abs(-flaw_penalty(rating) - rating / 5) <= 0.5
    assert flaw_penalty(rating) <= 0


# §2.11.1 and §2.11.2 tables: the modifier each state puts on related abilities.
@pytest.mark.parametrize(
    ("state", "value", "bumps"),
    [
        ("hurt", -3, 0),
        ("impaired", -6, 0),
        ("injured", -9, 0),
        ("fresh", 3, 0),
        ("pumped", 6, 0),
        ("invigorated", 9, 0),
        ("heroic", 0, 1),  # an automatic bump up
    ],
)
def test_state_modifiers(state, value, bumps):
    """§2.11.1 Consequences of Defeat Table, §2.11.2 Benefits of Victory Table, R10."""
    modifier = state_modifier(state)
    assert (modifier.value, modifier.bumps, modifier.kind) == (value, bumps, "state")
    assert State(state).modifier == value


def test_dying_allows_no_action_but_a_final_action_with_a_bump_down():
    """§2.11.1.5: no actions allowed; a final action takes an automatic bump down."""
    with pytest.raises(IllegalAction, match="final action"):
        state_modifier("dying")
    modifier = state_modifier("dying", final_action=True)
    assert (modifier.value, modifier.bumps) == (0, -1)


def test_the_dead_take_no_action():
    """§2.11.1.6."""
    with pytest.raises(IllegalAction):
        state_modifier(State.DEAD, final_action=True)


@pytest.mark.parametrize(
    ("mob", "ganging_up", "expected"),
    [
        (3, 0, 17),
        (6, 0, 20),
        (9, 0, 23),  # 3M: a mob can gain the resistance a mastery
        (0, -3, 11),
        (0, -6, 8),
        (0, -9, 5),
        (0, 0, 14),
    ],
)
def test_mobs_raise_and_ganging_up_lowers_the_resistance(mob, ganging_up, expected):
    """§2.14 mobs +3/+6/+9, §2.15 ganging up -3/-6/-9 (R9)."""
    assert adjust_resistance(14, mob=mob, ganging_up=ganging_up) == Rating(expected)


def test_ganging_up_can_cost_a_mastery():
    assert str(adjust_resistance("2M", ganging_up=-3)) == "19"


@pytest.mark.parametrize(("mob", "ganging_up"), [(4, 0), (12, 0), (-3, 0), (0, 3), (0, -12)])
def test_other_numbers_adjustments_are_refused(mob, ganging_up):
    with pytest.raises(RulesError):
        adjust_resistance(14, mob=mob, ganging_up=ganging_up)


@pytest.mark.parametrize(
    ("opponents", "pcs", "sections"),
    [(10, 3, [4, 3, 3]), (6, 2, [3, 3]), (1, 1, [1]), (2, 4, [1, 1, 0, 0])],
)
def test_split_mob(opponents, pcs, sections):
    """§2.14: the GM divides the number of opponents by the number of contesting PCs."""
    assert split_mob(opponents, pcs) == sections
    assert sum(split_mob(opponents, pcs)) == opponents


@pytest.mark.parametrize(("opponents", "pcs"), [(0, 1), (3, 0), (True, 1)])
def test_split_mob_checks_its_input(opponents, pcs):
    with pytest.raises(RulesError):
        split_mob(opponents, pcs)


# --- Target numbers -------------------------------------------------------------------


def test_target_number_totals_every_line():
    """§2.11, §4.1.1 step 2: the rating plus or minus modifiers gives the TN."""
    tn = target_number(
        17,
        modifiers=[situational(3, "high ground"), stretch(3)],
        augments=[6],
        states=["hurt", "fresh"],
    )
    assert tn.rating == Rating(17 + 3 - 3 + 6 - 3 + 3)
    assert tn.total_modifier == 6
    assert tn.bumps == 0
    assert tn.stretched
    assert [line.label for line in tn.lines] == [
        "high ground",
        "stretch",
        "augment",
        "hurt",
        "fresh",
    ]


def test_bonuses_can_gain_a_mastery_and_penalties_lose_one():
    """§2.11: "Bonuses may raise your ability high enough to gain a mastery ...
    Penalties may lower an ability to the point where it loses one or more masteries"."""
    gained = target_number(17, augments=[6])
    assert (str(gained.rating), gained.rating.masteries) == ("3M", 1)
    lost = target_number("1M", states=["hurt"])
    assert (str(lost.rating), lost.rating.masteries) == ("18", 0)


def test_a_target_of_zero_or_less_always_fails():
    """§2.11: "If penalties reduce your target number to 0 or less, any attempt to use
    it automatically results in failure"."""
    tn = target_number(5, states=["injured"])
    assert tn.always_fails
    assert not target_number(10, states=["injured"]).always_fails


def test_bumps_ride_along_heroic_up_stretch_and_final_action_down():
    """R5.4: heroic a bump up, a stretch as a bump down, a dying final action a bump down."""
    assert target_number(14, states=["heroic"]).bumps == 1
    assert target_number(14, states=["heroic", "heroic"]).bumps == 2  # R10: states stack
    assert target_number(14, modifiers=[stretch("bump")], states=["heroic"]).bumps == 0
    final = target_number(14, states=["dying", "hurt"], final_action=True)
    assert (final.bumps, final.rating) == (-1, Rating(11))
    with pytest.raises(IllegalAction):
        target_number(14, states=["dying"])


def test_augments_from_a_tracker_and_plot_augments():
    tracker = AugmentTracker(recipient="Ayla", ability="Knight Errant")
    tracker.add_quick(helper="Bram", ability="Smith", rating=17)
    tracker.add_plot(bonus=9, reason="the stolen map")
    tn = target_number(14, augments=tracker.augments)
    assert tn.rating == Rating(26)
    assert [(line.kind, line.value) for line in tn.lines] == [
        ("augment", 3),
        ("plot_augment", 9),
    ]
    assert tn.describe == (
        "14 +3 (quick augment: Bram's Smith) +9 (plot augment: the stolen map) = 6M"
    )


def test_target_number_feeds_the_simple_contest():
    """The TN's rating and bumps go straight into simple_contest (§4.1.1 steps 2-4)."""
    tn = target_number(12, states=["heroic", "pumped"])  # 18, a bump up
    outcome = simple_contest(tn.rating, 16, 14, 5, pc_bumps=tn.bumps)
    assert outcome.describe == "minor victory"  # success bumped to critical v success


def test_target_number_describe_and_to_json():
    tn = target_number(17, augments=[6], states=["hurt", "heroic"])
    assert tn.describe == "17 +6 (augment) -3 (hurt) = 20, 1 bump up"
    data = tn.to_json()
    assert (data["rating"], data["rating_text"], data["target"], data["masteries"]) == (
        20,
        "20",
        20,
        0,
    )
    assert data["bumps"] == 1
    assert data["lines"][2] == {"label": "heroic", "value": 0, "bumps": 1, "kind": "state"}
    assert target_number(14, modifiers=[stretch("bump")]).describe == "14 = 14, 1 bump down"


@pytest.mark.parametrize(
    "kwargs", [{"modifiers": [3]}, {"augments": ["+3"]}, {"augments": [True]}, {"states": ["sad"]}]
)
def test_target_number_checks_its_input(kwargs):
    with pytest.raises(RulesError):
        target_number(14, **kwargs)


def test_modifier_round_trips_through_json():
    modifier = Modifier("slippery deck", value=-3, kind="situational")
    assert Modifier.from_json(modifier.to_json()) == modifier
    with pytest.raises(RulesError):
        Modifier("bad", value=1.5)
    assert Modifier("x", bumps=-2).describe == "x (2 x bump down)"


@given(
    base=st.integers(-10, 80),
    values=st.lists(st.sampled_from([-9, -6, -3, 3, 6, 9, 20]), max_size=6),
)
def test_target_number_is_the_base_plus_every_value(base, values):
    """R1, R9: modifiers add to the total; the rating's masteries follow the total."""
    tn = target_number(base, augments=values)
    assert tn.rating.total == base + sum(values)
    assert tn.total_modifier == sum(values)
