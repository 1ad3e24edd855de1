"""Whatever a test run or a benchmark starts goes when it goes, however it ends.

A server the tests start runs in a process group of its own, so that stopping it stops
its children too (`make run`'s uvicorn, nginx's workers); which also means a signal to
the test run's process group never reaches it. A database made for a live server
outlives every process. A run that ends normally stops and drops them itself; a run that
is killed cannot: Python has no SIGTERM handler (the process just ends, no `finally`
runs) and nothing has one for SIGKILL.

So the first time a process registers something here, it starts this module as a small
process of its own (`python -m bench.janitor`, in a session of its own so that no signal
meant for the run reaches it), whose stdin is the read end of a pipe whose write end
only the registering process holds. Registrations go down that pipe as JSON lines; when
the janitor reads end-of-file its owner has gone, however it went, and it stops every
process group and drops every database still registered, then exits. A run that ends
normally has forgotten everything by then, and the janitor just exits.

Why a janitor rather than the kernel's parent-death signal (PR_SET_PDEATHSIG) on each
server: a signal cannot drop a database; it reaches the one process it is set on, not
its children; and it fires when the *thread* that started the child ends, so a server
started from a short-lived thread would be killed under its test.

With pytest-xdist, killing the controller leaves its workers running: execnet, seeing
its controller gone, sends its worker SIGINT after 5 s (the test in hand stops, its
teardown runs) and ends it with `os._exit` 10 s later if it has not ended; the janitor
of each worker clears whatever that teardown did not.

Not registered, on purpose: the prepared template databases `qw_tpl_*`
(bench.liveserver.prepared_template), a cache kept between runs and replaced when the
migrations change; pytest-django's `test_*` databases, which the next run recreates.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# How long a registered process group has to stop after SIGTERM (uvicorn's graceful
# shutdown is 2 s) before the janitor sends SIGKILL.
GRACE_SECONDS = 10


class _Registry:
    """This process's registrations and the pipe to its janitor."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.groups: set[int] = set()
        self.databases: dict[str, str] = {}  # name -> the server's admin URL
        self.pipe: int | None = None
        self.janitor: subprocess.Popen | None = None

    def forget_all(self) -> None:
        """In a forked child: the parent's registrations and pipe are the parent's."""
        if self.pipe is not None:
            with contextlib.suppress(OSError):
                os.close(self.pipe)
        self.__init__()


_registry = _Registry()
os.register_at_fork(after_in_child=_registry.forget_all)


def _start_janitor() -> None:
    """A new janitor, told everything registered so far (under the registry's lock)."""
    read, write = os.pipe()  # neither end is inherited by other children (O_CLOEXEC)
    try:
        _registry.janitor = subprocess.Popen(
            [sys.executable, "-m", "bench.janitor"],
            cwd=ROOT,
            stdin=read,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    finally:
        os.close(read)
    if _registry.pipe is not None:
        with contextlib.suppress(OSError):
            os.close(_registry.pipe)
    _registry.pipe = write
    lines = [{"group": group} for group in _registry.groups]
    lines += [{"database": name, "admin": url} for name, url in _registry.databases.items()]
    for line in lines:
        _write(line)


def _write(message: dict) -> None:
    # One line per write, well under PIPE_BUF: whole, whatever other threads write.
    os.write(_registry.pipe, (json.dumps(message) + "\n").encode())


def _tell(message: dict) -> None:
    if _registry.pipe is None:
        _start_janitor()  # it is told the registrations, this one included
        return
    try:
        _write(message)
    except BrokenPipeError:  # someone killed the janitor: start another
        _start_janitor()


def janitor_pid() -> int | None:
    """This process's janitor, if it has one."""
    return _registry.janitor.pid if _registry.janitor else None


def watch_group(pgid: int) -> None:
    """Stop process group `pgid` if this process dies before it forgets it."""
    with _registry.lock:
        _registry.groups.add(pgid)
        _tell({"group": pgid})


def forget_group(pgid: int) -> None:
    with _registry.lock:
        if pgid in _registry.groups:
            _registry.groups.discard(pgid)
            _tell({"forget_group": pgid})


def watch_database(admin_url: str, name: str) -> None:
    """Drop PostgreSQL database `name` (through `admin_url`, a connection to another
    database of that server) if this process dies before it forgets it. Registered before
    it is created: dropping one that was never made is harmless."""
    with _registry.lock:
        _registry.databases[name] = admin_url
        _tell({"database": name, "admin": admin_url})


def forget_database(name: str) -> None:
    with _registry.lock:
        if _registry.databases.pop(name, None) is not None:
            _tell({"forget_database": name})


def start(args: list[str], **popen_options) -> subprocess.Popen:
    """`subprocess.Popen` in a process group of its own, stopped with this process if
    it dies before `stop`."""
    process = subprocess.Popen(args, start_new_session=True, **popen_options)
    watch_group(process.pid)
    return process


def stop(process: subprocess.Popen, grace: float = 15) -> None:
    """SIGTERM to the process's group, SIGKILL after `grace` seconds; then forgotten."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    forget_group(process.pid)


def run(args: list[str], *, timeout: float, **popen_options) -> subprocess.CompletedProcess:
    """`subprocess.run(args, capture_output=True, text=True, timeout=...)` whose command
    is stopped with this process if it dies first."""
    process = start(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen_options
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    finally:
        stop(process)
    return subprocess.CompletedProcess(args, process.returncode, stdout, stderr)


# --- The janitor itself -------------------------------------------------------------


def running(pid: int) -> bool:
    """Whether process `pid` exists and has not ended (a zombie, ended but not yet reaped
    by its new parent, holds no port, no connection and runs nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def _group_running(pgid: int) -> bool:
    """Whether any process of group `pgid` is running (zombies do not count)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                return True
    return not Path("/proc/self/stat").exists()


def _stop_groups(groups: set[int]) -> None:
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_SECONDS
    while any(_group_running(g) for g in groups) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def _drop_databases(databases: dict[str, str]) -> None:
    import psycopg

    for name, admin_url in databases.items():
        with (
            contextlib.suppress(psycopg.Error),
            psycopg.connect(admin_url, autocommit=True, connect_timeout=10) as conn,
        ):
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> None:
    # In a session of its own, no terminal's signal reaches it; SIGTERM, sent to it
    # directly, cleans up as the owner's end does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    groups: set[int] = set()
    databases: dict[str, str] = {}
    try:
        for line in sys.stdin.buffer:
            message = json.loads(line)
            if "group" in message:
                groups.add(message["group"])
            elif "forget_group" in message:
                groups.discard(message["forget_group"])
            elif "database" in message:
                databases[message["database"]] = message["admin"]
            elif "forget_database" in message:
                databases.pop(message["forget_database"], None)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _stop_groups(groups)
        _drop_databases(databases)


if __name__ == "__main__":
    main()
