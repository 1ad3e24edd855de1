"""`/healthz` tells compose and a load balancer whether this process can serve a table:
200 when PostgreSQL and Redis answer, 503 naming what did not, and never a hang (issue 16).

A service that is down is played by a port nobody listens on (refused at once), and one
that hangs by a socket that listens but never answers (the worse case: only a timeout
ends the wait). The database's failures run in a child process with its own settings,
so the tests' own database is never touched.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from bench.janitor import run
from bench.liveserver import free_port

ROOT = Path(__file__).resolve().parents[2]

# docker-compose.yml gives the web service's health check 5 s before it counts as failed.
COMPOSE_CHECK_TIMEOUT_S = 5.0


@contextlib.contextmanager
def silent_server() -> Iterator[int]:
    """A port that accepts connections (the kernel completes them) and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


def test_it_answers_ok_when_the_database_and_redis_answer(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "database": "ok",
        # CI runs on Redis; a laptop's in-memory layer has no Redis to ask.
        "redis": "ok" if settings.REDIS_URL else "not used",
    }


def test_it_names_redis_when_redis_refuses(client, db, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "ok", "redis": "unavailable"}


def test_a_redis_that_never_answers_fails_the_check_in_time(client, db, settings):
    with silent_server() as port:
        settings.REDIS_URL = f"redis://127.0.0.1:{port}/0"
        start = time.monotonic()
        response = client.get("/healthz")
        took = time.monotonic() - start
    assert response.status_code == 503
    assert response.json()["redis"] == "unavailable"
    assert took < COMPOSE_CHECK_TIMEOUT_S, f"/healthz took {took:.1f} s on a silent Redis"


def test_the_channel_layers_redis_is_asked_too(client, db, settings):
    """A deployment could point the channel layer somewhere REDIS_URL does not."""
    settings.REDIS_URL = ""
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [{"address": f"redis://127.0.0.1:{free_port()}/0"}]},
        }
    }
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["redis"] == "unavailable"


HEALTH = """
import json, os, time
import django
django.setup()
from django.test import Client
from django.urls import resolve
# A served process has its URLs, views and middleware loaded before compose asks it:
# only the check itself is timed, not this process's first import of the site.
client = Client(headers={"Host": "localhost"})
client.handler.load_middleware()
resolve("/healthz")
start = time.monotonic()
response = client.get("/healthz")
print(json.dumps({"status": response.status_code, "body": response.json(),
                  "seconds": time.monotonic() - start}))
os._exit(0)  # the pool's workers may still be waiting on the silent server
"""


def health_of(database_url: str, **env: str) -> dict:
    """/healthz in a fresh process whose settings name `database_url` and no Redis."""
    clean = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    clean.update(
        DATABASE_URL=database_url, DJANGO_SETTINGS_MODULE="questworlds_site.settings", **env
    )
    result = run(
        [sys.executable, "-c", HEALTH],
        cwd=ROOT,
        env=clean,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("pool", ["10", "0"], ids=["pooled", "unpooled"])
def test_a_database_that_never_answers_fails_the_check_in_time(pool):
    with silent_server() as port:
        answer = health_of(
            f"postgres://questworlds@127.0.0.1:{port}/questworlds", DB_POOL_MAX_SIZE=pool
        )
    assert answer["status"] == 503
    assert answer["body"] == {
        "status": "unavailable",
        "database": "unavailable",
        "redis": "not used",
    }
    assert answer["seconds"] < COMPOSE_CHECK_TIMEOUT_S, answer


def test_a_database_that_refuses_is_named():
    answer = health_of(f"postgres://questworlds@127.0.0.1:{free_port()}/questworlds")
    assert answer["status"] == 503
    assert answer["body"]["database"] == "unavailable"
