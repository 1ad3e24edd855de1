"""The campaign archive: timeline, sessions, contest pages, filters, search, pagination
and the public read-only link.

Every contest shown here is played at the table through the services, with fixed dice,
and the pages are read as a visitor reads them: through the test client.
"""

from __future__ import annotations

import html as html_lib
import re
from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from campaigns import services
from campaigns.models import Campaign, Membership, Role
from characters import services as character_services
from characters.models import Character
from contests.models import Contest

from .conftest import (
    ability,
    act,
    committed_at_once,
    contests_repeat,
    frame,
    play_against,
    play_rounds,
    totals,
)


def page(client, user, name, *args, **query) -> str:
    if user is not None:
        client.force_login(user)
    response = client.get(reverse(name, args=args), query)
    assert response.status_code == 200
    return response.content.decode()


def consequences(html: str) -> list[str]:
    """The consequences and benefits the play-by-play lists, as a reader sees them."""
    return [
        html_lib.unescape(row) for row in re.findall(r'<li class="consequence">(.*?)</li>', html)
    ]


# --------------------------------------------------------------------- a played session


@pytest.fixture(scope="module")
def low_water(django_db_setup, django_db_blocker):
    """Session 1, "Low water": Tamsin crosses the river in a scored contest (helped by
    Oro's sharp eyes, the GM's dice hidden, a hero point spent), then fails to find the
    ferryman in a simple one. Written once for this module, by a GM and a player of
    their own (the persona fixtures' users are the other tests'); each test reads it in
    a transaction rolled back at its end."""
    with django_db_blocker.unblock(), committed_at_once():
        User = get_user_model()
        gm = User.objects.create_user(username="low-gm", password=None, display_name="Gwen")
        alice = User.objects.create_user(username="low-alice", password=None, display_name="Alice")
        campaign = Campaign.objects.create(name="The Sunken Crown", genre="Fantasy", gm=gm)
        Membership.objects.create(campaign=campaign, user=alice, role=Role.PLAYER)
        tamsin = character_services.character_create(
            player=alice,
            name="Tamsin Reedwalker",
            concept="Stubborn river guide",
            campaign=campaign,
        )
        low_water_play(campaign, gm, alice, tamsin)
    yield SimpleNamespace(campaign=campaign, gm=gm, alice=alice)
    with django_db_blocker.unblock():
        Contest.objects.filter(campaign=campaign).delete()
        Character.objects.filter(campaign=campaign).delete()
        campaign.delete()
        User.objects.filter(username__in=["low-gm", "low-alice"]).delete()


@pytest.fixture
def played(db, low_water):
    """Low water's campaign as it is in the database (a test may publish it)."""
    return SimpleNamespace(
        campaign=Campaign.objects.get(pk=low_water.campaign.pk),
        gm=low_water.gm,
        alice=low_water.alice,
    )


# The tests of Low water run on one worker, which plays it once.
LOW = pytest.mark.xdist_group("archive_low_water")


def low_water_play(campaign, gm, alice, tamsin) -> None:
    services.campaign_options_update(campaign=campaign, actor=gm, roll_visibility="gm_hidden")
    boatcraft = ability(tamsin, "Boatcraft", 13)
    oro = character_services.character_create(player=alice, name="Oro", campaign=campaign)
    sharp_eyes = ability(oro, "Sharp eyes", 15)
    session = services.session_start(campaign=campaign, actor=gm, title="Low water")
    duel = frame(
        campaign,
        gm,
        "scored",
        prize="Cross the river",
        obstacle="The Grey River in flood",
        pc={"character_id": tamsin.pk},
        opponent={"name": "The Grey River", "rating": "14"},
    )
    act(duel, alice, "choose_ability", side="pc", ability_id=boatcraft.pk)
    act(duel, alice, "set_tactic", side="pc", tactic="Pole hard upstream")
    # Sharp eyes 15 rolls 4 against moderate resistance's 15: a minor victory, +6 (R8).
    act(
        duel,
        alice,
        "augment",
        rolls=(4, 15),
        side="pc",
        kind="rolled",
        helper_ability_id=sharp_eyes.pk,
    )
    # Boatcraft 13 + 6 = 19 against the river's 14. Round 1: 4 succeeds, 16 fails: 2 RP.
    act(duel, gm, "roll", rolls=(4, 16))
    act(duel, gm, "resolve")
    # Round 2: 12 and the GM's secret 7 both succeed, the higher roll wins by a little;
    # Tamsin's hero point makes her success a critical: 2 RP more.
    act(duel, gm, "roll", rolls=(12, 7))
    act(duel, alice, "hero_point", side="pc")
    act(duel, gm, "resolve")
    # Round 3: 2 RP more, 6 in all: the river took none, a major victory (§5.1.3).
    play_rounds(duel, gm, 4, 16)
    act(duel, gm, "apply_consequences", narration="Tamsin reads the current and crosses.")
    # No table action writes a contest's GM notes yet (an imported archive brings them).
    Contest.objects.filter(pk=duel.pk).update(gm_notes="The god owes Tamsin now.")
    play_against(
        campaign, gm, tamsin, boatcraft, dice=(5, 10), prize="Find the ferryman", consequences=[]
    )
    services.session_end(session=session, actor=gm, recap="We *crossed* the river.")
    services.session_recap_publish(session=session, actor=gm)


# --------------------------------------------------------------------- pages


@LOW
def test_the_timeline_shows_seasons_sessions_and_their_contests_in_order(client, played):
    campaign, alice = played.campaign, played.alice
    html = page(client, alice, "archive_timeline", campaign.pk)
    assert "Season 1" in html and "Session 1: Low water" in html
    assert "We <em>crossed</em> the river." in html
    assert "Attendees: Oro, Tamsin Reedwalker" in html  # everyone, as the session started
    assert html.index("Cross the river") < html.index("Find the ferryman")
    assert "major victory" in html.lower() and "marginal defeat" in html.lower()


@LOW
def test_the_session_page_has_recap_attendees_and_contests(client, played):
    campaign, gm, alice = played.campaign, played.gm, played.alice
    html = page(client, alice, "archive_session", campaign.pk, 1)
    assert "Tamsin Reedwalker" in html and "Oro" in html
    assert "#1 Scored contest" in html and "#2 Simple contest" in html
    assert "Edit the title and recap" not in html
    assert "Edit the title and recap" in page(client, gm, "archive_session", campaign.pk, 1)


@LOW
def test_the_contest_page_shows_framing_rolls_chart_and_outcome(client, played):
    campaign, gm = played.campaign, played.gm
    html = page(client, gm, "archive_contest", campaign.pk, 1)
    for text in (
        "Cross the river",  # prize
        "The Grey River in flood",  # obstacle
        "Pole hard upstream",  # tactic
        "The Grey River 14",  # resistance
        "<td>Tamsin Reedwalker</td><td>Boatcraft</td><td>19</td><td>4</td><td>success</td>",
        # The GM's rolls were hidden at the table: the GM sees them, marked.
        '<td>The Grey River <span class="muted">(hidden)</span></td><td></td><td>14</td>'
        "<td>16</td><td>failure</td>",
        "Augment: Oro (Sharp eyes) +6",
        "<svg",
        "Tamsin Reedwalker ends at 6",
        "Major victory",
        "Tamsin reads the current and crosses.",  # the GM's narration
        "<td>12</td><td>critical</td><td>0</td><td>spent</td>",  # the hero point
    ):
        assert text in html, text
    assert totals(html) == [
        {"Tamsin Reedwalker": str(rp), "The Grey River": "0"} for rp in (2, 4, 6)
    ]
    assert consequences(html) == ["Tamsin Reedwalker: invigorated (Boatcraft)"]


@LOW
def test_the_chart_has_a_line_per_side_through_each_step(client, played):
    campaign, gm = played.campaign, played.gm
    html = page(client, gm, "archive_contest", campaign.pk, 1)
    lines = re.findall(r'<polyline [^>]*points="([^"]+)"', html)
    assert len(lines) == 2
    assert all(len(points.split()) == 3 for points in lines)  # three scoring rounds


@LOW
def test_the_gm_sees_secrets_that_players_do_not(client, played):
    campaign, gm, alice = played.campaign, played.gm, played.alice
    gm_view = page(client, gm, "archive_contest", campaign.pk, 1)
    assert "The Grey River rolled 7 (success)" in gm_view
    assert "marginal victory becomes minor victory" in gm_view
    assert "The god owes Tamsin now." in gm_view
    player_view = page(client, alice, "archive_contest", campaign.pk, 1)
    assert "rolled 7" not in player_view and "<td>7</td>" not in player_view
    assert "marginal victory becomes minor victory" not in player_view
    assert "The god owes Tamsin now." not in player_view
    assert "the GM rolled for The Grey River in secret" in player_view
    assert "The GM rolled in secret." in player_view
    assert "<td>12</td>" in player_view  # Tamsin's own roll of that round stays
    # What the players may see is the same for them: the consequence and its ability.
    assert consequences(player_view) == ["Tamsin Reedwalker: invigorated (Boatcraft)"]


@LOW
def test_conditions_the_contest_applied_to_the_sheets_are_listed(client, played):
    campaign, alice = played.campaign, played.alice
    html = page(client, alice, "archive_contest", campaign.pk, 1)
    outcome = html[html.index('id="outcome-heading"') :]
    assert "Tamsin Reedwalker: Invigorated (Boatcraft)" in outcome
    assert "ended" not in outcome  # invigorated does not wane at the session's end
    second = page(client, alice, "archive_contest", campaign.pk, 2)
    assert "None were applied to the sheets." in second  # the GM confirmed none
    assert consequences(second) == []


@LOW
def test_unknown_sessions_and_contests_are_404(client, played):
    campaign, alice = played.campaign, played.alice
    client.force_login(alice)
    assert client.get(reverse("archive_session", args=[campaign.pk, 9])).status_code == 404
    assert client.get(reverse("archive_contest", args=[campaign.pk, 9])).status_code == 404


@LOW
def test_a_contest_of_another_campaign_is_not_found_by_number(client, charlie, played):
    campaign, alice = played.campaign, played.alice
    other = services.campaign_create(gm=charlie, name="Other")
    Membership.objects.create(campaign=other, user=alice, role=Role.PLAYER)
    wren = character_services.character_create(player=alice, name="Wren", campaign=other)
    rowing = ability(wren, "Rowing", 15)
    services.session_start(campaign=other, actor=charlie)
    for _ in range(3):
        play_against(other, charlie, wren, rowing)
    client.force_login(alice)
    assert client.get(reverse("archive_contest", args=[other.pk, 3])).status_code == 200
    assert client.get(reverse("archive_contest", args=[campaign.pk, 3])).status_code == 404


# --------------------------------------------------------------------- each kind of contest


@pytest.fixture
def brannoc(campaign, bob):
    return character_services.character_create(player=bob, name="Brannoc", campaign=campaign)


def play_simple(campaign, gm, tamsin, brannoc):
    """Tamsin against Brannoc: 5 succeeds against Boatcraft 17, 16 fails against Temple
    singer 15: a minor victory, a consequence for the loser and a benefit for the winner."""
    contest = frame(
        campaign,
        gm,
        "simple",
        prize="The last seat on the ferry",
        pc={"character_id": tamsin.pk},
        opponent={"character_id": brannoc.pk},
    )
    act(contest, tamsin.player, "choose_ability", side="pc", ability_id=_row(tamsin).pk)
    act(contest, brannoc.player, "choose_ability", side="opponent", ability_id=_row(brannoc).pk)
    play_rounds(contest, gm, 5, 16)
    return act(contest, gm, "apply_consequences")


def play_long(kind):
    def play(campaign, gm, tamsin, brannoc):
        return play_against(
            campaign, gm, tamsin, _row(tamsin), kind=kind, prize=f"Hold the {kind} bridge"
        )

    return play


def play_group_simple(campaign, gm, tamsin, brannoc):
    """Tamsin and Brannoc against the flood: each pairing is a minor victory (2 OP)."""
    contest = frame(
        campaign,
        gm,
        "group_simple",
        prize="Save the ferry",
        participants=[
            {"character_id": tamsin.pk, "ability_id": _row(tamsin).pk},
            {"character_id": brannoc.pk, "ability_id": _row(brannoc).pk},
            {"name": "The Grey River", "rating": 14},
        ],
    )
    act(contest, gm, "roll", rolls=(5, 16, 5, 16))
    act(contest, gm, "resolve")
    return act(contest, gm, "apply_consequences")


def play_group_scored(campaign, gm, tamsin, brannoc):
    """Two pairings, each won at once (a critical against a fumble is 5 RP)."""
    contest = frame(
        campaign,
        gm,
        "group_scored",
        prize="Drive off the raiders",
        participants=[
            {"character_id": tamsin.pk, "ability_id": _row(tamsin).pk},
            {"character_id": brannoc.pk, "ability_id": _row(brannoc).pk},
            {"name": "Raider", "rating": 14},
            {"name": "Chief", "rating": 15},
        ],
    )
    act(contest, gm, "engage", pc="Tamsin Reedwalker", opponent="Raider")
    act(contest, gm, "engage", pc="Brannoc", opponent="Chief")
    for pairing in (1, 2):
        act(contest, gm, "play_round", rolls=(1, 20), pairing=pairing)
        act(contest, gm, "resolve")
    return act(contest, gm, "apply_consequences")


def _row(character):
    return character.abilities.get()


# kind: (how it is played, its prize, a roll as the table shows it, the outcome, and
# who took which consequence or benefit on which ability).
KINDS = {
    "simple": (
        play_simple,
        "The last seat on the ferry",
        "<td>Brannoc</td><td>Temple singer</td><td>15</td><td>16</td><td>failure</td>",
        "Minor victory",
        ["Brannoc: impaired (Temple singer)", "Tamsin Reedwalker: pumped (Boatcraft)"],
    ),
    "scored": (
        play_long("scored"),
        "Hold the scored bridge",
        "<td>Tamsin Reedwalker</td><td>Boatcraft</td><td>17</td><td>5</td><td>success</td>",
        "Major victory",
        ["Tamsin Reedwalker: invigorated (Boatcraft)"],
    ),
    "extended": (
        play_long("extended"),
        "Hold the extended bridge",
        "<td>Tamsin Reedwalker</td><td>Boatcraft</td><td>17</td><td>5</td><td>success</td>",
        "Marginal victory",
        ["Tamsin Reedwalker: fresh (Boatcraft)"],
    ),
    "chained": (
        play_long("chained"),
        "Hold the chained bridge",
        "<td>The Grey River</td><td></td><td>14</td><td>16</td><td>failure</td>",
        "Complete victory",
        ["Tamsin Reedwalker: heroic (Boatcraft)"],
    ),
    "group_simple": (
        play_group_simple,
        "Save the ferry",
        "<td>Brannoc</td><td>Temple singer</td><td>15</td><td>5</td><td>success</td>",
        "Major victory",
        ["Tamsin Reedwalker: invigorated (Boatcraft)", "Brannoc: invigorated (Temple singer)"],
    ),
    "group_scored": (
        play_group_scored,
        "Drive off the raiders",
        "<td>Tamsin Reedwalker</td><td></td><td></td><td>1</td>",  # a pairing's dice
        "Major victory",
        ["Tamsin Reedwalker: invigorated (Boatcraft)", "Brannoc: invigorated (Temple singer)"],
    ),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_of_contest_shows_who_took_which_consequence_on_which_ability(
    client, campaign, gm, alice, bob, tamsin, brannoc, kind
):
    play, prize, roll_row, outcome, applied = KINDS[kind]
    ability(tamsin, "Boatcraft", 17)
    ability(brannoc, "Temple singer", 15)
    session = services.session_start(campaign=campaign, actor=gm, title="The flood")
    contest = play(campaign, gm, tamsin, brannoc)
    services.session_end(session=session, actor=gm)
    assert contest.kind == kind and contest.status == "finished"

    html = page(client, alice, "archive_contest", campaign.pk, contest.number)
    assert prize in html and roll_row in html and outcome in html
    assert consequences(html) == applied
    # The sheets took them too: the outcome lists each condition the contest applied.
    for row in applied:
        who, state = row.split(": ")
        assert f"{who}: {state[0].upper()}{state[1:]}" in html, row  # "Pumped (Boatcraft)"

    token = services.campaign_publish(campaign=campaign, actor=gm)
    public = page(Client(), None, "public_contest", token, contest.number)
    assert consequences(public) == applied

    chronicle = page(client, alice, "campaign_export_markdown", campaign.pk)
    for row in applied:
        assert re.search(rf"^ {{4,}}- {re.escape(row)}$", chronicle, re.M), row


def test_the_archive_names_an_npc_side_given_a_consequence(client, campaign, gm, alice, tamsin):
    """The GM may confirm a consequence for the resistance's side too: named as it is."""
    boatcraft = ability(tamsin, "Boatcraft", 17)
    services.session_start(campaign=campaign, actor=gm)
    play_against(
        campaign,
        gm,
        tamsin,
        boatcraft,
        consequences=[{"side": "pc", "state": "pumped"}, {"side": "opponent", "state": "hurt"}],
    )
    html = page(client, alice, "archive_contest", campaign.pk, 1)
    assert consequences(html) == [
        "Tamsin Reedwalker: pumped (Boatcraft)",
        "The Grey River: hurt (Resistance)",
    ]


# --------------------------------------------------------------------- filters, search, pages

KIND_OF = ("simple", "scored", "extended", "chained")
# The dice of each round, and what they give Boatcraft 17 against a resistance of 14.
DICE = {"win": (5, 16), "lose": (5, 10), "tie": (12, 12), "rout": (1, 20)}
LEVEL = {
    "simple": {"win": 2, "lose": -1, "tie": 0, "rout": 4},  # R6: the higher roll wins
    "scored": {"win": 3, "lose": -3},  # first to 5 RP, the loser took none (§5.1.3)
    "extended": {"win": 1, "lose": -1},  # the loser's AP run out (§5.3)
    "chained": {"win": 4, "lose": -4},  # injured, then dying (§5.4)
}
ALL = range(1, 41)


def plan(n: int) -> tuple[str, str | None]:
    """Contest `n`'s kind and how it goes (None: never rolled, left unfinished): the same
    for n + 20."""
    kind = KIND_OF[n % 4]
    result = ("win", "lose", "tie", "rout", None)[n % 5]
    if kind != "simple" and result in ("tie", "rout"):
        result = "win"  # the same dice every round: a long contest has a winner
    return kind, result


def level(n: int) -> int | None:
    kind, result = plan(n)
    return None if result is None else LEVEL[kind][result]


def prize(n: int) -> dict[str, str]:
    return {"prize": f"Prize {n}" + (" of the drowned bell" if n == 33 else "")}


@pytest.fixture(scope="module")
def many_played(django_db_setup, django_db_blocker):
    """40 contests in two sessions, by Tamsin (odd numbers) and Oro (even), for this
    module's tests (written once: they only read). Contest n + 20 goes as contest n
    did (`plan`): the first 20 are played at the table, the second session's repeat
    them (copies of the rows and events the table wrote, with their own prizes)."""
    with django_db_blocker.unblock(), committed_at_once():
        User = get_user_model()
        gm = User.objects.create_user(username="many-gm", password=None)
        alice = User.objects.create_user(username="many-alice", password=None)
        campaign = services.campaign_create(gm=gm, name="The Long Flood")
        Membership.objects.create(campaign=campaign, user=alice, role=Role.PLAYER)
        heroes = []
        for name in ("Oro", "Tamsin"):
            hero = character_services.character_create(player=alice, name=name, campaign=campaign)
            heroes.append((hero, ability(hero, "Boatcraft", 17)))
        session = services.session_start(campaign=campaign, actor=gm)
        for n in range(1, 21):
            kind, result = plan(n)
            hero, boatcraft = heroes[n % 2]
            play_against(
                campaign,
                gm,
                hero,
                boatcraft,
                kind=kind,
                dice=DICE[result] if result else None,
                consequences=[],  # the sheets stay as they are: the same dice, the same outcome
                **prize(n),
            )
        services.session_end(session=session, actor=gm, recap="The eel")
        services.session_recap_publish(session=session, actor=gm)
        session = services.session_start(campaign=campaign, actor=gm)
        played = {c.number: c for c in campaign.contests.all()}
        contests_repeat({n: (played[n - 20], session) for n in range(21, 41)}, prize)
        services.session_end(session=session, actor=gm, recap="")
    yield {"campaign": campaign, "alice": alice, "tamsin": heroes[1][0], "oro": heroes[0][0]}
    with django_db_blocker.unblock():
        Contest.objects.filter(campaign=campaign).delete()
        Character.objects.filter(campaign=campaign).delete()
        campaign.delete()
        User.objects.filter(username__in=["many-gm", "many-alice"]).delete()


@pytest.fixture
def many(db, many_played):
    return many_played


def numbers(html: str) -> list[int]:
    return [int(n) for n in re.findall(r">#(\d+) ", html)]


# The tests of the 40 contests run on one worker, which plays them once.
MANY = pytest.mark.xdist_group("archive_many")


@MANY
def test_the_fixture_plays_each_kind_to_each_outcome(many):
    played = many["campaign"].contests.order_by("number")
    assert [(c.kind, c.outcome_level) for c in played] == [(plan(n)[0], level(n)) for n in ALL]
    assert {c.status for c in played if c.outcome_level is not None} == {"finished"}


@MANY
def test_the_contest_list_is_paginated(client, many):
    campaign, alice = many["campaign"], many["alice"]
    first = numbers(page(client, alice, "archive_contests", campaign.pk))
    assert first == list(range(1, 26))
    second = numbers(page(client, alice, "archive_contests", campaign.pk, page=2))
    assert second == list(range(26, 41))
    assert numbers(page(client, alice, "archive_contests", campaign.pk, page=99)) == second


def won(n: int) -> bool:
    return (level(n) or 0) > 0


@MANY
@pytest.mark.parametrize(
    ("query", "matches"),
    [
        ({"kind": "extended"}, lambda n: n % 4 == 2),
        ({"outcome": "victory"}, won),
        ({"outcome": "defeat"}, lambda n: (level(n) or 0) < 0),
        ({"outcome": "tie"}, lambda n: level(n) == 0),
        ({"outcome": "complete_victory"}, lambda n: level(n) == 4),
        ({"outcome": "major_defeat"}, lambda n: level(n) == -3),
        ({"outcome": "unfinished"}, lambda n: level(n) is None),
        ({"kind": "scored", "outcome": "victory"}, lambda n: n % 4 == 1 and won(n)),
        ({"q": "drowned bell"}, lambda n: n == 33),
    ],
)
def test_the_contest_list_filters(client, many, query, matches):
    html = page(client, many["alice"], "archive_contests", many["campaign"].pk, **query)
    expected = [n for n in ALL if matches(n)]
    assert expected  # each filter finds something
    assert numbers(html) == expected[:25]


@MANY
def test_the_contest_list_filters_by_character(client, many):
    oro = many["oro"]
    html = page(
        client, many["alice"], "archive_contests", many["campaign"].pk, character=oro.pk, page=1
    )
    assert numbers(html) == list(range(2, 41, 2))
    assert f'<option value="{oro.pk}" selected>Oro</option>' in html


@MANY
def test_filters_swap_only_the_results_for_htmx(client, many):
    client.force_login(many["alice"])
    response = client.get(
        reverse("archive_contests", args=[many["campaign"].pk]),
        {"kind": "chained"},
        headers={"HX-Request": "true"},
    )
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="results"')
    assert numbers(html) == [n for n in ALL if n % 4 == 3]


@MANY
def test_the_pager_keeps_the_filters(client, many):
    campaign, alice = many["campaign"], many["alice"]
    html = page(client, alice, "archive_contests", campaign.pk, outcome="victory", page=1)
    assert numbers(html) == [n for n in ALL if won(n)]
    many_more = page(client, alice, "archive_contests", campaign.pk)
    assert "?page=2" in many_more


@MANY
def test_search_finds_recaps_and_contest_framing(client, many):
    campaign, alice = many["campaign"], many["alice"]
    html = page(client, alice, "archive_search", campaign.pk, q="eel")
    assert "Session 1" in html and "Sessions (1)" in html
    html = page(client, alice, "archive_search", campaign.pk, q="DROWNED")
    assert numbers(html) == [33] and "Sessions (0)" in html


@LOW
def test_search_reads_gm_notes_for_the_gm_only(client, played):
    campaign, gm, alice = played.campaign, played.gm, played.alice
    assert numbers(page(client, gm, "archive_search", campaign.pk, q="owes")) == [1]
    assert numbers(page(client, alice, "archive_search", campaign.pk, q="owes")) == []


# --------------------------------------------------------------------- the public link


@LOW
def test_a_public_link_shows_the_archive_without_gm_secrets(client, played):
    campaign, gm = played.campaign, played.gm
    token = services.campaign_publish(campaign=campaign, actor=gm)
    anonymous = Client()
    timeline = page(anonymous, None, "public_timeline", token)
    assert "public archive (read-only)" in timeline and "Low water" in timeline
    assert "Publish" not in timeline and "Export" not in timeline
    contest = page(anonymous, None, "public_contest", token, 1)
    assert "Cross the river" in contest and "Major victory" in contest
    assert consequences(contest) == ["Tamsin Reedwalker: invigorated (Boatcraft)"]
    for secret in ("rolled 7", "becomes minor victory", "The god owes Tamsin now."):
        assert secret not in contest
    assert f"/archive/{token}/contests/1/" in page(anonymous, None, "public_contests", token)
    assert "Low water" in page(anonymous, None, "public_session", token, 1)
    assert numbers(page(anonymous, None, "public_search", token, q="owes")) == []


@LOW
def test_a_public_link_shows_nothing_but_the_archive(client, played):
    campaign, gm = played.campaign, played.gm
    token = services.campaign_publish(campaign=campaign, actor=gm)
    anonymous = Client()
    assert anonymous.get(reverse("campaign_detail", args=[campaign.pk])).status_code == 302
    assert anonymous.get(reverse("archive_timeline", args=[campaign.pk])).status_code == 302
    assert anonymous.get(reverse("campaign_export_markdown", args=[campaign.pk])).status_code == (
        302
    )
    assert anonymous.get(reverse("public_timeline", args=[token])).status_code == 200


@LOW
def test_a_revoked_public_link_is_not_found(client, played):
    campaign, gm = played.campaign, played.gm
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


@LOW
def test_the_gm_sees_the_public_link_controls(client, played):
    campaign, gm, alice = played.campaign, played.gm, played.alice
    assert "Publish a read-only link" in page(client, gm, "archive_timeline", campaign.pk)
    assert "Publish a read-only link" not in page(client, alice, "archive_timeline", campaign.pk)
