"""Removing a member closes their open table sockets at once (issue 5)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from campaigns import services
from campaigns.models import Membership
from contests.models import TablePresence
from questworlds_site.asgi import application
from tests.contests.socket_helpers import receive_until, session_cookie, table_socket

pytestmark = pytest.mark.django_db(transaction=True)


async def closing_code(socket) -> int:
    while True:
        output = await socket.receive_output(timeout=10)
        if output["type"] == "websocket.close":
            return output["code"]


async def test_a_removed_member_is_disconnected_and_others_stay(campaign, gm, alice, sam):
    alice_socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(alice)
    )
    sam_socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(sam)
    )
    await alice_socket.connect()
    await receive_until(alice_socket, "Alice")
    await sam_socket.connect()
    await receive_until(sam_socket, "Sam")

    membership = await Membership.objects.aget(campaign=campaign, user=alice)
    await database_sync_to_async(services.membership_remove)(
        campaign=campaign, actor=gm, membership=membership
    )

    assert await closing_code(alice_socket) == 4404
    # Sam's presence list updates without Alice (earlier lists may still be queued).
    for _ in range(10):
        after = await receive_until(sam_socket, 'id="presence"')
        if "Alice" not in after:
            break
    assert "Alice" not in after and "Sam" in after
    assert await TablePresence.objects.filter(user=alice).acount() == 0
    await alice_socket.disconnect()
    await sam_socket.disconnect()


async def test_a_member_who_leaves_is_disconnected_too(campaign, sam):
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(sam)
    )
    await socket.connect()
    await receive_until(socket, "Sam")
    await database_sync_to_async(services.membership_leave)(campaign=campaign, user=sam)
    assert await closing_code(socket) == 4404
    await socket.disconnect()
