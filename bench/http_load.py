"""The browsers'-path benchmark's load and measurement: actions offered at a rate and
tallied, the PostgreSQL connections watched, a topology's pages at their tables
(`prepare`) and its ladder of rates (`ladder`), taken in turns with the stack's floor
(`Turns`; the topologies themselves: http_topology.py)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import math
import os
import threading
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .http_client import Http
from .http_cycle import CYCLE, Playing, advance, play_step
from .http_pages import PAGE_PING_SECONDS, PageRecorder
from .http_profile import profiled
from .table_clients import Action, Client, Recorder, _table_clients, close_clients, open_clients
from .table_common import LOST_AFTER_S, BenchError, latency_figures, log
from .table_data import Table
from .table_scenarios import _page_heartbeats
from .table_system import cpu_by_program

# The benchmark's targets: each offered rate is judged against the p99 here, the whole run
# (bench.http_path) against the rest.
TARGETS = {
    "capacity_per_s": 100,
    "p99_ms": 100.0,
    "light_p50_ms": 15.0,
    "light_p99_ms": 40.0,
    "idle_cpu_percent": 5.0,
}


def _tally(actions: list[Action], recorder: Recorder, sockets_of: dict) -> dict[str, Any]:
    latencies, lost, errors, unanswered = [], 0, collections.Counter(), 0
    by_step: dict[str, list[float]] = collections.defaultdict(list)
    first_error = next((a.error for a in actions if a.error), "")
    busy = [a.busy_after for a in actions if a.busy_after is not None]
    for action in actions:
        if action.busy_after is not None:
            continue
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
            # Answered "the table is busy" (503) by a full process: how many, how fast.
            "refused_busy": len(busy),
            "refusal_answer": {
                k: v for k, v in latency_figures(busy).items() if k not in ("samples", "p95_ms")
            },
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
    delivered = (
        len(actions)
        - sum(figures["http_errors"].values())
        - figures["unanswered"]
        - figures["refused_busy"]
    )
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
        and not figures["refused_busy"]
        and missed == 0
    )
    return figures


async def _settled(pids: list[int], idle_share: float = 0.35, most_s: float = 60.0) -> None:
    """Wait (at most `most_s`) until the app's processes use less than `idle_share` of a
    core each over a second: the pages' heartbeat alone, no backlog left."""
    deadline = time.perf_counter() + most_s
    while time.perf_counter() < deadline:
        before = cpu_by_program(pids)["app"]
        await asyncio.sleep(1.0)
        if cpu_by_program(pids)["app"] - before < idle_share * len(pids):
            return
    log(f"  the server was still busy after {most_s} s; measuring anyway")


async def _overloaded(
    playing: list[Playing],
    recorder: Recorder,
    sockets_of: dict[int, list[Client]],
    params: dict[str, Any],
    capacity: float,
) -> dict[str, Any]:
    """Past capacity it bends, not breaks (issue 29): `overload_factor` times the
    capacity just found (or the first rate, if none was met) offered to one process.
    What it delivers, against its capacity; the actions answered "the table is busy"
    (503) and how fast; whether everything it took reached every page of its table."""
    base = capacity or params["rates"][0]
    rate = params["overload_factor"] * base
    log(
        f"  past capacity: offering {rate} actions/s ({params['overload_factor']}x) for "
        f"{params['step_seconds']} s"
    )
    step = await offered_rate(playing, recorder, sockets_of, rate, params["step_seconds"])
    step["capacity_per_s"] = capacity
    step["delivered_of_capacity"] = round(step["delivered_per_s"] / base, 2)
    step["held"] = bool(
        step["delivered_of_capacity"] >= 0.9
        and step["lost"] == step["duplicated"] == step["out_of_order"] == 0
        and not step["http_errors"]
        and not step["unanswered"]
    )
    log(
        f"    delivered {step['delivered_per_s']}/s ({step['delivered_of_capacity']}x the "
        f"capacity), {step['refused_busy']} answered busy (p99 "
        f"{step['refusal_answer']['p99_ms']} ms), lost {step['lost']}, held {step['held']}"
    )
    return step


SPREADING_AT_ONCE = 6


class PostgresWatch:
    """The most connections to one database seen at once (pg_stat_activity, 10 Hz), of
    the clients named `application` (all with "")."""

    def __init__(self, database_url: str, application: str = "") -> None:
        self.url, self.name = database_url, urllib.parse.urlsplit(database_url).path.lstrip("/")
        self.application = application
        self.most, self.stopping = 0, threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            while not self.stopping.wait(0.1):
                row = connection.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s"
                    " AND pid <> pg_backend_pid() AND (%s = '' OR application_name = %s)",
                    (self.name, self.application, self.application),
                ).fetchone()
                self.most = max(self.most, row[0])

    def __enter__(self) -> PostgresWatch:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join(5)


# --- A whole measurement on one topology ----------------------------------------------------


class Turns:
    """The app and its floor measured in turns, rate by rate (bench.http_path): this
    shared machine's speed drifts by several times within minutes, so each of the app's
    steps is compared with the floor's taken right after it. Only the side whose turn it
    is offers actions and has its pages ping (the other's are hidden tabs: open, quiet).
    With one side, it is always its turn."""

    def __init__(self, sides: tuple[str, ...]) -> None:
        self.sides, self.turn, self.done = sides, sides[0], set[str]()
        self.changed = asyncio.Event()

    def active(self, side: str) -> bool:
        return self.turn == side

    def _next(self, side: str) -> None:
        others = [s for s in self.sides if s != side and s not in self.done]
        if others:
            self.turn = others[0]
        self.changed.set()
        self.changed = asyncio.Event()

    @contextlib.asynccontextmanager
    async def of(self, side: str, pids: list[int]):
        """This side's turn: wait for it; at its end, wait until the side's server has
        worked off its backlog, then hand the turn on."""
        while self.turn != side:
            await self.changed.wait()
        try:
            yield
        finally:
            await _settled(pids)
            self._next(side)

    def finish(self, side: str) -> None:
        self.done.add(side)
        if self.turn == side:
            self._next(side)


@dataclass
class Session:
    """One topology's pages at their tables: the sockets, the two actors' browsers, what
    the pages received, and their heartbeat."""

    pids: list[int]
    sockets: list[Client]
    recorder: PageRecorder
    sockets_of: dict[int, list[Client]]
    playing: list[Playing]
    progress: dict[int, int]
    pinging: asyncio.Task | None = None
    turns: Turns | None = None
    side: str = "app"

    def pings(self) -> bool:
        """Whether the pages ping now: always, but while the other side's turn lasts."""
        return self.turns is None or self.turns.active(self.side)


async def prepare(
    host: str,
    port: int,
    tables: list[Table],
    owned: dict[int, tuple[int, int]],
    progress: dict[int, int],
    pids: list[int],
) -> Session:
    """Connect every table's 8 sockets and the two actors' browsers at `host:port`, and
    spread the tables over the cycle; the pages ping as open pages in view do."""
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
    session = Session(pids, sockets, recorder, sockets_of, [], progress)
    opened = await open_clients(sockets, port, recorder, keys, "/ws/tables/{table}/", 300)
    if opened["failed"]:
        await close(session)
        raise BenchError(f"of {len(sockets)} sockets, some could not connect: {opened}")
    # Every page at the tables is open and in view, so it pings its socket as a browser
    # does (static/js/table.js), all through the run (but while the other side measures).
    session.pinging = asyncio.create_task(
        _page_heartbeats(sockets, PAGE_PING_SECONDS, active=session.pings)
    )
    for table in tables:
        character_id, ability_id = owned[table.campaign_id]
        gm = Http(host, port, table.seats[0].session_key)
        player = Http(host, port, table.seats[1].session_key)
        await gm.log_in_to_table(table.campaign_id)
        await player.log_in_to_table(table.campaign_id)
        first = next(s for s in sockets_of[table.campaign_id] if s.role == "gm")
        session.playing.append(
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
    # Tables at a real evening are not in step with one another: on the first run, table
    # i is played i steps into the cycle (not counted), so that each moment's actions mix
    # every kind of step instead of 60 framings at once.
    await _settled(pids)
    if not progress:
        log("  spreading the tables over the cycle")
        # A few tables at a time: all of them at once is a burst past what a process
        # takes, answered "busy" over and over (not what is measured here).
        few = asyncio.Semaphore(SPREADING_AT_ONCE)

        async def spread(one: Playing, steps: int) -> None:
            async with few:
                await advance(one, steps, recorder, sockets_of)

        await asyncio.gather(
            *(spread(one, i % len(CYCLE)) for i, one in enumerate(session.playing))
        )
    # Opening every page and spreading the tables leave the server a backlog (each page's
    # full state, presence, the pages' sheets): measured from a server still working
    # through it, every rate would inherit a standing queue.
    await _settled(pids)
    return session


async def ladder(
    session: Session,
    params: dict[str, Any],
    profile: tuple[int, Path] | None,
    turns: Turns,
    side: str = "app",
) -> dict[str, Any]:
    """Offer each rate in turn (each in this side's turn); stops after the first rate
    missed twice. Then, on one process, past capacity and the profile."""
    session.turns, session.side = turns, side
    playing, recorder, sockets_of, pids = (
        session.playing,
        session.recorder,
        session.sockets_of,
        session.pids,
    )
    try:
        # A server that has just started warms up first (its pool's connections, each
        # query's first run, the first renders): played at the first rate, not counted.
        rate = params["rates"][0]
        warmup = warmup_seconds(params, len(playing), rate)
        async with turns.of(side, pids):
            log(f"  {side}: warming up at {rate} actions/s for {warmup} s")
            await offered_rate(playing, recorder, sockets_of, rate, warmup)
        steps, capacity, missed = [], 0.0, None
        for rate in params["rates"]:
            async with turns.of(side, pids):
                step = await _step(session, rate, params)
            steps.append(step)
            if not step["met"]:
                missed = rate
                break
            capacity = rate
        # Where the capacity lies between the last rate met and the first missed (up to
        # 30% apart at the ladder's top), found more closely: the rate between them is
        # tried, and so on, until they are within `finest` of each other.
        while missed is not None and (rate := between(capacity, missed, params["finest"])):
            async with turns.of(side, pids):
                step = await _step(session, rate, params)
            step["between"] = [capacity, missed]
            steps.append(step)
            if step["met"]:
                capacity = rate
            else:
                missed = rate
        overload = None
        if params.get("overload_factor") and profile is not None:
            async with turns.of(side, pids):
                overload = await _overloaded(playing, recorder, sockets_of, params, capacity)
        measured = {
            "steps": steps,
            "capacity_per_s": capacity,
            # False when the ladder's top rate was met: the capacity is at least that.
            "capacity_found": missed is not None,
            "light_load": steps[0],
            # What the players' pages fetched besides (their own sheets), warm-up included.
            "sheet_reloads": {
                "fetched": recorder.sheet_fetches,
                "not_200": recorder.sheet_errors,
            },
        }
        if overload is not None:
            measured["overload"] = overload
        if profile:
            # Where the process's CPU goes at a steady rate it sustains: sampled apart
            # from the search, so the sampling costs none of its figures.
            rate = params["profile_rate"]
            async with turns.of(side, pids):
                log(f"  {side}: profiling at {rate} actions/s for {params['profile_seconds']} s")
                with profiled(profile[0], params["profile_seconds"], profile[1]) as shares:
                    await offered_rate(
                        playing, recorder, sockets_of, rate, params["profile_seconds"]
                    )
            measured["profile"] = {"rate_per_s": rate, **shares}
        # The players' broadcasts as they came (the stack's floor sends one like them).
        sent = recorder.broadcast_bytes.get("player", [0, 0])
        measured["player_broadcast_mean_bytes"] = sent[0] // max(1, sent[1])
        return measured
    finally:
        turns.finish(side)


def warmup_seconds(params: dict[str, Any], tables: int, rate: float) -> float:
    """How long a started server warms up at the first rate: `warmup_seconds`, or
    longer if that is what it takes for each table to play `warmup_cycles` whole cycles
    (the steps go to the tables in turn, each table at its own place in the cycle, so
    `tables` times the cycle's length of steps bring each kind of step to every table)."""
    cycles = params.get("warmup_cycles", 0) * tables * len(CYCLE) / rate
    return round(max(params["warmup_seconds"], cycles), 1)


def between(met: float, missed: float, finest: float) -> float | None:
    """The rate to try between the highest rate met and the lowest missed: their
    geometric middle, a whole rate. None when nothing was met, when the two are within
    `finest` of each other (a ratio: 1.1 is 10%), or when no whole rate lies between."""
    if met <= 0 or missed / met <= finest:
        return None
    middle = round(math.sqrt(met * missed))
    return float(middle) if met < middle < missed else None


async def _step(session: Session, rate: float, params: dict[str, Any]) -> dict[str, Any]:
    """One rate offered for a step's time, with the CPU it cost; a miss tried once more."""
    playing, recorder, sockets_of, pids = (
        session.playing,
        session.recorder,
        session.sockets_of,
        session.pids,
    )
    log(f"  {session.side}: offering {rate} actions/s for {params['step_seconds']} s")
    before = cpu_by_program(pids)
    step = await offered_rate(playing, recorder, sockets_of, rate, params["step_seconds"])
    # CPU per action, all in (the step's pings and sheet fetches too): steadier than
    # latency on a noisy machine, so the figure to compare two changes by; and what every
    # program on the machine spent per action.
    done = max(1, step["actions"])
    used = {k: v - before[k] for k, v in cpu_by_program(pids).items()}
    step["server_cpu_ms_per_action"] = round(1000 * used["app"] / done, 2)
    step["bench_cpu_ms_per_action"] = round(1000 * used["bench"] / done, 2)
    step["machine_cpu_ms_per_action"] = {k: round(1000 * v / done, 2) for k, v in used.items()}
    # The rate at which every CPU of the machine would be busy at that cost: no latency
    # target can be met above it, however the work is spread.
    step["cpu_bound_per_s"] = round((os.cpu_count() or 1) / max(1e-9, used["machine"] / done))
    log(
        f"    p50 {step['p50_ms']} ms, p99 {step['p99_ms']} ms, "
        f"delivered {step['delivered_per_s']}/s, met {step['met']}, "
        f"server CPU {step['server_cpu_ms_per_action']} ms an action"
    )
    if not step["met"]:
        # One window of ~100 steps misses p99 on a single stall of this shared machine
        # (its steal time): a rate counts as missed when a second window, once the
        # server has worked off the first one's backlog, misses it too. The same for
        # the app and the stack's floor.
        log("    missed: once the server settles, trying the rate again")
        await _settled(pids)
        again = await offered_rate(playing, recorder, sockets_of, rate, params["step_seconds"])
        log(f"    again: p50 {again['p50_ms']} ms, p99 {again['p99_ms']} ms, met {again['met']}")
        step["again"] = {k: again[k] for k in ("p50_ms", "p99_ms", "met", "lost")}
        step["met"] = again["met"]
    return step


async def close(session: Session) -> None:
    """Stop the pages' heartbeat; close the browsers and the sockets. Each table's place
    in its cycle is kept for the next topology's run."""
    if session.pinging is not None:
        session.pinging.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await session.pinging
    for one in session.playing:
        session.progress[one.table.campaign_id] = one.step
        await one.gm.close()
        await one.player.close()
    await close_clients(session.sockets)
    await session.recorder.close()
