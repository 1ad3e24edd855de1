"""How much one process takes on at once: past that, an action is answered "the table is
busy" at once, instead of waiting in a queue that only grows (issue 29, "bends, not
breaks").

A process runs each request's synchronous part (the ORM, the templates) on a small pool
of threads (handler.py), behind one GIL. Offered more than it can do, the queue in front
of that pool grew without bound: every answer came later than the last, the pages'
sheet reloads queued behind the actions, and the work a waiting browser no longer
needed was done all the same. Here every request that reaches Django, and every action
sent over a socket, counts while it is queued or running; an action (a view marked
`sheds_when_busy`, or a socket's action) that finds `limit` of them already in flight
is refused before it is queued, in words, and changes nothing. Pages and their
fragments are never refused: they are what keeps every open page right.

The counter lives on the process's event loop thread (it is touched only there), so it
needs no lock. `TABLE_BUSY_AFTER` (settings) sets the limit; 0 takes every request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

BUSY_MESSAGE = "The table is busy right now; nothing was done. Try again in a moment."
# What a refused request is told to wait (HTTP Retry-After), in seconds.
RETRY_AFTER_SECONDS = 1

View = TypeVar("View", bound=Callable[..., Any])


class Admission:
    """The requests and socket actions one process has in flight, and its limit."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.refused = 0

    @property
    def limit(self) -> int:
        from django.conf import settings

        return int(getattr(settings, "TABLE_BUSY_AFTER", 0))

    def take(self) -> None:
        """A request that is never refused (a page) counts while in flight."""
        self.in_flight += 1

    def try_take(self) -> bool:
        """An action: taken and counted, or refused (False) when the process is full."""
        if self.limit and self.in_flight >= self.limit:
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
