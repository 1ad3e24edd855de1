"""The archive's pages run a bounded number of queries, whatever the campaign's size.

Each test reads a page of a small campaign (2 sessions, 40 contests), grows the campaign
(24 sessions, 260 contests: several pages of every list) and reads the page again: the
same number of queries at both sizes, within the bounds below, is the proof that no
query runs per row.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from campaigns import services
from campaigns.models import Campaign, Membership, Role, Session
from characters import services as character_services
from characters.models import Character
from contests.models import Contest

from .conftest import ability, act, committed_at_once, contests_repeat, frame, play_against, totals

# The module's tests share one campaign, built once on one worker.
pytestmark = pytest.mark.xdist_group("archive_scale")

HEROES = 4
# Contest n (1 to 7) is played at the table by Hero n % 4 (with Hero (n + 2) % 4 in a
# group) to recipe n: its kind, the dice of every round, and the outcome they give (from
# the PC side). Every later contest repeats one of these seven: n repeats source(n).
RECIPES = (
    ("group_simple", (5, 16, 5, 16), 3),  # 2 OP from each pairing (§4.2)
    ("simple", (5, 16), 2),  # success against failure: a minor victory
    ("simple", (5, 10), -1),  # both succeed, the higher roll wins (R6)
    ("simple", (12, 12), 0),  # the same roll: a tie
    ("chained", (5, 16), 4),  # injured, then dying (§5.4)
    ("scored", (5, 10), -3),  # 5 RP against none (§5.1.3)
    ("extended", (5, 16), 1),  # the opponent's AP run out (§5.3)
)
PLAYED = len(RECIPES)
# Sessions 1 and 2 hold the small campaign's 40 contests; sessions 3 to 24, ten each,
# the large campaign's 220 more. Session 2 and every 25th contest speak of a bell.
SMALL_SESSIONS = {1: range(1, 31), 2: range(31, 41)}
LARGE_SESSIONS = {
    **SMALL_SESSIONS,
    **{number: range(10 * number + 11, 10 * number + 21) for number in range(3, 25)},
}
SMALL = range(1, 41)
LARGE = range(1, 261)


def source(n: int) -> int:
    return (n - 1) % PLAYED + 1


def kind(n: int) -> str:
    return RECIPES[source(n) % PLAYED][0]


def level(n: int) -> int:
    return RECIPES[source(n) % PLAYED][2]


def heroes(n: int) -> set[int]:
    played = source(n)
    return (
        {played % HEROES, (played + 2) % HEROES}
        if kind(n).startswith("group_")
        else {played % HEROES}
    )


def words(n: int) -> dict[str, str]:
    return {
        "prize": f"Prize {n}" + (" of the drowned bell" if n % 25 == 0 else ""),
        "obstacle": f"Obstacle {n}",
        "gm_notes": f"Secret {n}",
    }


def recap(number: int) -> str:
    return f"Recap {number}: the *river* rose" + (" and the bell rang" if number in (2, 20) else "")


# Each page's bound: the request's session and user (2), the campaign and the viewer's
# role (2; the public link needs 1), then the page's own: a count and a page of rows,
# and one query per related list (attendees, contests, participants, events, seasons).
# The contest page has one more when conditions were applied (their abilities); the
# session page one more for its chat (its lines with their authors and characters) and
# one for its players' proposals (with their players, characters and contests).
BOUNDS = {
    "timeline": 9,
    "session": 11,
    "contests": 7,
    "contests_filtered": 7,
    "search": 8,
    "contest": 9,
    "public_contest": 6,
}


def _play(campaign, gm, n: int, rows: list) -> None:
    """Contest n, played at the table to its recipe; the GM confirms no consequence, so
    each sheet stays as it was and the same dice give the same outcome."""
    contest_kind, dice, _ = RECIPES[n % PLAYED]
    framing = {"prize": words(n)["prize"], "obstacle": words(n)["obstacle"]}
    hero, boatcraft = rows[n % HEROES]
    if not contest_kind.startswith("group_"):
        play_against(
            campaign,
            gm,
            hero,
            boatcraft,
            kind=contest_kind,
            dice=dice,
            resistance=("The river", 14),
            consequences=[],
            **framing,
        )
        return
    other, _ = rows[(n + 2) % HEROES]
    contest = frame(
        campaign,
        gm,
        contest_kind,
        participants=[
            {"character_id": hero.pk, "ability_id": boatcraft.pk},
            {"character_id": other.pk, "ability_id": other.abilities.get().pk},
            {"name": "The river", "rating": 14},
        ],
        **framing,
    )
    act(contest, gm, "roll", rolls=dice)
    act(contest, gm, "resolve")
    act(contest, gm, "apply_consequences", consequences=[])


@pytest.fixture(scope="module")
def small_campaign(django_db_setup, django_db_blocker):
    """The small campaign, written once for this module: the first seven contests
    (one to each recipe) played at the table through the services in session 1, the
    other 33 repeating them, in two sessions the GM started and ended."""
    with django_db_blocker.unblock(), committed_at_once():
        User = get_user_model()
        gm = User.objects.create_user(username="scale-gm", password=None)
        player = User.objects.create_user(username="scale-player", password=None)
        campaign = services.campaign_create(gm=gm, name="The Long Campaign")
        Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
        rows = []
        for number in range(HEROES):
            hero = character_services.character_create(
                player=player, name=f"Hero {number}", campaign=campaign
            )
            rows.append((hero, ability(hero, "Boatcraft", 17)))
        start = timezone.now() - timedelta(days=7 * len(LARGE_SESSIONS) + 7)
        for number, contests in SMALL_SESSIONS.items():
            session = services.session_start(
                campaign=campaign,
                actor=gm,
                title=f"Session title {number}",
                started_at=start + timedelta(days=7 * number),
            )
            played = [n for n in contests if n <= PLAYED]
            for n in played:
                _play(campaign, gm, n, rows)
            sources = {c.number: c for c in Contest.objects.filter(campaign=campaign)}
            # No table action writes a contest's GM notes yet (an imported archive brings them).
            for n in played:
                Contest.objects.filter(pk=sources[n].pk).update(gm_notes=words(n)["gm_notes"])
            contests_repeat(
                {n: (sources[source(n)], session) for n in contests if n > PLAYED}, words
            )
            services.session_end(session=session, actor=gm, recap=recap(number))
            services.session_recap_publish(session=session, actor=gm)
        token = services.campaign_publish(campaign=campaign, actor=gm)
    yield {
        "campaign": campaign,
        "player": player,
        "heroes": [h for h, _ in rows],
        "token": token,
    }
    with django_db_blocker.unblock():
        Contest.objects.filter(campaign=campaign).delete()
        Character.objects.filter(campaign=campaign).delete()
        campaign.delete()
        User.objects.filter(username__in=["scale-gm", "scale-player"]).delete()


def grow(campaign: Campaign) -> None:
    """The campaign grown to its large size, inside the test's transaction: sessions 3
    to 24 repeat session 2 as the services wrote it (its season and attendees) with
    their own words and dates, ten repeated contests each."""
    model = campaign.sessions.get(number=2)
    attendees = list(model.attendees.all())
    sessions = Session.objects.bulk_create(
        Session(
            campaign=campaign,
            season_id=model.season_id,
            number=number,
            title=f"Session title {number}",
            recap=recap(number),
            started_at=model.started_at + timedelta(days=7 * (number - 2)),
            ended_at=model.started_at + timedelta(days=7 * (number - 2), hours=4),
            recap_published_at=model.started_at + timedelta(days=7 * (number - 2), hours=4),
        )
        for number in LARGE_SESSIONS
        if number not in SMALL_SESSIONS
    )
    Session.attendees.through.objects.bulk_create(
        Session.attendees.through(session=session, character=character)
        for session in sessions
        for character in attendees
    )
    played = {c.number: c for c in campaign.contests.filter(number__lte=PLAYED)}
    contests_repeat(
        {
            n: (played[source(n)], session)
            for session in sessions
            for n in LARGE_SESSIONS[session.number]
        },
        words,
    )


def queries(client, name, *args, **query) -> tuple[int, str]:
    """How many queries the page ran, and the page."""
    with CaptureQueriesContext(connection) as captured:
        html = get(client, name, *args, **query)
    return len(captured), html


@pytest.fixture
def player_client(small_campaign, db):
    client = Client()
    client.force_login(small_campaign["player"])
    return client


def get(client, name, *args, **query) -> str:
    response = client.get(reverse(name, args=args), query)
    assert response.status_code == 200
    return response.content.decode()


def test_the_fixture_plays_each_recipe_and_grows(small_campaign, db):
    campaign = small_campaign["campaign"]
    assert campaign.sessions.count() == len(SMALL_SESSIONS)
    assert campaign.contests.count() == len(SMALL)
    # The dice gave each recipe its outcome at the table.
    played = campaign.contests.filter(number__lte=PLAYED).order_by("number")
    assert [(c.kind, c.outcome_level, c.status) for c in played] == [
        (kind(n), level(n), "finished") for n in range(1, PLAYED + 1)
    ]
    grow(campaign)
    assert campaign.sessions.count() == len(LARGE_SESSIONS)
    assert list(campaign.contests.order_by("number").values_list("kind", "outcome_level")) == [
        (kind(n), level(n)) for n in LARGE
    ]


def test_the_timeline_runs_a_bounded_number_of_queries(small_campaign, player_client):
    campaign = small_campaign["campaign"]
    small, html = queries(player_client, "archive_timeline", campaign.pk)
    assert "Session title 2" in html and "#1 " in html and "#40 " in html  # one page
    grow(campaign)
    large, html = queries(player_client, "archive_timeline", campaign.pk, page=2)
    assert small == large <= BOUNDS["timeline"]
    assert "Session title 11" in html and "Session title 20" in html
    assert "Session title 21" not in html and "Session title 10" not in html
    assert "#121 " in html and "#220 " in html  # each session's contests, in order
    assert "#120 " not in html and "#221 " not in html
    assert "Page 2 of 3" in html


def test_the_session_page_runs_a_bounded_number_of_queries(small_campaign, player_client):
    campaign = small_campaign["campaign"]
    small, html = queries(player_client, "archive_session", campaign.pk, 2)  # ten contests
    assert "#31 " in html and "#40 " in html
    grow(campaign)
    large, html = queries(player_client, "archive_session", campaign.pk, 1)  # a page of 25
    assert small == large <= BOUNDS["session"]
    assert "Recap 1" in html and "Hero 3" in html
    assert "#1 " in html and "#25 " in html and "#26 " not in html


@pytest.mark.parametrize(
    ("query", "matches"),
    [
        ({}, lambda n: True),
        ({"page": "4"}, lambda n: True),
        ({"kind": "extended"}, lambda n: kind(n) == "extended"),
        ({"kind": "group_simple"}, lambda n: kind(n) == "group_simple"),
        ({"outcome": "victory"}, lambda n: level(n) > 0),
        ({"outcome": "victory", "page": "3"}, lambda n: level(n) > 0),
        ({"outcome": "major_defeat"}, lambda n: level(n) == -3),
        ({"character": "HERO 1"}, lambda n: 1 in heroes(n)),
        (
            {"kind": "simple", "outcome": "tie", "character": "HERO 3"},
            lambda n: kind(n) == "simple" and level(n) == 0 and 3 in heroes(n),
        ),
    ],
)
def test_the_contest_list_runs_a_bounded_number_of_queries_with_each_filter(
    small_campaign, player_client, query, matches
):
    campaign = small_campaign["campaign"]
    if query.get("character", "").startswith("HERO "):
        hero = small_campaign["heroes"][int(query["character"].split()[1])]
        query = {**query, "character": str(hero.pk)}
    small, html = queries(player_client, "archive_contests", campaign.pk, **query)
    assert f"{len([n for n in SMALL if matches(n)])} contests" in html
    grow(campaign)
    large, html = queries(player_client, "archive_contests", campaign.pk, **query)
    assert small == large <= BOUNDS["contests_filtered" if query else "contests"]
    expected = [n for n in LARGE if matches(n)]
    page = int(query.get("page", 1))
    assert len(expected) > 25 * (page - 1)  # the page exists: several pages of results
    shown = [int(n) for n in re.findall(r">#(\d+) ", html)]
    assert shown == expected[25 * (page - 1) : 25 * page]
    assert f"{len(expected)} contests" in html


def test_search_runs_a_bounded_number_of_queries(small_campaign, player_client):
    campaign = small_campaign["campaign"]
    small, html = queries(player_client, "archive_search", campaign.pk, q="bell")
    assert "Sessions (1)" in html and "Contests (1)" in html
    grow(campaign)
    large, html = queries(player_client, "archive_search", campaign.pk, q="bell")
    assert small == large <= BOUNDS["search"]
    assert "Sessions (2)" in html and "Contests (10)" in html


def test_the_contest_page_runs_a_bounded_number_of_queries(small_campaign, player_client):
    campaign = small_campaign["campaign"]
    small, _ = queries(player_client, "archive_contest", campaign.pk, 5)  # a scored defeat
    grow(campaign)
    large, html = queries(player_client, "archive_contest", campaign.pk, 250)  # its repeat
    assert small == large <= BOUNDS["contest"]
    assert "Prize 250" in html and "<svg" in html and "Secret 250" not in html
    assert "<td>Hero 1</td><td>Boatcraft</td><td>17</td><td>5</td><td>success</td>" in html
    assert totals(html)[-1] == {"Hero 1": "0", "The river": "5"} and "Major defeat" in html


def test_the_public_contest_page_runs_a_bounded_number_of_queries(small_campaign, db):
    token = small_campaign["token"]
    small, _ = queries(Client(), "public_contest", token, 6)  # an extended victory
    grow(small_campaign["campaign"])
    large, html = queries(Client(), "public_contest", token, 258)  # its repeat
    assert small == large <= BOUNDS["public_contest"]
    assert "Prize 258" in html and "Secret 258" not in html
    assert "Marginal victory" in html and "AP progression" in html
