"""The real topology (issue 16): two Daphne processes behind Debian's nginx, running the
production proxy configuration (docs/deploy/nginx.conf), no sticky sessions.

A GM and two players log in through the balancer and open the table's socket twice each;
the sockets land on both processes. A contest is played by form POSTs through nginx, and
every socket sees every step. Then one process is killed mid-contest (SIGKILL): its
sockets reconnect through nginx to the other process and get the whole current state;
the next actions, posted through nginx, are taken by the survivor; at the end the
database holds every step once, in order, and every socket shows the last one.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.cookiejar
import os
import re
import signal
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from bench.liveserver import (
    NGINX,
    ROOT,
    daphne_process,
    fresh_database,
    log_in,
    manage,
    nginx_balancer,
    server_env,
)
from bench.table_clients import contest_seq

pytestmark = [pytest.mark.xdist_group("servers")]

OPEN_SESSION = """
from django.utils import timezone
from campaigns.models import Campaign, Session
campaign = Campaign.objects.get(name="The Sunken Crown")
Session.objects.create(campaign=campaign, number=99, started_at=timezone.now())
print(campaign.pk)
"""
TOKEN = re.compile(r'"X-CSRFToken": "([^"]+)"')
HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')


@pytest.fixture(autouse=True)
def needs_nginx():
    if not Path(NGINX).exists():
        if settings.REQUIRE_SERVICES:
            pytest.fail("REQUIRE_SERVICES=1 but nginx is missing (apt-get install nginx)")
        pytest.skip("Debian's nginx is not installed (apt-get install nginx)")


class Browser:
    """One person's cookies and CSRF token, posting the table's forms through nginx."""

    def __init__(self, base: str, username: str, campaign_id: str) -> None:
        self.base, self.campaign_id = base, campaign_id
        self.opener, _ = log_in(base, username, "questworlds")
        jar = next(
            h.cookiejar
            for h in self.opener.handlers
            if isinstance(h, urllib.request.HTTPCookieProcessor)
        )
        self.cookies: http.cookiejar.CookieJar = jar
        self.token = TOKEN.search(self.get(f"/campaigns/{campaign_id}/table/")).group(1)

    @property
    def session_key(self) -> str:
        return next(c.value for c in self.cookies if c.name == "sessionid")

    def get(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=20) as response:
            return response.read().decode()

    def act(self, action: str, **fields) -> int:
        """Post one table form as htmx does; the step the answer acknowledges."""
        data = urllib.parse.urlencode({"action": action, "key": uuid.uuid4().hex, **fields})
        request = urllib.request.Request(
            f"{self.base}/campaigns/{self.campaign_id}/table/act/",
            data=data.encode(),
            headers={"X-CSRFToken": self.token, "HX-Request": "true", "Origin": self.base},
        )
        with self.opener.open(request, timeout=20) as response:
            answer = response.read().decode()
        acked = re.search(r'data-acked="(\d+)"', answer)
        assert acked, f"{action} was not taken: {answer[:400]}"
        return int(acked.group(1))


class Socket:
    """The table's websocket as a page holds it: reconnects when it drops, and reads
    the step each contest message shows (the full state on connect included)."""

    def __init__(self, base: str, campaign_id: str, session_key: str) -> None:
        self.url = base.replace("http://", "ws://") + f"/ws/tables/{campaign_id}/"
        self.origin, self.cookie = base, f"sessionid={session_key}"
        self.shown: tuple[int, int] = (0, 0)  # (contest id, seq)
        self.connections = 0  # how many times it connected
        self.seated = False  # connected, and the table's state received
        self.task: asyncio.Task | None = None

    async def run(self) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed

        while True:
            try:
                async with connect(
                    self.url,
                    origin=self.origin,
                    additional_headers={"Cookie": self.cookie},
                    proxy=None,
                    open_timeout=10,
                ) as ws:
                    self.connections += 1
                    async for message in ws:
                        self.seated = True
                        found = contest_seq(str(message))
                        if found and found >= self.shown:
                            self.shown = found
            except (ConnectionClosed, OSError):
                pass
            self.seated = False
            await asyncio.sleep(0.2)  # like the page: try again shortly

    async def shows(self, step: tuple[int, int], limit: float = 15) -> None:
        async def reached() -> None:
            while self.shown < step:
                await asyncio.sleep(0.02)

        await asyncio.wait_for(reached(), limit)


def established(port: int) -> int:
    """Open TCP connections to a local port (nginx's to that Daphne process)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as rows:
            for row in list(rows)[1:]:
                fields = row.split()
                local, state = fields[1], fields[3]
                if state == "01" and int(local.rsplit(":", 1)[1], 16) == port:
                    count += 1
    return count


def events(database_url: str, contest_id: int) -> list[tuple[int, str]]:
    with psycopg.connect(database_url) as connection:
        return connection.execute(
            "SELECT seq, type FROM contests_contestevent WHERE contest_id = %s ORDER BY seq",
            (contest_id,),
        ).fetchall()


def test_a_contest_survives_one_of_two_processes_dying_behind_nginx(tmp_path):
    with fresh_database(tmp_path, template="demo") as database_url:
        env = server_env(
            database_url,
            DEBUG="true",
            ALLOWED_HOSTS="127.0.0.1,localhost",
            CHANNEL_PREFIX=f"qw-balancer-{uuid.uuid4().hex[:8]}",
        )
        env["REDIS_URL"] = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
        campaign_id = manage(env, "shell", "-c", OPEN_SESSION).strip().splitlines()[-1]
        with (
            daphne_process(env) as (first, first_base),
            daphne_process(env) as (_second, second_base),
        ):
            ports = [urllib.parse.urlsplit(b).port for b in (first_base, second_base)]
            upstreams = [b.removeprefix("http://") for b in (first_base, second_base)]
            # nginx serves the static files itself (here the sources', as collected).
            with nginx_balancer(upstreams, static_root=ROOT / "static") as (_nginx, base):
                css = urllib.request.urlopen(f"{base}/static/css/site.css", timeout=10)
                assert css.read() == (ROOT / "static" / "css" / "site.css").read_bytes()
                assert "immutable" in css.headers["Cache-Control"]
                asyncio.run(play(base, campaign_id, database_url, first, ports))


async def play(base: str, campaign_id: str, database_url: str, first, ports) -> None:
    gm = await asyncio.to_thread(Browser, base, "gm", campaign_id)
    alice = await asyncio.to_thread(Browser, base, "alice", campaign_id)
    bob = await asyncio.to_thread(Browser, base, "bob", campaign_id)
    sockets = [Socket(base, campaign_id, p.session_key) for p in (gm, alice, bob) for _ in "ab"]
    for socket in sockets:
        socket.task = asyncio.create_task(socket.run())
    try:
        await asyncio.wait_for(_all_connected(sockets), 20)
        # No sticky sessions: nginx spread the sockets over both processes.
        assert all(established(port) > 0 for port in ports), [established(p) for p in ports]

        page = await asyncio.to_thread(gm.get, f"/campaigns/{campaign_id}/table/")
        tamsin = re.search(r'<option value="(\d+)">Tamsin Reedwalker \(Alice\)</option>', page)
        seq = await asyncio.to_thread(
            gm.act,
            "frame",
            kind="simple",
            prize="Cross the flooded ford",
            **{"pc.character_id": tamsin.group(1)},
            **{"opponent.name": "The Grey River", "opponent.level": "moderate"},
        )
        await _everyone_at(sockets, sockets[0], seq)
        contest_id = sockets[0].shown[0]
        sheet = await asyncio.to_thread(alice.get, f"/campaigns/{campaign_id}/table/me/")
        pick = re.search(r"<form [^>]*>(?:(?!</form>).)*Use River Guide 3M", sheet, re.S)
        fields = dict(HIDDEN.findall(pick.group(0)))
        fields.pop("key", None)
        action = fields.pop("action")
        seq = await asyncio.to_thread(alice.act, action, **fields)
        await _everyone_at(sockets, sockets[0], seq)
        seq = await asyncio.to_thread(gm.act, "roll", contest=contest_id, seq=seq)
        await _everyone_at(sockets, sockets[0], seq)

        # One process dies mid-contest, its sockets with it.
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(10)
        # Its sockets reconnect through nginx to the survivor and get the whole state.
        await asyncio.wait_for(_reconnected(sockets), 20)
        assert established(ports[0]) == 0
        for socket in sockets:
            await socket.shows((contest_id, seq))
        # The next steps, posted through nginx, are taken by the surviving process.
        seq = await asyncio.to_thread(gm.act, "resolve", contest=contest_id, seq=seq)
        await _everyone_at(sockets, sockets[0], seq)
        seq = await asyncio.to_thread(gm.act, "apply_consequences", contest=contest_id, seq=seq)
        await _everyone_at(sockets, sockets[0], seq)

        stored = events(database_url, contest_id)
        assert [s for s, _ in stored] == list(range(1, seq + 1)), stored
        assert [t for _, t in stored] == [
            "framed",
            "choose_ability",
            "roll",
            "resolve",
            "apply_consequences",
        ]
        assert {socket.shown for socket in sockets} == {(contest_id, seq)}
    finally:
        for socket in sockets:
            socket.task.cancel()
        await asyncio.gather(*(s.task for s in sockets), return_exceptions=True)


async def _all_connected(sockets: list[Socket]) -> None:
    while not all(s.seated for s in sockets):
        await asyncio.sleep(0.05)


async def _reconnected(sockets: list[Socket]) -> None:
    """Every socket seated again, some of them on a new connection."""
    while not (all(s.seated for s in sockets) and any(s.connections > 1 for s in sockets)):
        await asyncio.sleep(0.05)


async def _everyone_at(sockets: list[Socket], reference: Socket, seq: int) -> None:
    async def reached() -> None:
        while reference.shown[1] != seq or reference.shown[0] == 0:
            await asyncio.sleep(0.02)

    await asyncio.wait_for(reached(), 15)
    for socket in sockets:
        await socket.shows((reference.shown[0], seq))
