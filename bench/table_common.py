"""What the live-table benchmark's modules share: its sizes, targets, log and error."""

from __future__ import annotations

import math
import sys
import time
from typing import Any

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


def log(text: str) -> None:
    print(f"[bench.table {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


class BenchError(Exception):
    """The benchmark cannot run (a service is missing, the server does not start...)."""


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
