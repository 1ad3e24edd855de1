"""A session that begins or ends while pages are open at the table (issue 15: "open
pages are not told when the session ends"): every open page is told in words, and its
chat panel, reloaded, opens or closes with the session.

Played through the campaign's services, as the GM's session pages do; read from what
the sockets receive and what the chat panel answers each reader.
"""

from __future__ import annotations

import html

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from campaigns import services
from questworlds_site.asgi import application
from tests.contests.socket_helpers import receive_until, session_cookie, table_socket


async def seat(campaign, user):
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(user)
    )
    assert (await socket.connect())[0]
    await receive_until(socket, 'id="chat-log"')  # the full state, chat included
    return socket


@pytest.mark.django_db(transaction=True)
async def test_every_open_page_is_told_when_the_session_ends_and_when_the_next_begins(
    campaign, gm, alice, sam
):
    opened = await database_sync_to_async(services.session_start)(
        campaign=campaign, actor=gm, title="Low water"
    )
    sockets = [await seat(campaign, user) for user in (gm, alice, sam)]

    await database_sync_to_async(services.session_end)(session=opened, actor=gm)
    for socket in sockets:
        said = html.unescape(await receive_until(socket, "data-session-notice"))
        assert 'id="session-notice"' in said and 'hx-swap-oob="true"' in said
        assert "Low water has ended: the chat is closed until the GM starts the next one." in said

    await database_sync_to_async(services.session_start)(
        campaign=campaign, actor=gm, title="High tide"
    )
    for socket in sockets:
        said = html.unescape(await receive_until(socket, "data-session-notice"))
        assert "High tide has begun: the chat is open." in said
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_title_is_shown_as_text_never_as_markup(campaign, gm, alice):
    socket = await seat(campaign, alice)
    await database_sync_to_async(services.session_start)(
        campaign=campaign, actor=gm, title="<b>Flood</b>"
    )
    said = await receive_until(socket, "data-session-notice")
    assert "<b>" not in said and "&lt;b&gt;Flood&lt;/b&gt;" in said
    await socket.disconnect()


def chat_panel(client, campaign, user):
    client.force_login(user)
    return client.get(reverse("table_chat_panel", args=[campaign.pk]))


def test_the_chat_panel_opens_and_closes_with_the_session(client, campaign, gm, alice, sam):
    page = chat_panel(client, campaign, alice).content.decode()
    assert "No session in progress" in page and "data-chat-form" not in page

    opened = services.session_start(campaign=campaign, actor=gm, title="Low water")
    page = chat_panel(client, campaign, alice).content.decode()
    assert "Nothing said yet in Low water." in page and "data-chat-form" in page
    # A spectator reads the chat; only the GM and the players write in it.
    page = chat_panel(client, campaign, sam).content.decode()
    assert "data-chat-form" not in page and "Spectators read the chat" in page

    services.session_end(session=opened, actor=gm)
    page = chat_panel(client, campaign, gm).content.decode()
    assert "No session in progress" in page and "data-chat-form" not in page


def test_the_chat_panel_is_for_members_only_and_only_read(client, campaign, alice, charlie):
    assert chat_panel(client, campaign, charlie).status_code == 404  # not even named
    client.force_login(alice)
    url = reverse("table_chat_panel", args=[campaign.pk])
    assert client.post(url, {"text": "hello"}).status_code == 405
    assert client.get(f"/campaigns/{campaign.pk + 999}/table/chat/panel/").status_code == 404
