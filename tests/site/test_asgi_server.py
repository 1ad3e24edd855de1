"""The app as uvicorn serves it in production (issue 16): the same options wherever it is
started, and what browsers and the proxy rely on, checked on the real server.

- Every launcher (the Dockerfile, `make run`, the tests' bench.liveserver) runs uvicorn
  with the same options.
- Close codes the page acts on reach the browser: 4401, 4403, 4404, 4409 and 1013; a
  refused Origin is refused at the handshake.
- A message over the table's limit gets the table's answer and the socket stays; one
  over the server's limit (64 KiB) is refused by the server (1009).
- A stop closes open sockets with 1012 (the page reconnects) and never hangs.
- Forwarded headers are believed by the app from TRUSTED_PROXIES alone, never by uvicorn:
  a client that sends its own is not believed; behind nginx each client's address counts
  for the sign-in limits on its own.
"""

from __future__ import annotations

import asyncio
import http.client
import http.cookies
import json
import os
import re
import shlex
import signal
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import pytest
import websockets
from django.conf import settings
from websockets.asyncio.client import connect

from bench.liveserver import (
    NGINX,
    ROOT,
    SERVERS,
    UVICORN_OPTIONS,
    app_process,
    fresh_database,
    log_in,
    manage,
    nginx_balancer,
    server_env,
)
from bench.table_clients import connect_kwargs
from tests.contests.test_redis_down import PrivateRedis

# With the other tests that start servers of their own: one after the other, so that the
# run's PostgreSQL connections stay within docs/deploy.md's count.
pytestmark = pytest.mark.xdist_group("servers")

needs_services = pytest.mark.skipif(
    not (settings.DATABASES["default"]["ENGINE"].endswith("postgresql") and settings.REDIS_URL),
    reason="the real server's sockets and limits are checked on PostgreSQL and Redis",
)
WAIT_S = 20.0
PING = json.dumps({"action": "ping"})
PONG_ID = 'id="table-pong"'


# --------------------------------------------------------------------- one command line


def _dockerfile_command() -> list[str]:
    text = (ROOT / "Dockerfile").read_text()
    command = text.split("\nCMD ", 1)[1].replace("\\\n", " ")
    return json.loads(command.split("\n", 1)[0])


def _makefile_options() -> list[str]:
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    options = re.search(r"(?m)^UVICORN_OPTIONS := (.*)$", text).group(1)
    run = re.search(r"(?m)^run:.*\n((?:\t.*\n)+)", text).group(1)
    assert "$(VENV)/bin/uvicorn " in run and "$(UVICORN_OPTIONS)" in run, run
    assert "questworlds_site.asgi:application" in run, run
    return shlex.split(options)


def test_every_launcher_runs_uvicorn_with_the_same_options():
    docker = _dockerfile_command()
    assert docker[0] == "uvicorn" and docker[-1] == "questworlds_site.asgi:application"
    assert docker[1:5] == ["--host", "0.0.0.0", "--port", "8000"]
    assert docker[5:-1] == list(UVICORN_OPTIONS)
    assert _makefile_options() == list(UVICORN_OPTIONS)
    tests = SERVERS["uvicorn"]
    assert tests[0] == "uvicorn" and tests[5:-1] == list(UVICORN_OPTIONS)
    # uvicorn believes X-Forwarded-* from 127.0.0.1 unless told not to; the app alone
    # decides whom to believe (TRUSTED_PROXIES).
    assert "--no-proxy-headers" in UVICORN_OPTIONS


# --------------------------------------------------------------------- sockets


def _session(base: str, username: str) -> tuple[str, int]:
    """A real login session (the key) and the demo campaign's id."""
    opener, home = log_in(base, username, "questworlds")
    jar = next(h for h in opener.handlers if hasattr(h, "cookiejar")).cookiejar
    session = next(c.value for c in jar if c.name == "sessionid")
    return session, int(re.search(r"/campaigns/(\d+)/table/", home).group(1))


async def _open(port: int, campaign: int, session: str | None, **options):
    return await connect(
        f"ws://127.0.0.1:{port}/ws/tables/{campaign}/",
        **{**connect_kwargs(port, session), **options},
    )


async def _seated(port: int, campaign: int, session: str):
    socket = await _open(port, campaign, session)
    full_state = await asyncio.wait_for(socket.recv(), WAIT_S)
    assert 'id="contest"' in full_state, full_state[:200]
    return socket


async def _until(socket, text: str) -> str:
    """Read until a message contains `text` (presence updates come in between)."""

    async def read() -> str:
        while True:
            message = await socket.recv()
            if text in message:
                return message

    return await asyncio.wait_for(read(), WAIT_S)


async def _close_code(socket) -> int:
    """Wait for the server to close `socket`; its close code."""

    async def drain() -> None:
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await socket.recv()

    await asyncio.wait_for(drain(), WAIT_S)
    return socket.close_code


SHELL = """
from django.contrib.auth import get_user_model
from campaigns import services
from campaigns.models import Campaign
users = {{u.username: u for u in get_user_model().objects.all()}}
campaign = Campaign.objects.get(pk={campaign})
{call}
"""


def _service(env: dict[str, str], campaign: int, call: str) -> None:
    """A campaign service run by another process (as a page's POST would), whose
    broadcast reaches the server through the channel layer."""
    manage(env, "shell", "-c", SHELL.format(campaign=campaign, call=call))


async def _sockets_on_the_real_server(env, base: str, redis: PrivateRedis) -> None:
    port = urllib.parse.urlsplit(base).port
    gm, campaign = await asyncio.to_thread(_session, base, "gm")
    alice, _ = await asyncio.to_thread(_session, base, "alice")
    bob, _ = await asyncio.to_thread(_session, base, "bob")

    # An Origin the app does not serve is refused at the handshake.
    with pytest.raises(websockets.InvalidStatus) as refused:
        await _open(port, campaign, bob, origin="http://elsewhere.example")
    assert refused.value.response.status_code == 403

    # Refusals the page explains: not logged in, not at this table.
    assert await _close_code(await _open(port, campaign, None)) == 4401
    assert await _close_code(await _open(port, 999_999, bob)) == 4403

    # Over the table's limit (4,096 characters): its answer, and the socket stays.
    socket = await _seated(port, campaign, bob)
    await socket.send("x" * 5000)
    assert "too large" in await _until(socket, 'id="table-error"')
    await socket.send(PING)
    await _until(socket, PONG_ID)
    # Over the server's limit: refused by uvicorn before the app buffers it.
    await socket.send("x" * 70_000)
    assert await _close_code(socket) == 1009

    # Told by another process: a member who leaves (4404), a GM hand-over (4409).
    leaving = await _seated(port, campaign, alice)
    await asyncio.to_thread(
        _service, env, campaign, "services.membership_leave(campaign=campaign, user=users['alice'])"
    )
    assert await _close_code(leaving) == 4404
    old_gm, new_gm = await _seated(port, campaign, gm), await _seated(port, campaign, bob)
    call = (
        "services.campaign_gm_hand_over(campaign=campaign, actor=users['gm'], new_gm=users['bob'])"
    )
    await asyncio.to_thread(_service, env, campaign, call)
    assert await _close_code(old_gm) == 4409
    assert await _close_code(new_gm) == 4409

    # The channel layer gone: "come back later" (1013), which the page retries.
    await asyncio.to_thread(redis.stop)
    later = await _open(port, campaign, bob)
    assert "Live updates are unavailable" in await _until(later, 'id="table-error"')
    assert await _close_code(later) == 1013


@needs_services
def test_close_codes_and_size_limits_reach_the_browser_through_uvicorn(tmp_path):
    redis = PrivateRedis()
    redis.start()
    try:
        with fresh_database(tmp_path, template="demo") as database_url:
            env = server_env(
                database_url,
                REDIS_URL=redis.url,
                CHANNEL_PREFIX=f"qw-asgi-{uuid.uuid4().hex[:8]}",
                DB_POOL_MAX_SIZE="4",
            )
            with app_process(env, stderr_path=tmp_path / "server.log") as (_process, base):
                asyncio.run(_sockets_on_the_real_server(env, base, redis))
    finally:
        redis.stop()


@needs_services
def test_a_stopped_server_closes_its_sockets_with_1012_and_exits_at_once(tmp_path):
    with fresh_database(tmp_path, template="demo") as database_url:
        env = server_env(
            database_url, CHANNEL_PREFIX=f"qw-asgi-{uuid.uuid4().hex[:8]}", DB_POOL_MAX_SIZE="4"
        )
        with app_process(env, stderr_path=tmp_path / "server.log") as (process, base):
            port = urllib.parse.urlsplit(base).port

            async def stop_under_open_sockets() -> tuple[list[int], float]:
                sessions = [await asyncio.to_thread(_session, base, u) for u in ("gm", "bob")]
                sockets = [await _seated(port, campaign, key) for key, campaign in sessions]
                started = time.monotonic()
                os.killpg(process.pid, signal.SIGTERM)
                codes = [await _close_code(socket) for socket in sockets]
                await asyncio.to_thread(process.wait, 15)
                return codes, time.monotonic() - started

            codes, took = asyncio.run(stop_under_open_sockets())
    # 1012 "service restart": the htmx ws extension reconnects by itself (table.js).
    assert codes == [1012, 1012]
    # --timeout-graceful-shutdown 2 bounds the wait for the sockets' handlers.
    assert took < 10, f"the server took {took:.1f} s to stop"
    # A clean shutdown, then uvicorn ends by the signal it was sent (as it re-raises it).
    assert "Finished server process" in (tmp_path / "server.log").read_text()
    assert process.returncode == -signal.SIGTERM, process.returncode


# --------------------------------------------------------------------- forwarded headers


def _request(
    base: str, method: str, path: str, *, source: str = "127.0.0.1", headers=None, body=None
) -> tuple[int, dict[str, str], str]:
    """One HTTP request from the loopback address `source` (127.0.0.2... are this
    machine's too), so a proxy sees several clients."""
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(
        parts.hostname, parts.port, timeout=WAIT_S, source_address=(source, 0)
    )
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        cookies = http.cookies.SimpleCookie()
        for header in response.headers.get_all("Set-Cookie") or []:
            cookies.load(header)
        found = {name: morsel.value for name, morsel in cookies.items()}
        return response.status, found, response.read().decode(errors="replace")
    finally:
        connection.close()


def _failed_sign_in(base: str, *, source: str = "127.0.0.1", forwarded: str = "") -> int:
    """A sign-in with a wrong password, as a browser posts it (from `source`, claiming to
    be `forwarded` in X-Forwarded-For when given): the answer's status."""
    extra = {"X-Forwarded-For": forwarded} if forwarded else {}
    _status, cookies, page = _request(base, "GET", "/accounts/login/", source=source)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    form = {"username": f"nobody-{uuid.uuid4().hex[:6]}", "password": "wrong"}
    status, _, _ = _request(
        base,
        "POST",
        "/accounts/login/",
        source=source,
        body=urllib.parse.urlencode({**form, "csrfmiddlewaretoken": token}),
        headers={
            **extra,
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={cookies['csrftoken']}",
            "Origin": base,
        },
    )
    return status


def _invitation_link(base: str, **headers: str) -> str:
    """The link a GM's new invitation gets: built from the scheme the app believes."""
    opener, home = log_in(base, "gm", "questworlds")
    campaign = re.search(r"/campaigns/(\d+)/table/", home).group(1)
    page = opener.open(f"{base}/campaigns/{campaign}/members/", timeout=WAIT_S).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    request = urllib.request.Request(
        f"{base}/campaigns/{campaign}/invitations/",
        data=urllib.parse.urlencode(
            {"role": "player", "days": "7", "max_uses": "1", "csrfmiddlewaretoken": token}
        ).encode(),
        headers={"Origin": base, "Referer": base, **headers},
    )
    try:
        with opener.open(request, timeout=WAIT_S) as response:
            return re.search(r"link: (\S+?)</li>", response.read().decode()).group(1)
    except urllib.error.HTTPError as error:  # e.g. CSRF's 403 for an "HTTPS" request
        return f"(refused: {error.code})"


@pytest.fixture
def nginx_installed():
    if not Path(NGINX).exists():
        if settings.REQUIRE_SERVICES:
            pytest.fail("REQUIRE_SERVICES=1 but nginx is not installed (apt-get install nginx)")
        pytest.skip("nginx is not installed; install Debian's nginx to test behind it")


@needs_services
def test_the_app_not_uvicorn_decides_whom_to_believe(tmp_path, nginx_installed):
    limits = {"LOGIN_ADDRESS_FAILURE_LIMIT": "2/15 minutes", "LOGIN_FAILURE_LIMIT": "50/minute"}
    with fresh_database(tmp_path, template="demo") as database_url:
        # Straight to uvicorn with no proxy configured: a client's own X-Forwarded-* is
        # not believed (uvicorn would, from 127.0.0.1, without --no-proxy-headers).
        direct = server_env(
            database_url,
            TRUSTED_PROXIES="",
            CHANNEL_PREFIX=f"qw-asgi-{uuid.uuid4().hex[:8]}",
            DB_POOL_MAX_SIZE="3",
            **limits,
        )
        with app_process(direct, stderr_path=tmp_path / "direct.log") as (_process, base):
            # The GM signs in first: the failures below use up this address's limit.
            link = _invitation_link(base, **{"X-Forwarded-Proto": "https"})
            spoofed = [_failed_sign_in(base, forwarded=f"203.0.113.{n}") for n in range(1, 4)]
        # Each claimed a new address; all came from 127.0.0.1, and count together.
        assert spoofed == [400, 400, 429]
        # Claimed HTTPS over plain HTTP: the link the app builds says http://.
        assert link.startswith(f"{base}/join/"), link

        # Behind nginx, which the app trusts: each client's own address counts, and a
        # client's X-Forwarded-For is overwritten by nginx's.
        proxied = server_env(
            database_url,
            TRUSTED_PROXIES="127.0.0.1",
            CHANNEL_PREFIX=f"qw-asgi-{uuid.uuid4().hex[:8]}",
            DB_POOL_MAX_SIZE="3",
            **limits,
        )
        with (
            app_process(proxied, stderr_path=tmp_path / "proxied.log") as (_process, upstream),
            nginx_balancer([upstream.removeprefix("http://")]) as (_nginx, base),
        ):
            first = [
                _failed_sign_in(base, source="127.0.0.2", forwarded="203.0.113.9") for _ in range(3)
            ]
            second = _failed_sign_in(base, source="127.0.0.3", forwarded="203.0.113.9")
        assert first == [400, 400, 429]
        assert second == 400
