"""The live table websocket through the real ASGI application (issue 2)."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async

from contests.models import TablePresence
from questworlds_site.asgi import application

from .socket_helpers import receive_until, session_cookie, table_socket

pytestmark = pytest.mark.django_db(transaction=True)


async def test_it_refuses_anonymous_users_with_4401(campaign):
    socket = table_socket(application, campaign.pk)
    connected, _ = await socket.connect()
    assert connected
    closed = await socket.receive_output(timeout=10)
    assert closed == {"type": "websocket.close", "code": 4401}
    assert await TablePresence.objects.acount() == 0
    await socket.disconnect()


async def test_it_refuses_non_members_with_4403(campaign, charlie):
    cookie = await database_sync_to_async(session_cookie)(charlie)
    socket = table_socket(application, campaign.pk, cookie)
    await socket.connect()
    closed = await socket.receive_output(timeout=10)
    assert closed == {"type": "websocket.close", "code": 4403}
    assert await TablePresence.objects.acount() == 0
    await socket.disconnect()


async def test_it_refuses_a_table_that_does_not_exist(gm):
    cookie = await database_sync_to_async(session_cookie)(gm)
    socket = table_socket(application, 999_999, cookie)
    await socket.connect()
    assert (await socket.receive_output(timeout=10))["code"] == 4403
    await socket.disconnect()


async def test_it_refuses_a_foreign_origin(campaign, gm):
    cookie = await database_sync_to_async(session_cookie)(gm)
    socket = table_socket(
        application, campaign.pk, cookie, origin=(b"origin", b"https://evil.example")
    )
    connected, _ = await socket.connect()
    assert not connected
    assert await TablePresence.objects.acount() == 0
    await socket.disconnect()


async def test_members_see_each_others_presence_with_roles(campaign, gm, alice):
    alice_socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(alice)
    )
    assert (await alice_socket.connect())[0]
    first = await receive_until(alice_socket, 'id="presence"')
    assert "Alice" in first and "Player" in first

    gm_socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(gm)
    )
    assert (await gm_socket.connect())[0]
    gm_view = await receive_until(gm_socket, "Gwen")
    assert "Alice" in gm_view and "Game master" in gm_view
    alice_view = await receive_until(alice_socket, "Gwen")
    assert "Game master" in alice_view and 'hx-swap-oob="true"' in alice_view

    await gm_socket.disconnect()
    # Presence comes in bursts (the GM's arrival may still be on its way to Alice):
    # the list she is left with names her and not Gwen.
    after_leaving = await receive_until(alice_socket, 'id="presence"')
    for _ in range(10):
        if "Gwen" not in after_leaving:
            break
        after_leaving = await receive_until(alice_socket, 'id="presence"')
    assert "Gwen" not in after_leaving and "Alice" in after_leaving
    await alice_socket.disconnect()
    assert await TablePresence.objects.acount() == 0


async def test_a_spectator_is_shown_as_a_spectator(campaign, sam):
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(sam)
    )
    assert (await socket.connect())[0]
    view = await receive_until(socket, "Sam")
    assert "Spectator" in view
    await socket.disconnect()


async def test_a_connecting_browser_gets_the_full_table_state_first(campaign, alice):
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(alice)
    )
    await socket.connect()
    first = await socket.receive_from(timeout=10)
    assert 'id="presence"' in first and 'id="table-status"' in first
    await socket.disconnect()


async def test_two_tabs_of_one_person_count_once(campaign, alice):
    cookie = await database_sync_to_async(session_cookie)(alice)
    tab1, tab2 = (
        table_socket(application, campaign.pk, cookie),
        table_socket(application, campaign.pk, cookie),
    )
    await tab1.connect()
    await tab2.connect()
    view = await receive_until(tab2, "Alice")
    assert view.count("Alice") == 1
    await tab1.disconnect()
    still_there = await receive_until(tab2, 'id="presence"')
    assert "Alice" in still_there
    await tab2.disconnect()


@pytest.mark.parametrize(
    "raw",
    [
        "not json",
        json.dumps([1, 2]),
        json.dumps({"action": "x" * 5000}),
        json.dumps({"action": "teleport"}),
    ],
)
async def test_bad_messages_get_a_clear_error_and_change_nothing(campaign, alice, raw):
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(alice)
    )
    await socket.connect()
    await receive_until(socket, "Alice")
    await socket.send_to(text_data=raw)
    error = await receive_until(socket, 'id="table-error"')
    assert "nothing was done" in error
    assert await TablePresence.objects.acount() == 1
    await socket.disconnect()


async def test_a_removed_member_is_disconnected_at_once(campaign, alice):
    from contests.broadcast import send_to_table

    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(alice)
    )
    await socket.connect()
    await receive_until(socket, "Alice")
    await send_to_table(campaign.pk, {"type": "table.revoke", "user_id": alice.pk})
    while True:
        output = await socket.receive_output(timeout=10)
        if output["type"] == "websocket.close":
            break
    assert output["code"] == 4404
    assert await TablePresence.objects.acount() == 0
    await socket.disconnect()


async def test_the_pages_heartbeat_is_answered_and_changes_nothing(campaign, alice):
    """The page's ping, exactly as static/js/table-connection.js writes it, and one written
    otherwise: each gets the pong the page listens for; nothing else is sent back."""
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(alice)
    )
    await socket.connect()
    await receive_until(socket, "Alice")
    presence = await TablePresence.objects.acount()
    for ping in ('{"action":"ping"}', '{ "action": "ping" }'):
        await socket.send_to(text_data=ping)
        assert 'id="table-pong"' in await receive_until(socket, 'id="table-pong"')
    # Nothing else comes back but the table's presence updates (sent on connect).
    while not await socket.receive_nothing(timeout=0.3):
        assert 'id="presence"' in await socket.receive_from()
    assert await TablePresence.objects.acount() == presence
    # The socket still works as a table socket after its heartbeats.
    await socket.send_to(text_data=json.dumps({"action": "resync"}))
    assert 'id="presence"' in await receive_until(socket, 'id="presence"')
    await socket.disconnect()


async def test_a_refused_socket_gets_no_pong(campaign, charlie):
    """Not a member: the socket is closed with 4403, and a ping that reaches the server
    before the close is not answered."""
    from contests.heartbeat import HeartbeatMiddleware

    sent = []

    async def app(scope, receive, send):
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.close", "code": 4403})
        sent.append(await receive())

    async def receive():
        return {"type": "websocket.receive", "text": '{"action":"ping"}'}

    async def send(message):
        sent.append(message)

    await HeartbeatMiddleware(app)({"type": "websocket"}, receive, send)
    assert [m["type"] for m in sent] == [
        "websocket.accept",
        "websocket.close",
        "websocket.receive",
    ]


async def test_a_player_proposes_over_the_socket_as_over_htmx_and_every_page_is_told(
    campaign, session, gm, alice, tamsin
):
    """An action on the table (a proposal) is taken over the socket through the same
    declaration and handler as the form's POST: the GM's page is told to reload its
    proposals, and a spectator's refusal names the action in words."""
    from contests.models import Proposal

    gm_socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(gm)
    )
    alice_socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(alice)
    )
    await gm_socket.connect()
    await alice_socket.connect()
    await receive_until(alice_socket, "Alice")
    message = {
        "action": "propose",
        "key": "propose-over-the-socket",
        "data": {"character_id": tamsin.pk, "prize": "to cross the Grey River", "kind": "simple"},
    }
    await alice_socket.send_to(text_data=json.dumps(message))
    assert "data-acked" in await receive_until(alice_socket, "data-acked")
    assert "data-proposals-changed" in await receive_until(gm_socket, "data-proposals-changed")
    proposal = await Proposal.objects.aget()
    assert (proposal.player_id, proposal.prize) == (alice.pk, "to cross the Grey River")
    # The GM may not withdraw it: the declaration says players do, in its words.
    refusal = {"action": "withdraw_proposal", "key": "w", "data": {"proposal": proposal.pk}}
    await gm_socket.send_to(text_data=json.dumps(refusal))
    error = await receive_until(gm_socket, 'id="table-error"')
    assert "only players may withdraw a proposal" in error and "Nothing was done." in error
    await proposal.arefresh_from_db()
    assert proposal.status == "open"
    await gm_socket.disconnect()
    await alice_socket.disconnect()
