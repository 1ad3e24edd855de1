"""Every §8 table, through the services (fixed dice): depletion, fluctuation, penalties
from defeats, bolstering, withdrawal, crisis tests, cementing and plot events."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from campaigns import services as campaign_services
from community import services
from community.models import CommunityStep, DrawStatus, ResourceChange, StepKind
from contests.core.rules import fixed_rolls
from contests.models import Contest

from .conftest import columns, resource, start_draw

pytestmark = pytest.mark.django_db


def approved_draw(community, gm, tamsin, ashfen_born, name="Wealth", **kwargs):
    draw = start_draw(community, gm, tamsin, ashfen_born, name, **kwargs)
    assert draw.status == DrawStatus.APPROVED
    return draw


# --------------------------------------------------------------------- §8.2 depletion


@pytest.mark.parametrize(
    ("level", "depletion", "social"),
    [
        (4, 0, 0),  # complete victory
        (3, -3, 0),
        (2, -3, 0),
        (1, -3, 0),
        (0, -3, -3),  # a tie: the mildest use, and the prize was not secured
        (-1, -6, -6),
        (-2, -6, -6),
        (-3, -6, -6),
        (-4, -9, -9),  # complete defeat
    ],
)
def test_drawing_depletes_by_the_resource_depletion_table(
    community, gm, tamsin, ashfen_born, session, level, depletion, social
):
    draw = approved_draw(community, gm, tamsin, ashfen_born)
    contest = Contest.objects.create(
        campaign=community.campaign, session=session, number=1, kind="simple"
    )
    settled = services.community_draw_settle(
        draw=draw, actor=gm, outcome_level=level, contest_id=contest.pk
    )
    assert columns(community)["Wealth"] == (32, depletion, 0, 0, 0)
    assert settled.social_penalty == social
    draw.refresh_from_db()
    assert (draw.status, draw.outcome_level, draw.depletion, draw.social_penalty) == (
        DrawStatus.SETTLED,
        level,
        depletion,
        social,
    )
    assert draw.contest == contest and settled.step.contest == contest
    assert settled.step.kind == StepKind.DEPLETION and settled.step.draw == draw
    if depletion:
        change = settled.step.changes.get()
        assert (change.column, change.before, change.after) == ("total", 0, depletion)
        assert change.reason.startswith("§8.2 drew on Wealth")


def test_the_lobbying_contest_rolls_the_ability_against_the_chosen_resistance(
    community, gm, tamsin, ashfen_born, session
):
    # 13 against high (20): 10 is a success, 15 a success too; the higher roll wins.
    draw = start_draw(
        community, gm, tamsin, ashfen_born, "Magic", rolls=(10, 15), resistance_level="high"
    )
    assert (draw.resistance_rating, draw.lobbying_level) == (20, -1)
    assert draw.status == DrawStatus.REFUSED
    step = CommunityStep.objects.get(draw=draw)
    assert step.kind == StepKind.LOBBYING and step.rolls[0]["outcome"] == "marginal defeat"
    # A refused draw costs the community nothing and cannot be settled.
    assert columns(community)["Magic"] == (18, 0, 0, 0, 0)
    with pytest.raises(ValidationError, match="refused"):
        services.community_draw_settle(draw=draw, actor=gm, outcome_level=2)


def test_a_modifier_and_states_count_in_the_lobbying(community, gm, tamsin, ashfen_born, session):
    from characters.models import Condition

    condition = Condition.objects.create(character=tamsin, state="hurt")
    condition.abilities.add(ashfen_born)
    draw = start_draw(community, gm, tamsin, ashfen_born, rolls=(16, 17), modifier=6)
    # 13 + 6 - 3 (hurt) = 16: 16 succeeds, 17 against 14 fails: minor victory.
    assert (draw.ability_rating, draw.lobbying_level) == (16, 2)


def test_a_draw_settles_once(community, gm, tamsin, ashfen_born, session):
    draw = approved_draw(community, gm, tamsin, ashfen_born)
    services.community_draw_settle(draw=draw, actor=gm, outcome_level="minor victory")
    with pytest.raises(ValidationError, match="settled already"):
        services.community_draw_settle(draw=draw, actor=gm, outcome_level=-4)
    assert columns(community)["Wealth"] == (32, -3, 0, 0, 0)


def test_a_required_use_as_an_augment_allows_a_second_augment(
    community, gm, tamsin, ashfen_born, session
):
    services.required_use_add(
        community=community,
        actor=gm,
        resource=resource(community, "Military"),
        action="Hiring mercenaries",
    )
    as_augment = approved_draw(
        community,
        gm,
        tamsin,
        ashfen_born,
        name="Military",
        used_as="augment",
        required_action="hiring mercenaries",
    )
    as_ability = approved_draw(
        community, gm, tamsin, ashfen_born, name="Military", required_action="Hiring mercenaries"
    )
    plain = approved_draw(community, gm, tamsin, ashfen_born, used_as="augment")
    assert [d.own_augments_allowed for d in (as_augment, as_ability, plain)] == [2, 1, 1]
    with pytest.raises(ValidationError, match="not a required use of Wealth"):
        approved_draw(community, gm, tamsin, ashfen_born, required_action="Hiring mercenaries")


# --------------------------------------------------------------------- §8.2.2, §8.2.3


@pytest.mark.parametrize(("level", "penalty"), [(-1, -3), (-2, -6), (-3, -9), (-4, -9)])
def test_a_simple_defeat_penalises_a_resource_by_the_consequences_table(
    community, gm, level, penalty
):
    step = services.community_penalty_from_defeat(
        community=community,
        actor=gm,
        resource=resource(community, "Morale"),
        outcome_level=level,
        reason="the levee broke",
    )
    assert columns(community)["Morale"] == (18, penalty, 0, 0, 0)
    assert step.kind == StepKind.PENALTY and step.note == "the levee broke"


@pytest.mark.parametrize(
    ("states", "penalty"),
    [
        (["hurt"], -3),
        (["injured", "hurt", "impaired"], -6),  # the second worst: impaired
        (["dying", "injured"], -9),
        (["dead", "dying"], -9),
        (["impaired", "impaired"], -6),
    ],
)
def test_a_long_contest_penalises_by_the_second_worst_state(community, gm, states, penalty):
    services.community_penalty_from_defeat(
        community=community, actor=gm, resource=resource(community, "Morale"), states=states
    )
    assert columns(community)["Morale"][1] == penalty


def test_a_penalty_needs_exactly_one_kind_of_outcome(community, gm):
    morale = resource(community, "Morale")
    for kwargs in ({}, {"outcome_level": -2, "states": ["hurt"]}):
        with pytest.raises(ValidationError, match="either"):
            services.community_penalty_from_defeat(
                community=community, actor=gm, resource=morale, **kwargs
            )
    with pytest.raises(ValidationError, match="follows a defeat"):
        services.community_penalty_from_defeat(
            community=community, actor=gm, resource=morale, outcome_level=2
        )
    with pytest.raises(ValidationError, match="not a state of adversity"):
        services.community_penalty_from_defeat(
            community=community, actor=gm, resource=morale, states=["heroic"]
        )
    assert columns(community)["Morale"] == (18, 0, 0, 0, 0)


def test_withdrawing_depletes_as_a_major_defeat(community, gm):
    step = services.community_concede(
        community=community, actor=gm, resource=resource(community, "Diplomacy")
    )
    assert columns(community)["Diplomacy"] == (29, -6, 0, 0, 0)
    assert step.kind == StepKind.WITHDRAWAL


@pytest.mark.parametrize(("level", "bonus"), [(1, 3), (2, 6), (3, 9), (4, 9)])
def test_bolstering_applies_the_benefits_of_victory(community, gm, level, bonus):
    services.community_bolster(
        community=community, actor=gm, resource=resource(community, "Wealth"), outcome_level=level
    )
    assert columns(community)["Wealth"] == (32, bonus, bonus, 0, 0)


def test_bolstering_a_penalty_away_leaves_the_pc_column_blank_until_above_zero(community, gm):
    wealth = resource(community, "Wealth")
    services.community_penalty_from_defeat(
        community=community, actor=gm, resource=wealth, outcome_level=-3
    )
    services.community_bolster(community=community, actor=gm, resource=wealth, outcome_level=2)
    assert columns(community)["Wealth"] == (32, -3, 0, 0, 0)
    services.community_bolster(community=community, actor=gm, resource=wealth, outcome_level=3)
    assert columns(community)["Wealth"] == (32, 6, 6, 0, 0)
    with pytest.raises(ValidationError, match="needs a victory"):
        services.community_bolster(community=community, actor=gm, resource=wealth, outcome_level=0)


# --------------------------------------------------------------------- §8.2.4 fluctuation


@pytest.mark.parametrize(
    ("rolls", "outcome", "modifier"),
    [
        ((1, 20), "complete victory", 9),
        ((5, 20), "major victory", 6),
        ((5, 15), "minor victory", 3),
        ((7, 5), "marginal victory", 0),
        ((5, 5), "tie", 0),
        ((5, 7), "marginal defeat", 0),
        ((15, 5), "minor defeat", -3),
        ((20, 5), "major defeat", -6),
        ((20, 1), "complete defeat", -9),
    ],
)
def test_background_events_follow_the_fluctuation_table_cell_by_cell(
    campaign, gm, rolls, outcome, modifier
):
    # One resource of 10: the average is 10 too, so no mastery bumps either side.
    community = services.community_create(campaign=campaign, actor=gm, name="Reedholm")
    services.resource_add(community=community, actor=gm, name="Wealth", rating="10")
    step = services.community_background_events(
        community=community, actor=gm, roller=fixed_rolls(*rolls)
    )
    assert step.rolls[0]["outcome"] == outcome
    assert (step.rolls[0]["roll"], step.rolls[0]["resistance_roll"]) == rolls
    assert columns(community)["Wealth"] == (10, modifier, 0, max(modifier, 0), 0)
    community.refresh_from_db()
    assert community.background_done


def test_background_events_roll_once_per_interval(community, gm):
    services.community_background_events(
        community=community, actor=gm, roller=fixed_rolls(*[5] * 10)
    )
    before = columns(community)
    with pytest.raises(ValidationError, match="rolled already"):
        services.community_background_events(
            community=community, actor=gm, roller=fixed_rolls(*[1, 20] * 5)
        )
    assert columns(community) == before
    assert CommunityStep.objects.filter(kind=StepKind.BACKGROUND).count() == 1


# --------------------------------------------------------------------- §8.2.5, §8.2.6, §8.4


def test_crisis_tests_start_and_worsen_crises_until_bolstered(community, gm, campaign, session):
    wealth, morale = resource(community, "Wealth"), resource(community, "Morale")
    services.community_penalty_from_defeat(
        community=community, actor=gm, resource=wealth, outcome_level=-2
    )
    services.community_penalty_from_defeat(
        community=community, actor=gm, resource=morale, outcome_level=-1
    )
    # Wealth 12W - 6 = 6W against the average 2W: 10 fails, 2 succeeds: a defeat.
    # Morale 18 - 3 = 15 against 2W (a bump up for the resistance): 20 fumbles.
    # Only penalised resources roll, in order.
    step = services.community_crisis_tests(
        community=community, actor=gm, roller=fixed_rolls(10, 2, 3, 20)
    )
    assert [(r["resource"], r["outcome"]) for r in step.rolls] == [
        ("Wealth", "minor defeat"),
        ("Morale", "minor victory"),
    ]
    assert columns(community)["Wealth"][4] == 1 and columns(community)["Morale"][4] == 0
    assert step.session == session
    with pytest.raises(ValidationError, match="done already"):
        services.community_crisis_tests(community=community, actor=gm, roller=fixed_rolls(1, 20))

    services.community_crisis_narrate(
        community=community, actor=gm, resource=wealth, text="The granaries stand empty."
    )
    campaign_services.session_end(session=session, actor=gm)
    # The next session's start runs the crisis tests itself (§8.2.5).
    campaign_services.session_start(campaign=campaign, actor=gm, roller=fixed_rolls(20, 1, 3, 20))
    wealth.refresh_from_db()
    assert (wealth.crisis, wealth.crisis_note) == (2, "The granaries stand empty.")

    services.community_bolster(community=community, actor=gm, resource=wealth, outcome_level=1)
    wealth.refresh_from_db()
    assert (wealth.total, wealth.crisis, wealth.crisis_note) == (-3, 0, "")


def test_crisis_tests_need_a_session_and_a_penalty(community, gm, campaign, tamsin):
    with pytest.raises(ValidationError, match="start a session first"):
        services.community_crisis_tests(community=community, actor=gm, roller=fixed_rolls())
    campaign_services.session_start(campaign=campaign, actor=gm)
    with pytest.raises(ValidationError, match="no crisis test is due"):
        services.community_crisis_tests(community=community, actor=gm, roller=fixed_rolls())
    community.refresh_from_db()
    assert community.crisis_tests_session is None


def test_cementing_moves_the_background_bonus_to_the_pc_column(community, gm):
    # Wealth 1 vs 10: a major victory (+6); the others earn no bonus.
    services.community_background_events(
        community=community, actor=gm, roller=fixed_rolls(1, 10, *[19, 19] * 4)
    )
    step = services.community_cement(
        community=community, actor=gm, resource=resource(community, "Wealth"), reason="the fair"
    )
    assert columns(community)["Wealth"] == (32, 6, 6, 0, 0)
    assert {(c.column, c.before, c.after) for c in step.changes.all()} == {
        ("pc", 0, 6),
        ("background", 6, 0),
    }
    with pytest.raises(ValidationError, match="no background event bonus"):
        services.community_cement(
            community=community, actor=gm, resource=resource(community, "Morale")
        )


def test_a_plot_event_changes_the_rating_with_a_reason(community, gm):
    step = services.community_plot_event(
        community=community,
        actor=gm,
        resource=resource(community, "Military"),
        change=-3,
        reason="the fort burned",
    )
    change = ResourceChange.objects.get(step=step)
    assert (change.column, change.before, change.after) == ("rating", 12, 9)
    assert "§8.4 plot event" in change.reason and "the fort burned" in change.reason
    with pytest.raises(ValidationError, match="Give the reason"):
        services.community_plot_event(
            community=community,
            actor=gm,
            resource=resource(community, "Military"),
            change=2,
            reason=" ",
        )
    with pytest.raises(ValidationError, match="lower it to 1 at most"):
        services.community_plot_event(
            community=community,
            actor=gm,
            resource=resource(community, "Military"),
            change=-9,
            reason="gone",
        )
    assert columns(community)["Military"][0] == 9
