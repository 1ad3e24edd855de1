"""Start the real app (Daphne) in a child process on a fresh database, for browser tests,
the `make run` smoke test and benchmarks."""

from __future__ import annotations

import contextlib
import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_http(url: str, process: subprocess.Popen, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"the server exited with {process.returncode} before answering {url}"
            )
        with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=2) as response:
            if response.status == 200:
                return
        time.sleep(0.3)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextlib.contextmanager
def fresh_database(tmp_dir: Path) -> Iterator[str]:
    """A new empty database of the kind DATABASE_URL names (SQLite file otherwise)."""
    base = os.environ.get("DATABASE_URL", "")
    if not base.startswith(("postgres://", "postgresql://")):
        path = tmp_dir / "live.sqlite3"
        path.unlink(missing_ok=True)
        try:
            yield f"sqlite:///{path}"
        finally:
            path.unlink(missing_ok=True)
        return
    parts = urllib.parse.urlsplit(base)
    name = f"qw_live_{uuid.uuid4().hex[:10]}"
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield parts._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def server_env(database_url: str, **extra: str) -> dict[str, str]:
    env = dict(
        os.environ, DATABASE_URL=database_url, DJANGO_SETTINGS_MODULE="questworlds_site.settings"
    )
    env.update(extra)
    return env


def manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


@contextlib.contextmanager
def daphne_server(env: dict[str, str], port: int | None = None) -> Iterator[str]:
    """Serve the ASGI app with the real Daphne; yields the base URL."""
    port = port or free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "questworlds_site.asgi:application",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_http(f"{base}/healthz", process)
        yield base
    finally:
        stop(process)


@contextlib.contextmanager
def demo_server(tmp_dir: Path) -> Iterator[str]:
    """A fresh database with the demo campaign, served by Daphne."""
    with fresh_database(tmp_dir) as database_url:
        env = server_env(database_url)
        manage(env, "migrate", "--noinput")
        manage(env, "seed_demo")
        with daphne_server(env) as base:
            yield base


def log_in(base: str, username: str, password: str) -> tuple[urllib.request.OpenerDirector, str]:
    """Log in through the real login form; returns the opener and the page it lands on."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    form = opener.open(f"{base}/accounts/login/", timeout=10).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    data = urllib.parse.urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": token}
    ).encode()
    request = urllib.request.Request(
        f"{base}/accounts/login/", data=data, headers={"Referer": base}
    )
    with opener.open(request, timeout=10) as response:
        return opener, response.read().decode()
