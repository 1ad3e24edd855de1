"""Setting a community up (§8.1): the spread, resources, the questionnaire, and the bad
input each refuses with a clear message, changing nothing."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from characters.models import Character
from community import services
from community.models import AnswerMode, Community, Resource, StepKind
from community.selectors import questionnaire_scores
from contests.core.rules import fixed_rolls

from .conftest import SPREAD, columns, resource, start_draw

pytestmark = pytest.mark.django_db


def test_founding_gives_the_spread_highest_first(community):
    assert {name: values[0] for name, values in columns(community).items()} == SPREAD
    assert [r.rating_text for r in community.resources.all()] == ["12W", "9W", "18", "18", "12"]
    assert community.steps.get().kind == StepKind.SETUP


def test_a_campaign_tracks_one_community(community, campaign, gm):
    with pytest.raises(ValidationError, match="already tracks a community"):
        services.community_create(campaign=campaign, actor=gm, name="Elsewhere")
    assert Community.objects.count() == 1


@pytest.mark.parametrize("rating", ["abc", "0M2", "0", "-3", "21M", "12X", ""])
def test_invalid_ratings_are_refused(campaign, gm, rating):
    community = services.community_create(campaign=campaign, actor=gm, name="Reedholm")
    with pytest.raises(ValidationError):
        services.resource_add(community=community, actor=gm, name="Wealth", rating=rating)
    assert not Resource.objects.exists()


def test_ratings_read_every_notation(campaign, gm):
    community = services.community_create(campaign=campaign, actor=gm, name="Reedholm")
    for name, rating in (("A", "12W"), ("B", "9m"), ("C", 18), ("D", " 7M "), ("E", "3M2")):
        services.resource_add(community=community, actor=gm, name=name, rating=rating)
    assert [r.rating for r in community.resources.all()] == [32, 29, 18, 27, 43]


def test_a_sixth_resource_is_refused(community, gm):
    with pytest.raises(ValidationError, match="at most 5 resources"):
        services.resource_add(community=community, actor=gm, name="Technology", rating="14")
    assert community.resources.count() == 5


def test_resource_names_are_unique(community, gm):
    services.resource_remove(resource=resource(community, "Military"), actor=gm)
    with pytest.raises(ValidationError, match="two resources are named"):
        services.resource_add(community=community, actor=gm, name="wealth", rating="14")
    with pytest.raises(ValidationError, match="two resources are named"):
        services.resource_update(resource=resource(community, "Magic"), actor=gm, name="MORALE")


def test_founding_needs_five_names_and_no_resources(gm, community):
    with pytest.raises(ValidationError, match="already has resources"):
        services.community_found(community=community, actor=gm, ranked_names=list(SPREAD))
    community.resources.all().delete()
    with pytest.raises(ValidationError, match="five resources"):
        services.community_found(community=community, actor=gm, ranked_names=["Wealth", "Magic"])
    assert not community.resources.exists()


def test_the_gm_ranks_the_spread_during_setup(community, gm):
    order = ["Military", "Morale", "Magic", "Diplomacy", "Wealth"]
    services.community_spread_assign(
        community=community, actor=gm, ranked=[resource(community, n) for n in order]
    )
    assert {n: v[0] for n, v in columns(community).items()} == {
        "Military": 32,
        "Morale": 29,
        "Magic": 18,
        "Diplomacy": 18,
        "Wealth": 12,
    }
    with pytest.raises(ValidationError, match="exactly once"):
        services.community_spread_assign(
            community=community, actor=gm, ranked=[resource(community, "Wealth")] * 5
        )


def test_setup_closes_once_play_begins(community, gm):
    services.community_background_events(
        community=community, actor=gm, roller=fixed_rolls(*[5] * 10)
    )
    wealth = resource(community, "Wealth")
    with pytest.raises(ValidationError, match="Play with Ashfen has begun"):
        services.resource_update(resource=wealth, actor=gm, name="Wealth", rating="14")
    with pytest.raises(ValidationError, match="has begun"):
        services.resource_remove(resource=wealth, actor=gm)
    with pytest.raises(ValidationError, match="has begun"):
        services.community_spread_assign(
            community=community, actor=gm, ranked=list(community.resources.all())
        )
    # Renaming stays possible: the history follows the resource.
    services.resource_update(resource=wealth, actor=gm, name="Trade")
    assert resource(community, "Trade").rating == 32


def test_only_the_gm_changes_the_community(community, alice, sam):
    wealth = resource(community, "Wealth")
    for user in (alice, sam):
        for call in (
            lambda u=user: services.resource_add(community=community, actor=u, name="X", rating=14),
            lambda u=user: services.community_bolster(
                community=community, actor=u, resource=wealth, outcome_level=2
            ),
            lambda u=user: services.community_plot_event(
                community=community, actor=u, resource=wealth, change=1, reason="why"
            ),
            lambda u=user: services.community_background_events(
                community=community, actor=u, roller=fixed_rolls(*[5] * 10)
            ),
            lambda u=user: services.community_interval_end(
                community=community, actor=u, interval=1
            ),
        ):
            with pytest.raises(PermissionDenied):
                call()
    assert columns(community)["Wealth"] == (32, 0, 0, 0, 0)
    assert community.resources.count() == 5


# --------------------------------------------------------------------- drawing: bad input


def test_drawing_outside_a_session_is_refused(community, gm, tamsin, ashfen_born):
    with pytest.raises(ValidationError, match="Drawing on a resource happens in play"):
        start_draw(community, gm, tamsin, ashfen_born, purpose="grain")
    assert not community.draws.exists()
    assert not community.steps.exclude(kind=StepKind.SETUP).exists()


def test_settling_outside_a_session_is_refused(community, gm, tamsin, ashfen_born, session):
    from campaigns.services import session_end

    draw = start_draw(community, gm, tamsin, ashfen_born, purpose="grain")
    session_end(session=session, actor=gm)
    with pytest.raises(ValidationError, match="start a session first"):
        services.community_draw_settle(draw=draw, actor=gm, outcome_level=1)
    assert columns(community)["Wealth"] == (32, 0, 0, 0, 0)


def test_a_player_may_lobby_for_their_own_character_only(
    community, alice, sam, make_user, campaign, tamsin, ashfen_born, session
):
    draw = start_draw(community, alice, tamsin, ashfen_born, purpose="grain")
    assert draw.actor == alice
    with pytest.raises(PermissionDenied):
        services.community_draw_settle(draw=draw, actor=alice, outcome_level=4)
    with pytest.raises(PermissionDenied):
        start_draw(community, sam, tamsin, ashfen_born, purpose="grain")


def test_drawing_checks_its_input(community, gm, campaign, tamsin, ashfen_born, session, alice):
    stranger = Character.objects.create(name="Vell", player=alice)
    wealth = resource(community, "Wealth")

    def start(**overrides):
        kwargs = dict(
            community=community,
            actor=gm,
            resource=wealth,
            character=tamsin,
            ability=ashfen_born,
            purpose="grain",
            roller=fixed_rolls(1, 20),
        )
        return services.community_draw_start(**{**kwargs, **overrides})

    with pytest.raises(ValidationError, match="Choose a character of"):
        start(character=stranger)
    with pytest.raises(ValidationError, match="own abilities"):
        other = Character.objects.create(name="Oro", player=alice, campaign=campaign)
        start(character=other)
    with pytest.raises(ValidationError, match="Give what the resource is for"):
        start(purpose="  ")
    with pytest.raises(ValidationError, match="unknown resistance class"):
        start(resistance_level="impossible-ish")
    with pytest.raises(ValidationError, match="-60 to 60"):
        start(modifier=99)
    with pytest.raises(ValidationError, match="as an augment"):
        start(used_as="bribe")
    assert not community.draws.exists()


def test_an_unknown_contest_is_refused(community, gm, campaign):
    with pytest.raises(ValidationError, match="no contest 999"):
        services.community_bolster(
            community=community,
            actor=gm,
            resource=resource(community, "Wealth"),
            outcome_level=2,
            contest_id=999,
        )
    assert columns(community)["Wealth"] == (32, 0, 0, 0, 0)


# --------------------------------------------------------------------- questionnaire


def _questions(community, gm):
    ids = {r.name: r.pk for r in community.resources.all()}
    first = services.question_add(
        community=community,
        actor=gm,
        text="What saved Ashfen in the great flood?",
        choices=[
            ("The army of boats", {ids["Military"]: 3, ids["Morale"]: 1}),
            ("The temple's rites", {ids["Magic"]: 3}),
            ("Gold paid upriver", {ids["Wealth"]: 2, ids["Diplomacy"]: 2}),
        ],
    )
    second = services.question_add(
        community=community,
        actor=gm,
        text="Who rules the council?",
        choices=[("The ferrymen", {ids["Morale"]: 3}), ("The priests", {ids["Magic"]: 2})],
    )
    return first, second


def test_consensus_answers_rank_the_resources_by_their_secret_scores(community, gm, alice):
    first, second = _questions(community, gm)
    services.questionnaire_answer(question=first, actor=alice, choice=first.choices.get(position=1))
    # The group changes its mind: the GM records the new consensus, which replaces it.
    services.questionnaire_answer(question=first, actor=gm, choice=first.choices.get(position=2))
    services.questionnaire_answer(
        question=second, actor=alice, choice=second.choices.get(position=1)
    )
    assert first.answers.count() == 1
    scores = questionnaire_scores(community)
    assert {r.name: scores[r.pk] for r in community.resources.all()} == {
        "Wealth": 0,
        "Diplomacy": 0,
        "Magic": 3,
        "Morale": 3,
        "Military": 0,
    }
    services.community_spread_from_questionnaire(community=community, actor=gm)
    # Ties keep the order listed: Magic before Morale, then Wealth, Diplomacy, Military.
    assert {n: v[0] for n, v in columns(community).items()} == {
        "Magic": 32,
        "Morale": 29,
        "Wealth": 18,
        "Diplomacy": 18,
        "Military": 12,
    }


def test_per_player_answers_add_up(community, gm, alice, make_user, campaign):
    from campaigns.models import Membership, Role

    bob = make_user("bob", "Bob")
    Membership.objects.create(campaign=campaign, user=bob, role=Role.PLAYER)
    community.answer_mode = AnswerMode.PER_PLAYER
    community.save()
    first, _ = _questions(community, gm)
    services.questionnaire_answer(question=first, actor=alice, choice=first.choices.get(position=1))
    services.questionnaire_answer(question=first, actor=bob, choice=first.choices.get(position=1))
    services.questionnaire_answer(question=first, actor=alice, choice=first.choices.get(position=3))
    scores = questionnaire_scores(community)
    named = {r.name: scores[r.pk] for r in community.resources.all()}
    assert named == {"Wealth": 2, "Diplomacy": 2, "Magic": 0, "Morale": 1, "Military": 3}
    with pytest.raises(PermissionDenied):
        services.questionnaire_answer(question=first, actor=gm, choice=first.choices.first())


def test_spectators_do_not_answer_and_questions_need_choices(community, gm, sam):
    first, _ = _questions(community, gm)
    with pytest.raises(PermissionDenied):
        services.questionnaire_answer(question=first, actor=sam, choice=first.choices.first())
    with pytest.raises(ValidationError, match="at least two answers"):
        services.question_add(community=community, actor=gm, text="Why?", choices=[("Yes", {})])
    with pytest.raises(ValidationError, match="Nobody has answered"):
        services.community_spread_from_questionnaire(community=community, actor=gm)


def test_a_deleted_campaign_takes_its_community_along(
    community, gm, campaign, tamsin, ashfen_born, session
):
    draw = start_draw(community, gm, tamsin, ashfen_born)
    services.community_draw_settle(draw=draw, actor=gm, outcome_level=2)
    campaign.delete()
    assert not Community.objects.exists() and not Resource.objects.exists()
