"""Benchmark the browsers' own path (issue 16).

    .venv/bin/python -m bench.http_path [--small] [--processes N]

Browsers act by htmx POST to `table_act` and listen on the table's socket; this drives
exactly that. Each table has a GM and 7 players with real login sessions; all 8 hold a
websocket open; the GM and the player whose character is in the contest act by POST
with the CSRF token the table page gave them (cookie + X-CSRFToken, as htmx sends it),
playing the realistic cycle: choose an ability -> a tactic -> roll -> resolve -> confirm
the consequences -> frame the next contest. An action's latency runs from just before
its POST is written until the last of its table's 8 sockets has received the broadcast
of the step the answer acknowledged. Every socket also sends the page's heartbeat every
2 s all through the run, as an open page in view does, and each player's page fetches
its own sheet (GET table/me/) when static/js/table.js would. Printed as JSON on stdout
(progress on stderr):

- "capacity": for 1 server process straight, and for N processes behind Debian's nginx
  (docs/deploy/nginx.conf, bench.liveserver.nginx_balancer), actions are offered at
  rising rates (open loop, spread over many tables, a table acting again only once its
  last step reached everyone); each rate's p50/p99, delivered rate, losses, duplicates,
  out-of-order steps and HTTP errors. The capacity is the highest offered rate whose
  p99 stays <= 100 ms with everything delivered, nothing lost, duplicated or out of
  order. The first rate (10/s) is the light-load figure.
- "postgres_connections": the most connections to the benchmark's database seen at
  once, against the bound (processes x each process's pool, DB_POOL_MAX_SIZE).
- "profile": where one process's CPU goes while it serves the cycle (py-spy samples,
  grouped), when py-spy is installed.
- "stack_floor": the same pages, cycle, rates and topologies against app processes
  whose `table/act/` does only what any action must (bench/floor_urls.py: who may act,
  the contest's row locked, the event written, the step moved on, one broadcast of a
  panel the size of the app's, the acknowledgement), everything else the app's own
  (middleware, sessions, the consumer, the channel layer): what this machine spends on
  an action before the app does any work of its own, and the capacity that leaves.
- "bare_websockets": the same fan-out through a bare asyncio `websockets` server (the
  floor of the socket alone), from bench.table_scenarios.

The websocket-path figures stay in `bench.table` (`make bench` runs both).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.janitor import start, stop
from bench.liveserver import (
    DEFAULT_SERVER,
    SERVERS,
    ServerError,
    app_process,
    fresh_database,
    manage,
    nginx_balancer,
    server_env,
)

from .table_clients import Action, Client, Recorder, _table_clients, close_clients, open_clients
from .table_common import (
    CLIENTS_PER_TABLE,
    DEFAULT_REDIS_URL,
    LOST_AFTER_S,
    BenchError,
    latency_figures,
    log,
)
from .table_data import Table, make_tables, setup_django
from .table_scenarios import _page_heartbeats, bare_fanout, idle_sockets

__all__ = ["main", "run"]
from .table_system import (
    CpuMeter,
    bare_server,
    check_redis,
    cpu_by_program,
    loopback_only,
    python_loop_ms,
    raise_open_file_limit,
)

TARGETS = {
    "capacity_per_s": 100,
    "p99_ms": 100.0,
    "light_p50_ms": 15.0,
    "light_p99_ms": 40.0,
    "idle_cpu_percent": 5.0,
}
FULL = {
    "tables": 60,
    "rates": (10, 20, 30, 40, 60, 80, 100, 130, 160),
    "step_seconds": 10.0,
    "warmup_seconds": 5.0,
    "processes": 2,
    "pool": 4,
    "bare_samples": 200,
    "profile_seconds": 8.0,
    "profile_rate": 15,
    "idle_sockets": 2000,
    "idle_sample_seconds": 10.0,
    "alarm_seconds": 1800,
}
SMALL = {
    "tables": 4,
    "rates": (5, 10),
    "step_seconds": 2.0,
    "warmup_seconds": 1.0,
    "processes": 2,
    "pool": 2,
    "bare_samples": 20,
    "profile_seconds": 0.0,
    "profile_rate": 5,
    "idle_sockets": 100,
    "idle_sample_seconds": 2.0,
    "alarm_seconds": 280,
}
# A table page pings the server this often while it is in view (static/js/table-connection.js).
PAGE_PING_SECONDS = 2.0
# The realistic cycle: who acts (the GM, or the player of the contest's character).
CYCLE = (
    ("player", "choose_ability"),
    ("player", "set_tactic"),
    ("gm", "roll"),
    ("gm", "resolve"),
    ("gm", "apply_consequences"),
    ("gm", "frame"),
)
# The confirm form's selects, for the PC's side and the opponent's.
CONSEQUENCE_SELECTS = ("pc", "pc_benefit", "opponent", "opponent_benefit")
ACK_RE = re.compile(rb'data-acked="(\d+)"')
ERROR_RE = re.compile(rb'id="table-error"[^>]*>([^<]*)<')
TOKEN_RE = re.compile(r'"X-CSRFToken": "([^"]+)"')


# --- A keep-alive HTTP/1.1 client ------------------------------------------------------------
# Hand-written on purpose: the load generator shares this 2-core machine with the server,
# and a request here is a few writes and one read on a loopback socket, no parsing beyond
# what the benchmark needs (a general client would spend the server's CPU).


class Http:
    """One browser's connection: its cookies, its CSRF token, requests in turn."""

    def __init__(self, host: str, port: int, session_key: str) -> None:
        self.host, self.port = host, port
        self.cookies = {"sessionid": session_key}
        self.token = ""
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.lock = asyncio.Lock()

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: dict | None = None
    ) -> tuple[int, bytes]:
        async with self.lock:
            for attempt in range(2):
                try:
                    return await self._once(method, path, body, headers or {})
                except (ConnectionError, asyncio.IncompleteReadError):
                    # A keep-alive connection the server (or nginx) closed: open again.
                    await self.close()
                    if attempt:
                        raise
            raise AssertionError("unreachable")

    async def _once(self, method: str, path: str, body: bytes, headers: dict) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            f"Cookie: {cookie}",
            f"Content-Length: {len(body)}",
            *(f"{k}: {v}" for k, v in headers.items()),
        ]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length, chunked, closing = 0, False, False
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name, value = name.strip().lower(), value.strip()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
            elif name == b"connection" and value.lower() == b"close":
                closing = True
            elif name == b"set-cookie":
                cookie_name, _, rest = value.decode().partition("=")
                self.cookies[cookie_name] = rest.split(";", 1)[0]
        if chunked:
            data = bytearray()
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
                data += await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                del data[-2:]
            payload = bytes(data)
        else:
            payload = await self.reader.readexactly(length)
        if closing:
            await self.close()
        return status, payload

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.reader = self.writer = None

    async def log_in_to_table(self, campaign_id: int) -> None:
        """GET the table page, as a browser opens it: the CSRF cookie and token."""
        status, page = await self.request("GET", f"/campaigns/{campaign_id}/table/")
        found = TOKEN_RE.search(page.decode(errors="replace"))
        if status != 200 or not found:
            raise BenchError(f"the table page answered {status} without a CSRF token")
        self.token = found.group(1)

    async def post_form(self, path: str, fields: dict[str, Any]) -> tuple[int, bytes]:
        body = urllib.parse.urlencode(fields).encode()
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "HX-Request": "true",
            "X-CSRFToken": self.token,
            "Origin": f"http://{self.host}:{self.port}",
        }
        return await self.request("POST", path, body, headers)


# --- What every player's page fetches besides ------------------------------------------------
# static/js/table.js reloads a player's own sheet ("My characters", GET table/me/, 250 ms
# after the last trigger): after a step whose log entry does not say it kept every
# sheet (`data-sheets="kept"`, from the action's declaration), on the pages of those
# the panel names as playing in the contest (data-sheet-players); after a new contest
# they play in, or any new contest while their sheet offers a pick. The page loads the
# sheet once as it opens; the socket's first full state then adds nothing (the sheet was
# drawn at that step): here that first full state stands for the page's own first load.
SHEET_UNCHANGED_RE = re.compile(r'data-sheets="kept"')  # the step's log entry says so
SHEET_PLAYERS_RE = re.compile(r'id="contest" [^>]*data-sheet-players="([\d ]*)"')
APPENDED = 'hx-swap-oob="afterbegin:#roll-log"'
SHEET_RELOAD_DELAY = 0.25
PICK = b'class="pick"'


class PageRecorder(Recorder):
    """The recorder, and what each player's page does on a contest message besides
    showing it: fetch its own sheet when static/js/table.js would, over a keep-alive
    connection of its own (a browser's), so that the load offered is the browsers' own."""

    def __init__(self, host: str, port: int, keys: dict[int, str], users: dict[int, int]) -> None:
        super().__init__()
        self.host, self.port, self.keys, self.users = host, port, keys, users
        self.http: dict[int, Http] = {}
        self.timers: dict[int, asyncio.TimerHandle] = {}
        self.tasks: set[asyncio.Task] = set()
        self.sheet_fetches = 0
        self.sheet_errors = 0
        self.opened: set[int] = set()  # pages whose sheet has been loaded
        self.picking: set[int] = set()  # pages whose sheet offers a pick

    def on_message(self, client: Client, message: str | bytes, now: float) -> None:
        super().on_message(client, message, now)
        if client.role != "player" or not isinstance(message, str):
            return
        if 'id="contest"' not in message:
            return
        players = SHEET_PLAYERS_RE.search(message)
        mine = players is None or str(self.users[client.index]) in players[1].split()
        if APPENDED in message:
            if SHEET_UNCHANGED_RE.search(message) or not mine:
                return
        elif client.index in self.opened:
            if not mine and client.index not in self.picking:
                return
        else:
            self.opened.add(client.index)  # the page's first load of its sheet
        waiting = self.timers.pop(client.index, None)
        if waiting is not None:
            waiting.cancel()  # htmx's delay: the last trigger counts
        loop = asyncio.get_running_loop()
        self.timers[client.index] = loop.call_later(SHEET_RELOAD_DELAY, self._start, client)

    def _start(self, client: Client) -> None:
        self.timers.pop(client.index, None)
        task = asyncio.get_running_loop().create_task(self._fetch(client))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _fetch(self, client: Client) -> None:
        http = self.http.get(client.index)
        if http is None:
            http = self.http[client.index] = Http(self.host, self.port, self.keys[client.index])
        try:
            status, body = await http.request("GET", f"/campaigns/{client.table}/table/me/")
        except (OSError, asyncio.IncompleteReadError):
            status, body = 0, b""
        if PICK in body:
            self.picking.add(client.index)
        else:
            self.picking.discard(client.index)
        self.sheet_fetches += 1
        if status != 200:
            self.sheet_errors += 1

    async def close(self) -> None:
        for timer in self.timers.values():
            timer.cancel()
        for task in list(self.tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for http in self.http.values():
            await http.close()


# --- The tables, playing the cycle -----------------------------------------------------------


@dataclass
class Playing:
    """One table's state as its two actors' browsers know it."""

    table: Table
    character_id: int
    ability_id: int
    contest_id: int
    seq: int
    gm: Http
    player: Http
    step: int = 0
    busy: bool = False
    contests: int = 0

    def fields(self) -> tuple[Http, str, dict[str, Any]]:
        who, action = CYCLE[self.step % len(CYCLE)]
        fields: dict[str, Any] = {"action": action, "key": uuid.uuid4().hex}
        if action == "frame":
            self.contests += 1
            fields.update(
                {
                    "kind": "simple",
                    "prize": f"Cross the river, attempt {self.contests}",
                    "pc.character_id": self.character_id,
                    "opponent.name": "The Grey River",
                    "opponent.level": "moderate",
                }
            )
        else:
            fields.update({"contest": self.contest_id, "seq": self.seq})
        if action == "choose_ability":
            fields.update(side="pc", ability_id=self.ability_id)
        elif action == "set_tactic":
            fields.update(side="pc", tactic="Swim for the far bank")
        elif action == "apply_consequences":
            # The confirm form with "none" chosen for every side: the same character
            # plays hundreds of contests in a run, and would otherwise end up dying.
            fields.update({f"edit.{name}": "" for name in CONSEQUENCE_SELECTS})
        return (self.gm if who == "gm" else self.player), action, fields


# A sheet as a table has them (docs/benchmarks.md): a dozen abilities, one a flaw. Every
# player at a table has a character with one, so that the panel offers each of them
# augments while abilities are chosen, as it does at a real table.
SHEET = (
    ("Swimming", 15),
    ("Boatcraft", 14),
    ("Climbing", 13),
    ("Sword fighting", 17),
    ("Riddles", 12),
    ("Haggling", 13),
    ("Singing", 11),
    ("Tracking", 16),
    ("Horse riding", 14),
    ("Lore of the river", 18),
    ("Stubborn", 15),
    ("Afraid of heights", 13),
)


def add_abilities(tables: list[Table]) -> dict[int, tuple[int, int]]:
    """Every player at each table gets a character with a full sheet (the first player's
    is the one in the cycle's contests): {campaign id: (character, its first ability)}."""
    from characters.models import Ability, AbilityKind, Character

    existing = {
        c.campaign_id: c
        for c in Character.objects.filter(campaign_id__in=[t.campaign_id for t in tables])
    }
    Character.objects.bulk_create(
        Character(
            name=f"Companion {t.index}-{i}", player_id=seat.user_id, campaign_id=t.campaign_id
        )
        for t in tables
        for i, seat in enumerate(t.seats[2:], start=2)
    )
    everyone = Character.objects.filter(campaign_id__in=[t.campaign_id for t in tables])
    Ability.objects.bulk_create(
        Ability(
            character=character,
            name=name,
            rating=rating,
            position=position,
            kind=AbilityKind.FLAW if name.startswith("Afraid") else AbilityKind.STANDALONE,
        )
        for character in everyone
        for position, (name, rating) in enumerate(SHEET)
    )
    first = {
        a.character_id: a.pk
        for a in Ability.objects.filter(
            character__in=[c.pk for c in existing.values()], name=SHEET[0][0]
        )
    }
    return {
        t.campaign_id: (existing[t.campaign_id].pk, first[existing[t.campaign_id].pk])
        for t in tables
    }


async def play_step(
    playing: Playing, recorder: Recorder, sockets: list[Client], actions: list[Action]
) -> None:
    """One step of a table's cycle, posted; done once every socket of the table has it
    (or it is counted as lost after LOST_AFTER_S)."""
    http, name, fields = playing.fields()
    action = Action(playing.table.campaign_id, playing.contest_id, fields["key"], 0.0, kind=name)
    actions.append(action)
    path = f"/campaigns/{playing.table.campaign_id}/table/act/"
    action.sent_at = time.perf_counter()
    try:
        status, answer = await http.post_form(path, fields)
    except (OSError, asyncio.IncompleteReadError) as error:
        action.error = f"{name}: {type(error).__name__}"
        return
    acked = ACK_RE.search(answer)
    if status != 200 or not acked:
        said = ERROR_RE.search(answer)
        said = said.group(1).decode()[:120] if said else answer[:120].decode(errors="replace")
        action.error = f"{name}: {status} {said}"
        return
    action.seq = int(acked.group(1))
    if name == "frame":
        gm_socket = next(c for c in sockets if c.role == "gm")
        action.contest_id = await recorder.new_contest(gm_socket, playing.contest_id, LOST_AFTER_S)
        playing.contest_id = action.contest_id
    if await recorder.all_have(action.contest_id, action.seq, len(sockets), LOST_AFTER_S):
        playing.seq = action.seq
        playing.step += 1


async def _advance(
    playing: Playing, steps: int, recorder: Recorder, sockets_of: dict[int, list[Client]]
) -> None:
    """Play `steps` steps of one table's cycle, one after the other, not counted."""
    for _ in range(steps):
        done = playing.step
        await play_step(playing, recorder, sockets_of[playing.table.campaign_id], [])
        if playing.step == done:
            raise BenchError(f"table {playing.table.campaign_id}: a step did not go through")


def _tally(actions: list[Action], recorder: Recorder, sockets_of: dict) -> dict[str, Any]:
    latencies, lost, errors, unanswered = [], 0, collections.Counter(), 0
    by_step: dict[str, list[float]] = collections.defaultdict(list)
    first_error = next((a.error for a in actions if a.error), "")
    for action in actions:
        if action.error:
            errors[action.error.split(":")[0]] += 1
            continue
        if action.seq is None:
            unanswered += 1
            continue
        got = recorder.arrivals.get((action.contest_id, action.seq), {})
        times = [got.get(c.index) for c in sockets_of[action.table]]
        arrived = [t for t in times if t is not None and t - action.sent_at <= LOST_AFTER_S]
        lost += len(times) - len(arrived)
        if len(arrived) == len(times):
            latencies.append(max(arrived) - action.sent_at)
            by_step[action.kind].append(max(arrived) - action.sent_at)
    figures = latency_figures(latencies)
    # Each step of the cycle apart (p50, p99, max): which of them make the tail.
    figures["by_step"] = {
        kind: {k: v for k, v in latency_figures(times).items() if k != "p95_ms"}
        for kind, times in sorted(by_step.items())
    }
    figures.update(
        {
            "actions": len(actions),
            "lost": lost,
            "duplicated": recorder.duplicated,
            "out_of_order": recorder.out_of_order,
            "http_errors": dict(errors),
            "unanswered": unanswered,
        }
    )
    if first_error:
        figures["first_error"] = first_error
    return figures


async def offered_rate(
    playing: list[Playing],
    recorder: Recorder,
    sockets_of: dict[int, list[Client]],
    rate: float,
    seconds: float,
) -> dict[str, Any]:
    """Offer `rate` actions a second for `seconds`: each tick starts a step at the next
    table not still busy with its last one; a tick that finds every table busy is an
    action the server was offered and could not take (it counts against the rate)."""
    actions: list[Action] = []
    recorder.duplicated = recorder.out_of_order = 0
    tasks: set[asyncio.Task] = set()
    count, missed, cursor = int(rate * seconds), 0, 0
    start = time.perf_counter()

    async def run(one: Playing) -> None:
        try:
            await play_step(one, recorder, sockets_of[one.table.campaign_id], actions)
        finally:
            one.busy = False

    for i in range(count):
        delay = start + i / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        for _ in range(len(playing)):
            candidate = playing[cursor % len(playing)]
            cursor += 1
            if not candidate.busy:
                candidate.busy = True
                task = asyncio.create_task(run(candidate))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
                break
        else:
            missed += 1
    elapsed = time.perf_counter() - start
    if tasks:
        await asyncio.wait(tasks, timeout=LOST_AFTER_S + 5)
    figures = _tally(actions, recorder, sockets_of)
    delivered = len(actions) - sum(figures["http_errors"].values()) - figures["unanswered"]
    figures.update(
        {
            "offered_per_s": rate,
            "seconds": round(elapsed, 2),
            "delivered_per_s": round(delivered / max(elapsed, 1e-9), 1),
            "not_started_all_tables_busy": missed,
        }
    )
    figures["met"] = bool(
        figures["p99_ms"] is not None
        and figures["p99_ms"] <= TARGETS["p99_ms"]
        and figures["lost"] == figures["duplicated"] == figures["out_of_order"] == 0
        and not figures["http_errors"]
        and not figures["unanswered"]
        and missed == 0
    )
    return figures


class PostgresWatch:
    """The most connections to one database seen at once (pg_stat_activity, 10 Hz)."""

    def __init__(self, database_url: str) -> None:
        self.url, self.name = database_url, urllib.parse.urlsplit(database_url).path.lstrip("/")
        self.most, self.stopping = 0, threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            while not self.stopping.wait(0.1):
                row = connection.execute(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE datname = %s AND pid <> pg_backend_pid()",
                    (self.name,),
                ).fetchone()
                self.most = max(self.most, row[0])

    def __enter__(self) -> PostgresWatch:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join(5)


@contextlib.contextmanager
def profiled(pid: int, seconds: float, work: Path):
    """py-spy sampling `pid` for `seconds` (if installed); yields a dict filled after."""
    result: dict[str, Any] = {}
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if seconds <= 0 or not Path(spy).exists():
        result["skipped"] = "py-spy is not installed" if seconds > 0 else "not in --small"
        yield result
        return
    out = work / "profile.txt"
    process = start(
        [
            spy,
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(int(seconds)),
            "--rate",
            "250",
            "--format",
            "raw",
            "--output",
            str(out),
            "--nonblocking",
            # Only the thread holding the GIL: Python's own CPU work, not threads
            # waiting in select() or on a lock, which py-spy may count as busy.
            "--gil",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield result
    finally:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=seconds + 30)
        stop(process)
        result.update(profile_shares(out) if out.exists() else {"skipped": "py-spy wrote nothing"})


PROFILE_GROUPS = (
    ("template rendering", ("django/template/", "template_partials")),
    ("ORM query building", ("django/db/models/", "django/db/backends/")),
    ("database I/O (psycopg)", ("psycopg",)),
    ("channel layer and Redis", ("channels_redis", "redis/", "msgpack")),
    ("rules engine and flows", ("contests/core/rules/", "contests/core/table/")),
    (
        "sessions, auth and middleware",
        ("django/contrib/sessions", "django/contrib/auth", "django/middleware", "whitenoise"),
    ),
    (
        "request handling (Django, asgiref)",
        ("django/core/handlers", "asgiref", "django/http", "django/urls"),
    ),
    (
        # uvicorn's own frames, websockets' and httptools'; Daphne's when compared.
        "websockets and server (uvicorn, websockets; Daphne, Twisted, autobahn)",
        ("uvicorn/", "websockets/", "httptools", "daphne", "twisted", "autobahn", "channels/"),
    ),
)


# Where in an action's path the process was, whatever it was doing there: the first stage
# (in this order) with a frame on the sample's stack. A marker with " (" names a function
# as py-spy writes it ("Class.method (file"), matched at a frame's start; any other is a
# part of a path, matched anywhere in a frame.
PROFILE_STAGES = (
    ("the broadcast's rendering (GM's and players' copies)", ("render_audiences (",)),
    ("the broadcast's hand-over to the channel layer", ("send_to_table_sync (",)),
    (
        "the action in the contest services (lock, flow, event, commit)",
        ("contest_act (", "contest_frame ("),
    ),
    (
        "the action's view besides (role, rate limit, reading the form, answer)",
        ("act (contests/views.py",),
    ),
    ("sheet fetches (GET table/me)", ("table_me (",)),
    ("a socket's full state (connect, resync)", ("TableConsumer._render_full_state (",)),
    ("presence (join, leave, heartbeat rows)", ("contests/presence.py",)),
    ("fan-out: each socket's consumer sending the broadcast", ("TableConsumer.table_",)),
    ("Django around the views (middleware, session, user)", ("OneThreadASGIHandler._respond (",)),
    ("the pages' heartbeat pings answered", ("contests/heartbeat.py",)),
    ("the channel layer receiving (Redis)", ("channels_redis/",)),
    ("HTTP server (uvicorn, httptools)", ("httptools_impl",)),
    ("websocket server (uvicorn, websockets)", ("websockets_sansio_impl", "websockets/")),
    ("Channels' consumer plumbing", ("channels/",)),
)


def _stage(frames: list[str]) -> str:
    for name, marks in PROFILE_STAGES:
        for mark in marks:
            if " (" in mark:
                if any(frame.startswith(mark) for frame in frames):
                    return name
            elif any(mark in frame for frame in frames):
                return name
    return "event loop and the rest"


def profile_shares(path: Path) -> dict[str, Any]:
    """py-spy's collapsed stacks, grouped: each sample counted once, for the innermost
    frame's group (what the CPU was doing then); by the stage of an action's path it was
    in (`stages_percent`, PROFILE_STAGES); and the functions most often innermost."""
    counts: collections.Counter = collections.Counter()
    stages: collections.Counter = collections.Counter()
    leaves: collections.Counter = collections.Counter()
    total = 0
    for line in path.read_text(errors="replace").splitlines():
        stack, _, number = line.rpartition(" ")
        if not number.isdigit():
            continue
        samples = int(number)
        total += samples
        frames = stack.split(";")
        leaves[frames[-1]] += samples
        stages[_stage(frames)] += samples
        group = "other (Python, asyncio)"
        for frame in reversed(frames):
            found = next(
                (name for name, marks in PROFILE_GROUPS if any(m in frame for m in marks)), None
            )
            if found:
                group = found
                break
        counts[group] += samples
    if not total:
        return {"samples": 0, "shares_percent": {}, "stages_percent": {}, "top_frames_percent": {}}
    return {
        "samples": total,
        "shares_percent": {k: round(100 * v / total, 1) for k, v in counts.most_common()},
        "stages_percent": {k: round(100 * v / total, 1) for k, v in stages.most_common()},
        "top_frames_percent": {k: round(100 * v / total, 1) for k, v in leaves.most_common(15)},
    }


# --- A whole measurement on one topology ----------------------------------------------------


async def measure(
    host: str,
    port: int,
    tables: list[Table],
    owned: dict[int, tuple[int, int]],
    params: dict[str, Any],
    profile: tuple[int, Path] | None,
    progress: dict[int, int],
    pids: list[int],
) -> tuple[dict[str, Any], str]:
    """Connect every table's 8 sockets and the two actors' browsers at `host:port`, then
    offer each rate in turn; stops after the first rate that misses the target."""
    sockets, keys = _table_clients(tables)
    users = dict(
        zip(
            (socket.index for socket in sockets),
            (seat.user_id for table in tables for seat in table.seats),
            strict=True,
        )
    )
    recorder = PageRecorder(host, port, keys, users)
    sockets_of: dict[int, list[Client]] = collections.defaultdict(list)
    for socket in sockets:
        sockets_of[socket.table].append(socket)
    playing: list[Playing] = []
    pinging: asyncio.Task | None = None
    try:
        opened = await open_clients(sockets, port, recorder, keys, "/ws/tables/{table}/", 300)
        if opened["failed"]:
            raise BenchError(f"of {len(sockets)} sockets, some could not connect: {opened}")
        # Every page at the tables is open and in view, so it pings its socket as a
        # browser does (static/js/table.js), all through the run.
        pinging = asyncio.create_task(_page_heartbeats(sockets, PAGE_PING_SECONDS))
        for table in tables:
            character_id, ability_id = owned[table.campaign_id]
            gm = Http(host, port, table.seats[0].session_key)
            player = Http(host, port, table.seats[1].session_key)
            await gm.log_in_to_table(table.campaign_id)
            await player.log_in_to_table(table.campaign_id)
            first = next(s for s in sockets_of[table.campaign_id] if s.role == "gm")
            playing.append(
                Playing(
                    table,
                    character_id,
                    ability_id,
                    first.contest_id,
                    first.max_seq,
                    gm,
                    player,
                    step=progress.get(table.campaign_id, 0),
                )
            )
        # Tables at a real evening are not in step with one another: on the first run,
        # table i is played i steps into the cycle (not counted), so that each moment's
        # actions mix every kind of step instead of 60 framings at once.
        if not progress:
            log("  spreading the tables over the cycle")
            await asyncio.gather(
                *(
                    _advance(one, i % len(CYCLE), recorder, sockets_of)
                    for i, one in enumerate(playing)
                )
            )
        # A server that has just started warms up first (its pool's connections, each
        # query's first run, the first renders): played at the first rate, not counted.
        log(f"  warming up at {params['rates'][0]} actions/s for {params['warmup_seconds']} s")
        await offered_rate(
            playing, recorder, sockets_of, params["rates"][0], params["warmup_seconds"]
        )
        steps, capacity = [], 0
        for rate in params["rates"]:
            log(f"  offering {rate} actions/s for {params['step_seconds']} s")
            before = cpu_by_program(pids)
            step = await offered_rate(playing, recorder, sockets_of, rate, params["step_seconds"])
            # CPU per action, all in (the step's pings and sheet fetches too): steadier
            # than latency on a noisy machine, so the figure to compare two changes by;
            # and what every program on the machine spent per action.
            done = max(1, step["actions"])
            used = {k: v - before[k] for k, v in cpu_by_program(pids).items()}
            step["server_cpu_ms_per_action"] = round(1000 * used["app"] / done, 2)
            step["bench_cpu_ms_per_action"] = round(1000 * used["bench"] / done, 2)
            step["machine_cpu_ms_per_action"] = {
                k: round(1000 * v / done, 2) for k, v in used.items()
            }
            # The rate at which every CPU of the machine would be busy at that cost: no
            # latency target can be met above it, however the work is spread.
            step["cpu_bound_per_s"] = round(
                (os.cpu_count() or 1) / max(1e-9, used["machine"] / done)
            )
            log(
                f"    p50 {step['p50_ms']} ms, p99 {step['p99_ms']} ms, "
                f"delivered {step['delivered_per_s']}/s, met {step['met']}, "
                f"server CPU {step['server_cpu_ms_per_action']} ms an action"
            )
            steps.append(step)
            if not step["met"]:
                break
            capacity = rate
        measured = {
            "steps": steps,
            "capacity_per_s": capacity,
            "light_load": steps[0],
            # What the players' pages fetched besides (their own sheets), warm-up included.
            "sheet_reloads": {
                "fetched": recorder.sheet_fetches,
                "not_200": recorder.sheet_errors,
            },
        }
        if profile:
            # Where the process's CPU goes at a steady rate it sustains: sampled apart
            # from the search, so the sampling costs none of its figures.
            rate = params["profile_rate"]
            log(f"  profiling at {rate} actions/s for {params['profile_seconds']} s")
            with profiled(profile[0], params["profile_seconds"], profile[1]) as shares:
                await offered_rate(playing, recorder, sockets_of, rate, params["profile_seconds"])
            measured["profile"] = {"rate_per_s": rate, **shares}
        # The players' broadcasts as they came (the stack's floor sends one like them).
        sent = recorder.broadcast_bytes.get("player", [0, 0])
        measured["player_broadcast_mean_bytes"] = sent[0] // max(1, sent[1])
        return measured, recorder.samples.get("player", "")
    finally:
        if pinging is not None:
            pinging.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pinging
        for one in playing:
            # Where each table is in its cycle, for the next topology's run.
            progress[one.table.campaign_id] = one.step
            await one.gm.close()
            await one.player.close()
        await close_clients(sockets)
        await recorder.close()


def floor_message(sample: str, mean_bytes: int) -> str:
    """A player's broadcast from the real run, padded (an HTML comment) to the run's mean
    size of a player's broadcast: what the stack's floor sends for every step."""
    short = mean_bytes - len(sample.encode()) - len("<!--  -->")
    return sample + (f"<!-- {'x' * short} -->" if short > 0 else "")


@dataclass
class Playground:
    """Where one topology plays: its label, its processes, and the run's files and tables."""

    label: str
    count: int
    work: Path
    static_root: Path
    database_url: str
    watch_pg: bool
    tables: list[Table]
    owned: dict[int, tuple[int, int]]
    # Each table's place in its cycle, carried from one topology's run to the next.
    progress: dict[int, int]


def topology(
    env: dict[str, str], ground: Playground, params: dict[str, Any], logs: str = "server"
) -> tuple[dict[str, Any], str]:
    """`ground.count` app processes (behind nginx if more than one) serving `env`,
    measured by `measure`; one process is profiled too. Their stderr goes to
    `<logs>-<label>-<i>.log` in the run's folder."""
    with contextlib.ExitStack() as stack:
        servers = [
            stack.enter_context(
                app_process(
                    env,
                    stderr_path=ground.work / f"{logs}-{ground.label}-{i}.log",
                    server=params["server"],
                )
            )
            for i in range(ground.count)
        ]
        if ground.count > 1:
            upstreams = [base.removeprefix("http://") for _, base in servers]
            _nginx, base = stack.enter_context(
                nginx_balancer(upstreams, static_root=ground.static_root)
            )
        else:
            base = servers[0][1]
        port = urllib.parse.urlsplit(base).port
        watch = stack.enter_context(PostgresWatch(ground.database_url)) if ground.watch_pg else None
        meters = [CpuMeter(process.pid) for process, _ in servers]
        profile = (servers[0][0].pid, ground.work) if ground.count == 1 else None
        measured, sample = asyncio.run(
            measure(
                "127.0.0.1",
                port,
                ground.tables,
                ground.owned,
                params,
                profile,
                ground.progress,
                [process.pid for process, _ in servers],
            )
        )
        measured["server_cpu_percent"] = [meter.percent() for meter in meters]
        if watch:
            measured["postgres_connections"] = {
                "most_seen": watch.most,
                "bound": ground.count * params["pool"],
            }
    return measured, sample


def stack_floor(
    env: dict[str, str],
    grounds: list[Playground],
    params: dict[str, Any],
    sample: str,
    mean_bytes: int,
) -> dict[str, Any]:
    """The same browsers, cycle, rates and topologies against processes whose
    `table/act/` does only what any action must (bench/floor_urls.py): the stack's own
    cost per action on this machine, which no work in the app can remove."""
    floor_env = dict(
        env,
        DJANGO_SETTINGS_MODULE="bench.floor_settings",
        FLOOR_MESSAGE=floor_message(sample, mean_bytes),
    )
    floor: dict[str, Any] = {"message_bytes": len(floor_env["FLOOR_MESSAGE"].encode())}
    for ground in grounds:
        log(f"stack floor, {ground.label}: table/act/ doing only what any action must")
        floor[ground.label], _ = topology(floor_env, ground, params, logs="floor")
    return floor


def run(params: dict[str, Any], redis_url: str, work: Path) -> dict[str, Any]:
    started = time.monotonic()
    figures: dict[str, Any] = {
        "benchmark": "browsers_path",
        "mode": params["mode"],
        "server": params["server"],
        "machine": {
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
            "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
            "python_loop_ms_at_start": python_loop_ms(),
        },
        "targets": TARGETS,
    }
    figures["machine"]["open_file_limit"] = raise_open_file_limit(
        params["tables"] * CLIENTS_PER_TABLE * 4 + params["idle_sockets"] * 2 + 1024
    )
    with fresh_database(work, template="migrated") as database_url:
        figures["machine"]["database"] = (
            "postgresql" if database_url.startswith("postgres") else "sqlite"
        )
        # The GM acts several times a second at high rates, above a person's limit
        # (ACTION_RATE_LIMIT): the limiter is still asked on every action, never refuses.
        env = server_env(
            database_url,
            ALLOWED_HOSTS="127.0.0.1,localhost",
            ACTION_RATE_LIMIT="100000/10 seconds",
            DB_POOL_MAX_SIZE=str(params["pool"]),
            CHANNEL_LAYER=os.environ.get("CHANNEL_LAYER", "pubsub"),
        )
        # As in production: DEBUG off (no query log kept per request), static files
        # collected (served by nginx in front of several processes).
        static_root = work / "static"
        env.update(
            REDIS_URL=redis_url,
            DEBUG="false",
            SECRET_KEY="bench-" + uuid.uuid4().hex,
            STATIC_ROOT=str(static_root),
        )
        env.pop("REQUIRE_SERVICES", None)
        manage(env, "collectstatic", "--noinput")
        # The sessions made here must verify under the servers' key; this process keeps
        # no pooled connection open (only the servers' count against their bound).
        os.environ["SECRET_KEY"] = env["SECRET_KEY"]
        os.environ["DB_POOL_MAX_SIZE"] = "0"
        setup_django(database_url)
        from django.db import connections

        log(f"creating {params['tables']} tables")
        tables = make_tables(params["tables"])
        owned = add_abilities(tables)
        connections.close_all()
        watch_pg = figures["machine"]["database"] == "postgresql"
        figures["capacity"] = {}
        progress: dict[int, int] = {}
        fragment = ""
        processes = {"1_process": 1, f"{params['processes']}_processes_nginx": params["processes"]}
        grounds = [
            Playground(
                label, count, work, static_root, database_url, watch_pg, tables, owned, progress
            )
            for label, count in processes.items()
        ]
        for ground in grounds:
            log(
                f"{ground.label}: {ground.count} {params['server']} process(es)"
                + (" behind nginx" if ground.count > 1 else "")
            )
            measured, sample = topology(env, ground, params)
            measured["met"] = measured["capacity_per_s"] >= TARGETS["capacity_per_s"]
            figures["capacity"][ground.label] = measured
            fragment = fragment or sample
        if fragment:
            mean = figures["capacity"]["1_process"].get("player_broadcast_mean_bytes", 0)
            figures["stack_floor"] = stack_floor(env, grounds, params, fragment, mean)
        log(f"idle: {params['idle_sockets']} sockets on 1 {params['server']} process")
        with app_process(env, stderr_path=work / "server-idle.log", server=params["server"]) as (
            process,
            base,
        ):
            port = urllib.parse.urlsplit(base).port
            idle = asyncio.run(
                idle_sockets(
                    port,
                    process.pid,
                    tables,
                    params["idle_sockets"],
                    params["idle_sample_seconds"],
                    ping_every=PAGE_PING_SECONDS,
                )
            )
        idle["met"] = bool(
            idle["open"] == idle["sockets"] and idle["cpu_percent"] < TARGETS["idle_cpu_percent"]
        )
        figures["idle_sockets"] = idle
        log(
            f"  idle {idle['cpu_percent']}% of a core, with the page heartbeat "
            f"{idle['page_heartbeat']['cpu_percent']}%"
        )
        if fragment:
            log("bare websockets server")
            with bare_server(work / "bare.log") as bare_port:
                figures["bare_websockets"] = asyncio.run(
                    bare_fanout(bare_port, fragment, params["bare_samples"])
                )
        light = figures["capacity"]["1_process"]["light_load"]
        figures["targets_met"] = {
            "capacity": any(m["met"] for m in figures["capacity"].values()),
            "light_load_p50": light["p50_ms"] is not None
            and light["p50_ms"] <= TARGETS["light_p50_ms"],
            "light_load_p99": light["p99_ms"] is not None
            and light["p99_ms"] <= TARGETS["light_p99_ms"],
            "idle_sockets": figures["idle_sockets"]["met"],
        }
    figures["machine"]["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    figures["machine"]["python_loop_ms_at_end"] = python_loop_ms()
    figures["elapsed_seconds"] = round(time.monotonic() - started, 1)
    return figures


def _alarm(signum, frame) -> None:
    raise TimeoutError("the benchmark ran past its time limit")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="a quick run (used by the tests)")
    parser.add_argument("--processes", type=int, help="app processes behind nginx (default 2)")
    parser.add_argument("--rates", help="the offered rates to try, e.g. 10,20,40")
    parser.add_argument(
        "--server",
        choices=sorted(SERVERS),
        default=DEFAULT_SERVER,
        help="the ASGI server to run (daphne: for comparison, if installed)",
    )
    args = parser.parse_args(argv)
    params = dict(SMALL if args.small else FULL)
    params["mode"] = "small" if args.small else "full"
    params["server"] = args.server
    if args.processes:
        params["processes"] = args.processes
    if args.rates:
        try:
            params["rates"] = tuple(float(r) for r in args.rates.split(",") if r.strip())
        except ValueError:
            parser.error("--rates: numbers separated by commas, e.g. 10,20,40")
        if not params["rates"] or min(params["rates"]) <= 0:
            parser.error("--rates: give at least one rate above 0")
    redis_url = os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(params["alarm_seconds"])
    try:
        loopback_only(redis_url, "REDIS_URL")
        database_url = os.environ.get("DATABASE_URL", "")
        if database_url.startswith(("postgres://", "postgresql://")):
            loopback_only(database_url, "DATABASE_URL")
        check_redis(redis_url)
        with tempfile.TemporaryDirectory(prefix="bench_http_") as work:
            figures = run(params, redis_url, Path(work))
    except (BenchError, ServerError) as error:
        print(f"bench.http_path: {error}", file=sys.stderr)
        return 2
    finally:
        signal.alarm(0)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
