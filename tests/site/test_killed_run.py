"""A killed test run leaves nothing behind (the issue "The working loop"): however pytest
dies, with SIGTERM (Python's default: the process ends, no `finally` runs) or SIGKILL,
with xdist's workers or without, the live servers its tests started stop, their ports
close, and the databases made for them are dropped (bench/janitor.py).

Each case runs a real pytest on tests/site/killed_run_inner.py, whose one test starts a
live server on a fresh database and waits; once that server answers, the pytest is
killed as a person (or `make`, which passes SIGTERM on) would kill it."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time
import urllib.parse
from pathlib import Path

import psycopg
import pytest

from bench.janitor import running, start, stop
from bench.liveserver import ROOT, tail

INNER = Path(__file__).with_name("killed_run_inner.py")
# Generous bounds, for a busy machine: nothing here is a speed the test asserts.
STARTED_S = 180
GONE_S = 60
# What the outer pytest-xdist worker's environment says about itself, which the inner
# pytest must not believe about its own processes.
OUTER_ONLY = ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID")


def _poll(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    except OSError:
        return False
    return False


def _admin_url() -> str | None:
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith(("postgres://", "postgresql://")):
        return None
    return urllib.parse.urlsplit(base)._replace(path="/postgres").geturl()


def _database_exists(name: str) -> bool:
    admin = _admin_url()
    if admin is None:
        # SQLite: the database is a file in the killed run's temporary folder, which
        # pytest keeps for the last three runs, as it keeps every test's tmp_path.
        return False
    with psycopg.connect(admin, autocommit=True) as conn:
        query = "SELECT 1 FROM pg_database WHERE datname = %s"
        return conn.execute(query, (name,)).fetchone() is not None


@pytest.mark.xdist_group("servers")
@pytest.mark.parametrize(
    ("kill_with", "workers"),
    [
        # `make test` stopped (make passes SIGTERM on): xdist's controller goes, and its
        # worker, told by execnet, stops its test (or is ended 15 s later).
        (signal.SIGTERM, "1"),
        # One pytest process killed: no `finally` of its runs at all.
        (signal.SIGKILL, "0"),
    ],
    ids=["sigterm-xdist", "sigkill-one-process"],
)
def test_a_killed_run_leaves_no_server_and_no_database(tmp_path, kill_with, workers):
    report = tmp_path / "started.json"
    env = {k: v for k, v in os.environ.items() if k not in OUTER_ONLY}
    env["QW_KILLED_RUN_REPORT"] = str(report)
    log = tmp_path / "inner.log"
    command = [sys.executable, "-m", "pytest", str(INNER), "-n", workers, "-p", "no:randomly"]
    command += ["-p", "no:cacheprovider", f"--basetemp={tmp_path / 'inner'}", "-q"]
    with log.open("wb") as out:
        inner = start(command, cwd=ROOT, env=env, stdout=out, stderr=out)
    started: dict = {}
    try:
        assert _poll(lambda: report.exists() or inner.poll() is not None, STARTED_S)
        assert report.exists(), f"the inner run never started its server:\n{tail(log)}"
        started = json.loads(report.read_text())
        assert running(started["server"]) and not _refused(started["port"])
        assert _database_exists(started["database"]) or _admin_url() is None

        os.kill(inner.pid, kill_with)  # the pytest we started, and nothing else
        assert inner.wait(timeout=GONE_S) == -kill_with

        def nothing_left() -> bool:
            return (
                not any(running(started[who]) for who in ("runner", "janitor", "server"))
                and _refused(started["port"])
                and not _database_exists(started["database"])
            )

        _poll(nothing_left, GONE_S)
        assert not running(started["server"]), "the live server outlived the run"
        assert _refused(started["port"]), "the live server's port still answers"
        assert not _database_exists(started["database"]), "its database outlived the run"
        assert not running(started["runner"]), "the pytest process running the test lives on"
        assert not running(started["janitor"]), "the janitor did not finish"
    finally:
        stop(inner)
        # If the test failed, what the killed run left is cleared here, not left too.
        if started and running(started["server"]):
            os.killpg(started["server"], signal.SIGKILL)
        if started and _database_exists(started["database"]):
            with psycopg.connect(_admin_url(), autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{started["database"]}" WITH (FORCE)')
