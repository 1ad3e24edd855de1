"""The full state a socket gets on every (re)connect and resync carries everything the
page shows that can change while it is away (issue 27): besides the contest, its log
and the bar, the session's parts (the notice, marked with the open session; the chat
panel with or without its form; the GM's frame panel) and the chat's lines. A page that
missed a session's end while its network was down must not keep an open chat form.

Played through the services; read from the socket's raw frames.
"""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from django.test.html import Element, parse_html
from django.urls import reverse

from campaigns import services
from contests.services import chat_post
from questworlds_site.asgi import application
from tests.contests.socket_helpers import receive_until, session_cookie, table_socket

db = database_sync_to_async


def by_id(tree: Element, wanted: str) -> Element | None:
    """The element of `tree` with id `wanted`, at any depth."""
    for child in tree.children:
        if isinstance(child, Element):
            if dict(child.attributes).get("id") == wanted:
                return child
            found = by_id(child, wanted)
            if found is not None:
                return found
    return None


def text_of(element: Element) -> str:
    return " ".join(
        text_of(child) if isinstance(child, Element) else str(child) for child in element.children
    )


def has(element: Element, attribute: str) -> bool:
    return any(
        isinstance(child, Element)
        and (attribute in dict(child.attributes) or has(child, attribute))
        for child in element.children
    )


async def full_state(socket) -> Element:
    return parse_html(await receive_until(socket, 'id="chat-panel"'))


async def seated(campaign, user):
    socket = table_socket(application, campaign.pk, await db(session_cookie)(user))
    assert (await socket.connect())[0]
    return socket, await full_state(socket)


def session_parts(state: Element) -> dict:
    notice, chat, frame = (by_id(state, n) for n in ("session-notice", "chat-panel", "frame-panel"))
    assert notice is not None and chat is not None, "the full state has the session's parts"
    for part in (notice, chat, frame):
        if part is not None:
            assert dict(part.attributes).get("hx-swap-oob") == "true"
    return {
        "session": dict(notice.attributes)["data-session"],
        "news": text_of(notice).strip(),
        "chat": text_of(chat),
        "chat_form": has(chat, "data-chat-form"),
        "frame": None if frame is None else text_of(frame),
        "frame_form": frame is not None and has(frame, "data-frame-form"),
    }


@pytest.mark.django_db(transaction=True)
async def test_the_full_state_carries_the_session_and_the_chat_panel(
    campaign, gm, alice, sam, tamsin
):
    opened = await db(services.session_start)(campaign=campaign, actor=gm, title="Low water")
    await db(chat_post)(campaign=campaign, user=alice, kind="out_of_character", text="Ready.")
    seats = {user.username: await seated(campaign, user) for user in (gm, alice, sam)}

    parts = {name: session_parts(state) for name, (_, state) in seats.items()}
    for name, part in parts.items():
        assert part["session"] == str(opened.pk) and part["news"] == "", name
        assert "Ready." in part["chat"], name
    assert parts["gm"]["chat_form"] and parts["alice"]["chat_form"]
    assert not parts["sam"]["chat_form"], "spectators read the chat, they do not write"
    assert parts["gm"]["frame_form"]
    assert parts["alice"]["frame"] is None and parts["sam"]["frame"] is None

    # The session ends; each socket asks for the full state again (as a page does after
    # a gap, or reconnecting after a drop): no form to write in, nothing to frame.
    await db(services.session_end)(session=opened, actor=gm)
    for name, (socket, _) in seats.items():
        await socket.send_to(text_data=json.dumps({"action": "resync"}))
        part = session_parts(await full_state(socket))
        assert part["session"] == "" and not part["chat_form"], name
        assert "No session in progress" in part["chat"], name
        if name == "gm":
            assert not part["frame_form"]
            assert "Start a session before framing contests" in part["frame"]
        else:
            assert part["frame"] is None
        await socket.disconnect()

    # A page connecting now gets the same.
    socket, state = await seated(campaign, alice)
    part = session_parts(state)
    assert part["session"] == "" and not part["chat_form"]
    await socket.disconnect()


def test_the_frame_panel_follows_the_session_and_is_the_gms_only(
    client, campaign, gm, alice, sam, charlie
):
    url = reverse("table_frame_panel", args=[campaign.pk])
    client.force_login(gm)
    page = client.get(url).content.decode()
    assert "Start a session before framing contests" in page and "data-frame-form" not in page
    assert reverse("session_start", args=[campaign.pk]) in page
    services.session_start(campaign=campaign, actor=gm, title="Low water")
    page = client.get(url).content.decode()
    assert "data-frame-form" in page and "Start a session before" not in page

    for user, status in ((alice, 403), (sam, 403), (charlie, 404)):
        client.force_login(user)
        assert client.get(url).status_code == status, user.username
