"""Benchmark the live table under the real Daphne server (issue 6).

    .venv/bin/python -m contests.bench_table [--small] [--layers core,pubsub]

Prints JSON on stdout (progress goes to stderr). See docs/benchmarks.md for what each
figure means. In short, on a fresh database (PostgreSQL when DATABASE_URL points at it,
else a temporary SQLite file) with N campaigns, each with a GM, 7 players, a character,
an open session and one framed simple contest, served by `daphne
questworlds_site.asgi:application` on a loopback port with the Redis channel layer
(REDIS_URL, default redis://127.0.0.1:6379/0), and driven by real websocket clients
logged in through real sessions:

1. "one_table": one table of 8 clients; the GM's client sends `set_tactic` actions
   (4 a second, under the rate limit); latency = send until the last of the 8 clients
   has the broadcast carrying that action's seq. p50/p95/p99.
2. "many_tables": N tables x 8 clients, 20 actions a second in all, spread over the
   tables: p99, and lost, duplicated and out-of-order broadcasts.
3. "idle_sockets": CPU and memory of the Daphne process holding many idle sockets.
4. "bare_websockets": the one-table fan-out through a bare `websockets` server (the
   floor any server can reach on this machine), and the ratio of the two p50s.
5. 1 and 2 for each channel layer (CHANNEL_LAYER=core and pubsub), and a recommendation.

Everything is bounded: every loop in count and time, an overall alarm, only loopback
addresses; the servers are always stopped and the database dropped.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
PASSWORD = "bench horse battery staple"  # the bench users' known password
PLAYERS_PER_TABLE = 7
CLIENTS_PER_TABLE = 1 + PLAYERS_PER_TABLE
LOST_AFTER_S = 5.0  # a client that has not received an action's seq by then lost it
GRACE_S = 10.0  # how much longer the bench waits, to tell late arrivals from losses
PACE_PER_S = 4.0  # the one-table sender's pace, under the 5/s (burst 10) rate limit
CONNECT_CONCURRENCY = 32
CONNECT_ATTEMPTS = 3

TARGETS = {
    "one_table": {"p50_ms": 20.0, "p99_ms": 60.0},
    "many_tables": {"p99_ms": 100.0, "lost": 0, "duplicated": 0, "out_of_order": 0},
    "idle_sockets": {"cpu_percent": 10.0},
}

FULL = {
    "latency_samples": 200,
    "tables": 100,
    "load_rate_per_s": 20.0,
    "load_seconds": 30.0,
    "idle_sockets": 2000,
    "idle_sample_seconds": 10.0,
    "layers": ("core", "pubsub"),
    "alarm_seconds": 1800,
}
SMALL = {
    "latency_samples": 20,
    "tables": 5,
    "load_rate_per_s": 20.0,
    "load_seconds": 3.0,
    "idle_sockets": 100,
    "idle_sample_seconds": 3.0,
    "layers": ("core",),
    "alarm_seconds": 280,
}

# The contest panel's tag: <div id="contest" data-contest-id="<id>" data-seq="<N>" ...>
CONTEST_TAG_RE = re.compile(r'<[^>]*\bid="contest"[^>]*>')
CONTEST_ID_RE = re.compile(r'\bdata-contest-id="(\d*)"')
SEQ_RE = re.compile(r'\bdata-seq="(\d+)"')
ACK_RE = re.compile(r'data-acked="(\d+)"')
TAG_RE = re.compile(r"<[^>]+>")


def contest_seq(html: str) -> tuple[int, int] | None:
    """(contest id, seq) from the contest panel in a message, if it has one."""
    tag = CONTEST_TAG_RE.search(html)
    seq = SEQ_RE.search(tag.group(0)) if tag else None
    if seq is None:
        return None
    contest = CONTEST_ID_RE.search(tag.group(0))
    return int(contest.group(1) or 0) if contest else 0, int(seq.group(1))


def with_seq(html: str, seq: int) -> str:
    """The same message with the contest panel's data-seq set to `seq`."""
    tag = CONTEST_TAG_RE.search(html)
    retagged = SEQ_RE.sub(f'data-seq="{seq}"', tag.group(0), count=1)
    return html[: tag.start()] + retagged + html[tag.end() :]


def log(text: str) -> None:
    print(f"[bench_table {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


class BenchError(Exception):
    """The benchmark cannot run (a service is missing, the server does not start...)."""


# --- Processes, limits and /proc ---------------------------------------------------------


def raise_open_file_limit(wanted: int) -> int:
    """Raise this process's (and so its children's) open-file limit towards `wanted`."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= wanted:
        return soft
    if hard != resource.RLIM_INFINITY and hard < wanted:
        with contextlib.suppress(ValueError, OSError):  # raising the hard limit needs root
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, wanted))
            return wanted
        wanted = hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return wanted


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (all its threads), from /proc/<pid>/stat."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_mb(pid: int) -> dict[str, float]:
    """Resident and peak resident memory from /proc/<pid>/status, in MiB."""
    found = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                found[name] = round(int(value.split()[0]) / 1024, 1)
    return {"rss_mb": found.get("VmRSS", 0.0), "peak_rss_mb": found.get("VmHWM", 0.0)}


def thread_cpu_seconds(pid: int) -> dict[int, float]:
    """CPU time of each thread of a process, from /proc/<pid>/task/<tid>/stat."""
    found = {}
    with contextlib.suppress(OSError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{tid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
                found[int(tid)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return found


class ThreadMeter:
    """Which threads of a process used the CPU: its main thread (Twisted's reactor and
    the asyncio loop in Daphne) and the busiest others (sync_to_async workers)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.before, self.wall = pid, thread_cpu_seconds(pid), time.monotonic()

    def figures(self) -> dict[str, Any]:
        wall = max(1e-9, time.monotonic() - self.wall)
        after = thread_cpu_seconds(self.pid)
        used = {tid: after[tid] - self.before.get(tid, 0.0) for tid in after}
        main = used.pop(self.pid, 0.0)
        others = sorted(used.values(), reverse=True)
        return {
            "main_thread_cpu_percent": round(100 * main / wall, 1),
            "busiest_other_threads_cpu_percent": [round(100 * u / wall, 1) for u in others[:3]],
            "all_other_threads_cpu_percent": round(100 * sum(others) / wall, 1),
            "threads": len(after),
        }


def open_fds(pid: int) -> int:
    with contextlib.suppress(OSError):
        return len(os.listdir(f"/proc/{pid}/fd"))
    return -1


class CpuMeter:
    """CPU use of one process between start() and percent(), as % of one core."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.start()

    def start(self) -> None:
        self.cpu, self.wall = cpu_seconds(self.pid), time.monotonic()

    def percent(self) -> float:
        wall = time.monotonic() - self.wall
        return round(100 * (cpu_seconds(self.pid) - self.cpu) / wall, 1) if wall > 0 else 0.0


def _no_proxy_opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(urllib.request.ProxyHandler({}))


def wait_until_ready(url: str, process: subprocess.Popen, timeout: float = 90) -> None:
    opener = _no_proxy_opener()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BenchError(f"the server exited with {process.returncode} before answering")
        with contextlib.suppress(OSError), opener.open(url, timeout=2) as response:
            if response.status == 200:
                return
        time.sleep(0.2)
    raise BenchError(f"{url} did not answer within {timeout} s")


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BenchError(f"the bare server exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        time.sleep(0.1)
    raise BenchError(f"the bare server did not listen on {port} within {timeout} s")


def tail(path: Path, size: int = 3000) -> str:
    with contextlib.suppress(OSError):
        return path.read_text(errors="replace")[-size:]
    return ""


@contextlib.contextmanager
def daphne(env: dict[str, str], log_path: Path) -> Iterator[tuple[subprocess.Popen, int]]:
    """The real Daphne on a free loopback port; always stopped on the way out."""
    from tests.liveserver import free_port, stop

    port = free_port()
    with log_path.open("ab") as err:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "questworlds_site.asgi:application",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
    try:
        try:
            wait_until_ready(f"http://127.0.0.1:{port}/healthz", process)
        except BenchError as error:
            raise BenchError(f"{error}\n--- daphne stderr ---\n{tail(log_path)}") from None
        yield process, port
    finally:
        stop(process)


@contextlib.contextmanager
def bare_server(log_path: Path) -> Iterator[int]:
    """The bare `websockets` fan-out server (this module, --bare-server) in a child."""
    from tests.liveserver import free_port, stop

    port = free_port()
    with log_path.open("ab") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "contests.bench_table", "--bare-server", str(port)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
    try:
        wait_for_port(port, process)
        yield port
    finally:
        stop(process)


def check_redis(url: str) -> None:
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3).ping()
    except (redis.RedisError, OSError, ValueError) as error:
        raise BenchError(
            f"Redis is unreachable at {url} ({error}). The live-table benchmark needs the "
            "Redis channel layer: start Redis or set REDIS_URL."
        ) from None


def loopback_only(url: str, what: str) -> None:
    host = urllib.parse.urlsplit(url).hostname or ""
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise BenchError(f"{what} must be on a loopback address for the benchmark, not {host!r}")


# --- Data ---------------------------------------------------------------------------------


@dataclass
class Seat:
    user_id: int
    role: str  # gm or player
    session_key: str


@dataclass
class Table:
    index: int
    campaign_id: int
    contest_id: int
    seats: list[Seat]  # the GM first, then the 7 players


def setup_django(database_url: str) -> None:
    """Django in this process, on the benchmark's database and the in-memory layer."""
    os.environ["DATABASE_URL"] = database_url
    os.environ["DJANGO_SETTINGS_MODULE"] = "questworlds_site.settings"
    # Framing here broadcasts to no one: keep this process's messages out of Redis.
    os.environ["REDIS_URL"] = ""
    import django

    django.setup()


def make_tables(count: int) -> list[Table]:
    """`count` campaigns: a GM, 7 players, a character, an open session, a framed contest.

    Campaign ids start at a random offset so that table groups (`table.<id>`) never
    meet another server's on a shared Redis. Users get one known password (hashed
    once) and a real login session each (the cookie a browser would send).
    """
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.auth.hashers import make_password
    from django.contrib.sessions.backends.db import SessionStore
    from django.utils import timezone

    from campaigns.models import Campaign, Membership, Role, Session
    from characters.models import Character

    from .services import contest_frame

    user_model = get_user_model()
    password = make_password(PASSWORD)
    run = uuid.uuid4().hex[:6]
    users = user_model.objects.bulk_create(
        user_model(
            username=f"bench-{run}-{t}-{'gm' if i == 0 else f'p{i}'}",
            display_name=f"{'GM' if i == 0 else f'Player {i}'} {t}",
            password=password,
        )
        for t in range(count)
        for i in range(CLIENTS_PER_TABLE)
    )
    backend = settings.AUTHENTICATION_BACKENDS[0]
    keys = {}
    for user in users:
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = backend
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        keys[user.pk] = store.session_key
    first_id = random.randrange(10**8, 2 * 10**9)
    campaigns = Campaign.objects.bulk_create(
        Campaign(pk=first_id + t, name=f"Bench table {t}", gm=users[t * CLIENTS_PER_TABLE])
        for t in range(count)
    )
    members = []
    for t, campaign in enumerate(campaigns):
        for i in range(1, CLIENTS_PER_TABLE):
            user = users[t * CLIENTS_PER_TABLE + i]
            members.append(Membership(campaign=campaign, user=user, role=Role.PLAYER))
    Membership.objects.bulk_create(members)
    characters = Character.objects.bulk_create(
        Character(name=f"Hero {t}", player=users[t * CLIENTS_PER_TABLE + 1], campaign=campaign)
        for t, campaign in enumerate(campaigns)
    )
    Session.objects.bulk_create(
        Session(campaign=campaign, number=1, started_at=timezone.now()) for campaign in campaigns
    )
    tables = []
    for t, (campaign, character) in enumerate(zip(campaigns, characters, strict=True)):
        gm = users[t * CLIENTS_PER_TABLE]
        result = contest_frame(
            campaign=campaign,
            user=gm,
            data={
                "kind": "simple",
                "prize": "Cross the Grey River before nightfall",
                "pc": {"character_id": character.pk},
                "opponent": {"name": "Bench", "level": "moderate"},
            },
            idempotency_key=f"bench-frame-{t}",
        )
        seats = [
            Seat(user.pk, "gm" if i == 0 else "player", keys[user.pk])
            for i, user in enumerate(users[t * CLIENTS_PER_TABLE : (t + 1) * CLIENTS_PER_TABLE])
        ]
        tables.append(Table(t, campaign.pk, result.contest.pk, seats))
    return tables


def clear_presence() -> None:
    from contests.models import TablePresence

    TablePresence.objects.all().delete()


def server_breakdown(table: Table, runs: int) -> dict[str, Any]:
    """Where an action's time goes, measured in this process on the same database: the
    service call (which renders the broadcast for every audience after commit, here sent
    to no one), the broadcast's rendering alone (the panel and the new log entry), and a
    full state's (the panel and the whole log, as a (re)connecting browser gets it)."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from .live import render_audiences
    from .models import Contest
    from .services import contest_act

    gm = get_user_model().objects.get(pk=table.seats[0].user_id)
    full, broadcast, act = [], [], []
    for i in range(runs):
        with CaptureQueriesContext(connection) as full_queries:
            start = time.perf_counter()
            contest = Contest.objects.select_related("campaign").get(pk=table.contest_id)
            html = render_audiences(contest)
            full.append(time.perf_counter() - start)
        with CaptureQueriesContext(connection) as act_queries:
            start = time.perf_counter()
            result = contest_act(
                contest_id=table.contest_id,
                user=gm,
                action="set_tactic",
                data={"side": "pc", "tactic": f"breakdown {i}"},
                idempotency_key=f"bench-breakdown-{uuid.uuid4().hex[:12]}",
            )
            act.append(time.perf_counter() - start)
        with CaptureQueriesContext(connection) as broadcast_queries:
            start = time.perf_counter()
            sent = render_audiences(result.contest, new_event=result.event)
            broadcast.append(time.perf_counter() - start)
    return {
        "runs": runs,
        "action_with_broadcast_p50_ms": ms(statistics.median(act)),
        "action_with_broadcast_queries": len(act_queries),
        "render_broadcast_p50_ms": ms(statistics.median(broadcast)),
        "render_broadcast_queries": len(broadcast_queries),
        "render_full_state_p50_ms": ms(statistics.median(full)),
        "render_full_state_queries": len(full_queries),
        "broadcast_bytes": {a: len(h.encode()) for a, h in sent.items()},
        "full_state_bytes": {a: len(h.encode()) for a, h in html.items()},
    }


# --- Figures --------------------------------------------------------------------------------


def ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


def percentile(ordered: list[float], fraction: float) -> float | None:
    """Nearest-rank percentile of an already sorted list."""
    if not ordered:
        return None
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def latency_figures(latencies: list[float]) -> dict[str, Any]:
    ordered = sorted(latencies)
    return {
        "samples": len(ordered),
        "p50_ms": ms(percentile(ordered, 0.50)),
        "p95_ms": ms(percentile(ordered, 0.95)),
        "p99_ms": ms(percentile(ordered, 0.99)),
        "max_ms": ms(ordered[-1] if ordered else None),
    }


# --- Websocket clients ----------------------------------------------------------------------


@dataclass
class Action:
    table: int
    contest_id: int
    key: str
    sent_at: float
    seq: int | None = None
    error: str = ""


@dataclass
class Client:
    index: int
    table: int
    role: str
    contest_id: int
    ws: Any = None
    reader: asyncio.Task | None = None
    baseline: int | None = None  # the contest's seq in the full state sent on connect
    max_seq: int = 0
    seen: set[int] = field(default_factory=set)
    pending: collections.deque = field(default_factory=collections.deque)
    close_code: int | None = None


class Recorder:
    """Everything the clients receive: first arrival of each (contest, seq) per client,
    duplicates, out-of-order messages, acks and errors for the senders' actions."""

    def __init__(self, expect_full_state: bool = True) -> None:
        self.expect_full_state = expect_full_state
        self.arrivals: dict[tuple[int, int], dict[int, float]] = {}
        self.duplicated = 0
        self.out_of_order = 0
        self.broadcasts = 0
        self.messages = 0
        self.last_message_at = time.perf_counter()
        self.sizes: dict[str, int] = {}
        self.samples: dict[str, str] = {}

    def on_message(self, client: Client, message: str | bytes, now: float) -> None:
        if isinstance(message, bytes):
            message = message.decode("utf-8", "replace")
        self.messages += 1
        self.last_message_at = now
        found = contest_seq(message)
        if found:
            contest_id, seq = found
            full_state = 'id="presence"' in message
            if self.expect_full_state and client.baseline is None and full_state:
                client.baseline = client.max_seq = seq
                return
            self.broadcasts += 1
            if seq in client.seen:
                self.duplicated += 1
            elif seq < client.max_seq:
                self.out_of_order += 1
            client.seen.add(seq)
            client.max_seq = max(client.max_seq, seq)
            self.arrivals.setdefault((contest_id, seq), {}).setdefault(client.index, now)
            self.sizes[client.role] = len(message.encode())
            self.samples[client.role] = message
            return
        acked = ACK_RE.search(message)
        if acked and client.pending:
            client.pending.popleft().seq = int(acked.group(1))
        elif 'id="table-error"' in message and client.pending:
            action = client.pending.popleft()
            action.error = " ".join(TAG_RE.sub(" ", message).split())[:200] or "error"


async def _read(client: Client, recorder: Recorder) -> None:
    from websockets.exceptions import ConnectionClosed

    try:
        async for message in client.ws:
            recorder.on_message(client, message, time.perf_counter())
    except ConnectionClosed:
        pass
    finally:
        client.close_code = client.ws.close_code


def connect_kwargs(port: int, session_key: str | None) -> dict[str, Any]:
    headers = {"Cookie": f"sessionid={session_key}"} if session_key else {}
    return {
        "additional_headers": headers,
        "origin": f"http://127.0.0.1:{port}",
        "proxy": None,  # loopback only, whatever the environment says
        "compression": None,  # Daphne does not negotiate permessage-deflate either
        "ping_interval": None,  # like a browser: the server pings, the client answers
        "open_timeout": 30,
        "close_timeout": 5,
        "max_size": 2**22,
    }


async def open_clients(
    clients: list[Client],
    port: int,
    recorder: Recorder,
    keys: dict[int, str | None],
    path: str,
    timeout: float,
) -> dict[str, Any]:
    """Connect every client (bounded concurrency, up to CONNECT_ATTEMPTS tries each) and
    wait for its full state. Returns how many clients failed for good, and the errors
    of the attempts that failed (retried or not), by kind."""
    from websockets.asyncio.client import connect

    gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
    deadline = time.monotonic() + timeout
    errors: collections.Counter = collections.Counter()

    async def attempt(client: Client) -> bool:
        url = f"ws://127.0.0.1:{port}{path.format(table=client.table)}"
        try:
            client.ws = await connect(url, **connect_kwargs(port, keys[client.index]))
        except Exception as error:  # counted, and tried again
            errors[type(error).__name__] += 1
            return False
        client.reader = asyncio.create_task(_read(client, recorder))
        if not recorder.expect_full_state:
            return True
        # The full state comes first; wait for it before the next connection.
        while client.baseline is None and time.monotonic() < deadline:
            if client.reader.done():
                errors[f"closed {client.close_code} before the full state"] += 1
                return False
            await asyncio.sleep(0.005)
        return client.baseline is not None

    async def one(client: Client) -> bool:
        async with gate:
            for _ in range(CONNECT_ATTEMPTS):
                if time.monotonic() > deadline:
                    return False
                if await attempt(client):
                    return True
                await asyncio.sleep(0.5)
            return False

    results = await asyncio.gather(*(one(c) for c in clients))
    if errors:
        log(f"failed connection attempts: {dict(errors)}")
    return {"failed": results.count(False), "attempt_errors": dict(errors)}


async def wait_quiet(recorder: Recorder, quiet: float = 0.5, limit: float = 20.0) -> None:
    """Wait until no message has arrived for `quiet` seconds (presence bursts settle)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if time.perf_counter() - recorder.last_message_at >= quiet:
            return
        await asyncio.sleep(0.05)


async def close_clients(clients: list[Client]) -> None:
    async def one(client: Client) -> None:
        if client.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.ws.close(), 10)
        if client.reader is not None:
            client.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await client.reader

    gate = asyncio.Semaphore(200)

    async def gated(client: Client) -> None:
        async with gate:
            await one(client)

    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(gated(c) for c in clients)), 120)


def _table_clients(tables: list[Table], first_index: int = 0) -> tuple[list[Client], dict]:
    clients, keys = [], {}
    for table in tables:
        for seat in table.seats:
            index = first_index + len(clients)
            clients.append(Client(index, table.campaign_id, seat.role, table.contest_id))
            keys[index] = seat.session_key
    return clients, keys


def _action_message(action: Action, tactic: str) -> str:
    return json.dumps(
        {
            "action": "set_tactic",
            "contest": action.contest_id,
            "data": {"side": "pc", "tactic": tactic},
            "key": action.key,
        }
    )


async def _wait_settled(
    actions: list[Action], clients_of: dict[int, list[Client]], recorder: Recorder
) -> None:
    """Wait until every action is answered and everyone at its table has it, or until
    LOST_AFTER_S + GRACE_S after the last send."""
    deadline = time.perf_counter() + LOST_AFTER_S + GRACE_S
    while time.perf_counter() < deadline:
        settled = all(
            action.error
            or (
                action.seq is not None
                and len(recorder.arrivals.get((action.contest_id, action.seq), {}))
                >= len(clients_of[action.table])
            )
            for action in actions
        )
        if settled:
            return
        await asyncio.sleep(0.05)


def closed_by_server(clients_of: dict[int, list[Client]]) -> dict[str, int]:
    """Close codes of the sockets the server closed while the bench still used them."""
    closed = collections.Counter(
        str(client.close_code)
        for clients in clients_of.values()
        for client in clients
        if client.reader is not None and client.reader.done()
    )
    return dict(closed)


def _tally(
    actions: list[Action], clients_of: dict[int, list[Client]], recorder: Recorder
) -> dict[str, Any]:
    latencies, never, late, unanswered, errors = [], 0, 0, 0, []
    for action in actions:
        if action.error:
            errors.append(action.error)
            continue
        if action.seq is None:
            unanswered += 1
            continue
        got = recorder.arrivals.get((action.contest_id, action.seq), {})
        times = []
        for client in clients_of[action.table]:
            at = got.get(client.index)
            if at is None:
                never += 1
                continue
            if at - action.sent_at > LOST_AFTER_S:
                late += 1
            times.append(at)
        if len(times) == len(clients_of[action.table]):
            latencies.append(max(times) - action.sent_at)
    figures = latency_figures(latencies)
    figures.update(
        {
            "actions_sent": len(actions),
            "actions_failed": len(errors),
            "actions_unanswered": unanswered,
            "lost": never + late,
            "lost_never_arrived": never,
            "lost_arrived_late": late,
            "duplicated": recorder.duplicated,
            "out_of_order": recorder.out_of_order,
            "clients_closed_by_server": closed_by_server(clients_of),
        }
    )
    if errors:
        figures["first_error"] = errors[0]
    return figures


async def one_table(port: int, table: Table, samples: int) -> tuple[dict[str, Any], str]:
    """Figure 1: the GM's client acts at PACE_PER_S; latency to the last of 8 clients."""
    recorder = Recorder()
    clients, keys = _table_clients([table])
    path = "/ws/tables/{table}/"
    try:
        opened = await open_clients(clients, port, recorder, keys, path, timeout=60)
        if opened["failed"]:
            raise BenchError(f"one-table clients could not connect: {opened}")
        await wait_quiet(recorder)
        gm, actions = clients[0], []
        start = time.perf_counter()
        time_limit = start + samples / PACE_PER_S + 30
        for i in range(samples):
            delay = start + i / PACE_PER_S - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if time.perf_counter() > time_limit:
                break
            action = Action(table.campaign_id, table.contest_id, uuid.uuid4().hex, 0.0)
            message = _action_message(action, f"Bench tactic {i}: hold the ford")
            gm.pending.append(action)
            action.sent_at = time.perf_counter()
            await gm.ws.send(message)
            actions.append(action)
        clients_of = {table.campaign_id: clients}
        await _wait_settled(actions, clients_of, recorder)
        figures = _tally(actions, clients_of, recorder)
        figures.update(
            {
                "clients": len(clients),
                "connect_attempt_errors": opened["attempt_errors"],
                "pace_per_s": PACE_PER_S,
                "message_bytes": dict(recorder.sizes),
                "target": TARGETS["one_table"],
            }
        )
        figures["met"] = bool(
            figures["p50_ms"] is not None
            and figures["p50_ms"] <= TARGETS["one_table"]["p50_ms"]
            and figures["p99_ms"] <= TARGETS["one_table"]["p99_ms"]
        )
        return figures, recorder.samples.get("player", "")
    finally:
        await close_clients(clients)


async def many_tables(
    port: int, pid: int, tables: list[Table], rate: float, seconds: float
) -> dict[str, Any]:
    """Figure 2: every table's 8 clients connected, `rate` actions a second in all, each
    from its table's GM client, round robin over the tables, for `seconds`."""
    recorder = Recorder()
    clients, keys = _table_clients(tables)
    clients_of: dict[int, list[Client]] = collections.defaultdict(list)
    for client in clients:
        clients_of[client.table].append(client)
    gms = {client.table: client for client in clients if client.role == "gm"}
    path = "/ws/tables/{table}/"
    try:
        opened_at = time.perf_counter()
        opened = await open_clients(clients, port, recorder, keys, path, timeout=300)
        if opened["failed"]:
            raise BenchError(f"of {len(clients)} clients, some could not connect: {opened}")
        open_seconds = time.perf_counter() - opened_at
        await wait_quiet(recorder, quiet=1.0, limit=60)
        server_cpu, own_cpu, threads = CpuMeter(pid), CpuMeter(os.getpid()), ThreadMeter(pid)
        count = int(rate * seconds)
        actions: list[Action] = []
        start = time.perf_counter()
        time_limit = start + seconds + 30
        for i in range(count):
            delay = start + i / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if time.perf_counter() > time_limit:
                break
            table = tables[i % len(tables)]
            gm = gms[table.campaign_id]
            action = Action(table.campaign_id, table.contest_id, uuid.uuid4().hex, 0.0)
            message = _action_message(action, f"Bench tactic {i}: press on")
            gm.pending.append(action)
            action.sent_at = time.perf_counter()
            await gm.ws.send(message)
            actions.append(action)
        sending_seconds = time.perf_counter() - start
        await _wait_settled(actions, clients_of, recorder)
        figures = _tally(actions, clients_of, recorder)
        figures.update(
            {
                "tables": len(tables),
                "clients": len(clients),
                "rate_per_s": rate,
                "seconds": round(sending_seconds, 2),
                "connect_seconds": round(open_seconds, 2),
                "connect_attempt_errors": opened["attempt_errors"],
                "daphne_cpu_percent": server_cpu.percent(),
                "daphne_threads": threads.figures(),
                "bench_client_cpu_percent": own_cpu.percent(),
                "target": TARGETS["many_tables"],
            }
        )
        figures["met"] = bool(
            figures["p99_ms"] is not None
            and figures["p99_ms"] <= TARGETS["many_tables"]["p99_ms"]
            and figures["lost"] == figures["duplicated"] == figures["out_of_order"] == 0
            and figures["actions_failed"] == figures["actions_unanswered"] == 0
        )
        return figures
    finally:
        await close_clients(clients)


async def idle_sockets(
    port: int, pid: int, tables: list[Table], sockets: int, sample_seconds: float
) -> dict[str, Any]:
    """Figure 3: `sockets` idle connections spread over the tables (reusing each table's
    8 users, several sockets per user), then the Daphne process's CPU and memory."""
    recorder = Recorder()
    seats = [(table, seat) for table in tables for seat in table.seats]
    clients, keys = [], {}
    for index in range(sockets):
        table, seat = seats[index % len(seats)]
        clients.append(Client(index, table.campaign_id, seat.role, table.contest_id))
        keys[index] = seat.session_key
    before = memory_mb(pid)
    try:
        opened_at = time.perf_counter()
        path = "/ws/tables/{table}/"
        opened = await open_clients(clients, port, recorder, keys, path, timeout=600)
        open_seconds = time.perf_counter() - opened_at
        await wait_quiet(recorder, quiet=2.0, limit=120)
        # Idle: CPU below 5% of a core for two 1-second windows in a row (60 s at most).
        meter, calm, waited = CpuMeter(pid), 0, time.monotonic()
        while calm < 2 and time.monotonic() - waited < 60:
            meter.start()
            await asyncio.sleep(1.0)
            calm = calm + 1 if meter.percent() < 5 else 0
        meter.start()
        await asyncio.sleep(sample_seconds)
        cpu = meter.percent()
        memory = memory_mb(pid)
        alive = sum(1 for c in clients if c.reader is not None and not c.reader.done())
        closed = collections.Counter(
            str(c.close_code) for c in clients if c.reader is not None and c.reader.done()
        )
        figures = {
            "sockets": sockets,
            "open": alive,
            "failed": opened["failed"],
            "connect_attempt_errors": opened["attempt_errors"],
            "closed_by_server": dict(closed),
            "tables": len(tables),
            "sockets_per_table": round(sockets / len(tables), 1),
            "connect_seconds": round(open_seconds, 2),
            "sample_seconds": sample_seconds,
            "cpu_percent": cpu,
            "rss_mb": memory["rss_mb"],
            "rss_before_mb": before["rss_mb"],
            "peak_rss_mb": memory["peak_rss_mb"],
            "rss_per_socket_kb": round(
                (memory["rss_mb"] - before["rss_mb"]) * 1024 / max(1, alive), 1
            ),
            "daphne_open_fds": open_fds(pid),
            "target": TARGETS["idle_sockets"],
        }
        figures["met"] = bool(cpu < TARGETS["idle_sockets"]["cpu_percent"] and alive == sockets)
        return figures
    finally:
        await close_clients(clients)


async def bare_fanout(port: int, fragment: str, samples: int) -> dict[str, Any]:
    """Figure 4: 8 clients on the bare server; client 0 sends the real fragment (its
    data-seq set per message), the server rebroadcasts it to all 8."""
    recorder = Recorder(expect_full_state=False)
    clients = [Client(i, 0, "gm" if i == 0 else "player", 0) for i in range(CLIENTS_PER_TABLE)]
    keys = {client.index: None for client in clients}
    found = contest_seq(fragment)
    if found is None:
        raise BenchError("the captured fragment has no contest panel with a data-seq")
    contest_id = found[0]
    for client in clients:
        client.contest_id = contest_id
    try:
        opened = await open_clients(clients, port, recorder, keys, "/", timeout=30)
        if opened["failed"]:
            raise BenchError(f"clients could not connect to the bare server: {opened}")
        sender, actions = clients[0], []
        start = time.perf_counter()
        time_limit = start + samples / PACE_PER_S + 30
        for i in range(samples):
            delay = start + i / PACE_PER_S - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if time.perf_counter() > time_limit:
                break
            seq = 1_000_000 + i
            message = with_seq(fragment, seq)
            action = Action(0, contest_id, str(i), time.perf_counter(), seq=seq)
            await sender.ws.send(message)
            actions.append(action)
        clients_of = {0: clients}
        await _wait_settled(actions, clients_of, recorder)
        figures = _tally(actions, clients_of, recorder)
        figures.update(
            {"clients": len(clients), "pace_per_s": PACE_PER_S, "message_bytes": len(fragment)}
        )
        return figures
    finally:
        await close_clients(clients)


async def _serve_bare(port: int, lifetime: float) -> None:
    from websockets.asyncio.server import broadcast, serve

    connected: set = set()

    async def handler(ws) -> None:
        connected.add(ws)
        try:
            async for message in ws:
                broadcast(connected, message)
        finally:
            connected.discard(ws)

    async with serve(
        handler, "127.0.0.1", port, compression=None, ping_interval=None, max_size=2**22
    ):
        await asyncio.sleep(lifetime)


# --- The run --------------------------------------------------------------------------------


def faults(figures: dict[str, Any]) -> dict[str, int]:
    """Everything that went wrong under one layer, by kind (0 when nothing did)."""
    parts = [figures[part] for part in ("one_table", "many_tables")]
    idle = figures["idle_sockets"]
    found = {
        "broadcasts_never_delivered": sum(p["lost_never_arrived"] for p in parts),
        "duplicated": sum(p["duplicated"] for p in parts),
        "out_of_order": sum(p["out_of_order"] for p in parts),
        "actions_failed_or_unanswered": sum(
            p["actions_failed"] + p["actions_unanswered"] for p in parts
        ),
        "sockets_closed_by_server": sum(sum(p["clients_closed_by_server"].values()) for p in parts)
        + sum(idle["closed_by_server"].values()),
        "failed_connection_attempts": sum(
            sum(p["connect_attempt_errors"].values()) for p in (*parts, idle)
        ),
        "presence_rows_left_after_close": figures["many_tables"]["presence_rows_left_after_close"]
        + idle["presence_rows_left_after_close"],
        "redis_group_members_left_after_close": idle["redis_group_members_left_after_close"],
        "redis_subscriptions_left_after_close": idle["redis_subscriptions_after_close"]["left"],
        "server_exceptions_logged": sum(figures["daphne_stderr"]["exceptions"].values()),
    }
    return {kind: count for kind, count in found.items() if count}


SERIOUS = ("broadcasts_never_delivered", "duplicated", "out_of_order")


def recommend(layers: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The layer to use by default, from the figures: first what must never happen
    (a broadcast not delivered, duplicated or out of order), then any other fault
    (sockets dropped, connections refused, server exceptions, presence left behind),
    then the many-tables p99, then the one-table p50."""
    found = {name: faults(figures) for name, figures in layers.items()}

    def key(name: str) -> tuple:
        figures = layers[name]
        return (
            any(kind in found[name] for kind in SERIOUS),
            bool(found[name]),
            figures["many_tables"]["p99_ms"] or math.inf,
            figures["one_table"]["p50_ms"] or math.inf,
        )

    ranked = sorted(layers, key=key)
    best = ranked[0]
    summary = "; ".join(
        f"{name}: many-tables p99 {layers[name]['many_tables']['p99_ms']} ms, one-table p50 "
        f"{layers[name]['one_table']['p50_ms']} ms, faults {found[name] or 'none'} "
        f"(load average {layers[name]['load_average_at_start'][0]})"
        for name in ranked
    )
    if len(ranked) == 1:
        reason = f"only {best} was measured in this run ({summary})"
    elif key(best)[:2] != key(ranked[1])[:2]:
        reason = f"{best} had fewer faults ({summary})"
    else:
        reason = f"{best} had the lower latency under load ({summary})"
    return {"layer": best, "reason": reason, "faults": found}


EXCEPTION_LINE_RE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Timeout)):? ?")


def server_errors(log_path: Path) -> dict[str, Any]:
    """What Daphne wrote to stderr: line count, exceptions by type, the last lines."""
    lines = tail(log_path, 10_000_000).splitlines()
    exceptions = collections.Counter(
        found.group(1) for line in lines if (found := EXCEPTION_LINE_RE.match(line))
    )
    return {"lines": len(lines), "exceptions": dict(exceptions), "last": lines[-3:]}


def presence_rows_left(limit: float = 20.0) -> int:
    """Table presence rows still recorded once every client has closed: each should
    have been deleted by its socket's disconnect handler. Waits until the count is 0
    or has not changed for 3 s (at most `limit` seconds)."""
    from contests.models import TablePresence

    deadline, last, since = time.monotonic() + limit, -1, time.monotonic()
    while True:
        count = TablePresence.objects.count()
        if count != last:
            last, since = count, time.monotonic()
        if count == 0 or time.monotonic() - since >= 3 or time.monotonic() > deadline:
            return count
        time.sleep(0.5)


def redis_subscriptions_left(redis_url: str, limit: float = 60.0) -> dict[str, Any]:
    """Redis pub/sub channels of the app (`asgi*`) still subscribed once every socket has
    closed, waiting until there are none or the count has not changed for 3 s.

    The pubsub layer unsubscribes a closed socket's channel as its consumer exits,
    through one lock per Redis connection, so after a mass disconnect the unsubscribes
    drain one by one; stopping Daphne before they have would cancel the rest (each one
    logs a CancelledError). The core layer subscribes to nothing.
    """
    import redis

    client = redis.Redis.from_url(redis_url, socket_connect_timeout=3, socket_timeout=10)
    started = time.monotonic()
    deadline, last, since = started + limit, -1, started
    try:
        while True:
            count = len(client.pubsub_channels("asgi*"))
            if count != last:
                last, since = count, time.monotonic()
            if count == 0 or time.monotonic() - since >= 3 or time.monotonic() > deadline:
                return {"left": count, "drained_after_s": round(time.monotonic() - started, 1)}
            time.sleep(0.2)
    finally:
        client.close()


def redis_group_members_left(redis_url: str, tables: list[Table]) -> int:
    """Members still listed in the tables' Redis groups (the core layer's sorted sets)
    once every socket has closed; each disconnect should have removed its own. Then
    deletes those groups, so that nothing of this run stays in Redis."""
    import redis

    from .broadcast import table_group_name

    client = redis.Redis.from_url(redis_url, socket_connect_timeout=3, socket_timeout=10)
    try:
        keys = [f"asgi:group:{table_group_name(table.campaign_id)}" for table in tables]
        pipe = client.pipeline(transaction=False)
        for key in keys:
            pipe.zcard(key)
        left = sum(pipe.execute())
        client.delete(*keys)
        return left
    finally:
        client.close()


def measure_layer(
    layer: str, env: dict[str, str], tables: list[Table], params: dict[str, Any], work: Path
) -> tuple[dict[str, Any], str]:
    """Figures 1, 2 and 3 under one channel layer, on a Daphne of its own."""
    log_path = work / f"daphne-{layer}.log"
    measured: dict[str, Any] = {"load_average_at_start": [round(x, 2) for x in os.getloadavg()]}
    with daphne(dict(env, CHANNEL_LAYER=layer), log_path) as (process, port):
        log(f"{layer}: daphne pid {process.pid} on port {port}; one table")
        one, sample = asyncio.run(one_table(port, tables[0], params["latency_samples"]))
        measured["one_table"] = one
        log(f"{layer}: one table p50 {one['p50_ms']} ms; many tables")
        many = asyncio.run(
            many_tables(
                port, process.pid, tables, params["load_rate_per_s"], params["load_seconds"]
            )
        )
        many["presence_rows_left_after_close"] = presence_rows_left()
        measured["many_tables"] = many
        log(f"{layer}: many tables p99 {many['p99_ms']} ms; {params['idle_sockets']} idle sockets")
        clear_presence()
        idle = asyncio.run(
            idle_sockets(
                port, process.pid, tables, params["idle_sockets"], params["idle_sample_seconds"]
            )
        )
        idle["presence_rows_left_after_close"] = presence_rows_left()
        idle["redis_subscriptions_after_close"] = redis_subscriptions_left(env["REDIS_URL"])
        idle["redis_group_members_left_after_close"] = redis_group_members_left(
            env["REDIS_URL"], tables
        )
        idle["layer"] = layer
        measured["idle_sockets"] = idle
        log(f"{layer}: idle {idle['cpu_percent']}% CPU, {idle['rss_mb']} MiB")
    measured["daphne_stderr"] = server_errors(log_path)
    return measured, sample


def run(params: dict[str, Any], redis_url: str, work: Path) -> dict[str, Any]:
    from tests.liveserver import fresh_database, server_env

    started = time.monotonic()
    figures: dict[str, Any] = {
        "benchmark": "live_table",
        "mode": params["mode"],
        "machine": {
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
            "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        },
    }
    wanted_fds = params["idle_sockets"] * 2 + params["tables"] * CLIENTS_PER_TABLE * 2 + 1024
    figures["machine"]["open_file_limit"] = raise_open_file_limit(wanted_fds)
    with fresh_database(work, template="migrated") as database_url:
        engine = "postgresql" if database_url.startswith("postgres") else "sqlite"
        figures["machine"]["database"] = engine
        log(f"fresh {engine} database, copied from a migrated one")
        env = server_env(database_url, DEBUG="true", ALLOWED_HOSTS="127.0.0.1,localhost")
        env.update(REDIS_URL=redis_url)
        env.pop("REQUIRE_SERVICES", None)
        setup_django(database_url)
        from django.db import connections

        try:
            log(f"creating {params['tables']} tables")
            tables = make_tables(params["tables"])
            figures["layers"] = {}
            fragment = ""
            for layer in params["layers"]:
                clear_presence()
                measured, sample = measure_layer(layer, env, tables, params, work)
                figures["layers"][layer] = measured
                fragment = fragment or sample
            figures["idle_sockets"] = figures["layers"][params["layers"][0]]["idle_sockets"]
            if not fragment:
                raise BenchError("no broadcast fragment was captured from the one-table run")
            log("bare websockets server")
            with bare_server(work / "bare.log") as port:
                bare = asyncio.run(bare_fanout(port, fragment, params["latency_samples"]))
            first = params["layers"][0]
            daphne_p50 = figures["layers"][first]["one_table"]["p50_ms"]
            bare["daphne_layer"] = first
            bare["daphne_p50_ms"] = daphne_p50
            bare["ratio_p50_daphne_over_bare"] = (
                round(daphne_p50 / bare["p50_ms"], 1) if daphne_p50 and bare["p50_ms"] else None
            )
            figures["bare_websockets"] = bare
            figures["breakdown"] = server_breakdown(tables[0], 20 if params["small"] else 50)
            figures["recommended_default"] = recommend(figures["layers"])
            figures["targets_met"] = {
                **{
                    f"{layer}.{part}": figures["layers"][layer][part]["met"]
                    for layer in figures["layers"]
                    for part in ("one_table", "many_tables")
                },
                **{
                    f"{layer}.idle_sockets": figures["layers"][layer]["idle_sockets"]["met"]
                    for layer in figures["layers"]
                },
            }
        finally:
            clear_presence()
            connections.close_all()
    figures["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    figures["elapsed_seconds"] = round(time.monotonic() - started, 1)
    return figures


def _alarm(signum, frame) -> None:
    raise TimeoutError("the benchmark ran past its time limit")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="a quick run (used by the tests)")
    parser.add_argument("--layers", help="channel layers to measure, e.g. core,pubsub")
    parser.add_argument("--keep-logs", metavar="DIR", help="copy the servers' stderr logs here")
    parser.add_argument("--bare-server", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bare_server:
        asyncio.run(_serve_bare(args.bare_server, lifetime=1800))
        return 0
    params = dict(SMALL if args.small else FULL, small=args.small)
    params["mode"] = "small" if args.small else "full"
    if args.layers:
        layers = tuple(name.strip() for name in args.layers.split(",") if name.strip())
        unknown = set(layers) - {"core", "pubsub"}
        if unknown or not layers:
            parser.error(f"--layers: choose from core and pubsub, not {sorted(unknown)}")
        params["layers"] = layers
    redis_url = os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(params["alarm_seconds"])
    try:
        loopback_only(redis_url, "REDIS_URL")
        database_url = os.environ.get("DATABASE_URL", "")
        if database_url.startswith(("postgres://", "postgresql://")):
            loopback_only(database_url, "DATABASE_URL")
        check_redis(redis_url)
        with tempfile.TemporaryDirectory(prefix="bench_table_") as work:
            try:
                figures = run(params, redis_url, Path(work))
            finally:
                if args.keep_logs:
                    Path(args.keep_logs).mkdir(parents=True, exist_ok=True)
                    for server_log in Path(work).glob("*.log"):
                        shutil.copy(server_log, args.keep_logs)
    except BenchError as error:
        print(f"bench_table: {error}", file=sys.stderr)
        return 2
    finally:
        signal.alarm(0)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
