"""The browsers'-path benchmark's load and measurement: actions offered at a rate and
tallied, the PostgreSQL connections watched, one topology (1 process, or N behind nginx)
measured rate by rate, and the stack's floor measured the same way."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import threading
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.liveserver import app_process, nginx_balancer

from .http_client import Http
from .http_cycle import CYCLE, Playing, advance, play_step
from .http_pages import PAGE_PING_SECONDS, PageRecorder
from .http_profile import profiled
from .table_clients import Action, Client, Recorder, _table_clients, close_clients, open_clients
from .table_common import LOST_AFTER_S, BenchError, latency_figures, log
from .table_data import Table
from .table_scenarios import _page_heartbeats
from .table_system import CpuMeter, cpu_by_program

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
        await _settled(pids)
        if not progress:
            log("  spreading the tables over the cycle")
            # A few tables at a time: all of them at once is a burst past what a
            # process takes, answered "busy" over and over (not what is measured here).
            few = asyncio.Semaphore(SPREADING_AT_ONCE)

            async def spread(one: Playing, steps: int) -> None:
                async with few:
                    await advance(one, steps, recorder, sockets_of)

            await asyncio.gather(*(spread(one, i % len(CYCLE)) for i, one in enumerate(playing)))
        # Opening every page and spreading the tables leave the server a backlog (each
        # page's full state, presence, the pages' sheets): measured from a server
        # still working through it, every rate would inherit a standing queue.
        await _settled(pids)
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
            if not step["met"]:
                # One window of ~100 steps misses p99 on a single stall of this shared
                # machine (its steal time): a rate counts as missed when a second window,
                # once the server has worked off the first one's backlog, misses it too.
                # The same for the app and the stack's floor.
                log("    missed: once the server settles, trying the rate again")
                await _settled(pids)
                again = await offered_rate(
                    playing, recorder, sockets_of, rate, params["step_seconds"]
                )
                log(
                    f"    again: p50 {again['p50_ms']} ms, p99 {again['p99_ms']} ms, "
                    f"met {again['met']}"
                )
                step["again"] = {k: again[k] for k in ("p50_ms", "p99_ms", "met", "lost")}
                step["met"] = again["met"]
            steps.append(step)
            if not step["met"]:
                break
            capacity = rate
        overload = None
        if params.get("overload_factor") and profile is not None:
            overload = await _overloaded(playing, recorder, sockets_of, params, capacity)
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
        if overload is not None:
            measured["overload"] = overload
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
