"""`make run` from a fresh database serves the app with the demo campaign (issue 2).

This runs the real Makefile target, as a newcomer would, on an empty SQLite file and
the in-memory channel layer (the bare-laptop defaults).
"""

from __future__ import annotations

import os
import subprocess
import time
import urllib.request

from bench.janitor import start, stop
from bench.liveserver import ROOT, free_port, log_in, wait_for_http


def test_make_run_serves_the_app_and_a_working_demo_login(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "REQUIRE_SERVICES")}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    log = tmp_path / "run.log"
    with log.open("w") as out:
        process = start(
            ["make", "--no-print-directory", "run", f"PORT={port}"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for_http(f"{base}/", process, timeout=240)
        with urllib.request.urlopen(f"{base}/", timeout=10) as response:
            assert response.status == 200
        _, landed = log_in(base, "gm", "questworlds")
        assert "The Sunken Crown" in landed and "you are the GM" in landed
        # What make printed before the server answered, read until it is all in the file.
        deadline = time.monotonic() + 30
        while f"http://127.0.0.1:{port}/" not in (printed := log.read_text()):
            assert time.monotonic() < deadline, printed
            time.sleep(0.1)
        assert "Demo logins" in printed and "alice" in printed and "bob" in printed
    finally:
        stop(process)
