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

from campaigns import services
from campaigns.models import Campaign, Membership, Role
from characters import services as character_services
from characters.models import Character
from contests.models import Contest, ContestEvent, ContestParticipant

from .conftest import ability, act, committed_at_once, frame, play_against, totals

# The module's tests share one campaign, built once on one worker.
pytestmark = pytest.mark.xdist_group("archive_scale")

SESSIONS = 50
CONTESTS_PER_SESSION = 40
HEROES = 4
# Contest n is played by Hero n % 4 (with Hero (n + 2) % 4 in a group) to recipe n % 7:
# its kind, the dice of every round, and the outcome they give (from the PC side).
RECIPES = (
    ("simple", (5, 16), 2),  # success against failure: a minor victory
    ("simple", (5, 10), -1),  # both succeed, the higher roll wins (R6)
    ("simple", (12, 12), 0),  # the same roll: a tie
    ("chained", (5, 16), 4),  # injured, then dying (§5.4)
    ("scored", (5, 10), -3),  # 5 RP against none (§5.1.3)
    ("extended", (5, 16), 1),  # the opponent's AP run out (§5.3)
    ("group_simple", (5, 16, 5, 16), 3),  # 2 OP from each pairing (§4.2)
)
PLAYED = HEROES * len(RECIPES)  # 28: every hero with every recipe, played at the table


def kind(n: int) -> str:
    return RECIPES[n % len(RECIPES)][0]


def level(n: int) -> int:
    return RECIPES[n % len(RECIPES)][2]


def heroes(n: int) -> set[int]:
    return {n % HEROES, (n + 2) % HEROES} if kind(n).startswith("group_") else {n % HEROES}


# Each page's bound: the request's session and user (2), the campaign and the viewer's
# role (2; the public link needs 1), then the page's own: a count and a page of rows,
# and one query per related list (attendees, contests, participants, events, seasons).
# The contest page has one more when conditions were applied (their abilities); the
# session page one more for its chat (its lines with their authors and characters).
BOUNDS = {
    "timeline": 9,
    "session": 10,
    "contests": 7,
    "contests_filtered": 7,
    "search": 8,
    "contest": 9,
    "public_contest": 6,
}


def _play(campaign, gm, n: int, rows: list) -> None:
    """Contest n, played at the table to its recipe; the GM confirms no consequence, so
    each sheet stays as it was and the same dice give the same outcome."""
    contest_kind, dice, _ = RECIPES[n % len(RECIPES)]
    framing = {"prize": f"Prize {n}", "obstacle": f"Obstacle {n}"}
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


def _repeat(contest: Contest, n: int, session) -> Contest:
    """Contest `contest` (one of the first 28) again as contest n: the same hero, kind,
    outcome and events the table wrote, with n's own framing words."""
    return Contest(
        campaign_id=contest.campaign_id,
        session=session,
        number=n,
        kind=contest.kind,
        status=contest.status,
        prize=f"Prize {n}" + (" of the drowned bell" if n % 500 == 0 else ""),
        obstacle=f"Obstacle {n}",
        resistance_name=contest.resistance_name,
        resistance_rating=contest.resistance_rating,
        framing=contest.framing,
        state=contest.state,
        seq=contest.seq,
        winner=contest.winner,
        degree=contest.degree,
        outcome_level=contest.outcome_level,
        narration=contest.narration,
        gm_notes=f"Secret {n}",
        finished_at=contest.finished_at,
    )


@pytest.fixture(scope="module")
def big_campaign(django_db_setup, django_db_blocker):
    """A campaign of 50 sessions and 2,000 contests, written once for this module.

    The first 28 contests (every hero with every recipe) are played at the table
    through the services, in session 1. Playing 2,000 would take minutes, so the others
    repeat those 28 under their own numbers, sessions and words: rows and event
    payloads as the table wrote them.
    """
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
        start = timezone.now() - timedelta(days=SESSIONS * 7)
        sessions = []
        for number in range(1, SESSIONS + 1):
            session = services.session_start(
                campaign=campaign,
                actor=gm,
                title=f"Session title {number}",
                started_at=start + timedelta(days=7 * number),
            )
            if number == 1:
                for n in range(1, PLAYED + 1):
                    _play(campaign, gm, n, rows)
            recap = f"Recap {number}: the *river* rose" + (
                " and the bell rang" if number == 37 else ""
            )
            sessions.append(services.session_end(session=session, actor=gm, recap=recap))
        played = {
            c.number: c
            for c in Contest.objects.filter(campaign=campaign).prefetch_related(
                "participants", "events"
            )
        }
        # No table action writes a contest's GM notes yet (an imported archive brings them).
        for contest in played.values():
            contest.gm_notes = f"Secret {contest.number}"
        Contest.objects.bulk_update(played.values(), ["gm_notes"])
        total = SESSIONS * CONTESTS_PER_SESSION
        sources = {n: played[(n - 1) % PLAYED + 1] for n in range(PLAYED + 1, total + 1)}
        repeats = Contest.objects.bulk_create(
            _repeat(source, n, sessions[(n - 1) // CONTESTS_PER_SESSION])
            for n, source in sources.items()
        )
        ContestParticipant.objects.bulk_create(
            ContestParticipant(
                contest=repeat,
                character_id=p.character_id,
                name=p.name,
                side=p.side,
                ability=p.ability,
                rating=p.rating,
            )
            for repeat in repeats
            for p in sources[repeat.number].participants.all()
        )
        ContestEvent.objects.bulk_create(
            (
                ContestEvent(
                    contest=repeat,
                    seq=e.seq,
                    actor_id=e.actor_id,
                    type=e.type,
                    payload=e.payload,
                    idempotency_key=e.idempotency_key,
                )
                for repeat in repeats
                for e in sources[repeat.number].events.all()
            ),
            batch_size=2000,
        )
    yield {"campaign": campaign, "gm": gm, "player": player, "heroes": [h for h, _ in rows]}
    with django_db_blocker.unblock():
        Contest.objects.filter(campaign=campaign).delete()
        Character.objects.filter(campaign=campaign).delete()
        campaign.delete()
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
    # The dice gave each recipe its outcome at the table.
    played = campaign.contests.filter(number__lte=PLAYED).order_by("number")
    assert [(c.kind, c.outcome_level, c.status) for c in played] == [
        (kind(n), level(n), "finished") for n in range(1, PLAYED + 1)
    ]


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
        ({"kind": "extended"}, lambda n: kind(n) == "extended"),
        ({"kind": "group_simple"}, lambda n: kind(n) == "group_simple"),
        ({"outcome": "victory"}, lambda n: level(n) > 0),
        ({"outcome": "victory", "page": "3"}, lambda n: level(n) > 0),
        ({"outcome": "major_defeat"}, lambda n: level(n) == -3),
        ({"character": "HERO"}, lambda n: 1 in heroes(n)),
        (
            {"kind": "simple", "outcome": "tie", "character": "HERO"},
            lambda n: kind(n) == "simple" and level(n) == 0 and 1 in heroes(n),
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
    assert expected  # each filter finds something
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
        html = get(player_client, "archive_contest", campaign.pk, 1236)  # a scored defeat
    assert "Prize 1236" in html and "<svg" in html and "Secret 1236" not in html
    assert "<td>Hero 0</td><td>Boatcraft</td><td>17</td><td>5</td><td>success</td>" in html
    assert totals(html)[-1] == {"Hero 0": "0", "The river": "5"} and "Major defeat" in html


def test_the_public_contest_page_runs_a_fixed_number_of_queries(
    big_campaign, db, django_assert_max_num_queries
):
    campaign = big_campaign["campaign"]
    Campaign.objects.filter(pk=campaign.pk).update(public_token="scale-token")
    with django_assert_max_num_queries(BOUNDS["public_contest"]):
        html = get(Client(), "public_contest", "scale-token", 2000)
    assert "Prize 2000" in html and "Secret 2000" not in html
    assert "Marginal victory" in html and "AP progression" in html
