"""A change made on a character's own pages reaches its player's open table (issue 15,
"every hero point appears at once"): the GM applies a state or awards hero points from
the sheet, and the player's pages at the table are told to reload their sheet; nobody
else's are."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from questworlds_site.asgi import application
from tests.contests.socket_helpers import receive_until, session_cookie, table_socket

pytestmark = pytest.mark.django_db(transaction=True)

CHANGED = "data-sheet-changed"
PING = '{"action":"ping"}'


async def seat(campaign, user):
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(user)
    )
    assert (await socket.connect())[0]
    await receive_until(socket, 'id="chat-log"')  # the full state
    return socket


@database_sync_to_async
def gm_applies_a_state(gm, character, state="hurt"):
    client = Client()
    client.force_login(gm)
    ability = character.abilities.first()
    url = reverse("characters:condition_apply", args=[character.pk])
    form = {"state": state, "abilities": [ability.pk], "cause": "a fall"}
    return client.post(url, form, headers={"HX-Request": "true"})


async def nothing_but_the_pong(socket) -> None:
    """Everything the socket receives up to the answer to a ping: no sheet change (only
    presence lists, as people come and go)."""
    await socket.send_to(text_data=PING)
    while 'id="table-pong"' not in (message := await socket.receive_from(timeout=10)):
        assert CHANGED not in message


async def test_the_player_is_told_when_the_gm_applies_a_state_and_nobody_else(
    campaign, gm, alice, bob, tamsin
):
    alice_socket, bob_socket, gm_socket = [await seat(campaign, u) for u in (alice, bob, gm)]
    answer = await gm_applies_a_state(gm, tamsin)
    assert answer.status_code == 200
    assert CHANGED in await receive_until(alice_socket, CHANGED)
    for other in (bob_socket, gm_socket):  # not theirs
        await nothing_but_the_pong(other)
    for socket in (alice_socket, bob_socket, gm_socket):
        await socket.disconnect()


async def test_a_refused_change_tells_nobody(campaign, gm, alice, tamsin):
    alice_socket = await seat(campaign, alice)
    answer = await gm_applies_a_state(gm, tamsin, state="no such state")
    assert "Select a valid choice" in answer.content.decode()
    await nothing_but_the_pong(alice_socket)
    await alice_socket.disconnect()
