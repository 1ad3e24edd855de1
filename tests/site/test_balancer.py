"""The production topology on real parts (issue 16): Debian's nginx, with the shipped
docs/deploy/nginx.conf, in front of two uvicorn processes that share PostgreSQL and Redis.

A table (a GM and seven players with login sessions, bench.table_data) opens its
sockets through nginx, which spreads them over both processes, and plays a contest by
the htmx form posts a browser sends. One process is killed mid-contest: its sockets
drop, reconnect through nginx to the survivor and get the whole current state, actions
go on through nginx, and the database holds every action once, in order.

Which process holds a socket is read from the kernel (/proc/net/tcp): the established
connections whose local end is that process's port are nginx's sockets to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gzip
import html
import http.cookies
import http.server
import json
import os
import re
import signal
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from bench.liveserver import (
    NGINX,
    app_process,
    fresh_database,
    manage,
    nginx_balancer,
    server_env,
)
from bench.table_clients import ACK_RE, TAG_RE, Client, Recorder, close_clients, open_clients
from bench.table_data import Seat, Table

pytestmark = pytest.mark.xdist_group("servers")  # one worker runs the multi-process tests

SOCKET_PATH = "/ws/tables/{table}/"
WAIT_S = 10.0  # for any one thing to reach the clients; the whole play has PLAY_S
PLAY_S = 60.0
# Loopback only: straight to nginx, whatever proxy the environment names.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@pytest.fixture(autouse=True)
def nginx_installed():
    if not Path(NGINX).exists():
        if settings.REQUIRE_SERVICES:
            pytest.fail("REQUIRE_SERVICES=1 but nginx is not installed (apt-get install nginx)")
        pytest.skip("nginx is not installed; install Debian's nginx to test the balancer")


needs_services = pytest.mark.skipif(
    not (settings.DATABASES["default"]["ENGINE"].endswith("postgresql") and settings.REDIS_URL),
    reason="two processes share a table only through PostgreSQL and Redis",
)


# --------------------------------------------------------------------- static files


@contextlib.contextmanager
def app_stand_in() -> Iterator[tuple[int, list[str]]]:
    """An upstream answering 200 to anything, recording the paths it was asked for."""
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], asked
    finally:
        server.shutdown()
        server.server_close()


def fetch(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with OPENER.open(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), b""


def test_nginx_serves_the_static_files_and_the_app_never_sees_them(tmp_path):
    static = tmp_path / "static"
    (static / "css").mkdir(parents=True)
    css = b"body { color: #222; }\n"
    (static / "css" / "site.0123456789ab.css").write_bytes(css)
    (static / "css" / "site.0123456789ab.css.gz").write_bytes(gzip.compress(css))
    (static / "css" / "site.css").write_bytes(css)
    with (
        app_stand_in() as (port, asked),
        nginx_balancer([f"127.0.0.1:{port}"], static_root=static) as (_nginx, base),
    ):
        hashed = fetch(f"{base}/static/css/site.0123456789ab.css")
        compressed = fetch(
            f"{base}/static/css/site.0123456789ab.css", **{"Accept-Encoding": "gzip"}
        )
        plain = fetch(f"{base}/static/css/site.css")
        missing = fetch(f"{base}/static/css/nowhere.css")
    assert hashed[0] == 200 and hashed[2] == css
    assert hashed[1]["Content-Type"] == "text/css"
    assert hashed[1]["X-Content-Type-Options"] == "nosniff"
    # A hashed name never changes meaning: browsers keep it; a plain name, a minute.
    assert hashed[1]["Cache-Control"] == "public, max-age=31536000, immutable"
    assert plain[0] == 200 and plain[1]["Cache-Control"] == "public, max-age=60"
    assert compressed[1].get("Content-Encoding") == "gzip"
    assert gzip.decompress(compressed[2]) == css
    assert missing[0] == 404
    assert [path for path in asked if path.startswith("/static/")] == []


# --------------------------------------------------------------------- the table


def make_table(database_url: str) -> Table:
    """One table as the benchmark makes it (a GM, 7 players with login sessions, Hero 0
    played by the first player, an open session and a framed simple contest)."""
    script = (
        "import dataclasses, json\n"
        "from bench.table_data import make_tables\n"
        "print(json.dumps(dataclasses.asdict(make_tables(1)[0])))\n"
    )
    # Framing broadcasts to nobody: keep the setup's messages out of Redis.
    out = manage(server_env(database_url, REDIS_URL=""), "shell", "-c", script)
    fields = json.loads(out.strip().splitlines()[-1])
    return Table(**{**fields, "seats": [Seat(**seat) for seat in fields["seats"]]})


def held_sockets(port: int) -> int:
    """Established TCP connections whose local end is 127.0.0.1:`port`: an app process's
    connections from nginx (sockets, and any request being answered)."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, _remote, state = line.split()[1:4]
        address, local_port = local.split(":")
        if state == "01" and address == "0100007F" and int(local_port, 16) == port:
            count += 1
    return count


class Watch(Recorder):
    """The benchmark's recorder of what each client receives, which also wakes the test
    on every message instead of leaving it to poll."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = asyncio.Event()

    def on_message(self, client: Client, message: str | bytes, now: float) -> None:
        super().on_message(client, message, now)
        self.changed.set()

    async def until(self, condition: Callable[[], bool], failure: Callable[[], str]) -> None:
        async def wait() -> None:
            while not condition():
                self.changed.clear()
                await self.changed.wait()

        try:
            await asyncio.wait_for(wait(), WAIT_S)
        except TimeoutError:
            raise AssertionError(f"{failure()} (after {WAIT_S} s)") from None

    def missing(self, clients: list[Client], contest_id: int, seq: int) -> list[int]:
        got = self.arrivals.get((contest_id, seq), {})
        return [client.index for client in clients if client.index not in got]

    async def everyone_sees(self, clients: list[Client], contest_id: int, seq: int) -> None:
        await self.until(
            lambda: not self.missing(clients, contest_id, seq),
            lambda: f"step {seq} never reached clients {self.missing(clients, contest_id, seq)}",
        )


@dataclasses.dataclass
class Hand:
    """A person's table page acting by htmx form posts through the proxy, as table.js
    does: the CSRF token from the page, the step the page shows (its socket's) as `seq`,
    a fresh idempotency key a form."""

    base: str
    table: Table
    session_key: str
    page: Client
    token: str = ""
    cookie: str = ""

    def open(self) -> None:
        request = urllib.request.Request(
            f"{self.base}/campaigns/{self.table.campaign_id}/table/",
            headers={"Cookie": f"sessionid={self.session_key}"},
        )
        with OPENER.open(request, timeout=10) as response:
            page = response.read().decode()
            cookies = http.cookies.SimpleCookie()
            for header in response.headers.get_all("Set-Cookie") or []:
                cookies.load(header)
        self.token = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)
        self.cookie = f"sessionid={self.session_key}; csrftoken={cookies['csrftoken'].value}"

    def post(self, fields: dict[str, str]) -> str:
        request = urllib.request.Request(
            f"{self.base}/campaigns/{self.table.campaign_id}/table/act/",
            data=urllib.parse.urlencode(fields).encode(),
            headers={
                "Cookie": self.cookie,
                "X-CSRFToken": self.token,
                "HX-Request": "true",
                "Origin": self.base,
            },
        )
        try:
            with OPENER.open(request, timeout=10) as response:
                return response.read().decode()
        except urllib.error.HTTPError as error:
            raise AssertionError(
                f"posting {fields['action']} through nginx: {error.code} {error.reason}"
            ) from None

    def act(self, action: str, **data: str) -> tuple[dict[str, str], int]:
        """Post one action; returns the form sent and the step it made."""
        fields = {
            "action": action,
            "contest": str(self.table.contest_id),
            "seq": str(self.page.max_seq),
            "key": uuid.uuid4().hex,
            **data,
        }
        answer = self.post(fields)
        acked = ACK_RE.search(answer)
        shown = " ".join(html.unescape(TAG_RE.sub(" ", answer)).split())
        assert acked, f"{action} was not taken: {shown[:300]}"
        return fields, int(acked.group(1))


async def play(base: str, table: Table, ports: list[int], kill: Callable[[], None]) -> dict:
    """The contest, through nginx to the app processes at `ports`, losing the first (`kill`)
    after step 4. Returns what the test checks against the database."""
    port = urllib.parse.urlsplit(base).port
    watch = Watch()
    contest = table.contest_id
    clients = [
        Client(index, table.campaign_id, seat.role, contest)
        for index, seat in enumerate(table.seats)
    ]
    keys = {
        client.index: seat.session_key for client, seat in zip(clients, table.seats, strict=True)
    }
    gm = Hand(base, table, table.seats[0].session_key, clients[0])
    player = Hand(base, table, table.seats[1].session_key, clients[1])  # Hero 0's
    sent: list[str] = []  # the idempotency keys of the actions taken, in order

    async def act(hand: Hand, action: str, **data: str) -> tuple[dict[str, str], int]:
        fields, seq = await asyncio.to_thread(hand.act, action, **data)
        sent.append(fields["key"])
        return fields, seq

    try:
        opened = await open_clients(clients, port, watch, keys, SOCKET_PATH, WAIT_S)
        assert opened == {"failed": 0, "attempt_errors": {}}, f"through nginx: {opened}"
        on_first, on_second = (held_sockets(server) for server in ports)
        assert on_first and on_second, (
            f"nginx sent {on_first} sockets to one, {on_second} to the other"
        )
        assert on_first + on_second == len(clients), f"sockets held: {on_first} + {on_second}"
        await asyncio.to_thread(gm.open)
        await asyncio.to_thread(player.open)

        # Before: every step reaches every page, whichever process served the post.
        _, seq = await act(player, "choose_ability", side="pc", new_ability="Swimming", rating="13")
        await watch.everyone_sees(clients, contest, seq)
        for side, tactic in (("pc", "Swim for the far bank"), ("opponent", "Rise with the rain")):
            _, seq = await act(gm, "set_tactic", side=side, tactic=tactic)
            await watch.everyone_sees(clients, contest, seq)

        # The first process dies; the sockets it held drop, and only those.
        await asyncio.to_thread(kill)
        readers = {client.reader: client for client in clients}
        dropped: list[Client] = []

        async def drops() -> None:
            pending = set(readers)
            while len(dropped) < on_first:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                dropped.extend(readers[task] for task in done)

        await asyncio.wait_for(drops(), WAIT_S)
        assert len(dropped) == on_first, f"{len(dropped)} sockets dropped, {on_first} expected"
        kept = [client for client in clients if client not in dropped]

        # nginx finds the survivor for the next post, whichever it tries first...
        roll, seq = await act(gm, "roll")
        await watch.everyone_sees(kept, contest, seq)
        # ...and for the dropped pages, which come back at the first try (as table.js
        # does) and get the whole current state, the step they missed included.
        for client in dropped:
            client.baseline = None  # what the reconnect's full state says
        reopened = await open_clients(dropped, port, watch, keys, SOCKET_PATH, WAIT_S)
        assert reopened == {"failed": 0, "attempt_errors": {}}, f"reconnecting: {reopened}"
        assert [client.baseline for client in dropped] == [seq] * len(dropped)
        survivor = held_sockets(ports[1])
        assert survivor == len(clients), f"the survivor holds {survivor} of {len(clients)}"

        # A page that resends a post it had no answer to changes nothing.
        again = await asyncio.to_thread(gm.post, roll)
        assert "Already done" in again, again[:300]

        for action, data in (("resolve", {}), ("apply_consequences", {"narration": "Ashore."})):
            _, seq = await act(gm, action, **data)
            await watch.everyone_sees(clients, contest, seq)
        return {"sent": sent, "last": seq, "seen": [client.max_seq for client in clients]}
    finally:
        await close_clients(clients)


@needs_services
def test_a_table_plays_on_when_one_of_two_processes_behind_nginx_dies(tmp_path):
    with fresh_database(tmp_path, template="migrated") as database_url:
        table = make_table(database_url)
        # Two small pools: eight sockets and one action at a time need few connections.
        env = server_env(database_url, DB_POOL_MAX_SIZE="4")
        with (
            app_process(env, stderr_path=tmp_path / "server-1.log") as (first, first_base),
            app_process(env, stderr_path=tmp_path / "server-2.log") as (_, second_base),
        ):
            upstreams = [first_base.removeprefix("http://"), second_base.removeprefix("http://")]
            ports = [urllib.parse.urlsplit(url).port for url in (first_base, second_base)]

            def kill() -> None:
                os.killpg(first.pid, signal.SIGKILL)
                first.wait(timeout=WAIT_S)

            with nginx_balancer(upstreams) as (_nginx, base):
                result = asyncio.run(asyncio.wait_for(play(base, table, ports, kill), PLAY_S))
        with psycopg.connect(database_url) as conn:
            events = conn.execute(
                "SELECT seq, idempotency_key FROM contests_contestevent"
                " WHERE contest_id = %s ORDER BY seq",
                [table.contest_id],
            ).fetchall()
            status = conn.execute(
                "SELECT seq, status FROM contests_contest WHERE id = %s", [table.contest_id]
            ).fetchone()

    # Every action taken is in the log once, in the order taken, with no gap; the framing
    # is step 1.
    assert [seq for seq, _key in events] == list(range(1, len(events) + 1))
    assert [key for _seq, key in events[1:]] == result["sent"]
    assert status[0] == result["last"] == len(events) and status[1] == "finished"
    # Every page ends on the last step.
    assert result["seen"] == [result["last"]] * len(result["seen"])
