"""Augments: §2.4, §2.4.1 rolled, §2.4.2 quick, §2.4.3 plot; RULINGS R8."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests.core.rules.augments import (
    AugmentTracker,
    augment_bonus,
    basic_augment_bonus,
    plot_augment,
    quick_augment,
    rolled_augment,
    sum_augments,
)
from contests.core.rules.errors import IllegalAction, RulesError
from contests.core.rules.simple import simple_contest

# §2.4.1 Augment Table, row by row: contest outcome (signed level) -> modifier.
AUGMENT_TABLE = [
    (4, 20, "complete victory: +M"),
    (3, 9, "major victory"),
    (2, 6, "minor victory"),
    (1, 3, "marginal victory"),
    (0, 0, "tie (R8: no bonus)"),
    (-1, 0, "marginal defeat"),
    (-2, 0, "minor defeat"),
    (-3, 0, "major defeat"),
    (-4, -3, "complete defeat"),
]


@pytest.mark.parametrize(("level", "bonus", "row"), AUGMENT_TABLE)
def test_augment_table(level, bonus, row):
    """§2.4.1 Augment Table, R8, cell by cell."""
    assert augment_bonus(level) == bonus, row


@pytest.mark.parametrize("level", [5, -5, 1.5, True, None])
def test_augment_bonus_needs_a_level(level):
    with pytest.raises(RulesError):
        augment_bonus(level)


@pytest.mark.parametrize(
    ("level", "entertaining", "bonus"),
    [(1, False, 3), (4, False, 3), (2, True, 6), (0, True, 0), (-4, False, 0), (-1, True, 0)],
)
def test_basic_augment_bonus(level, entertaining, bonus):
    """§2.4.1 without degrees: +3 for a victory, +6 if particularly entertaining."""
    assert basic_augment_bonus(level, entertaining=entertaining) == bonus


@pytest.mark.parametrize(
    ("augmenting", "roll", "resistance_roll", "base", "describe", "bonus"),
    [
        (17, 4, 15, 14, "minor victory", 6),  # success v failure
        (17, 1, 20, 14, "complete victory", 20),  # critical v fumble: +M
        (17, 20, 1, 14, "complete defeat", -3),
        (17, 9, 9, 14, "tie", 0),
        ("5M", 3, 16, 14, "major victory", 9),  # success bumped to critical v failure
        (13, 12, 11, 10, "minor victory", 6),  # base 10: 11 fails
        (13, 15, 11, 10, "marginal victory", 3),  # failure v failure, 15 the higher roll
        (13, 12, 11, 12, "marginal victory", 3),  # base 12: 11 succeeds
    ],
)
def test_rolled_augment_is_a_simple_contest_against_moderate(
    augmenting, roll, resistance_roll, base, describe, bonus
):
    """§2.4.1, §2.3.3: augmenting always faces a moderate resistance, the base."""
    outcome = rolled_augment(augmenting, roll, resistance_roll, base=base)
    assert outcome.opponent_roll == resistance_roll
    assert (outcome.describe, augment_bonus(outcome)) == (describe, bonus)


def test_rolled_augment_with_a_hero_point_and_bumps():
    """§2.3.5.5: a hero point may bump the augment roll; heroic bumps it too."""
    assert rolled_augment(13, 16, 5, hero_point=True).describe == "marginal victory"
    assert rolled_augment(13, 16, 5, bumps=1).describe == "marginal victory"


@pytest.mark.parametrize(
    ("rating", "down", "up"),
    [
        (0, 0, 0),
        (-5, 0, 0),  # a quick augment never penalises
        (1, 0, 1),
        (4, 0, 1),
        (5, 1, 1),
        (13, 2, 3),
        (15, 3, 3),
        (17, 3, 4),
        (19, 3, 4),
        (20, 4, 4),
        ("1M", 4, 5),  # 21
        ("5M", 5, 5),  # 25
        ("10M2", 10, 10),  # 50
    ],
)
def test_quick_augment(rating, down, up):
    """§2.4.2, R8: one fifth of the augmenting rating, rounded down (2.2) or up (1e)."""
    assert quick_augment(rating) == down
    assert quick_augment(rating, rounding="down") == down
    assert quick_augment(rating, rounding="up") == up


def test_quick_augment_rounding_must_be_down_or_up():
    with pytest.raises(RulesError):
        quick_augment(17, rounding="nearest")


@pytest.mark.parametrize("bonus", [3, 6, 9, 20])
def test_plot_augment_sizes(bonus):
    """§2.4.3: +3, +6, +9 or +M."""
    assert plot_augment(bonus) == bonus


@pytest.mark.parametrize("bonus", [0, 1, 4, 12, -3, 40, True, "6"])
def test_plot_augment_refuses_other_sizes(bonus):
    with pytest.raises(RulesError, match=r"\+3, \+6, \+9 or \+20"):
        plot_augment(bonus)


# --- The tracker: who may augment, how often -------------------------------------------


def tracker():
    return AugmentTracker(recipient="Ayla", ability="Knight Errant")


def test_own_augment_and_others_stack():
    """§2.4: augments from other players add together with your own, along with plot
    augments."""
    augments = tracker()
    augments.add_rolled(helper="Ayla", ability="Horse", outcome=rolled_augment(17, 4, 15))
    augments.add_quick(helper="Bram", ability="Smith", rating=17)
    augments.add_quick(helper="Cyd", ability="Priest", rating="5M")
    augments.add_plot(bonus=6, reason="the King's favour")
    augments.add_plot(bonus=3)
    assert augments.total == 6 + 3 + 5 + 6 + 3
    assert [a.kind for a in augments.augments] == ["rolled", "quick", "quick", "plot", "plot"]


def test_only_one_own_augment_per_contest():
    """§2.4: "You may only use one of your own abilities to augment"."""
    augments = tracker()
    augments.add_quick(helper="Ayla", ability="Horse", rating=17)
    with pytest.raises(IllegalAction, match="only one of your own abilities"):
        augments.add_quick(helper="Ayla", ability="Sword", rating=17)
    with pytest.raises(IllegalAction, match="only one of your own abilities"):
        augments.add_rolled(helper="Ayla", ability="Sword", outcome=rolled_augment(17, 4, 15))
    assert augments.total == 3


@pytest.mark.parametrize(("roll", "resistance_roll"), [(18, 4), (20, 1), (9, 9)])
def test_after_a_failed_attempt_no_other_own_attempt(roll, resistance_roll):
    """§2.4.1: "if your augment attempt ends in defeat, you may not make another
    attempt" (R8: a failed attempt; a tie brings nothing either)."""
    augments = tracker()
    failed = rolled_augment(17, roll, resistance_roll)
    augments.add_rolled(helper="Ayla", ability="Horse", outcome=failed)
    assert augments.augments[0].failed
    with pytest.raises(IllegalAction, match="after a failed attempt"):
        augments.add_rolled(helper="Ayla", ability="Sword", outcome=rolled_augment(17, 4, 15))
    with pytest.raises(IllegalAction, match="after a failed attempt"):
        augments.check_attempt(helper="Ayla", ability="Sword")
    # Other characters may still help.
    augments.add_quick(helper="Bram", ability="Smith", rating=13)


def test_a_complete_defeat_leaves_its_penalty_in_the_total():
    """§2.4.1: a complete defeat on the augment contest is -3 to the main ability."""
    augments = tracker()
    augments.add_rolled(helper="Ayla", ability="Horse", outcome=rolled_augment(17, 20, 1))
    augments.add_plot(bonus=9)
    assert augments.total == 6


def test_an_ability_cannot_augment_itself():
    """§2.4: "you may not use an ability to augment itself"."""
    augments = tracker()
    with pytest.raises(IllegalAction, match="cannot augment itself"):
        augments.add_quick(helper="Ayla", ability="Knight Errant", rating=17)
    # Another character's ability of the same name is a different ability.
    augments.add_quick(helper="Bram", ability="Knight Errant", rating=15)
    assert augments.total == 3


def test_each_other_character_augments_once():
    """R8 ruling: every helper is held to the one-augment rule for their own abilities."""
    augments = tracker()
    augments.add_quick(helper="Bram", ability="Smith", rating=17)
    with pytest.raises(IllegalAction, match="Bram already augments"):
        augments.add_quick(helper="Bram", ability="Armourer", rating=17)


def test_an_augment_roll_cannot_itself_be_augmented():
    """§2.4.1: "Augment contests may not themselves be augmented"."""
    augments = tracker()
    augment_roll = augments.for_augment_roll(helper="Ayla", ability="Horse")
    assert augment_roll.is_augment_roll
    with pytest.raises(IllegalAction, match="cannot itself be augmented"):
        augment_roll.add_quick(helper="Bram", ability="Groom", rating=15)
    with pytest.raises(IllegalAction, match="cannot itself be augmented"):
        augment_roll.add_plot(bonus=3)
    with pytest.raises(IllegalAction, match="cannot itself be augmented"):
        augment_roll.add_rolled(helper="Bram", ability="Groom", outcome=rolled_augment(15, 3, 9))
    assert augment_roll.total == 0


def test_for_augment_roll_checks_the_attempt_first():
    augments = tracker()
    augments.add_quick(helper="Ayla", ability="Horse", rating=17)
    with pytest.raises(IllegalAction):
        augments.for_augment_roll(helper="Ayla", ability="Sword")


def test_a_refused_augment_leaves_the_tracker_unchanged():
    augments = tracker()
    augments.add_quick(helper="Ayla", ability="Horse", rating=17)
    with pytest.raises(IllegalAction):
        augments.add_quick(helper="Ayla", ability="Sword", rating=20)
    with pytest.raises(RulesError):
        augments.add_plot(bonus=5)
    assert len(augments.augments) == 1


def test_tracker_to_json_and_labels():
    augments = tracker()
    augments.add_rolled(helper="Bram", ability="Smith", outcome=rolled_augment(17, 4, 15))
    augments.add_plot(bonus=6, reason="the King's favour")
    data = augments.to_json()
    assert data["total"] == 12
    assert data["augments"][0]["outcome"]["describe"] == "minor victory"
    assert [a.label for a in augments.augments] == [
        "rolled augment: Bram's Smith (+6)",
        "plot augment: the King's favour (+6)",
    ]


def test_sum_augments_accepts_objects_and_numbers():
    augments = tracker()
    augment = augments.add_plot(bonus=9)
    assert sum_augments([augment, 3, -3]) == 9


@given(rolls=st.tuples(st.integers(1, 20), st.integers(1, 20)), rating=st.integers(-10, 80))
def test_a_rolled_augment_is_never_worse_than_minus_three(rolls, rating):
    """§2.4.1: "penalties for defeat when attempting an augment are much lessened"."""
    bonus = augment_bonus(rolled_augment(rating, *rolls))
    assert bonus in (20, 9, 6, 3, 0, -3)
    assert augment_bonus(simple_contest(rating, rolls[0], 14, rolls[1])) == bonus
