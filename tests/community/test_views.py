"""The community pages over HTTP: who may read and do what, the flows by hand, and the
page's query count, which stays bounded however long the history grows."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns import services as campaign_services
from community import services
from community.models import Community, CommunityStep, DrawStatus, StepKind
from contests.core.rules import fixed_rolls

from .conftest import columns, resource, start_draw

pytestmark = pytest.mark.django_db

READ_PAGES = ["page", "notation", "questionnaire"]
# Session and user, campaign (and role), community, resources, draws, steps and their
# changes, interval records, play history, questions; the GM's open session instead of
# a membership.
PAGE_QUERIES = 12
NOTATION_QUERIES = 8
GM_PAGES = ["setup", "draws", "edit"]


def url(community_or_campaign, name: str, *args) -> str:
    campaign_id = getattr(community_or_campaign, "campaign_id", community_or_campaign.pk)
    return reverse(f"community:{name}", args=[campaign_id, *args])


def as_user(client, user):
    client.force_login(user)
    return client


# --------------------------------------------------------------------- permissions


@pytest.mark.parametrize("page", READ_PAGES)
def test_members_read_and_outsiders_get_404(client, community, gm, alice, sam, charlie, page):
    for user, status in ((gm, 200), (alice, 200), (sam, 200), (charlie, 404)):
        assert as_user(client, user).get(url(community, page)).status_code == status, user


@pytest.mark.parametrize("page", GM_PAGES)
def test_gm_pages_are_the_gms(client, community, gm, alice, sam, charlie, page):
    for user, status in ((gm, 200), (alice, 403), (sam, 403), (charlie, 404)):
        assert as_user(client, user).get(url(community, page)).status_code == status, user


def test_anonymous_visitors_are_sent_to_log_in(client, community):
    response = client.get(url(community, "page"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def gm_posts(community):
    wealth = resource(community, "Wealth")
    use = services.required_use_add(
        community=community, actor=community.campaign.gm, resource=wealth, action="Bribes"
    )
    question = services.question_add(
        community=community,
        actor=community.campaign.gm,
        text="Q?",
        choices=[("a", {wealth.pk: 1}), ("b", {})],
    )
    return [
        ("background", ()),
        ("crisis", ()),
        ("interval_end", ()),
        ("plot", ()),
        ("cement", (wealth.pk,)),
        ("crisis_narrate", (wealth.pk,)),
        ("found", ()),
        ("resource_add", ()),
        ("resource_edit", (wealth.pk,)),
        ("resource_remove", (wealth.pk,)),
        ("spread", ()),
        ("required_add", ()),
        ("required_remove", (use.pk,)),
        ("question_add", ()),
        ("question_remove", (question.pk,)),
        ("questionnaire_assign", ()),
        ("draw_start", ()),
        ("penalty", ()),
        ("bolster", ()),
        ("concede", ()),
        ("edit", ()),
    ]


def test_only_the_gm_acts(client, community, alice, sam, charlie):
    posts = gm_posts(community)
    before = (columns(community), CommunityStep.objects.count())
    data = {
        "interval": 1,
        "change": 3,
        "reason": "x",
        "resource": resource(community, "Wealth").pk,
        "outcome_level": 2,
        "name": "X",
        "rating": "14",
        "text": "x",
        "action": "x",
    }
    for user, status in ((alice, 403), (sam, 403), (charlie, 404)):
        for name, args in posts:
            response = as_user(client, user).post(url(community, name, *args), data)
            assert response.status_code == status, (user, name)
    assert (columns(community), CommunityStep.objects.count()) == before
    assert as_user(client, alice).post(url(community, "create"), {"name": "x"}).status_code == 403


def test_only_players_answer(client, community, gm, alice, sam, charlie):
    question = services.question_add(
        community=community, actor=gm, text="Q?", choices=[("a", {}), ("b", {})]
    )
    choice = question.choices.first()
    target = url(community, "answer", question.pk)
    assert as_user(client, sam).post(target, {"choice": choice.pk}).status_code == 403
    assert as_user(client, charlie).post(target, {"choice": choice.pk}).status_code == 404
    response = as_user(client, alice).post(target, {"choice": choice.pk}, follow=True)
    assert "Answer saved." in response.content.decode()
    assert question.answers.get().user == alice


# --------------------------------------------------------------------- the page


def test_the_page_shows_the_notation_table_and_chart(client, community, gm, alice):
    services.community_background_events(
        community=community, actor=gm, roller=fixed_rolls(1, 10, *[19, 19] * 4)
    )
    page = as_user(client, alice).get(url(community, "page")).content.decode()
    assert 'id="notation-table"' in page and "hx-swap-oob" not in page.split("community-chart")[0]
    assert f'ws-connect="/ws/tables/{community.campaign_id}/"' in page
    assert '<tr data-resource="Wealth">' in page and "12W" in page
    assert "Background events of season 1: <strong>rolled</strong>" in page
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in page
    assert '<title id="resource-' in page and '<desc id="resource-' in page
    assert "season 1: rating 12W, Total +6, PC 0." in page
    assert "Interval controls" not in page
    gm_page = as_user(client, gm).get(url(community, "page")).content.decode()
    assert "Interval controls" in gm_page and "End season 1" in gm_page


def test_a_campaign_without_a_community(client, campaign, gm, alice):
    page = as_user(client, alice).get(url(campaign, "page")).content.decode()
    assert "tracks no community" in page
    response = as_user(client, gm).post(
        url(campaign, "create"),
        {"name": "Ashfen", "interval_name": "voyage", "answer_mode": "consensus"},
    )
    assert response.status_code == 302
    assert Community.objects.get(campaign=campaign).interval_name == "voyage"


def test_the_gm_sets_up_by_hand(client, campaign, gm):
    services.community_create(campaign=campaign, actor=gm, name="Ashfen")
    client.force_login(gm)
    names = {
        f"name_{i}": n for i, n in enumerate(["Trade", "Faith", "Boats", "Songs", "Guards"], 1)
    }
    client.post(url(campaign, "found"), names)
    community = Community.objects.get(campaign=campaign)
    assert [r.rating_text for r in community.resources.all()] == ["12W", "9W", "18", "18", "12"]
    response = client.post(
        url(campaign, "resource_add"), {"name": "Magic", "rating": "14"}, follow=True
    )
    assert "at most 5 resources" in response.content.decode()
    guards = resource(community, "Guards")
    response = client.post(
        url(campaign, "resource_edit", guards.pk), {"name": "Guards", "rating": "0M2"}, follow=True
    )
    assert "the number before the mastery must be 1 to 20" in response.content.decode()
    ranks = {
        f"rank_{i}": resource(community, n).pk
        for i, n in enumerate(["Guards", "Songs", "Boats", "Faith", "Trade"], 1)
    }
    client.post(url(campaign, "spread"), ranks)
    assert resource(community, "Guards").rating == 32


def test_the_interval_cycle_by_hand(client, community, gm, alice, campaign, tamsin):
    client.force_login(gm)
    response = client.post(url(community, "background"), follow=True)
    assert "Background events rolled." in response.content.decode()
    response = client.post(url(community, "background"), follow=True)
    assert "rolled already" in response.content.decode()
    client.post(
        url(community, "plot"),
        {"resource": resource(community, "Military").pk, "change": "-2", "reason": "fire"},
    )
    assert resource(community, "Military").rating == 10
    client.post(url(community, "interval_end"), {"interval": 1})
    response = client.post(url(community, "interval_end"), {"interval": 1}, follow=True)
    assert "Season 1 had already ended." in response.content.decode()
    community.refresh_from_db()
    assert community.interval_number == 2
    assert CommunityStep.objects.filter(kind=StepKind.INTERVAL_END).count() == 1
    page = as_user(client, alice).get(url(community, "page") + "?interval=1").content.decode()
    assert "Season 1, as it ended" in page and "Plot event: Military -2" in page


def test_drawing_by_hand(client, community, gm, campaign, tamsin, ashfen_born, session):
    client.force_login(gm)
    response = client.post(
        url(community, "draw_start"),
        {
            "resource": resource(community, "Wealth").pk,
            "ability": ashfen_born.pk,
            "purpose": "grain",
            "resistance_level": "low",
            "modifier": "0",
            "used_as": "ability",
        },
        follow=True,
    )
    draw = community.draws.get()
    assert f"the draw is {'approved' if draw.status == DrawStatus.APPROVED else 'refused'}" in (
        response.content.decode()
    )
    assert draw.resistance_rating == 8
    approved = start_draw(community, gm, tamsin, ashfen_born, "Morale", purpose="rally them")
    response = client.post(
        url(community, "draw_settle", approved.pk), {"outcome_level": "-2"}, follow=True
    )
    page = response.content.decode()
    assert "Morale depleted -6." in page and "Tamsin takes -6" in page
    assert columns(community)["Morale"][1] == -6
    response = client.post(
        url(community, "draw_settle", approved.pk),
        {"outcome_level": "1", "contest": "7"},
        follow=True,
    )
    assert "There is no contest #7" in response.content.decode()


def test_penalties_bolstering_and_withdrawal_by_hand(client, community, gm):
    client.force_login(gm)
    morale = resource(community, "Morale").pk
    client.post(url(community, "penalty"), {"resource": morale, "states": "injured, Hurt"})
    client.post(url(community, "bolster"), {"resource": morale, "outcome_level": "3"})
    client.post(url(community, "concede"), {"resource": morale})
    assert columns(community)["Morale"] == (18, -3 + 9 - 6, 6, 0, 0)
    response = client.post(url(community, "penalty"), {"resource": morale}, follow=True)
    assert "either" in response.content.decode()


def test_crisis_tests_and_narration_by_hand(client, community, gm, campaign, tamsin):
    client.force_login(gm)
    wealth = resource(community, "Wealth")
    services.community_penalty_from_defeat(
        community=community, actor=gm, resource=wealth, outcome_level=-4
    )
    response = client.post(url(community, "crisis"), follow=True)
    assert "start a session first" in response.content.decode()
    # The session's start runs the crisis test (§8.2.5): a fumble against a critical.
    campaign_services.session_start(campaign=campaign, actor=gm, roller=fixed_rolls(20, 1))
    community.refresh_from_db()
    assert community.crisis_tests_session is not None
    page = client.get(url(community, "page")).content.decode()
    assert "Run the crisis tests for Session 1" not in page
    response = client.post(url(community, "crisis"), follow=True)
    assert "done already" in response.content.decode()
    wealth.refresh_from_db()
    assert wealth.crisis == 1
    client.post(url(community, "crisis_narrate", wealth.pk), {"text": "Empty granaries."})
    page = client.get(url(community, "page")).content.decode()
    assert "Crisis in Wealth" in page and "Empty granaries." in page


# --------------------------------------------------------------------- query counts


def long_history(community, gm, campaign, tamsin, ashfen_born, intervals: int) -> None:
    for number in range(1, intervals + 1):
        session = campaign_services.session_start(campaign=campaign, actor=gm)
        services.community_background_events(
            community=community, actor=gm, roller=fixed_rolls(*[1, 20, 20, 1] * 3)
        )
        for _ in range(3):
            draw = start_draw(community, gm, tamsin, ashfen_born, purpose="grain")
            services.community_draw_settle(draw=draw, actor=gm, outcome_level=-2)
        services.community_crisis_tests(
            community=community, actor=gm, roller=fixed_rolls(*[20, 1] * 5)
        )
        services.community_bolster(
            community=community, actor=gm, resource=resource(community, "Morale"), outcome_level=2
        )
        campaign_services.session_end(session=session, actor=gm)
        services.community_interval_end(community=community, actor=gm, interval=number)
    # The current interval is under way, in a session.
    campaign_services.session_start(campaign=campaign, actor=gm)
    services.community_background_events(
        community=community, actor=gm, roller=fixed_rolls(*[5, 15] * 5)
    )


# The page's counts reach the bounds exactly from one past interval on, so two are
# enough to show they stay bounded: a query per interval, draw or step would pass them.
@pytest.mark.parametrize("intervals", [0, 1, 2])
def test_the_page_reads_a_bounded_number_of_queries(
    client,
    community,
    gm,
    alice,
    campaign,
    tamsin,
    ashfen_born,
    django_assert_max_num_queries,
    intervals,
):
    long_history(community, gm, campaign, tamsin, ashfen_born, intervals)
    client.force_login(alice)
    with django_assert_max_num_queries(PAGE_QUERIES):
        assert client.get(url(community, "page")).status_code == 200
    with django_assert_max_num_queries(PAGE_QUERIES + 3):  # a past interval: its record, steps
        assert client.get(url(community, "page") + "?interval=1").status_code == 200
    client.force_login(gm)
    with django_assert_max_num_queries(PAGE_QUERIES):
        assert client.get(url(community, "page")).status_code == 200
    with django_assert_max_num_queries(NOTATION_QUERIES):
        assert client.get(url(community, "notation")).status_code == 200
