"""The live-table benchmark's view of the machine: open-file limits, CPU and memory
from /proc, the bare `websockets` server's process, and the services it needs (Redis,
loopback only) or leaves behind (Redis subscriptions and group members)."""

from __future__ import annotations

import contextlib
import os
import resource
import socket
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.janitor import start, stop
from bench.liveserver import ROOT, free_port

from .table_common import BenchError
from .table_data import Table

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


def python_loop_ms(rounds: int = 5) -> float:
    """How fast this machine runs Python now: the best of `rounds` timings of one fixed
    loop, in ms. Machines of the same kind, and one machine hour to hour, differ by half
    (docs/benchmarks.md); two runs' figures compare only beside this."""
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        total = 0
        for i in range(1_000_000):
            total += i % 7
        best = min(best, time.perf_counter() - started)
    return round(1000 * best, 1)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (all its threads), from /proc/<pid>/stat."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# The machine's other programs whose CPU an action costs too, by their process name.
SERVICES = {"postgres": "postgresql", "redis-server": "redis", "nginx": "nginx"}


def cpu_by_program(app_pids: list[int]) -> dict[str, float]:
    """CPU seconds used so far by the app's server processes, this process (the load
    generator), and each of PostgreSQL, Redis and nginx (all their processes); with
    `machine`, every CPU's busy time (/proc/stat), whoever used it."""
    found = dict.fromkeys(("app", "bench", *SERVICES.values(), "machine"), 0.0)
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as stat:
            head, _, rest = stat.read().rpartition(")")
            name, fields, pid = head.partition("(")[2], rest.split(), int(entry)
            used = (int(fields[11]) + int(fields[12])) / tick
            if pid in app_pids:
                found["app"] += used
            elif pid == os.getpid():
                found["bench"] += used
            elif name in SERVICES:
                found[SERVICES[name]] += used
    with open("/proc/stat") as stat:
        cpu = [int(x) for x in stat.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
    found["machine"] = (sum(cpu[:8]) - cpu[3] - cpu[4]) / tick
    return found


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
    """Which threads of a process used the CPU: its main thread (uvicorn's event loop;
    Twisted's reactor and the asyncio loop under Daphne) and the busiest others
    (sync_to_async workers)."""

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


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BenchError(f"the bare server exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        time.sleep(0.1)
    raise BenchError(f"the bare server did not listen on {port} within {timeout} s")


@contextlib.contextmanager
def bare_server(log_path: Path) -> Iterator[int]:
    """The bare `websockets` fan-out server (this module, --bare-server) in a child."""
    port = free_port()
    with log_path.open("ab") as err:
        process = start(
            [sys.executable, "-m", "bench.table", "--bare-server", str(port)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        wait_for_port(port, process)
        yield port
    finally:
        stop(process)


# --- Services -------------------------------------------------------------------------------


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


def channel_prefix() -> str:
    """The servers' channel-name prefix: they inherit this process's environment
    (bench.liveserver.server_env), and settings read CHANNEL_PREFIX ("asgi" unset)."""
    return os.environ.get("CHANNEL_PREFIX", "asgi")


def redis_subscriptions_left(redis_url: str, limit: float = 60.0) -> dict[str, Any]:
    """Redis pub/sub channels of the app (`<CHANNEL_PREFIX>*`) still subscribed once every
    socket has closed, waiting until there are none or the count has not changed for 3 s.

    The pubsub layer unsubscribes a closed socket's channel as its consumer exits,
    through one lock per Redis connection, so after a mass disconnect the unsubscribes
    drain one by one; stopping the server before they have would cancel the rest (each one
    logs a CancelledError). The core layer subscribes to nothing.
    """
    import redis

    client = redis.Redis.from_url(redis_url, socket_connect_timeout=3, socket_timeout=10)
    started = time.monotonic()
    deadline, last, since = started + limit, -1, started
    try:
        while True:
            count = len(client.pubsub_channels(f"{channel_prefix()}*"))
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

    from contests.broadcast import table_group_name

    client = redis.Redis.from_url(redis_url, socket_connect_timeout=3, socket_timeout=10)
    try:
        prefix = channel_prefix()
        keys = [f"{prefix}:group:{table_group_name(table.campaign_id)}" for table in tables]
        pipe = client.pipeline(transaction=False)
        for key in keys:
            pipe.zcard(key)
        left = sum(pipe.execute())
        client.delete(*keys)
        return left
    finally:
        client.close()
