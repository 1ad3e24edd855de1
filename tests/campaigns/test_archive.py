"""The campaign archive: timeline, sessions, contest pages, filters, search, pagination
and the public read-only link."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from campaigns import services

from .conftest import add_contest, add_session, roll, rolled

DUEL_EVENTS = [
    ("framed", {"summary": "The GM frames a scored contest: cross the river."}),
    (
        "augment",
        {
            "summary": "Oro's sharp eyes help Tamsin (+6).",
            "augments": [{"who": "Oro", "ability": "Sharp eyes", "bonus": 6}],
        },
    ),
    (
        "round",
        rolled(
            "Tamsin (Boatcraft 17) rolled 4: success; the river rolled 16: failure. "
            "Minor victory, 2 RP.",
            roll("Tamsin", "Boatcraft", "17", 4, "success"),
            roll("The Grey River", "Resistance", "14", 16, "failure"),
            totals={"Tamsin": 2, "The Grey River": 0},
        ),
    ),
    (
        "round",
        rolled(
            "Tamsin spends a hero point; the river's roll stays secret.",
            roll("Tamsin", "Boatcraft", "17", 12, "success", hero_point=True, bumps=1),
            roll("The Grey River", "Resistance", "14", 7, "secret-result-x", hidden=True),
            totals={"Tamsin": 5, "The Grey River": 1},
        ),
    ),
    (
        "narrated",
        {"summary": "GM aside: the river god is watching.", "gm_only": True},
    ),
    (
        "consequences_applied",
        {"summary": "Tamsin is fresh.", "consequences": [{"who": "Tamsin", "state": "fresh"}]},
    ),
]


@pytest.fixture
def played(campaign, tamsin):
    session = add_session(campaign, 1, title="Low water", recap="We *crossed* the river.")
    duel = add_contest(
        session,
        1,
        characters=[tamsin],
        events=DUEL_EVENTS,
        gm_notes="The god owes Tamsin now.",
        outcome_level=3,
        winner="pc",
        degree="major",
        framing={"sides": {"pc": {"name": "Tamsin", "tactic": "Pole hard upstream"}}},
    )
    return session, duel


def page(client, user, name, *args, **query) -> str:
    if user is not None:
        client.force_login(user)
    response = client.get(reverse(name, args=args), query)
    assert response.status_code == 200
    return response.content.decode()


# --------------------------------------------------------------------- pages


def test_the_timeline_shows_seasons_sessions_and_their_contests_in_order(
    client, campaign, alice, played
):
    session, duel = played
    add_contest(session, 2, prize="Find the ferryman")
    html = page(client, alice, "archive_timeline", campaign.pk)
    assert "Season 1" in html and "Session 1: Low water" in html
    assert "We <em>crossed</em> the river." in html
    assert "Attendees:" in html
    assert html.index("Cross the river") < html.index("Find the ferryman")
    assert "Major victory" in html or "major victory" in html


def test_the_session_page_has_recap_attendees_and_contests(client, campaign, alice, gm, played):
    session, _ = played
    session.attendees.add(*campaign.characters.all())
    html = page(client, alice, "archive_session", campaign.pk, 1)
    assert "Tamsin Reedwalker" in html
    assert "#1 Scored contest" in html
    assert "Edit the title and recap" not in html
    assert "Edit the title and recap" in page(client, gm, "archive_session", campaign.pk, 1)


def test_the_contest_page_shows_framing_rolls_chart_and_outcome(client, campaign, gm, played):
    html = page(client, gm, "archive_contest", campaign.pk, 1)
    for text in (
        "Cross the river",  # prize
        "The Grey River in flood",  # obstacle
        "Pole hard upstream",  # tactic
        "The Grey River 14",  # resistance
        "Boatcraft",
        "<td>4</td><td>success</td>",
        "Augment: Oro (Sharp eyes) +6",
        "RP: Tamsin 2, The Grey River 0",
        "<svg",
        "Tamsin ends at 5",
        "Major victory",
        "Tamsin: fresh",
        "spent",  # the hero point
    ):
        assert text in html, text


def test_the_chart_has_a_line_per_side_through_each_step(client, campaign, gm, played):
    html = page(client, gm, "archive_contest", campaign.pk, 1)
    lines = re.findall(r'<polyline [^>]*points="([^"]+)"', html)
    assert len(lines) == 2
    assert all(len(points.split()) == 2 for points in lines)  # two scoring rounds


def test_the_gm_sees_secrets_that_players_do_not(client, campaign, gm, alice, played):
    gm_view = page(client, gm, "archive_contest", campaign.pk, 1)
    assert "secret-result-x" in gm_view
    assert "GM aside" in gm_view
    assert "The god owes Tamsin now." in gm_view
    player_view = page(client, alice, "archive_contest", campaign.pk, 1)
    assert "secret-result-x" not in player_view
    assert "GM aside" not in player_view
    assert "The god owes Tamsin now." not in player_view
    assert "The GM rolled in secret." in player_view
    assert "<td>12</td>" in player_view  # Tamsin's own roll of that round stays


def test_conditions_applied_by_the_contest_are_listed(client, campaign, gm, alice, played):
    from characters import services as character_services

    _, duel = played
    tamsin = campaign.characters.get()
    ability = character_services.character_ability_add(
        character=tamsin, actor=alice, name="Boatcraft", rating=17
    )
    character_services.character_condition_apply(
        character=tamsin, actor=gm, state="pumped", abilities=[ability], contest_id=duel.pk
    )
    html = page(client, alice, "archive_contest", campaign.pk, 1)
    assert "Tamsin Reedwalker: Pumped (Boatcraft)" in html


def test_unknown_sessions_and_contests_are_404(client, campaign, alice, played):
    client.force_login(alice)
    assert client.get(reverse("archive_session", args=[campaign.pk, 9])).status_code == 404
    assert client.get(reverse("archive_contest", args=[campaign.pk, 9])).status_code == 404


def test_a_contest_of_another_campaign_is_not_found_by_number(
    client, campaign, alice, charlie, played
):
    other = services.campaign_create(gm=charlie, name="Other")
    add_contest(add_session(other, 1), 5)
    client.force_login(alice)
    assert client.get(reverse("archive_contest", args=[campaign.pk, 5])).status_code == 404


# --------------------------------------------------------------------- filters, search, pages


@pytest.fixture
def many(campaign, alice, tamsin):
    from characters import services as character_services

    oro = character_services.character_create(player=alice, name="Oro", campaign=campaign)
    first, second = add_session(campaign, 1, recap="The eel"), add_session(campaign, 2)
    kinds = ["simple", "scored", "extended", "chained"]
    for n in range(1, 41):
        add_contest(
            first if n <= 20 else second,
            n,
            kind=kinds[n % 4],
            prize=f"Prize {n}" + (" of the drowned bell" if n == 33 else ""),
            outcome_level=[2, -1, 0, 4, None][n % 5],
            characters=[tamsin] if n % 2 else [oro],
        )
    return tamsin, oro


def numbers(html: str) -> list[int]:
    return [int(n) for n in re.findall(r">#(\d+) ", html)]


def test_the_contest_list_is_paginated(client, campaign, alice, many):
    first = numbers(page(client, alice, "archive_contests", campaign.pk))
    assert first == list(range(1, 26))
    second = numbers(page(client, alice, "archive_contests", campaign.pk, page=2))
    assert second == list(range(26, 41))
    assert numbers(page(client, alice, "archive_contests", campaign.pk, page=99)) == second


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"kind": "extended"}, [n for n in range(1, 41) if n % 4 == 2]),
        ({"outcome": "victory"}, [n for n in range(1, 41) if n % 5 in (0, 3)]),
        ({"outcome": "defeat"}, [n for n in range(1, 41) if n % 5 == 1]),
        ({"outcome": "tie"}, [n for n in range(1, 41) if n % 5 == 2]),
        ({"outcome": "complete_victory"}, [n for n in range(1, 41) if n % 5 == 3]),
        ({"outcome": "unfinished"}, [n for n in range(1, 41) if n % 5 == 4]),
        ({"kind": "scored", "outcome": "victory"}, [5, 13, 25, 33]),
        ({"q": "drowned bell"}, [33]),
    ],
)
def test_the_contest_list_filters(client, campaign, alice, many, query, expected):
    html = page(client, alice, "archive_contests", campaign.pk, **query)
    assert numbers(html) == expected[:25]


def test_the_contest_list_filters_by_character(client, campaign, alice, many):
    tamsin, oro = many
    html = page(client, alice, "archive_contests", campaign.pk, character=oro.pk, page=1)
    assert numbers(html) == list(range(2, 41, 2))
    assert f'<option value="{oro.pk}" selected>Oro</option>' in html


def test_filters_swap_only_the_results_for_htmx(client, campaign, alice, many):
    client.force_login(alice)
    response = client.get(
        reverse("archive_contests", args=[campaign.pk]),
        {"kind": "chained"},
        headers={"HX-Request": "true"},
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="results"')
    assert numbers(html) == [n for n in range(1, 41) if n % 4 == 3]


def test_the_pager_keeps_the_filters(client, campaign, alice, many):
    html = page(client, alice, "archive_contests", campaign.pk, outcome="victory", page=1)
    assert numbers(html) == [n for n in range(1, 41) if n % 5 in (0, 3)]
    many_more = page(client, alice, "archive_contests", campaign.pk)
    assert "?page=2" in many_more


def test_search_finds_recaps_and_contest_framing(client, campaign, alice, many):
    html = page(client, alice, "archive_search", campaign.pk, q="eel")
    assert "Session 1" in html and "Sessions (1)" in html
    html = page(client, alice, "archive_search", campaign.pk, q="DROWNED")
    assert numbers(html) == [33] and "Sessions (0)" in html


def test_search_reads_gm_notes_for_the_gm_only(client, campaign, gm, alice, played):
    assert numbers(page(client, gm, "archive_search", campaign.pk, q="owes")) == [1]
    assert numbers(page(client, alice, "archive_search", campaign.pk, q="owes")) == []


# --------------------------------------------------------------------- the public link


def test_a_public_link_shows_the_archive_without_gm_secrets(client, campaign, gm, played):
    token = services.campaign_publish(campaign=campaign, actor=gm)
    anonymous = Client()
    timeline = page(anonymous, None, "public_timeline", token)
    assert "public archive (read-only)" in timeline and "Low water" in timeline
    assert "Publish" not in timeline and "Export" not in timeline
    contest = page(anonymous, None, "public_contest", token, 1)
    assert "Cross the river" in contest
    for secret in ("secret-result-x", "GM aside", "The god owes Tamsin now."):
        assert secret not in contest
    assert f"/archive/{token}/contests/1/" in page(anonymous, None, "public_contests", token)
    assert "Low water" in page(anonymous, None, "public_session", token, 1)
    assert numbers(page(anonymous, None, "public_search", token, q="owes")) == []


def test_a_public_link_shows_nothing_but_the_archive(client, campaign, gm, played):
    token = services.campaign_publish(campaign=campaign, actor=gm)
    anonymous = Client()
    assert anonymous.get(reverse("campaign_detail", args=[campaign.pk])).status_code == 302
    assert anonymous.get(reverse("archive_timeline", args=[campaign.pk])).status_code == 302
    assert anonymous.get(reverse("campaign_export_markdown", args=[campaign.pk])).status_code == (
        302
    )
    assert anonymous.get(reverse("public_timeline", args=[token])).status_code == 200


def test_a_revoked_public_link_is_not_found(client, campaign, gm, played):
    client.force_login(gm)
    client.post(reverse("campaign_publish", args=[campaign.pk]))
    campaign.refresh_from_db()
    token = campaign.public_token
    assert Client().get(reverse("public_timeline", args=[token])).status_code == 200
    client.post(reverse("campaign_unpublish", args=[campaign.pk]))
    for name, args in (("public_timeline", [token]), ("public_contest", [token, 1])):
        assert Client().get(reverse(name, args=args)).status_code == 404


def test_publishing_again_gives_a_new_link(campaign, gm):
    first = services.campaign_publish(campaign=campaign, actor=gm)
    second = services.campaign_publish(campaign=campaign, actor=gm)
    assert first != second
    assert Client().get(reverse("public_timeline", args=[first])).status_code == 404


def test_the_gm_sees_the_public_link_controls(client, campaign, gm, alice, played):
    assert "Publish a read-only link" in page(client, gm, "archive_timeline", campaign.pk)
    assert "Publish a read-only link" not in page(client, alice, "archive_timeline", campaign.pk)
