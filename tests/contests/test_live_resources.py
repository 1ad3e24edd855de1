"""Drawing on a community resource in a live contest (§8.2; issues 6 and 7)."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from community.models import ResourceDraw
from community.services import community_create, community_draw_start, community_found
from contests.core.rules import fixed_rolls
from contests.services import ContestError

from .conftest import ability

pytestmark = pytest.mark.django_db


@pytest.fixture
def wealth(campaign, gm):
    community = community_create(campaign=campaign, actor=gm, name="Ashfen")
    resources = community_found(
        community=community,
        actor=gm,
        ranked_names=["Wealth", "Diplomacy", "Magic", "Morale", "Military"],
    )
    return resources[0]  # 12W = 32


def draw(wealth, alice, tamsin, used_as):
    # Boatcraft 17 rolls 3 (success) against moderate 14 rolling 16 (failure): approved.
    return community_draw_start(
        community=wealth.community,
        actor=alice,
        resource=wealth,
        character=tamsin,
        ability=ability(tamsin, "Boatcraft"),
        purpose="hire the ferries",
        used_as=used_as,
        roller=fixed_rolls(3, 16),
    )


def play(table, contest, gm, rolls):
    """Roll, resolve and apply, each action with the same dice."""
    for user, action, data in (
        (gm, "roll", {}),
        (gm, "resolve", {}),
        (gm, "apply_consequences", {"narration": "The ferries come."}),
    ):
        table.act(contest, user, action, rolls=rolls, **data)
    return contest


def frame(table, character, draw_id):
    """`character` moves the grain against the flood (high), drawing on `draw_id`."""
    return table.frame(
        pc=character,
        prize="move the grain",
        opponent={"name": "The flood", "level": "high"},
        draw_id=draw_id,
    )


def test_the_resource_is_the_ability_and_is_depleted_by_the_outcome(
    table, session, gm, alice, tamsin, wealth
):
    approved = draw(wealth, alice, tamsin, "ability")
    assert approved.status == "approved"
    contest = frame(table, tamsin, approved.pk)
    assert contest.state["sides"]["pc"]["ability"] == "Wealth"
    assert contest.state["sides"]["pc"]["rating"] == 32  # 12W (R17)
    # 12W rolls 5: success, bumped to a critical by the mastery; high (20) rolls 15:
    # success. A minor victory.
    contest = play(table, contest, gm, rolls=(5, 15))
    approved.refresh_from_db()
    # §8.2 Resource Depletion Table: a minor victory costs the resource 3.
    assert (contest.outcome_level, approved.status, approved.depletion) == (2, "settled", -3)
    assert approved.contest_id == contest.pk
    assert "Wealth" in contest.events.last().payload["resource_draw"]["resource"]
    with pytest.raises(ContestError, match="settled and stays"):
        table.act(contest, gm, "undo")


def test_the_resource_as_an_augment_adds_a_quick_augment(table, session, alice, tamsin, wealth):
    approved = draw(wealth, alice, tamsin, "augment")
    contest = frame(table, tamsin, approved.pk)
    assert contest.state["sides"]["pc"]["augments"][0]["bonus"] == 32 // 5  # R8 quick augment
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    assert str(contest.state["sides"]["pc"]["augments"][0]["bonus"]) == "6"


def test_the_resource_augment_names_the_rating_it_came_from(
    client, table, session, gm, alice, tamsin, wealth
):
    """Issue 27, 11a: the augment line read "…a quick augment from its rating : +6"."""
    approved = draw(wealth, alice, tamsin, "augment")
    frame(table, tamsin, approved.pk)
    for user in (alice, gm):
        client.force_login(user)
        page = client.get(reverse("table", args=[table.campaign.pk])).content.decode()
        words = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
        assert "Wealth's community resource, a quick augment from its rating 12W: +6" in words


def test_someone_elses_or_a_refused_draw_cannot_be_used(
    table, session, alice, tamsin, brannoc, wealth
):
    approved = draw(wealth, alice, tamsin, "ability")
    with pytest.raises(ContestError, match="Tamsin's"):
        frame(table, brannoc, approved.pk)
    ResourceDraw.objects.filter(pk=approved.pk).update(status="refused")
    with pytest.raises(ContestError, match="no approved"):
        frame(table, tamsin, approved.pk)


def test_a_failed_draw_penalises_the_lobbying_ability_for_the_interval(
    table, session, gm, alice, tamsin, wealth
):
    """§8.2: on a failed prize the penalty also falls on the character's social ability."""
    from contests.core.rules.community import social_penalty

    approved = draw(wealth, alice, tamsin, "ability")
    lost = frame(table, tamsin, approved.pk)
    # A fumble (bumped to a failure by 12W's mastery) against a critical: a major defeat.
    lost = play(table, lost, gm, rolls=(20, 1))
    approved.refresh_from_db()
    assert lost.outcome_level == -3
    assert approved.social_penalty == social_penalty(-3) < 0
    assert not tamsin.conditions.exists()  # the depletion replaced the consequence

    contest = table.frame(
        pc=tamsin, prize="win back the guild", opponent={"name": "The guild", "level": "moderate"}
    )
    table.act(
        contest,
        alice,
        "choose_ability",
        side="pc",
        ability_id=ability(tamsin, "Boatcraft").pk,
        sheet_penalties=[{"label": "forged", "value": 50}],
    )
    lines = contest.state["sides"]["pc"]["modifiers"]
    assert [line["value"] for line in lines] == [approved.social_penalty]  # not the forged one
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Sharp eyes").pk
    )
    assert contest.state["sides"]["pc"]["modifiers"] == []


def test_a_required_resource_use_as_an_augment_allows_a_second_own_augment(
    table, session, gm, alice, tamsin, wealth
):
    """§8.2.1: a required use of a resource as an augment allows the extra augment."""
    from community.services import required_use_add

    required_use_add(community=wealth.community, actor=gm, resource=wealth, action="pay tithes")
    required = community_draw_start(
        community=wealth.community,
        actor=alice,
        resource=wealth,
        character=tamsin,
        ability=ability(tamsin, "Boatcraft"),
        purpose="pay the temple",
        used_as="augment",
        required_action="pay tithes",
        roller=fixed_rolls(3, 16),
    )
    assert required.own_augments_allowed == 2
    contest = frame(table, tamsin, required.pk)
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )

    def own_quick_augment():
        table.act(
            contest,
            alice,
            "augment",
            side="pc",
            kind="quick",
            helper_ability_id=ability(tamsin, "Sharp eyes").pk,
        )

    own_quick_augment()
    own_quick_augment()  # the second own augment the required use allows
    with pytest.raises(ContestError, match="already tried"):
        own_quick_augment()
    contest.refresh_from_db()
    assert len(contest.state["sides"]["pc"]["augments"]) == 3  # the resource and two own
