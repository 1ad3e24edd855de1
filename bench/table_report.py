"""The live-table benchmark's verdicts: the faults seen under each channel layer, what
the server logged, and the layer to recommend by default."""

from __future__ import annotations

import collections
import math
import re
from pathlib import Path
from typing import Any

from bench.liveserver import tail


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
        "server_exceptions_logged": sum(figures["server_stderr"]["exceptions"].values()),
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
    """What the server wrote to stderr: line count, exceptions by type, the last lines."""
    lines = tail(log_path, 10_000_000).splitlines()
    exceptions = collections.Counter(
        found.group(1) for line in lines if (found := EXCEPTION_LINE_RE.match(line))
    )
    return {"lines": len(lines), "exceptions": dict(exceptions), "last": lines[-3:]}
