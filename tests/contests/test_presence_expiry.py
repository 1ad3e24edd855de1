"""Presence that cannot leak (issue 12, item 9): a socket's row goes however the socket
ends; a process killed with its sockets open leaves rows that expire, and clearing stale
rows leaves a live process's rows alone."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sqlite3
import time
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
import websockets
from channels.db import database_sync_to_async

from bench.liveserver import app_process, fresh_database, log_in, manage, server_env
from bench.table_clients import connect_kwargs
from contests import table_actions
from contests.models import TablePresence
from questworlds_site.asgi import application

from .socket_helpers import receive_until, session_cookie, table_socket


@pytest.mark.django_db(transaction=True)
async def test_a_socket_that_crashes_leaves_no_presence_row(campaign, alice, monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("a bug deep in an action")

    monkeypatch.setattr("contests.consumers.perform", broken)
    assert table_actions.perform is not broken
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(alice)
    )
    assert (await socket.connect())[0]
    await receive_until(socket, 'id="contest"')
    assert await TablePresence.objects.filter(user=alice).acount() == 1
    await socket.send_to(text_data='{"action": "narrate", "contest": 1, "key": "k", "data": {}}')
    with pytest.raises(RuntimeError):
        await socket.wait(timeout=3)
    assert await TablePresence.objects.filter(user=alice).acount() == 0


def _session_key(base: str, username: str) -> tuple[str, int]:
    opener, home = log_in(base, username, "questworlds")
    cookie = next(c for c in opener.handlers if hasattr(c, "cookiejar")).cookiejar
    session = next(c.value for c in cookie if c.name == "sessionid")
    campaign_id = int(re.search(r"/campaigns/(\d+)/table/", home).group(1))
    return session, campaign_id


async def _sit(base: str, username: str):
    session, campaign_id = _session_key(base, username)
    port = int(base.rsplit(":", 1)[1])
    socket = await websockets.connect(
        f"ws://127.0.0.1:{port}/ws/tables/{campaign_id}/", **connect_kwargs(port, session)
    )
    await asyncio.wait_for(socket.recv(), 20)  # the full state: seated
    return socket


def _query(database_url: str, sql: str, *params) -> list[tuple]:
    """Read the live servers' database (PostgreSQL, or SQLite on a bare laptop)."""
    if database_url.startswith("sqlite:///"):
        with contextlib.closing(sqlite3.connect(database_url.removeprefix("sqlite:///"))) as db:
            return db.execute(sql.replace("%s", "?"), params).fetchall()
    with psycopg.connect(database_url) as conn:
        return conn.execute(sql, params).fetchall()


PRESENCE_OF = (
    "SELECT p.seen_at FROM contests_tablepresence p "
    "JOIN accounts_user u ON u.id = p.user_id WHERE u.username = %s"
)


def _rows(database_url: str, *usernames: str) -> dict[str, int]:
    """Each person's presence rows in the live servers' database."""
    return {name: len(_query(database_url, PRESENCE_OF, name)) for name in usernames}


def _seen_at(database_url: str, username: str) -> datetime:
    (seen,) = max(_query(database_url, PRESENCE_OF, username))
    if isinstance(seen, str):  # SQLite keeps it as text, in UTC
        seen = datetime.fromisoformat(seen).replace(tzinfo=UTC)
    return seen


async def _listed(socket) -> str:
    """The people at the table as a seated page is shown them: its whole state, asked
    for again (what a page does after a reconnect)."""
    await socket.send(json.dumps({"action": "resync"}))
    while True:
        message = await asyncio.wait_for(socket.recv(), 20)
        if 'id="presence"' in message:
            return message.split('id="presence"', 1)[1].split("</ul>", 1)[0]


@pytest.mark.xdist_group("servers")
async def test_a_killed_process_rows_expire_and_only_they_are_cleared(tmp_path):
    with fresh_database(tmp_path, template="demo") as database_url:
        env = server_env(database_url, PRESENCE_HEARTBEAT_SECONDS="1")
        with app_process(env) as (doomed, first), app_process(env) as (_live, second):
            alice = await _sit(first, "alice")
            bob = await _sit(second, "bob")
            bob_sat = _seen_at(database_url, "bob")
            assert _rows(database_url, "alice", "bob") == {"alice": 1, "bob": 1}
            assert "Alice" in await _listed(bob)
            os.kill(doomed.pid, signal.SIGKILL)  # no disconnect handler runs
            doomed.wait(timeout=10)
            assert _rows(database_url, "alice", "bob")["alice"] == 1  # left behind...
            # ...until three heartbeats are missed: Alice is no longer shown; and by
            # then Bob's row, as old as hers, would have expired too without his
            # process's heartbeat. Bounded generously; expiry takes ~3 s.
            deadline = time.monotonic() + 60
            expired = bob_sat + timedelta(seconds=3)  # the servers' clock is this one
            while "Alice" in (listed := await _listed(bob)) or datetime.now(UTC) < expired:
                assert time.monotonic() < deadline, f"Alice is still listed: {listed}"
                await asyncio.sleep(0.2)
            assert "Bob" in listed
            assert _seen_at(database_url, "bob") > bob_sat  # kept alive by heartbeats
            assert "Cleared 1 stale" in manage(env, "clear_presence")
            assert _rows(database_url, "alice", "bob") == {"alice": 0, "bob": 1}
            await bob.close()
            del alice
