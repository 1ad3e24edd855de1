"""Benchmark `simple_odds`: `.venv/bin/python -m bench.odds [calls]`.

Prints JSON with the median, 99th percentile and maximum microseconds per call for:

- "cold": every cache cleared before each timed call (outside the timing);
- "uncached": the answer cache cleared before each call, the small tables of final
  results per bump count kept (at most 200 exist: a running server soon has them all);
- "cached": every call answered from the cache.

The inputs vary: ratings from -5 to 70 (masteries included), both better-roll options,
with and without a hero point, and bumps from -2 to +2.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from typing import Any

from contests.core.rules.odds import clear_odds_cache, simple_odds


def _inputs(calls: int, seed: int = 2022) -> list[tuple[int, int, dict[str, Any]]]:
    rng = random.Random(seed)
    return [
        (
            rng.randint(-5, 70),
            rng.randint(-5, 70),
            {
                "better_roll": rng.choice(("high", "low")),
                "hero_point": rng.random() < 0.5,
                "pc_bumps": rng.randint(-2, 2),
                "opponent_bumps": rng.randint(-2, 2),
            },
        )
        for _ in range(calls)
    ]


def _figures(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return {
        "median_us": round(statistics.median(ordered) / 1000, 2),
        "p99_us": round(p99 / 1000, 2),
        "max_us": round(ordered[-1] / 1000, 2),
    }


def run(calls: int = 2000) -> dict[str, Any]:
    """Time `calls` calls of each kind (cold, uncached, cached); return the figures."""
    inputs = _inputs(calls)
    clock = time.perf_counter_ns
    cold = []
    for pc, opponent, options in inputs:
        clear_odds_cache()
        start = clock()
        simple_odds(pc, opponent, **options)
        cold.append(clock() - start)
    uncached = []
    for pc, opponent, options in inputs:
        clear_odds_cache(keep_result_tables=True)
        start = clock()
        simple_odds(pc, opponent, **options)
        uncached.append(clock() - start)
    for pc, opponent, options in inputs:  # warm the cache
        simple_odds(pc, opponent, **options)
    cached = []
    for pc, opponent, options in inputs:
        start = clock()
        simple_odds(pc, opponent, **options)
        cached.append(clock() - start)
    return {
        "function": "contests.core.rules.odds.simple_odds",
        "calls": calls,
        "python": sys.version.split()[0],
        "cold": _figures(cold),
        "uncached": _figures(uncached),
        "cached": _figures(cached),
    }


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    calls = int(args[0]) if args else 2000
    print(json.dumps(run(calls), indent=2))


if __name__ == "__main__":
    main()
