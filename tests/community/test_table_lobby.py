"""Lobbying for a community resource at the live table (issue 27, 11c; §8.2): the GM
and a player for their own character post from the table page; the result reaches every
socket at the table; the GM's frame form offers the approved draw. Input is checked,
permission read at the moment of the request, and the table actions' rate limit holds."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from campaigns import services as campaign_services
from characters.models import Ability, AbilityKind, Character
from community import services
from community.models import Community, ResourceDraw
from contests.core.rules import dice
from questworlds_site.asgi import application
from tests.contests.socket_helpers import receive_until, session_cookie, table_socket

from .conftest import resource

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def rolls(monkeypatch):
    """The server's next d20 rolls, in order (the view rolls with the real dice)."""
    queue: list[int] = []
    monkeypatch.setattr(dice._SYSTEM_RANDOM, "randint", lambda low, high: queue.pop(0))
    return queue


@pytest.fixture
def brannoc(campaign, make_user):
    """Bob's character, with a relationship Alice may not lobby with."""
    from campaigns.models import Membership, Role

    bob = make_user("bob", "Bob")
    Membership.objects.create(campaign=campaign, user=bob, role=Role.PLAYER)
    character = Character.objects.create(name="Brannoc", player=bob, campaign=campaign)
    Ability.objects.create(
        character=character, name="Temple choir", kind=AbilityKind.RELATIONSHIP, rating=15
    )
    return character


def lobby(client, user, community, lobbying_with, **fields):
    client.force_login(user)
    data = {
        "resource": resource(community, "Wealth").pk,
        "ability": lobbying_with.pk,
        "purpose": "hire the ferries",
        "used_as": "augment",
        **fields,
    }
    url = reverse("community:table_lobby", args=[community.campaign_id])
    return client.post(url, data, headers=HTMX)


def words(response) -> str:
    return " ".join(response.content.decode().split())


def test_a_player_lobbies_for_their_own_character(
    client, community, session, alice, tamsin, ashfen_born, rolls
):
    rolls += [1, 20]  # Ashfen Born 13 rolls 1 against moderate (14) rolling 20: approved
    response = lobby(client, alice, community, ashfen_born)
    assert response.status_code == 200
    assert "Lobbying for Wealth: rolled 1 against 20, complete victory: approved." in words(
        response
    )
    draw = ResourceDraw.objects.get()
    assert (draw.actor, draw.character, draw.status, draw.used_as) == (
        alice,
        tamsin,
        "approved",
        "augment",
    )
    assert (draw.resistance_level, draw.modifier, draw.session) == ("moderate", 0, session)


def test_the_resistance_and_modifiers_are_the_gms(
    client, community, session, gm, alice, ashfen_born, rolls
):
    rolls += [10, 10, 10, 10]
    lobby(client, alice, community, ashfen_born, resistance_level="very_low", modifier="60")
    lobby(client, gm, community, ashfen_born, resistance_level="high", modifier="-3")
    mine, gms = ResourceDraw.objects.order_by("id")
    assert (mine.resistance_level, mine.modifier) == ("moderate", 0)
    assert (gms.resistance_level, gms.modifier, gms.actor) == ("high", -3, gm)


@pytest.mark.parametrize(
    ("who", "field", "value", "status", "message"),
    [
        ("alice", "ability", "brannoc", 400, "Select a valid choice"),
        ("alice", "purpose", "", 400, "This field is required"),
        ("alice", "used_as", "both", 400, "Select a valid choice"),
        ("alice", "resource", "²", 400, "Select a valid choice"),
        ("gm", "modifier", "61", 400, "less than or equal to 60"),
        ("sam", "purpose", "watch", 400, "Spectators watch: they cannot lobby."),
        ("charlie", "purpose", "grain", 404, ""),
    ],
)
def test_bad_input_or_the_wrong_person_changes_nothing(
    client, request, community, session, ashfen_born, brannoc, who, field, value, status, message
):
    if value == "brannoc":
        value = brannoc.abilities.get().pk
    response = lobby(client, request.getfixturevalue(who), community, ashfen_born, **{field: value})
    assert response.status_code == status
    assert message in response.content.decode()
    assert not ResourceDraw.objects.exists()


def test_lobbying_waits_for_a_session(client, community, alice, ashfen_born):
    response = lobby(client, alice, community, ashfen_born)
    assert response.status_code == 400
    assert "Drawing on a resource happens in play: start a session first." in words(response)
    assert not ResourceDraw.objects.exists()


def test_lobbying_counts_against_the_table_actions_limit(
    client, community, session, alice, ashfen_born, rolls, settings
):
    settings.ACTION_RATE_LIMIT = "1/minute"
    rolls += [10, 10]
    assert lobby(client, alice, community, ashfen_born).status_code == 200
    refused = lobby(client, alice, community, ashfen_born)
    assert refused.status_code == 400 and "Too many actions at once" in words(refused)
    assert ResourceDraw.objects.count() == 1


def test_the_panel_offers_each_reader_their_own_lobbying(
    client, community, session, gm, alice, sam, tamsin, ashfen_born, brannoc
):
    url = reverse("community:table_panel", args=[community.campaign_id])
    client.force_login(alice)
    page = client.get(url).content.decode()
    assert "Lobby to draw on a resource" in page
    assert "Tamsin: Ashfen Born" in page and "Brannoc" not in page
    assert 'name="resistance_level"' not in page
    client.force_login(gm)
    page = client.get(url).content.decode()
    assert "Brannoc: Temple choir" in page and 'name="resistance_level"' in page
    client.force_login(sam)
    page = client.get(url).content.decode()
    assert "Ashfen's resources" in page and "Lobby to draw" not in page


def test_a_campaign_without_a_community_shows_no_panel(client, campaign, alice):
    assert not Community.objects.exists()
    client.force_login(alice)
    response = client.get(reverse("community:table_panel", args=[campaign.pk]))
    assert (response.status_code, response.content) == (200, b"")


async def seated(user, campaign_id: int):
    socket = table_socket(
        application, campaign_id, await database_sync_to_async(session_cookie)(user)
    )
    connected, _ = await socket.connect()
    assert connected
    await receive_until(socket, 'id="presence"')
    while not await socket.receive_nothing(timeout=0.3):
        await socket.receive_from()
    return socket


@pytest.mark.django_db(transaction=True)
async def test_every_page_at_the_table_sees_the_draw_and_the_gm_can_frame_with_it(
    community, campaign, gm, alice, sam, tamsin, ashfen_born, rolls
):
    await database_sync_to_async(campaign_services.session_start)(campaign=campaign, actor=gm)
    sockets = {user: await seated(user, campaign.pk) for user in (gm, alice, sam)}
    rolls += [1, 20]
    response = await database_sync_to_async(lobby)(Client(), alice, community, ashfen_born)
    assert response.status_code == 200
    draw = await database_sync_to_async(ResourceDraw.objects.get)()
    for socket in sockets.values():
        message = await receive_until(socket, 'id="table-draws"')
        text = " ".join(message.split())
        assert "<strong>Tamsin</strong> lobbied to draw on Wealth as an augment" in text
        assert "rolled 1 against moderate 14 rolling 20, complete victory." in text
        assert "<em>Approved</em>" in text
        # The GM's frame form offers it at once (the draws page shows it to all).
        assert f'<option value="{draw.pk}">Tamsin: Wealth as an augment' in text
    # The contest that used it settles it (as the table does on its consequences): every
    # page sees that too.
    await database_sync_to_async(services.community_draw_settle)(
        draw=draw, actor=gm, outcome_level=2
    )
    for socket in sockets.values():
        message = await receive_until(socket, 'id="table-draws"')
        assert "<em>Used</em>: minor victory, depletion -3." in " ".join(message.split())
        await socket.disconnect()
