"""`manage.py webhook_receiver`, the stand-in for Discord that `make run` is tried
against (docs/setup.md): it prints each message the relay sends it, and answers as
told (204 as Discord does, or an error to watch the retries)."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bench.liveserver import free_port
from campaigns.webhooks import delivery

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def receiver_command():
    """The command on a free port; its lines of output as they come."""
    port = free_port()

    def start(*options: str):
        process = subprocess.Popen(
            [sys.executable, "manage.py", "webhook_receiver", "--port", str(port), *options],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(
            target=lambda: [lines.put(line.rstrip("\n")) for line in process.stdout], daemon=True
        ).start()
        started.append(process)
        return port, lines

    started: list[subprocess.Popen] = []
    yield start
    for process in started:
        process.terminate()
        process.wait(timeout=20)


def test_it_prints_what_the_relay_sends_it(receiver_command, settings):
    port, lines = receiver_command()
    assert "Receiving webhook messages on http://127.0.0.1:" in lines.get(timeout=60)
    settings.WEBHOOK_ALLOWED_HOSTS = [f"127.0.0.1:{port}"]
    settings.WEBHOOK_ALLOW_HTTP = True

    answer = delivery.post(f"http://127.0.0.1:{port}/hook", "**Ashfen** — hello", timeout=10)
    assert answer.words == "Delivered (the receiver answered 204)."
    assert lines.get(timeout=20) == "/hook: **Ashfen** — hello"


def test_it_answers_an_error_when_told(receiver_command, settings):
    port, lines = receiver_command("--status", "429")
    lines.get(timeout=60)
    settings.WEBHOOK_ALLOWED_HOSTS = [f"127.0.0.1:{port}"]
    settings.WEBHOOK_ALLOW_HTTP = True

    answer = delivery.post(f"http://127.0.0.1:{port}/hook", "again", timeout=10)
    assert answer.status == 429 and answer.retry_after == 2.0 and answer.worth_retrying
