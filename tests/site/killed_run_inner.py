"""Not collected with the suite (the name does not start with `test_`): run on its own by
tests/site/test_killed_run.py, in a pytest of its own which that test then kills.

It starts a live server on a fresh database as every live test does, writes what it
started to the JSON file QW_KILLED_RUN_REPORT names, and waits to be killed."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from bench.janitor import janitor_pid
from bench.liveserver import app_process, fresh_database, server_env


def test_a_live_server_waits_to_be_killed(tmp_path):
    report = Path(os.environ["QW_KILLED_RUN_REPORT"])
    with (
        fresh_database(tmp_path, template="migrated") as database_url,
        app_process(server_env(database_url)) as (server, base),
    ):
        described = {
            "runner": os.getpid(),
            "janitor": janitor_pid(),
            "server": server.pid,
            "port": int(base.rsplit(":", 1)[1]),
            "database": database_url.rsplit("/", 1)[1],
        }
        written = report.with_suffix(".partial")
        written.write_text(json.dumps(described))
        written.rename(report)  # whole or not at all, for the reader polling for it
        threading.Event().wait(600)
    pytest.fail("this run was never killed")
