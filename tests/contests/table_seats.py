"""A whole table of browsers for socket tests: each person's socket to the real ASGI
application, every frame each one receives kept, and actions posted the way the
page posts them (htmx to `table/act/`)."""

from __future__ import annotations

import re

from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from questworlds_site.asgi import application
from tests.table import key

from .socket_helpers import TableSocket, session_cookie, table_socket

HTMX = {"HX-Request": "true"}
CONTEST_AT = re.compile(r'id="contest" data-contest-id="(\d+)" data-seq="(\d+)"')


class Seats:
    """The sockets of a table, by name ("gm", "alice", ...), and every frame each got."""

    def __init__(self, campaign) -> None:
        self.campaign = campaign
        self.sockets: dict[str, TableSocket] = {}
        self.frames: dict[str, list[str]] = {}
        self.users: dict[str, object] = {}

    async def seat(self, name: str, user) -> None:
        """Open `user`'s socket and read its full state (the chat comes last)."""
        cookie = await database_sync_to_async(session_cookie)(user)
        socket = table_socket(application, self.campaign.pk, cookie)
        assert (await socket.connect())[0]
        self.sockets[name], self.frames[name], self.users[name] = socket, [], user
        await self._read(name, lambda frame: 'id="chat-log"' in frame)

    async def _read(self, name: str, done, limit: int = 60) -> str:
        socket = self.sockets[name]
        for _ in range(limit):
            frame = await socket.receive_from(timeout=10)
            self.frames[name].append(frame)
            if done(frame):
                return frame
        raise AssertionError(f"{name}'s socket never got the frame it waited for")

    async def step(self, contest_id: int, seq: int) -> dict[str, str]:
        """Read every socket up to the contest frame of step `seq`: {name: that frame}."""

        def at_step(frame: str) -> bool:
            found = CONTEST_AT.search(frame)
            return found is not None and found.groups() == (str(contest_id), str(seq))

        return {name: await self._read(name, at_step) for name in self.sockets}

    async def close(self) -> None:
        for socket in self.sockets.values():
            await socket.disconnect()


@database_sync_to_async
def post_action(campaign, user, contest_id: int | None, action: str, **fields) -> str:
    """One table form posted by htmx as `user`'s browser posts it; the answer's text."""
    client = Client()
    client.force_login(user)
    form = {"action": action, "key": key(), **fields}
    if contest_id is not None:
        form["contest"] = contest_id
    response = client.post(reverse("table_act", args=[campaign.pk]), form, headers=HTMX)
    assert response.status_code == 200, response.content
    return response.content.decode()
