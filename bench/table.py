"""Benchmark the live table under the real server, uvicorn (issue 6).

    .venv/bin/python -m bench.table [--small] [--layers core,pubsub]

Prints JSON on stdout (progress goes to stderr). See docs/benchmarks.md for what each
figure means. In short, on a fresh database (PostgreSQL when DATABASE_URL points at it,
else a temporary SQLite file) with N campaigns, each with a GM, 7 players, a character,
an open session and one framed simple contest, served by `uvicorn
questworlds_site.asgi:application` (production's options) on a loopback port with the
Redis channel layer (REDIS_URL, default redis://127.0.0.1:6379/0), and driven by real
websocket clients logged in through real sessions:

1. "one_table": one table of 8 clients; the GM's client sends `set_tactic` actions
   (4 a second; the run raises ACTION_RATE_LIMIT above it); latency = send until the
   last of the 8 clients has the broadcast carrying that action's seq. p50/p95/p99.
2. "many_tables": N tables x 8 clients, 20 actions a second in all, spread over the
   tables: p99, and lost, duplicated and out-of-order broadcasts.
3. "idle_sockets": CPU and memory of the server process holding many idle sockets.
4. "bare_websockets": the one-table fan-out through a bare `websockets` server (the
   floor any server can reach on this machine), and the ratio of the two p50s.
5. 1 and 2 for each channel layer (CHANNEL_LAYER=core and pubsub), and a recommendation.

Everything is bounded: every loop in count and time, an overall alarm, only loopback
addresses; the servers are always stopped and the database dropped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.liveserver import ServerError, app_process, free_port, fresh_database, server_env

from .table_common import CLIENTS_PER_TABLE, DEFAULT_REDIS_URL, BenchError, log
from .table_data import (
    Table,
    clear_presence,
    make_tables,
    presence_rows_left,
    server_breakdown,
    setup_django,
)
from .table_report import recommend, server_errors
from .table_scenarios import _serve_bare, bare_fanout, idle_sockets, many_tables, one_table
from .table_system import (
    bare_server,
    check_redis,
    loopback_only,
    raise_open_file_limit,
    redis_group_members_left,
    redis_subscriptions_left,
)

__all__ = ["DEFAULT_REDIS_URL", "main", "run"]

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


def measure_layer(
    layer: str, env: dict[str, str], tables: list[Table], params: dict[str, Any], work: Path
) -> tuple[dict[str, Any], str]:
    """Figures 1, 2 and 3 under one channel layer, on a server process of its own."""
    log_path = work / f"server-{layer}.log"
    measured: dict[str, Any] = {"load_average_at_start": [round(x, 2) for x in os.getloadavg()]}
    port = free_port()
    layer_env = dict(env, CHANNEL_LAYER=layer)
    with app_process(layer_env, port, stderr_path=log_path) as (process, _base):
        log(f"{layer}: server pid {process.pid} on port {port}; one table")
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
    measured["server_stderr"] = server_errors(log_path)
    return measured, sample


def run(params: dict[str, Any], redis_url: str, work: Path) -> dict[str, Any]:
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
        # One GM client acts 4 times a second for the whole run, above a person's limit
        # (ACTION_RATE_LIMIT): the limiter is still asked on every action, never refuses.
        env = server_env(
            database_url,
            DEBUG="true",
            ALLOWED_HOSTS="127.0.0.1,localhost",
            ACTION_RATE_LIMIT="1000/10 seconds",
        )
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
            server_p50 = figures["layers"][first]["one_table"]["p50_ms"]
            bare["server_layer"] = first
            bare["server_p50_ms"] = server_p50
            bare["ratio_p50_server_over_bare"] = (
                round(server_p50 / bare["p50_ms"], 1) if server_p50 and bare["p50_ms"] else None
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
    except (BenchError, ServerError) as error:
        print(f"bench.table: {error}", file=sys.stderr)
        return 2
    finally:
        signal.alarm(0)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
