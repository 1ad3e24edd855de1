"""Who may do what, as a matrix: only the GM changes options, sessions, NPCs and
membership; members read; outsiders get 404 (they learn nothing); anonymous visitors
are sent to log in; a public link shows only the archive. A refused request changes
nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from campaigns import services
from campaigns.models import Campaign, Invitation, Membership, Npc, Role, Season, Session
from characters import services as character_services
from characters.models import Character
from contests.models import Contest

from .conftest import committed_at_once, frame

READ = {"gm": 200, "alice": 200, "sam": 200, "charlie": 404, "anonymous": 302}
GM_ONLY = {"gm": 200, "alice": 403, "sam": 403, "charlie": 404, "anonymous": 302}
GM_POST = {"alice": 403, "sam": 403, "charlie": 404, "anonymous": 302}


# The module's tests share one world, built once on one worker.
pytestmark = pytest.mark.xdist_group("campaign_permissions")

PERSONAS = {"gm": "Gwen", "alice": "Alice", "sam": "Sam", "charlie": "Charlie"}


@pytest.fixture(scope="module")
def world_once(django_db_setup, django_db_blocker):
    """The personas' campaign (tests/conftest.py's), with an open session, contest 1
    framed and under way, an NPC and an invitation: committed once for this module.
    Each test runs in a transaction rolled back at its end, so a request that got
    through by mistake changes nothing the next test sees."""
    with django_db_blocker.unblock(), committed_at_once():
        User = get_user_model()
        users = {
            name: User.objects.create_user(username=name, password=None, display_name=display)
            for name, display in PERSONAS.items()
        }
        gm = users["gm"]
        campaign = Campaign.objects.create(name="The Sunken Crown", genre="Fantasy", gm=gm)
        Membership.objects.create(campaign=campaign, user=users["alice"], role=Role.PLAYER)
        Membership.objects.create(campaign=campaign, user=users["sam"], role=Role.SPECTATOR)
        tamsin = character_services.character_create(
            player=users["alice"],
            name="Tamsin Reedwalker",
            concept="Stubborn river guide",
            campaign=campaign,
        )
        session = services.session_start(campaign=campaign, actor=gm)  # still open
        services.session_update(session=session, actor=gm, title="", recap="Recap")
        # Contest 1, framed at the table and under way: its pages are what is read here.
        frame(
            campaign,
            gm,
            "simple",
            pc={"character_id": tamsin.pk},
            opponent={"name": "The Grey River", "level": "moderate"},
        )
        npc = services.npc_create(campaign=campaign, actor=gm, name="Voss", rating=14)
        invitation = services.invitation_create(campaign=campaign, actor=gm)
        membership = Membership.objects.get(user=users["sam"])
    yield {
        **users,
        "c": campaign.pk,
        "npc": npc.pk,
        "invitation": invitation.pk,
        "membership": membership.pk,
    }
    with django_db_blocker.unblock():
        Contest.objects.filter(campaign=campaign).delete()
        Character.objects.filter(campaign=campaign).delete()
        campaign.delete()
        User.objects.filter(username__in=PERSONAS).delete()


@pytest.fixture
def world(db, world_once):
    return world_once


def url(name: str, world: dict, *keys) -> str:
    return reverse(name, args=[world.get(k, k) for k in keys])


READ_PAGES = [
    ("campaign_detail", "c"),
    ("campaign_members", "c"),
    ("campaign_options", "c"),
    ("npc_list", "c"),
    ("archive_timeline", "c"),
    ("archive_session", "c", 1),
    ("archive_contests", "c"),
    ("archive_contest", "c", 1),
    ("archive_search", "c"),
    ("campaign_export_markdown", "c"),
]
GM_PAGES = [
    ("campaign_edit", "c"),
    ("npc_edit", "c", "npc"),
    ("season_start", "c"),
    ("session_start", "c"),
    ("session_end", "c", 1),
    ("session_edit", "c", 1),
    ("campaign_export_json", "c"),
]
GM_ACTIONS = [
    ("campaign_edit", {"name": "Hijacked"}, "c"),
    ("campaign_options", {"better_roll": "low"}, "c"),
    ("invitation_create", {"role": "player", "days": 3}, "c"),
    ("invitation_revoke", {}, "c", "invitation"),
    ("membership_remove", {}, "c", "membership"),
    ("campaign_hand_over", {"new_gm": 1}, "c"),
    ("campaign_publish", {}, "c"),
    ("campaign_unpublish", {}, "c"),
    ("npc_list", {"name": "Intruder", "rating": "14"}, "c"),
    ("npc_edit", {"name": "Renamed", "rating": "14"}, "c", "npc"),
    ("npc_delete", {}, "c", "npc"),
    ("season_start", {"progression": 3}, "c"),
    ("session_start", {"title": "Mine"}, "c"),
    ("session_end", {"recap": "Mine"}, "c", 1),
    ("session_edit", {"title": "Mine", "recap": "Mine"}, "c", 1),
]


def as_(persona: str, world: dict) -> Client:
    client = Client()
    if persona != "anonymous":
        client.force_login(world[persona])
    return client


def snapshot() -> tuple:
    """Everything a refused request must leave as it was."""
    return (
        list(Campaign.objects.values_list("name", "gm", "rules", "public_token")),
        list(Membership.objects.values_list("user", "role")),
        list(Invitation.objects.values_list("revoked_at", "uses")),
        list(Npc.objects.values_list("name", "rating")),
        list(Season.objects.values_list("number", "base_resistance")),
        list(Session.objects.values_list("number", "title", "recap", "ended_at")),
        list(Character.objects.values_list("hero_points", "experience_points", "campaign")),
        Contest.objects.count(),
    )


@pytest.mark.parametrize("persona", list(READ))
@pytest.mark.parametrize("page", READ_PAGES, ids=lambda p: p[0])
def test_members_read_and_outsiders_get_404(world, persona, page):
    response = as_(persona, world).get(url(page[0], world, *page[1:]))
    assert response.status_code == READ[persona]
    if persona == "anonymous":
        assert response.url.startswith(reverse("login"))


@pytest.mark.parametrize("persona", list(GM_ONLY))
@pytest.mark.parametrize("page", GM_PAGES, ids=lambda p: p[0])
def test_gm_pages_are_for_the_gm(world, persona, page):
    response = as_(persona, world).get(url(page[0], world, *page[1:]))
    assert response.status_code == GM_ONLY[persona]


@pytest.mark.parametrize("persona", list(GM_POST))
@pytest.mark.parametrize("action", GM_ACTIONS, ids=lambda a: a[0])
def test_only_the_gm_changes_anything(world, persona, action):
    name, data, *keys = action
    before = snapshot()
    response = as_(persona, world).post(url(name, world, *keys), data)
    assert response.status_code == GM_POST[persona]
    assert snapshot() == before


@pytest.mark.parametrize("persona", ["alice", "sam", "charlie", "anonymous"])
def test_the_public_link_shows_only_the_archive(world, persona):
    campaign = Campaign.objects.get(pk=world["c"])
    token = services.campaign_publish(campaign=campaign, actor=world["gm"])
    client = as_(persona, world)
    for name, *args in (
        ("public_timeline",),
        ("public_session", 1),
        ("public_contests",),
        ("public_contest", 1),
        ("public_search",),
    ):
        assert client.get(reverse(name, args=[token, *args])).status_code == 200
    # The token opens nothing else; a wrong token opens nothing at all.
    assert client.get(reverse("public_timeline", args=["x" + token])).status_code == 404
    before = snapshot()
    client.post(reverse("public_timeline", args=[token]), {"name": "Hijacked"})
    assert snapshot() == before


def test_an_outsider_cannot_tell_a_campaign_from_a_missing_one(client, world):
    client.force_login(world["charlie"])
    hidden = client.get(reverse("archive_timeline", args=[world["c"]]))
    missing = client.get(reverse("archive_timeline", args=[world["c"] + 1000]))
    assert hidden.status_code == missing.status_code == 404


def test_actions_need_post(client, world):
    client.force_login(world["gm"])
    for name, *keys in (
        ("campaign_publish", "c"),
        ("membership_remove", "c", "membership"),
        ("npc_delete", "c", "npc"),
        ("campaign_leave", "c"),
    ):
        assert client.get(url(name, world, *keys)).status_code == 405
