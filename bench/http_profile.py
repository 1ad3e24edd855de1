"""The browsers'-path benchmark's profile: py-spy sampling one server process while it
serves the cycle, and its samples grouped by what the CPU was doing and by the stage of
an action's path it was in."""

from __future__ import annotations

import collections
import contextlib
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.janitor import start, stop


@contextlib.contextmanager
def profiled(pid: int, seconds: float, work: Path):
    """py-spy sampling `pid` for `seconds` (if installed); yields a dict filled after."""
    result: dict[str, Any] = {}
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if seconds <= 0 or not Path(spy).exists():
        result["skipped"] = "py-spy is not installed" if seconds > 0 else "not in --small"
        yield result
        return
    out = work / "profile.txt"
    process = start(
        [
            spy,
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(int(seconds)),
            "--rate",
            "250",
            "--format",
            "raw",
            "--output",
            str(out),
            "--nonblocking",
            # Only the thread holding the GIL: Python's own CPU work, not threads
            # waiting in select() or on a lock, which py-spy may count as busy.
            "--gil",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield result
    finally:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=seconds + 30)
        stop(process)
        result.update(profile_shares(out) if out.exists() else {"skipped": "py-spy wrote nothing"})


PROFILE_GROUPS = (
    # Django's templates, and the table's live fragments in Jinja2 (contests/live/engine.py):
    # its compiled templates' frames are the .jinja files themselves.
    ("template rendering", ("django/template/", "template_partials", "jinja2/", ".jinja")),
    ("ORM query building", ("django/db/models/", "django/db/backends/")),
    ("database I/O (psycopg)", ("psycopg",)),
    ("channel layer and Redis", ("channels_redis", "redis/", "msgpack")),
    ("rules engine and flows", ("contests/core/rules/", "contests/core/table/")),
    (
        "sessions, auth and middleware",
        ("django/contrib/sessions", "django/contrib/auth", "django/middleware", "whitenoise"),
    ),
    (
        "request handling (Django, asgiref)",
        ("django/core/handlers", "asgiref", "django/http", "django/urls"),
    ),
    (
        # uvicorn's own frames, websockets' and httptools'; Daphne's when compared.
        "websockets and server (uvicorn, websockets; Daphne, Twisted, autobahn)",
        ("uvicorn/", "websockets/", "httptools", "daphne", "twisted", "autobahn", "channels/"),
    ),
)


# Where in an action's path the process was, whatever it was doing there: the first stage
# (in this order) with a frame on the sample's stack. A marker with " (" names a function
# as py-spy writes it ("Class.method (file"), matched at a frame's start; any other is a
# part of a path, matched anywhere in a frame.
PROFILE_STAGES = (
    (
        # A step's broadcast renders its copies in `_copies` and packs them (`pack`);
        # `render_audiences` (the copies whole) is the same rendering for other callers.
        "the broadcast's rendering (GM's and players' copies)",
        ("_copies (contests/live/rendering.py", "pack (contests/live/rendering.py"),
    ),
    ("the broadcast's hand-over to the channel layer", ("send_to_table_sync (",)),
    (
        "the action in the contest services (lock, flow, event, commit)",
        ("contest_act (", "contest_frame ("),
    ),
    (
        "the action's view besides (role, rate limit, reading the form, answer)",
        ("act (contests/views.py",),
    ),
    ("sheet fetches (GET table/me)", ("table_me (",)),
    ("a socket's full state (connect, resync)", ("TableConsumer._render_full_state (",)),
    ("presence (join, leave, heartbeat rows)", ("contests/presence.py",)),
    ("fan-out: each socket's consumer sending the broadcast", ("TableConsumer.table_",)),
    ("Django around the views (middleware, session, user)", ("OneThreadASGIHandler._respond (",)),
    ("the pages' heartbeat pings answered", ("contests/heartbeat.py",)),
    ("the channel layer receiving (Redis)", ("channels_redis/",)),
    ("HTTP server (uvicorn, httptools)", ("httptools_impl",)),
    ("websocket server (uvicorn, websockets)", ("websockets_sansio_impl", "websockets/")),
    ("Channels' consumer plumbing", ("channels/",)),
)


def _stage(frames: list[str]) -> str:
    for name, marks in PROFILE_STAGES:
        for mark in marks:
            if " (" in mark:
                if any(frame.startswith(mark) for frame in frames):
                    return name
            elif any(mark in frame for frame in frames):
                return name
    return "event loop and the rest"


def profile_shares(path: Path) -> dict[str, Any]:
    """py-spy's collapsed stacks, grouped: each sample counted once, for the innermost
    frame's group (what the CPU was doing then); by the stage of an action's path it was
    in (`stages_percent`, PROFILE_STAGES); and the functions most often innermost."""
    counts: collections.Counter = collections.Counter()
    stages: collections.Counter = collections.Counter()
    leaves: collections.Counter = collections.Counter()
    total = 0
    for line in path.read_text(errors="replace").splitlines():
        stack, _, number = line.rpartition(" ")
        if not number.isdigit():
            continue
        samples = int(number)
        total += samples
        frames = stack.split(";")
        leaves[frames[-1]] += samples
        stages[_stage(frames)] += samples
        group = "other (Python, asyncio)"
        for frame in reversed(frames):
            found = next(
                (name for name, marks in PROFILE_GROUPS if any(m in frame for m in marks)), None
            )
            if found:
                group = found
                break
        counts[group] += samples
    if not total:
        return {"samples": 0, "shares_percent": {}, "stages_percent": {}, "top_frames_percent": {}}
    return {
        "samples": total,
        "shares_percent": {k: round(100 * v / total, 1) for k, v in counts.most_common()},
        "stages_percent": {k: round(100 * v / total, 1) for k, v in stages.most_common()},
        "top_frames_percent": {k: round(100 * v / total, 1) for k, v in leaves.most_common(15)},
    }
