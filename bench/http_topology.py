"""The browsers'-path benchmark's topologies: the app's server processes (1, or N behind
nginx) measured alone, or up at once with the stack's floor and measured in turns."""

from __future__ import annotations

import asyncio
import contextlib
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.liveserver import app_process, nginx_balancer

from .http_load import PostgresWatch, Session, Turns, close, ladder, prepare
from .table_common import BenchError, log
from .table_data import Table
from .table_system import CpuMeter


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


@dataclass
class Servers:
    """One topology's server processes (behind nginx if more than one), as measured."""

    pids: list[int]
    port: int
    meters: list[CpuMeter]
    watch: PostgresWatch | None
    # (pid, folder) of the process py-spy samples: with one process only.
    profile: tuple[int, Path] | None


def _servers(
    stack: contextlib.ExitStack,
    env: dict[str, str],
    ground: Playground,
    params: dict[str, Any],
    logs: str,
) -> Servers:
    """`ground.count` processes serving `env`, their stderr in `<logs>-<label>-<i>.log`
    in the run's folder; their PostgreSQL connections named `bench-<logs>` (PGAPPNAME),
    so that those of the app and of its floor, up at once, are counted apart."""
    env = dict(env, PGAPPNAME=f"bench-{logs}")
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
    watch = (
        stack.enter_context(PostgresWatch(ground.database_url, env["PGAPPNAME"]))
        if ground.watch_pg
        else None
    )
    return Servers(
        [process.pid for process, _ in servers],
        urllib.parse.urlsplit(base).port or 0,
        [CpuMeter(process.pid) for process, _ in servers],
        watch,
        (servers[0][0].pid, ground.work) if ground.count == 1 else None,
    )


def _prepared(servers: Servers, ground: Playground):
    return prepare(
        "127.0.0.1", servers.port, ground.tables, ground.owned, ground.progress, servers.pids
    )


def _finished(measured: dict[str, Any], servers: Servers, ground: Playground, pool: int) -> None:
    measured["server_cpu_percent"] = [meter.percent() for meter in servers.meters]
    if servers.watch:
        measured["postgres_connections"] = {
            "most_seen": servers.watch.most,
            "bound": ground.count * pool,
        }


def topology(
    env: dict[str, str], ground: Playground, params: dict[str, Any]
) -> tuple[dict[str, Any], str]:
    """The app alone on one topology (`--no-floor`): its pages, its ladder of rates, and
    on one process past capacity and the profile."""
    with contextlib.ExitStack() as stack:
        servers = _servers(stack, env, ground, params, "server")

        async def run() -> tuple[dict[str, Any], str]:
            session = await _prepared(servers, ground)
            try:
                measured = await ladder(session, params, servers.profile, Turns(("app",)))
            finally:
                await close(session)
            return measured, session.recorder.samples.get("player", "")

        measured, sample = asyncio.run(run())
        _finished(measured, servers, ground, params["pool"])
    return measured, sample


def paired(
    env: dict[str, str],
    ground: Playground,
    floor_ground: Playground,
    params: dict[str, Any],
    message: str = "",
) -> tuple[dict[str, Any], dict[str, Any], str, str]:
    """The app and the stack's floor (bench/floor_urls.py: a `table/act/` that does only
    what any action must) on one topology, each with its own pages and tables, both up
    at once and measured in turns rate by rate (`Turns`). The floor's panel is a
    player's broadcast the app sent while its tables spread over the cycle, padded to
    their mean size (`floor_message`), unless an earlier topology's `message` is given.
    Returns the app's figures, the floor's, the recorded player's broadcast and the
    floor's message."""
    with contextlib.ExitStack() as stack:
        app = _servers(stack, env, ground, params, "server")
        loop = asyncio.new_event_loop()
        sessions: list[Session] = []
        try:
            log("  the app's pages")
            sessions.append(loop.run_until_complete(_prepared(app, ground)))
            recorder = sessions[0].recorder
            sample = recorder.samples.get("player", "")
            if not message:
                if not sample:
                    raise BenchError("the app's pages received no player's broadcast to copy")
                sent = recorder.broadcast_bytes.get("player", [0, 0])
                message = floor_message(sample, sent[0] // max(1, sent[1]))
            floor_env = dict(env, DJANGO_SETTINGS_MODULE="bench.floor_settings")
            floor_env["FLOOR_MESSAGE"] = message
            log("  the stack floor's pages: table/act/ doing only what any action must")
            floor = _servers(stack, floor_env, floor_ground, params, "floor")
            sessions.append(loop.run_until_complete(_prepared(floor, floor_ground)))
            if params.get("floor_vs_floor"):
                # The benchmark's own spread (`--floor-vs-floor`): a second floor, on the
                # app's tables, measured in the app's place; the app's pages close and its
                # processes stay up idle.
                loop.run_until_complete(close(sessions[0]))
                log("  a second stack floor in the app's place (--floor-vs-floor)")
                app = _servers(stack, floor_env, ground, params, "floor-b")
                sessions[0] = loop.run_until_complete(_prepared(app, ground))

            first = "floor B" if params.get("floor_vs_floor") else "app"

            async def both() -> list[dict[str, Any]]:
                turns = Turns((first, "floor"))
                return await asyncio.gather(
                    ladder(sessions[0], params, app.profile, turns, first),
                    ladder(sessions[1], params, floor.profile, turns, "floor"),
                )

            measured, floor_measured = loop.run_until_complete(both())
        finally:
            for session in sessions:
                loop.run_until_complete(close(session))
            loop.close()
        _finished(measured, app, ground, params["pool"])
        _finished(floor_measured, floor, floor_ground, params["pool"])
    return measured, floor_measured, sample, message
