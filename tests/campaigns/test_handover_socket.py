"""A role change reaches every open socket of the people concerned at once (issue 12,
item 5): after a GM hand-over the former GM's open page receives nothing more of the
GM's view, and reloads as a player's."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from campaigns import services
from contests.models import TablePresence
from contests.table_actions import perform
from questworlds_site.asgi import application
from tests.contests.socket_helpers import receive_until, session_cookie, table_socket
from tests.table import key

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def tamsin(campaign, alice):
    from django.utils import timezone

    from campaigns.models import Session
    from characters.models import Ability, Character

    Session.objects.create(campaign=campaign, number=1, started_at=timezone.now())
    character = Character.objects.create(name="Tamsin", player=alice, campaign=campaign)
    Ability.objects.create(character=character, name="Boatcraft", rating=17)
    return character


async def closing_code(socket) -> int:
    while True:
        output = await socket.receive_output(timeout=10)
        if output["type"] == "websocket.close":
            return output["code"]


async def seat(campaign, user):
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(user)
    )
    assert (await socket.connect())[0]
    await receive_until(socket, 'id="contest"')
    return socket


@database_sync_to_async
def frame(table, tamsin):
    return table.frame(
        pc=tamsin, prize="the ford", opponent={"name": "The Grey River", "level": "moderate"}
    )


async def test_a_hand_over_closes_both_gms_sockets_and_nothing_more_reaches_the_old_gm(
    campaign, table, tamsin, gm, alice, sam
):
    contest = await frame(table, tamsin)
    gm_socket, alice_socket, sam_socket = [await seat(campaign, u) for u in (gm, alice, sam)]

    await database_sync_to_async(services.campaign_gm_hand_over)(
        campaign=campaign, actor=gm, new_gm=alice
    )

    # The two people whose role changed: their sockets close, their pages reload.
    assert await closing_code(gm_socket) == 4409
    assert await closing_code(alice_socket) == 4409
    assert not await TablePresence.objects.filter(user__in=[gm, alice]).aexists()

    # The new GM acts: the old GM's socket gets nothing; the spectator's stays open.
    reply = await database_sync_to_async(perform)(
        campaign_id=campaign.pk,
        user=alice,
        message={
            "action": "set_tactic",
            "contest": contest.pk,
            "key": key(),
            "data": {"side": "opponent", "tactic": "The river rises."},
        },
    )
    assert reply.created, reply.error
    assert "The river rises." in await receive_until(sam_socket, "The river rises.", limit=40)
    assert await gm_socket.receive_nothing(timeout=0.5)

    # Reconnected, the former GM is a player: no GM controls; the new GM has them.
    again = await seat(campaign, gm)
    await again.send_to(text_data='{"action": "resync"}')
    state = await receive_until(again, 'id="contest"')
    assert "gm-controls" not in state and "GM controls" not in state
    new_gm = await seat(campaign, alice)
    await new_gm.send_to(text_data='{"action": "resync"}')
    assert "GM controls" in await receive_until(new_gm, 'id="contest"')
    for socket in (again, new_gm, sam_socket):
        await socket.disconnect()


async def test_a_socket_that_missed_the_change_finds_it_on_resync(campaign, gm, alice, monkeypatch):
    """A role message lost (the channel layer was down at the hand-over): the next resync
    reads the role afresh and closes the socket so the page reloads."""
    socket = await seat(campaign, gm)
    monkeypatch.setattr(services, "_role_changed_at_table", lambda campaign, user_id: None)
    await database_sync_to_async(services.campaign_gm_hand_over)(
        campaign=campaign, actor=gm, new_gm=alice
    )
    await socket.send_to(text_data='{"action": "resync"}')
    assert await closing_code(socket) == 4409
