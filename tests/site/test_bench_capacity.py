"""How bench.http_path finds a capacity between two rates of its ladder (issue 29's
capacity ratio is the app's capacity over the stack floor's, each found this way)."""

from __future__ import annotations

from bench.http_cycle import CYCLE
from bench.http_load import between, warmup_seconds
from bench.http_path import FULL, SMALL


def _search(true_capacity: float) -> float:
    """The ladder, then the rates between, as `ladder` offers them, against a server
    that meets every rate up to `true_capacity` and misses every rate above it."""
    capacity, missed = 0.0, None
    for rate in FULL["rates"]:
        if rate > true_capacity:
            missed = rate
            break
        capacity = rate
    while missed is not None and (rate := between(capacity, missed, FULL["finest"])):
        assert capacity < rate < missed
        if rate <= true_capacity:
            capacity = rate
        else:
            missed = rate
    return capacity


def test_a_capacity_between_the_ladders_rates_is_found_to_within_a_twentieth():
    # Between 100 and 130 (the ladder's steps): 117 is found as 114, not as 100.
    assert between(100, 130, 1.1) == 114
    # ... and then between 114 and 130 (122), and 122 and 130 (126): 127 is found as 126.
    assert FULL["finest"] == 1.05
    assert _search(127) == 126
    for true_capacity in (12, 27, 44, 55, 93, 117, 129, 145, 181, 233):
        found = _search(true_capacity)
        assert found <= true_capacity < found * FULL["finest"] + 1, (true_capacity, found)


def test_no_rate_is_tried_when_nothing_was_met_or_the_two_are_close():
    assert between(0, 10, 1.1) is None  # the first rate missed: no capacity to refine
    assert between(100, 108, 1.1) is None  # within 10% already
    assert between(3, 4, 1.1) is None  # no whole rate lies between


def _every_table_played_every_kind(tables: int, steps: int) -> bool:
    """The steps go to the tables in turn, each table starting at its own place in the
    cycle, as bench/http_load.py `prepare` spreads them and `offered_rate` offers them."""
    played: list[set[str]] = [set() for _ in range(tables)]
    place = [table % len(CYCLE) for table in range(tables)]
    for step in range(steps):
        table = step % tables
        played[table].add(CYCLE[place[table] % len(CYCLE)][1])
        place[table] += 1
    return all(kinds == {action for _, action in CYCLE} for kinds in played)


def test_the_full_runs_warm_up_brings_every_kind_of_step_to_every_table():
    """The first rate's figures are the steady state's: before them each table has
    played each kind of step (a table's first cycle costs the app more than its next)."""
    rate, tables = FULL["rates"][0], FULL["tables"]
    seconds = warmup_seconds(FULL, tables, rate)
    assert seconds >= FULL["warmup_seconds"]
    assert _every_table_played_every_kind(tables, int(seconds * rate))
    # The fixed 15 s alone did not: most tables were in their first cycle still.
    assert not _every_table_played_every_kind(tables, int(FULL["warmup_seconds"] * rate))


def test_the_smoke_runs_warm_up_is_its_own_short_one():
    assert warmup_seconds(SMALL, SMALL["tables"], SMALL["rates"][0]) == SMALL["warmup_seconds"]
