"""Outcomes: consequences and benefits (§2.11), healing (§2.11.3), waning (§2.11.4),
stretch cap (§2.10), pyrrhic victory (§2.17), graduated goals (§2.18), costly automatic
victory (§2.19.2), escalation (§2.8.2); RULINGS R10, R11."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests.core.rules.errors import IllegalAction, RulesError
from contests.core.rules.outcomes import (
    PYRRHIC_VICTORY_BUMPS,
    apply_benefit,
    apply_consequence,
    apply_outcome,
    benefit_of_victory,
    can_act,
    consequence_of_defeat,
    costly_automatic_victory,
    escalation_first_round,
    graduated_goals,
    heal,
    healed_state,
    healing_resistance,
    is_clearly_inferior,
    offset_benefit_and_consequence,
    pyrrhic_victory_consequence,
    stretch_capped_level,
    update_abilities,
    wane,
)
from contests.core.rules.ratings import Rating
from contests.core.rules.simple import simple_contest
from contests.core.rules.states import State

HURT, IMPAIRED, INJURED, DYING, DEAD = (
    State.HURT,
    State.IMPAIRED,
    State.INJURED,
    State.DYING,
    State.DEAD,
)
FRESH, PUMPED, INVIGORATED, HEROIC = State.FRESH, State.PUMPED, State.INVIGORATED, State.HEROIC


# §2.11.1 Consequences of Defeat Table and §2.11.2 Benefits of Victory Table (R10).
@pytest.mark.parametrize(
    ("level", "consequence", "benefit"),
    [
        (-4, DYING, None),
        (-3, INJURED, None),
        (-2, IMPAIRED, None),
        (-1, HURT, None),
        (0, None, None),
        (1, None, FRESH),
        (2, None, PUMPED),
        (3, None, INVIGORATED),
        (4, None, HEROIC),
    ],
)
def test_consequence_and_benefit_tables(level, consequence, benefit):
    """§2.11.1 and §2.11.2 tables, by degree, cell by cell."""
    assert consequence_of_defeat(level) == consequence
    assert benefit_of_victory(level) == benefit


def test_tables_read_an_outcome_too():
    outcome = simple_contest(14, 5, 14, 20)  # major victory
    assert benefit_of_victory(outcome) is INVIGORATED
    assert consequence_of_defeat(outcome) is None


@pytest.mark.parametrize(
    ("ability", "resistance", "inferior"),
    [
        (20, 14, True),  # exceeded by 6
        (21, 14, True),
        (19, 14, False),  # by 5
        (14, 14, False),
        (10, 14, False),
        ("7M", "1M", True),
        ("5M", 20, False),  # 25 v 20: by 5
    ],
)
def test_clearly_inferior_opponents(ability, resistance, inferior):
    """§2.11.2.1, R10: no benefit when the ability used exceeded the resistance by 6 or
    more."""
    assert is_clearly_inferior(ability, resistance) is inferior
    expected = None if inferior else FRESH
    assert benefit_of_victory(1, ability_used=ability, resistance=resistance) == expected


def test_clearly_inferior_compares_your_best_to_their_worst():
    """§2.11.2.1: in a long contest, compare the best ability you used to his worst."""
    assert is_clearly_inferior([12, 15, 20], [18, 14])
    assert not is_clearly_inferior([12, 15, 19], [18, 14])
    assert is_clearly_inferior((Rating(26),), (Rating(25), 20))


def test_clearly_inferior_needs_both_sides():
    with pytest.raises(RulesError):
        benefit_of_victory(2, ability_used=20)
    with pytest.raises(RulesError):
        is_clearly_inferior([], 14)


def test_apply_consequence_stacks_and_ends_freshness():
    """§2.11.1.2: hurts are cumulative; impairments combine with hurts; §2.11.2.1 Fresh:
    "Until you are defeated"."""
    states = apply_consequence((), -1)
    states = apply_consequence(states, -1)
    assert states == (HURT, HURT)
    states = apply_consequence((FRESH, PUMPED, HURT), -2)
    assert states == (PUMPED, HURT, IMPAIRED)


def test_a_tie_or_victory_brings_no_consequence():
    assert apply_consequence((FRESH,), 0) == (FRESH,)
    assert apply_consequence((HURT,), 3) == (HURT,)


def test_apply_benefit_stacks_and_respects_inferior_opponents():
    """§2.11.2: "A PC may apply bonuses from multiple benefits to a single contest"."""
    states = apply_benefit((FRESH,), 1)
    assert states == (FRESH, FRESH)
    assert apply_benefit((), 4, ability_used=30, resistance=14) == ()
    assert apply_benefit((), -2) == ()


def test_apply_outcome_chooses_consequence_or_benefit():
    assert apply_outcome((), -4) == (DYING,)
    assert apply_outcome(("fresh",), -1) == (HURT,)
    assert apply_outcome((), 2) == (PUMPED,)
    assert apply_outcome((), 0) == ()
    assert apply_outcome((), 2, ability_used=25, resistance=14) == ()


def test_update_abilities_applies_to_several_and_drops_empty():
    conditions = {"Sword": (FRESH,), "Ride": (HURT,)}
    updated = update_abilities(conditions, ["Sword", "Charm"], apply_consequence, -2)
    assert updated == {"Sword": (IMPAIRED,), "Ride": (HURT,), "Charm": (IMPAIRED,)}
    assert conditions == {"Sword": (FRESH,), "Ride": (HURT,)}  # unchanged: pure
    assert update_abilities(updated, ["Ride"], wane) == {
        "Sword": (IMPAIRED,),
        "Charm": (IMPAIRED,),
    }


@pytest.mark.parametrize(
    ("states", "able"),
    [((), True), ((INJURED, HURT), True), ((DYING,), False), ((DEAD,), False)],
)
def test_can_act(states, able):
    """§2.11.1.5-6: the dying and the dead take no actions."""
    assert can_act(states) is able


# --- Healing: §2.11.3 ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "base", "total"),
    [
        ("hurt", 14, 8),  # low
        ("impaired", 14, 14),  # moderate
        ("injured", 14, 20),  # high
        ("dying", 14, 34),  # very high
        ("hurt", 10, 4),
        ("impaired", 10, 10),
        ("injured", 10, 16),
        ("dying", 10, 30),
    ],
)
def test_healing_resistances_table(state, base, total):
    """§2.11.3.2 Healing Resistances Table, R10."""
    assert healing_resistance(state, base) == Rating(total)


@pytest.mark.parametrize("state", ["dead", "fresh", "heroic"])
def test_only_hurt_to_dying_has_a_healing_resistance(state):
    with pytest.raises(RulesError):
        healing_resistance(state)


# §2.11.3.3 Outcomes of Healing, R10: the state after a healing attempt, by level
# (-4..+4); None is healed. Dying follows §2.11.1.5 (R18.7): a success leaves them
# injured, a complete victory impaired, a failure dying and doomed.
HEALING_TABLE = {
    #         -4      -3       -2        -1        0         +1        +2        +3    +4
    HURT: (INJURED, IMPAIRED, HURT, HURT, HURT, None, None, None, None),
    IMPAIRED: (DYING, INJURED, IMPAIRED, IMPAIRED, IMPAIRED, HURT, None, None, None),
    INJURED: (DEAD, DYING, INJURED, INJURED, INJURED, IMPAIRED, HURT, None, None),
    DYING: (DYING, DYING, DYING, DYING, DYING, INJURED, INJURED, INJURED, IMPAIRED),
}


@pytest.mark.parametrize("level", range(-4, 5))
@pytest.mark.parametrize("state", list(HEALING_TABLE))
def test_outcomes_of_healing(state, level):
    """§2.11.3.3, R10: a victory removes one step per degree; a major defeat worsens one
    step, a complete defeat two; §2.11.1.5 and R18.7: a dying character's successful
    intervention leaves them injured (a complete victory impaired), a failed one dying
    and doomed."""
    assert healed_state(state, level) == HEALING_TABLE[state][level + 4]


def test_heal_changes_only_the_treated_state():
    assert heal((HURT, INJURED, FRESH), INJURED, 2) == (HURT, HURT, FRESH)
    assert heal((HURT, INJURED), HURT, 1) == (INJURED,)
    assert heal((HURT, INJURED), INJURED, -4) == (HURT, DEAD)


def test_heal_refuses_a_state_that_is_not_there_or_cannot_heal():
    with pytest.raises(IllegalAction, match="no injured"):
        heal((HURT,), INJURED, 2)
    with pytest.raises(IllegalAction):
        heal((DEAD,), DEAD, 4)
    with pytest.raises(IllegalAction):
        healed_state(FRESH, 1)


@given(
    state=st.sampled_from([HURT, IMPAIRED, INJURED, DYING]),
    level=st.integers(-4, 4),
)
def test_healing_never_helps_on_a_defeat_nor_harms_on_a_victory(state, level):
    after = healed_state(state, level)
    rank = 0 if after is None else after.rank
    if level > 0:
        assert rank < state.rank
    else:
        assert rank >= state.rank


# --- Waning: §2.11.1.2, §2.11.2.1, §2.11.4 -----------------------------------------


def test_hurts_and_freshness_wane_at_session_end():
    """§2.11.1.2: hurts vanish at the end of a session; §2.11.2.1: so does freshness."""
    states = (HURT, HURT, IMPAIRED, INJURED, FRESH, PUMPED, INVIGORATED, HEROIC)
    assert wane(states) == (IMPAIRED, INJURED, PUMPED, INVIGORATED, HEROIC)
    assert wane(states, at="session_end") == wane(states)


def test_all_benefits_expire_at_the_end_of_a_storyline():
    """§2.11.4: "the GM may declare that all benefits have expired"."""
    states = (HURT, IMPAIRED, FRESH, PUMPED, INVIGORATED, HEROIC, DYING)
    assert wane(states, at="storyline_end") == (IMPAIRED, DYING)


def test_wane_needs_a_known_moment():
    with pytest.raises(RulesError):
        wane((), at="lunch")


# --- Benefits meet consequences: §2.11.5 -------------------------------------------


@pytest.mark.parametrize(
    ("benefit", "consequence", "result"),
    [
        (INVIGORATED, HURT, PUMPED),  # the SRD's own example
        (FRESH, HURT, None),  # they cancel out
        (PUMPED, HURT, FRESH),
        (HEROIC, HURT, INVIGORATED),
        (FRESH, INJURED, IMPAIRED),
        (PUMPED, DYING, IMPAIRED),
        (HEROIC, DYING, None),
        (HEROIC, DEAD, DEAD),  # nothing offsets death
    ],
)
def test_offset_benefit_and_consequence(benefit, consequence, result):
    """§2.11.5: the GM may take the difference between the two and create a new one."""
    assert offset_benefit_and_consequence(benefit, consequence) == result


def test_offset_needs_one_of_each():
    with pytest.raises(RulesError):
        offset_benefit_and_consequence(HURT, FRESH)


# --- Stretch cap, pyrrhic victory, graduated goals, costly automatic victory ---------


@pytest.mark.parametrize(
    ("level", "capped"), [(4, 2), (3, 2), (2, 2), (1, 1), (0, 0), (-1, -1), (-4, -4)]
)
def test_a_stretch_caps_victories_at_minor(level, capped):
    """§2.10: "If you are using a stretch, then major or complete victories you score
    are instead treated as minor victories"."""
    assert stretch_capped_level(level) == capped


# §2.17 Pyrrhic Victory Table (R11); a tie is read as dead (between two dead rows).
@pytest.mark.parametrize(
    ("level", "state"),
    [
        (-4, DEAD),
        (-3, DEAD),
        (-2, DEAD),
        (-1, DEAD),
        (0, DEAD),
        (1, DEAD),
        (2, DYING),
        (3, INJURED),
        (4, IMPAIRED),
    ],
)
def test_pyrrhic_victory_table(level, state):
    """§2.17 Pyrrhic Victory Table, R11, cell by cell."""
    assert pyrrhic_victory_consequence(level) == state


def test_a_pyrrhic_victory_is_fought_with_a_bump_up():
    """§2.17: "You gain a bump in the ability you are using"."""
    assert PYRRHIC_VICTORY_BUMPS == 1
    outcome = simple_contest(14, 16, 14, 5, pc_bumps=PYRRHIC_VICTORY_BUMPS)
    assert outcome.describe == "marginal victory"
    assert pyrrhic_victory_consequence(outcome) is DEAD


@pytest.mark.parametrize(
    ("level", "goals"),
    [
        (4, ("primary", "secondary")),
        (3, ("primary", "secondary")),
        (2, ("primary",)),
        (1, ("primary",)),
        (0, ()),
        (-1, ()),
        (-4, ()),
    ],
)
def test_graduated_goals(level, goals):
    """§2.18: both goals on a major or complete victory, the primary only on a minor or
    marginal one."""
    assert graduated_goals(level) == goals


@pytest.mark.parametrize(
    ("level", "consequence"),
    [(-4, DYING), (-3, INJURED), (-2, IMPAIRED), (-1, HURT), (0, None), (1, None), (4, None)],
)
def test_costly_automatic_victory(level, consequence):
    """§2.19.2: even a defeat overcomes the obstacle, with the consequence of defeat
    for its level."""
    result = costly_automatic_victory(level)
    assert result.overcomes_obstacle
    assert result.consequence == consequence


def test_costly_automatic_victory_in_words():
    assert costly_automatic_victory(-3).describe == (
        "victory despite a major defeat, at the cost of being injured"
    )
    assert costly_automatic_victory(2).describe == "victory (minor victory on the roll), at no cost"


@pytest.mark.parametrize("level", [5, -5, 1.5, True, "2"])
def test_levels_are_checked(level):
    with pytest.raises(RulesError):
        graduated_goals(level)


# --- Escalation: §2.8.2 ---------------------------------------------------------------


def test_escalation_hands_the_outcome_over_as_the_first_round():
    """§2.8.2: re-interpret the simple contest outcome as the first round (the SRD's
    example: a marginal victory scores 1 RP against Crowsky in the scored contest)."""
    outcome = simple_contest(14, 9, 14, 5)
    first = escalation_first_round(outcome)
    assert first["into"] == "scored"
    assert first["round"] == outcome.to_json()
    assert first["round"]["winner"] == "pc"
    assert first["round"]["degree"] == "marginal"
    assert escalation_first_round(outcome, into="chained")["into"] == "chained"


def test_escalation_only_into_scored_or_chained():
    """§2.8.2: escalating works with scored or chained contests only."""
    with pytest.raises(RulesError):
        escalation_first_round(simple_contest(14, 9, 14, 5), into="extended")
    with pytest.raises(RulesError):
        escalation_first_round(2)


# §2.11.1.5: the contest of wherewithal, every level of its outcome.
@pytest.mark.parametrize(
    ("level", "roused", "may_waive"),
    [(4, True, True), (3, True, True), (2, True, False), (1, True, False), (0, False, False)]
    + [(level, False, False) for level in (-1, -2, -3, -4)],
)
def test_a_contest_of_wherewithal_rouses_on_any_victory_2_11_1_5(level, roused, may_waive):
    from contests.core.rules.outcomes import contest_of_wherewithal

    result = contest_of_wherewithal(level)
    assert (result.roused, result.bump_down, result.may_waive) == (roused, roused, may_waive)
    if may_waive:
        waived = contest_of_wherewithal(level, waive_bump=True)
        assert (waived.roused, waived.bump_down) == (True, False)
    else:
        with pytest.raises(RulesError, match="only after a major or complete victory"):
            contest_of_wherewithal(level, waive_bump=True)
