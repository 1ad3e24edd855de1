"""Table chat live over the table's websocket, through the real ASGI application: every
line reaches everyone at the table, a whisper to the GM only the GM and its author."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from contests.models import ChatMessage
from questworlds_site.asgi import application

from .socket_helpers import receive_until, session_cookie, table_socket

pytestmark = pytest.mark.django_db(transaction=True)

WHISPER = "I pocket the ring"
PUBLIC = "Shall we cross?"


@database_sync_to_async
def say(user, campaign, text: str, kind: str) -> int:
    """The chat form posted by htmx, as `user`'s browser does."""
    client = Client()
    client.force_login(user)
    response = client.post(
        reverse("table_chat", args=[campaign.pk]),
        {"kind": kind, "character": "", "text": text},
        headers={"HX-Request": "true"},
    )
    return response.status_code


async def seat(user, campaign):
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(user)
    )
    assert (await socket.connect())[0]
    await receive_until(socket, 'id="chat-log"')  # the full state, the chat included
    return socket


async def read_until(socket, text: str, limit: int = 40) -> list[str]:
    """Every message up to and including the one that contains `text`."""
    seen = []
    while True:
        seen.append(await socket.receive_from(timeout=10))
        if text in seen[-1]:
            return seen
        assert len(seen) < limit, f"{text!r} never arrived; got {seen!r}"


async def test_a_whisper_reaches_only_the_gm_and_its_author(campaign, session, gm, alice, bob, sam):
    sockets = {
        name: await seat(user, campaign)
        for name, user in [("gm", gm), ("alice", alice), ("bob", bob), ("sam", sam)]
    }
    try:
        assert await say(alice, campaign, WHISPER, "whisper") == 200
        for name in ("gm", "alice"):
            got = await read_until(sockets[name], WHISPER)
            assert "Alice (whisper to the GM)" in got[-1]
            assert 'hx-swap-oob="beforeend:#chat-log"' in got[-1]
        # A public line after it: the others get that one, and never the whisper.
        assert await say(bob, campaign, PUBLIC, "out_of_character") == 200
        for name in ("gm", "alice", "bob", "sam"):
            got = await read_until(sockets[name], PUBLIC)
            assert not any(WHISPER in message for message in got), name
        for socket in sockets.values():
            assert await socket.receive_nothing(timeout=0.2)
    finally:
        for socket in sockets.values():
            await socket.disconnect()


async def test_a_reconnecting_browser_gets_the_chat_as_its_reader_may_see_it(
    campaign, session, gm, alice, bob
):
    assert await say(alice, campaign, WHISPER, "whisper") == 200
    assert await say(alice, campaign, PUBLIC, "in_character") == 200
    for user, sees_whisper in ((gm, True), (alice, True), (bob, False)):
        socket = table_socket(
            application, campaign.pk, await database_sync_to_async(session_cookie)(user)
        )
        assert (await socket.connect())[0]
        state = await receive_until(socket, 'id="chat-log"')
        assert "Alice: “Shall we cross?”" in state.replace("&#x27;", "'")
        assert (WHISPER in state) is sees_whisper, user
        await socket.disconnect()


async def test_a_line_is_escaped_on_the_socket(campaign, session, gm, alice):
    socket = await seat(gm, campaign)
    try:
        assert await say(alice, campaign, "<script>alert(1)</script>", "emote") == 200
        got = await receive_until(socket, "alert(1)")
        assert "<script>" not in got and "&lt;script&gt;alert(1)&lt;/script&gt;" in got
    finally:
        await socket.disconnect()


async def test_a_refused_line_reaches_nobody(campaign, session, gm, sam):
    socket = await seat(gm, campaign)
    await receive_until(socket, 'id="presence"')  # the others hear the GM sat down
    try:
        assert await say(sam, campaign, "Spectator here", "out_of_character") == 400
        assert await socket.receive_nothing(timeout=0.5)
    finally:
        await socket.disconnect()


LINE_REF = re.compile(r'data-chat-line="([^"]*)"')


@database_sync_to_async
def chat_of_page(user, campaign) -> str:
    """The chat list of `user`'s table page, as their browser loads it."""
    client = Client()
    client.force_login(user)
    page = client.get(reverse("table", args=[campaign.pk])).content.decode()
    return re.search(r'<ol id="chat-log".*?</ol>', page, re.S).group(0)


async def test_a_players_chat_reveals_nothing_of_the_whispers_they_cannot_see(
    campaign, session, alice, bob
):
    """Issue 27, item 8: a line's identifier on the page is no count of the lines."""
    assert await say(alice, campaign, "First, the rope", "out_of_character") == 200
    bob_socket = await seat(bob, campaign)
    try:
        assert await say(alice, campaign, WHISPER, "whisper") == 200
        assert await say(alice, campaign, "then the lantern", "out_of_character") == 200
        frames = await read_until(bob_socket, "then the lantern")
    finally:
        await bob_socket.disconnect()
    page = await chat_of_page(bob, campaign)
    ids = [m.pk async for m in ChatMessage.objects.order_by("id")]
    refs = LINE_REF.findall(page)
    assert len(refs) == 2 and LINE_REF.findall(frames[-1]) == refs[1:]
    # No line carries its id (the ids skip the whisper): a keyed hash of it.
    for ref in refs:
        assert re.fullmatch(r"[0-9a-f]{16}", ref) and ref not in {str(pk) for pk in ids}
    # Bob's chat is exactly what it would be had the whisper never been said.
    await ChatMessage.objects.filter(kind="whisper").adelete()
    assert await chat_of_page(bob, campaign) == page
