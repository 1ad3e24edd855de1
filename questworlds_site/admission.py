"""How much one process takes on at once: past that, an action is answered "the table is
busy" at once, instead of waiting in a queue that only grows (issue 29, "bends, not
breaks").

A process runs each request's synchronous part (the ORM, the templates) on a small pool
of threads (handler.py), behind one GIL. Offered more than it can do, the queue in front
of that pool grew without bound: every answer came later than the last, the pages'
sheet reloads queued behind the actions, and the work a waiting browser no longer
needed was done all the same. Here every request that reaches Django, and every action
sent over a socket, counts while it is queued or running; an action (a view marked
`sheds_when_busy`, or a socket's action) that finds the process full (below) is
refused before it is queued, in words, and changes nothing. Pages and their
fragments are never refused: they are what keeps every open page right.

What "full" means is how long the work already handed to the threads (each request,
handler.py, and each socket's hop, contests/consumers.py `db_async`) has waited for
one (`TABLE_BUSY_WAIT_MS`, 50 ms): an action that finds the oldest request still
queued there has waited that long is refused, since it would wait as long and more
behind it, and the table's promise is every step on every page within 100 ms. A count
alone (`TABLE_BUSY_AFTER` in flight, the only limit until 2026-12-07) said "busy" by a
number whose meaning is the machine's speed: ten requests in flight are some 60 ms of
work on a quiet hour of the benchmark's machine and 150 ms on a slow one (6 and 15 ms
an action at capacity), so at ten the process refused actions it would have answered
in time (the browsers'-path benchmark's windows with a p99 under 100 ms
and a few refused, docs/benchmarks.md). The count stays, higher, as the bound on a
burst arriving at once, before any of it has waited.

The counter and the queue's order live on the process's event loop thread (they are
touched only there but for one flag a worker thread sets, an assignment the GIL makes
whole), so they need no lock. `TABLE_BUSY_AFTER` and `TABLE_BUSY_WAIT_MS` (settings)
set the limits; 0 turns either off.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

BUSY_MESSAGE = "The table is busy right now; nothing was done. Try again in a moment."
# What a refused request is told to wait (HTTP Retry-After), in seconds.
RETRY_AFTER_SECONDS = 1

View = TypeVar("View", bound=Callable[..., Any])
T = TypeVar("T")


class Ticket:
    """A request or socket action handed to the worker threads: when it was handed over,
    and whether a thread has taken it up yet (set from that thread: `started`)."""

    __slots__ = ("queued_at", "started")

    def __init__(self, queued_at: float) -> None:
        self.queued_at, self.started = queued_at, False

    def __enter__(self) -> Ticket:
        return self

    def __exit__(self, *exc_info: object) -> None:
        # Answered, failed or cancelled before a thread took it up: no longer waiting.
        self.started = True

    def run(self, function: Callable[..., T]) -> Callable[..., T]:
        """`function`, marking this ticket taken up as a thread starts it."""

        def started(*args: Any, **kwargs: Any) -> T:
            self.started = True
            return function(*args, **kwargs)

        return started


class Admission:
    """The requests and socket actions one process has in flight, the order they were
    handed to its threads in, and its limits."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.in_flight = 0
        self.refused = 0
        self.clock = clock
        # Handed to the threads, in order; the ones taken up leave from the front.
        self._queue: deque[Ticket] = deque()

    @property
    def limit(self) -> int:
        from django.conf import settings

        return int(getattr(settings, "TABLE_BUSY_AFTER", 0))

    @property
    def wait_limit(self) -> float:
        """How long, in seconds, the oldest work not yet taken up by a thread may have
        waited before actions are refused (0: never on that account)."""
        from django.conf import settings

        return int(getattr(settings, "TABLE_BUSY_WAIT_MS", 0)) / 1000

    def queued(self) -> Ticket:
        """Work handed to the threads now: run it through its ticket (`Ticket.run`)
        inside `with`, which marks it taken up once its answer is in, whatever
        happened to it."""
        ticket = Ticket(self.clock())
        self._prune()  # a process serving only pages asks `oldest_wait` never
        self._queue.append(ticket)
        return ticket

    def oldest_wait(self) -> float:
        """How long the oldest work still waiting for a thread has waited, in seconds."""
        self._prune()
        queue = self._queue
        return self.clock() - queue[0].queued_at if queue else 0.0

    def _prune(self) -> None:
        """Drop the work taken up from the front: the queue holds what waits, and what
        was taken up behind it."""
        queue = self._queue
        while queue and queue[0].started:
            queue.popleft()

    def full(self) -> bool:
        """Whether an action arriving now is refused: the count at its limit, or the
        threads' queue standing longer than its limit."""
        if self.limit and self.in_flight >= self.limit:
            return True
        wait_limit = self.wait_limit
        return bool(wait_limit) and self.oldest_wait() >= wait_limit

    def take(self) -> None:
        """A request that is never refused (a page) counts while in flight."""
        self.in_flight += 1

    def try_take(self) -> bool:
        """An action: taken and counted, or refused (False) when the process is full."""
        if self.full():
            self.refused += 1
            return False
        self.in_flight += 1
        return True

    def give_back(self) -> None:
        self.in_flight -= 1


# The process's one counter, shared by its HTTP handler and its table sockets.
ADMISSION = Admission()


def sheds_when_busy(answer: Callable[[], str]) -> Callable[[View], View]:
    """Mark a view whose request may be refused when the process is full; `answer` gives
    the body of that refusal (HTML the page shows), which the handler sends with 503."""

    def mark(view: View) -> View:
        view.busy_answer = answer  # type: ignore[attr-defined]
        return view

    return mark


_capped_loops: set[int] = set()


def cap_worker_threads() -> None:
    """Give the running event loop a default executor of `WORKER_THREADS` threads (0:
    Python's own default, min(32, CPUs + 4)), once per loop. Every request's synchronous
    part (handler.py) and every socket's database work (`database_sync_to_async`) runs
    there, and each of those threads competes with the event loop's own thread for the
    one GIL: the loop sends the broadcasts and answers the pings."""
    from django.conf import settings

    loop = asyncio.get_running_loop()
    if id(loop) in _capped_loops:
        return
    _capped_loops.add(id(loop))
    threads = int(getattr(settings, "WORKER_THREADS", 0))
    if threads:
        loop.set_default_executor(
            ThreadPoolExecutor(max_workers=threads, thread_name_prefix="worker")
        )
