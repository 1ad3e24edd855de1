"""Presence that cannot leak (issue 12, item 9): a socket's row goes however the socket
ends; a process killed with its sockets open leaves rows that expire, and clearing stale
rows leaves a live process's rows alone."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time

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


def _rows(env, *usernames: str) -> dict[str, int]:
    script = (
        "from contests.presence import present_people\n"
        "from contests.models import TablePresence as T\n"
        "import json\n"
        "rows = {u: T.objects.filter(user__username=u).count() for u in NAMES}\n"
        "listed = {p.name for c in {r.campaign_id for r in T.objects.all()} "
        "for p in present_people(c)}\n"
        "print(json.dumps({'rows': rows, 'listed': sorted(listed)}))\n"
    )
    import json

    out = manage(env, "shell", "-c", f"NAMES = {list(usernames)!r}\n{script}")
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.xdist_group("servers")
async def test_a_killed_process_rows_expire_and_only_they_are_cleared(tmp_path):
    with fresh_database(tmp_path, template="demo") as database_url:
        env = server_env(database_url, PRESENCE_HEARTBEAT_SECONDS="1")
        with app_process(env) as (doomed, first), app_process(env) as (_live, second):
            alice = await _sit(first, "alice")
            bob = await _sit(second, "bob")
            seated = _rows(env, "alice", "bob")
            assert seated["rows"] == {"alice": 1, "bob": 1}
            os.kill(doomed.pid, signal.SIGKILL)  # no disconnect handler runs
            doomed.wait(timeout=10)
            assert _rows(env, "alice", "bob")["rows"]["alice"] == 1  # left behind...
            time.sleep(4.5)  # ...and past three missed heartbeats (1 s each)
            after = _rows(env, "alice", "bob")
            assert "Alice" not in " ".join(after["listed"])  # no longer shown
            assert any(name.startswith("Bob") for name in after["listed"])
            assert "Cleared 1 stale" in manage(env, "clear_presence")
            assert _rows(env, "alice", "bob")["rows"] == {"alice": 0, "bob": 1}
            await bob.close()
            del alice
