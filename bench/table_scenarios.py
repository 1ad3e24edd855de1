"""The live-table benchmark's scenarios: one table's fan-out latency, many tables under
load, many idle sockets, and the same fan-out through a bare `websockets` server."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import time
import uuid
from collections.abc import Callable
from typing import Any

from .table_clients import (
    Action,
    Client,
    Recorder,
    _action_message,
    _table_clients,
    _tally,
    _wait_settled,
    close_clients,
    contest_seq,
    open_clients,
    wait_quiet,
    with_seq,
)
from .table_common import CLIENTS_PER_TABLE, PACE_PER_S, TARGETS, BenchError
from .table_data import Table
from .table_system import CpuMeter, ThreadMeter, memory_mb, open_fds


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
                "server_cpu_percent": server_cpu.percent(),
                "server_threads": threads.figures(),
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


# What a table page sends every 2 s while it is in view (static/js/table-connection.js).
PAGE_PING = '{"action":"ping"}'


async def _page_heartbeats(
    clients: list[Client], every: float, active: Callable[[], bool] | None = None
) -> None:
    """Each client pings as an open page in view does (static/js/table.js): every `every`
    seconds, the clients spread evenly over the period, unless it heard from the server
    in the last half period, or (`active` false) the pages are hidden for now."""
    start = time.perf_counter()
    beat = 0
    while True:
        for index, client in enumerate(clients):
            due = start + beat * every + index * every / len(clients)
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            quiet = time.perf_counter() - client.heard_at >= every / 2
            shown = active is None or active()
            if quiet and shown and client.reader is not None and not client.reader.done():
                with contextlib.suppress(Exception):
                    await client.ws.send(PAGE_PING)
        beat += 1


async def idle_sockets(
    port: int,
    pid: int,
    tables: list[Table],
    sockets: int,
    sample_seconds: float,
    ping_every: float | None = None,
) -> dict[str, Any]:
    """Figure 3: `sockets` idle connections spread over the tables (reusing each table's
    8 users, several sockets per user), then the server process's CPU and memory.

    With `ping_every`, CPU is sampled a second time while every socket sends the page's
    heartbeat at that period (the pages are open and in view, nobody acts)."""
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
            "server_open_fds": open_fds(pid),
            "target": TARGETS["idle_sockets"],
        }
        figures["met"] = bool(cpu < TARGETS["idle_sockets"]["cpu_percent"] and alive == sockets)
        if ping_every:
            pongs_before = recorder.pongs
            pinging = asyncio.create_task(_page_heartbeats(clients, ping_every))
            try:
                await asyncio.sleep(ping_every)  # every socket has pinged once
                meter.start()
                pongs_at = recorder.pongs
                await asyncio.sleep(sample_seconds)
                figures["page_heartbeat"] = {
                    "ping_every_s": ping_every,
                    "cpu_percent": meter.percent(),
                    "pongs_per_s": round((recorder.pongs - pongs_at) / sample_seconds, 1),
                    "pongs": recorder.pongs - pongs_before,
                }
            finally:
                pinging.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await pinging
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
