"""The archive stays fast on a long campaign: 50 sessions and 2,000 contests.

Every page runs a fixed number of queries, whatever the campaign's size: the bounds
below hold on this campaign exactly as on a campaign with one contest.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign, Membership, Role, Season, Session
from characters.models import Character
from contests.models import Contest, ContestEvent, ContestParticipant

SESSIONS = 50
CONTESTS_PER_SESSION = 40
KINDS = ("simple", "scored", "extended", "chained", "group_simple")
LEVELS = (2, -1, 0, 4, -3, 1, None)

# Each page's bound: the request's session and user (2), the campaign and the viewer's
# role (2; the public link needs 1), then the page's own: a count and a page of rows,
# and one query per related list (attendees, contests, participants, events, seasons).
# The contest page has one more when conditions were applied (their abilities).
BOUNDS = {
    "timeline": 9,
    "session": 9,
    "contests": 7,
    "contests_filtered": 7,
    "search": 8,
    "contest": 9,
    "public_contest": 6,
}


@pytest.fixture(scope="module")
def big_campaign(django_db_setup, django_db_blocker):
    """A campaign of 50 sessions and 2,000 contests, written once for this module."""
    with django_db_blocker.unblock():
        User = get_user_model()
        gm = User.objects.create(username="scale-gm", password="!")
        player = User.objects.create(username="scale-player", password="!")
        campaign = Campaign.objects.create(name="The Long Campaign", gm=gm)
        Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
        heroes = Character.objects.bulk_create(
            Character(name=f"Hero {n}", player=player, campaign=campaign) for n in range(4)
        )
        season = Season.objects.create(campaign=campaign, number=1)
        start = timezone.now() - timedelta(days=SESSIONS * 7)
        sessions = Session.objects.bulk_create(
            Session(
                campaign=campaign,
                season=season,
                number=n,
                title=f"Session title {n}",
                recap=f"Recap {n}: the *river* rose" + (" and the bell rang" if n == 37 else ""),
                started_at=start + timedelta(days=7 * n),
                ended_at=start + timedelta(days=7 * n, hours=3),
            )
            for n in range(1, SESSIONS + 1)
        )
        for session in sessions:
            session.attendees.set(heroes)
        contests = Contest.objects.bulk_create(
            Contest(
                campaign=campaign,
                session=sessions[(n - 1) // CONTESTS_PER_SESSION],
                number=n,
                kind=KINDS[n % len(KINDS)],
                status="finished",
                prize=f"Prize {n}" + (" of the drowned bell" if n % 500 == 0 else ""),
                obstacle=f"Obstacle {n}",
                resistance_name="The river",
                resistance_rating=14,
                outcome_level=LEVELS[n % len(LEVELS)],
                gm_notes=f"Secret {n}",
            )
            for n in range(1, SESSIONS * CONTESTS_PER_SESSION + 1)
        )
        ContestParticipant.objects.bulk_create(
            [
                ContestParticipant(
                    contest=c,
                    character=heroes[c.number % 4],
                    name=heroes[c.number % 4].name,
                    side="pc",
                )
                for c in contests
            ]
            + [ContestParticipant(contest=c, name="The river", side="opponent") for c in contests]
        )
        ContestEvent.objects.bulk_create(
            ContestEvent(
                contest=c,
                seq=seq,
                type="round",
                payload={
                    "summary": f"Round {seq}",
                    "rolls": [{"who": "Hero", "roll": seq, "result": "success"}],
                    "totals": {"Hero": seq, "The river": 1},
                    "totals_kind": "RP",
                },
                idempotency_key=f"k{seq}",
            )
            for c in contests
            for seq in (1, 2, 3)
        )
    yield {"campaign": campaign, "gm": gm, "player": player, "heroes": heroes}
    with django_db_blocker.unblock():
        Contest.objects.filter(campaign=campaign).delete()
        campaign.delete()
        Character.objects.filter(player=player).delete()
        User.objects.filter(username__in=["scale-gm", "scale-player"]).delete()


@pytest.fixture
def player_client(big_campaign, db):
    client = Client()
    client.force_login(big_campaign["player"])
    return client


def get(client, name, *args, **query) -> str:
    response = client.get(reverse(name, args=args), query)
    assert response.status_code == 200
    return response.content.decode()


def test_the_fixture_is_a_long_campaign(big_campaign, db):
    campaign = big_campaign["campaign"]
    assert campaign.sessions.count() == SESSIONS
    assert campaign.contests.count() == SESSIONS * CONTESTS_PER_SESSION


def test_the_timeline_runs_a_fixed_number_of_queries(
    big_campaign, player_client, django_assert_max_num_queries
):
    campaign = big_campaign["campaign"]
    with django_assert_max_num_queries(BOUNDS["timeline"]):
        html = get(player_client, "archive_timeline", campaign.pk, page=3)
    assert "Session title 21" in html and "Session title 30" in html
    assert "Session title 31" not in html
    assert "#801 " in html and "#1200 " in html  # each session's contests, in order
    assert "Page 3 of 5" in html


def test_the_session_page_runs_a_fixed_number_of_queries(
    big_campaign, player_client, django_assert_max_num_queries
):
    campaign = big_campaign["campaign"]
    with django_assert_max_num_queries(BOUNDS["session"]):
        html = get(player_client, "archive_session", campaign.pk, 50)
    assert "Recap 50" in html and "Hero 3" in html
    assert "#1961 " in html and "#1985 " in html and "#1986 " not in html


ALL = range(1, SESSIONS * CONTESTS_PER_SESSION + 1)


@pytest.mark.parametrize(
    ("query", "matches"),
    [
        ({}, lambda n: True),
        ({"kind": "extended"}, lambda n: KINDS[n % 5] == "extended"),
        ({"outcome": "victory"}, lambda n: (LEVELS[n % 7] or 0) > 0),
        ({"outcome": "victory", "page": "3"}, lambda n: (LEVELS[n % 7] or 0) > 0),
        ({"outcome": "major_defeat"}, lambda n: LEVELS[n % 7] == -3),
        ({"character": "HERO"}, lambda n: n % 4 == 1),
        (
            {"kind": "scored", "outcome": "tie", "character": "HERO"},
            lambda n: KINDS[n % 5] == "scored" and LEVELS[n % 7] == 0 and n % 4 == 1,
        ),
    ],
)
def test_the_contest_list_runs_a_fixed_number_of_queries_with_each_filter(
    big_campaign, player_client, django_assert_max_num_queries, query, matches
):
    campaign = big_campaign["campaign"]
    if query.get("character") == "HERO":
        query = {**query, "character": str(big_campaign["heroes"][1].pk)}
    bound = BOUNDS["contests_filtered" if query else "contests"]
    with django_assert_max_num_queries(bound):
        html = get(player_client, "archive_contests", campaign.pk, **query)
    expected = [n for n in ALL if matches(n)]
    page = int(query.get("page", 1))
    shown = [int(n) for n in re.findall(r">#(\d+) ", html)]
    assert shown == expected[25 * (page - 1) : 25 * page]
    assert f"{len(expected)} contests" in html


def test_search_runs_a_fixed_number_of_queries(
    big_campaign, player_client, django_assert_max_num_queries
):
    campaign = big_campaign["campaign"]
    with django_assert_max_num_queries(BOUNDS["search"]):
        html = get(player_client, "archive_search", campaign.pk, q="bell")
    assert "Sessions (1)" in html and "Contests (4)" in html


def test_the_contest_page_runs_a_fixed_number_of_queries(
    big_campaign, player_client, django_assert_max_num_queries
):
    campaign = big_campaign["campaign"]
    with django_assert_max_num_queries(BOUNDS["contest"]):
        html = get(player_client, "archive_contest", campaign.pk, 1234)
    assert "Prize 1234" in html and "<svg" in html and "Secret 1234" not in html


def test_the_public_contest_page_runs_a_fixed_number_of_queries(
    big_campaign, db, django_assert_max_num_queries
):
    campaign = big_campaign["campaign"]
    Campaign.objects.filter(pk=campaign.pk).update(public_token="scale-token")
    with django_assert_max_num_queries(BOUNDS["public_contest"]):
        html = get(Client(), "public_contest", "scale-token", 2000)
    assert "Prize 2000" in html and "Secret 2000" not in html
