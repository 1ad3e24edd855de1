"""The live-table benchmark's websocket clients: connecting them with real session
cookies, recording what each receives (first arrivals, duplicates, out-of-order
broadcasts, acks and errors), and tallying the latencies and losses of the actions sent."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from .table_common import (
    CONNECT_ATTEMPTS,
    CONNECT_CONCURRENCY,
    GRACE_S,
    LOST_AFTER_S,
    latency_figures,
    log,
)
from .table_data import Table

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


# --- Websocket clients ----------------------------------------------------------------------


@dataclass
class Action:
    table: int
    contest_id: int
    key: str
    sent_at: float
    seq: int | None = None
    error: str = ""
    kind: str = ""  # which step of the cycle it is, where the benchmark says
    # Refused by a full process ("the table is busy", HTTP 503): how long its answer took.
    busy_after: float | None = None


@dataclass
class Client:
    index: int
    table: int
    role: str
    contest_id: int
    ws: Any = None
    reader: asyncio.Task | None = None
    baseline: int | None = None  # the contest's seq in the full state sent on connect
    max_seq: int = 0  # of the contest it shows (`contest_id`)
    seen: set[tuple[int, int]] = field(default_factory=set)  # (contest id, seq)
    pending: collections.deque = field(default_factory=collections.deque)
    close_code: int | None = None
    heard_at: float = 0.0  # when it last received anything (perf_counter)


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
        self.pongs = 0  # answers to the page's heartbeat
        self.last_message_at = time.perf_counter()
        self.sizes: dict[str, int] = {}
        self.samples: dict[str, str] = {}
        # Every broadcast's size, by role: {role: [bytes, messages]}.
        self.broadcast_bytes: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
        # Who waits for what, woken by the message that completes it (no polling: the
        # benchmark's client shares the machine with the server it measures).
        self.step_waiters: dict[tuple[int, int], tuple[int, asyncio.Future]] = {}
        self.contest_waiters: dict[int, asyncio.Future] = {}

    async def all_have(self, contest_id: int, seq: int, count: int, limit: float) -> bool:
        """Whether `count` clients have step `seq` of the contest within `limit` seconds."""
        key = (contest_id, seq)
        if len(self.arrivals.get(key, ())) >= count:
            return True
        future = asyncio.get_running_loop().create_future()
        self.step_waiters[key] = (count, future)
        try:
            await asyncio.wait_for(future, limit)
            return True
        except TimeoutError:
            return False
        finally:
            self.step_waiters.pop(key, None)

    async def new_contest(self, client: Client, old: int, limit: float) -> int:
        """The contest `client` shows once it is no longer `old` (or `old` after `limit`)."""
        if client.contest_id != old:
            return client.contest_id
        future = asyncio.get_running_loop().create_future()
        self.contest_waiters[client.index] = future
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(future, limit)
        self.contest_waiters.pop(client.index, None)
        return client.contest_id

    def on_message(self, client: Client, message: str | bytes, now: float) -> None:
        if isinstance(message, bytes):
            message = message.decode("utf-8", "replace")
        self.messages += 1
        self.last_message_at = client.heard_at = now
        found = contest_seq(message)
        if found:
            contest_id, seq = found
            full_state = 'id="presence"' in message
            if self.expect_full_state and client.baseline is None and full_state:
                client.baseline = client.max_seq = seq
                client.contest_id = contest_id
                return
            self.broadcasts += 1
            if contest_id != client.contest_id and contest_id > client.contest_id:
                # A new contest is framed: its steps count from 1.
                client.contest_id, client.max_seq = contest_id, 0
                waiter = self.contest_waiters.get(client.index)
                if waiter is not None and not waiter.done():
                    waiter.set_result(contest_id)
            if (contest_id, seq) in client.seen:
                self.duplicated += 1
            elif contest_id < client.contest_id or seq < client.max_seq:
                self.out_of_order += 1
            client.seen.add((contest_id, seq))
            if contest_id == client.contest_id:
                client.max_seq = max(client.max_seq, seq)
            arrived = self.arrivals.setdefault((contest_id, seq), {})
            arrived.setdefault(client.index, now)
            waiter = self.step_waiters.get((contest_id, seq))
            if waiter is not None and len(arrived) >= waiter[0] and not waiter[1].done():
                waiter[1].set_result(True)
            size = self.sizes[client.role] = len(message.encode())
            self.samples[client.role] = message
            total = self.broadcast_bytes[client.role]
            total[0] += size
            total[1] += 1
            return
        if 'id="table-pong"' in message:
            self.pongs += 1
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
        "compression": None,  # the server never negotiates it (--ws-per-message-deflate false)
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
