"""Broadcasts after commit never fail the request (issue 12, item 8): with the channel
layer's Redis stopped, an action is stored and answered with success, the missed
broadcast is logged, a retry with the same key creates nothing, a new socket is told to
come back later, and once Redis is back a socket gets the whole current state."""

from __future__ import annotations

import logging
import subprocess
import time

import pytest
import redis
from channels.db import database_sync_to_async
from django.urls import reverse

from bench.janitor import start, stop
from bench.liveserver import free_port
from contests import live
from contests.models import ContestEvent
from questworlds_site.asgi import application
from questworlds_site.env import channel_layer_from_env

from .socket_helpers import receive_until, session_cookie, table_socket

pytestmark = pytest.mark.django_db(transaction=True)


class PrivateRedis:
    """A redis-server of the test's own, which the test may stop and start again."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = start(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("the private redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None


@pytest.fixture
def private_redis(settings):
    server = PrivateRedis()
    server.start()
    settings.CHANNEL_LAYERS = {
        "default": channel_layer_from_env(server.url, settings.CHANNEL_LAYER, "qw-down")
    }
    yield server
    server.stop()


def post(client, campaign, fields):
    response = client.post(
        reverse("table_act", args=[campaign.pk]), fields, headers={"HX-Request": "true"}
    )
    return response.status_code, response.content.decode()


def test_an_action_is_stored_and_answered_while_redis_is_down(
    private_redis, client, campaign, table, session, gm, tamsin, caplog
):
    contest = table.frame(
        pc=tamsin, prize="the ford", opponent={"name": "The Grey River", "level": "moderate"}
    )
    client.force_login(gm)
    fields = {
        "action": "set_tactic",
        "contest": str(contest.pk),
        "side": "pc",
        "tactic": "Swim for it",
    }
    status, _ = post(client, campaign, {**fields, "key": "before"})
    assert status == 200

    private_redis.stop()
    with caplog.at_level(logging.WARNING, logger="contests.broadcast"):
        status, html = post(client, campaign, {**fields, "key": "while-down", "tactic": "Wade"})
    assert status == 200
    assert 'id="table-error"' in html and "Nothing was done" not in html
    # Taken: the answer acknowledges step 3. The broadcast was missed, so the page,
    # not seeing step 3 arrive, asks its socket for the whole state (static/js/table.js,
    # tests/e2e/test_connection.py), which is read from the database alone.
    assert 'data-acked="3"' in html
    assert "Wade" in live.render_contest(live.current_contest(campaign.pk), "gm")
    assert any("Missed broadcast" in r.getMessage() for r in caplog.records)
    assert ContestEvent.objects.filter(contest=contest).count() == 3

    # The person, unsure, tries again with the same key: nothing more is created.
    status, html = post(client, campaign, {**fields, "key": "while-down", "tactic": "Wade"})
    assert status == 200 and "Already done" in html
    assert ContestEvent.objects.filter(contest=contest).count() == 3


async def test_sockets_are_told_to_come_back_and_get_the_whole_state_when_redis_returns(
    private_redis, campaign, table, session, gm, tamsin
):
    contest = await database_sync_to_async(table.frame)(
        pc=tamsin, prize="the ford", opponent={"name": "The Grey River", "level": "moderate"}
    )
    cookie = await database_sync_to_async(session_cookie)(gm)
    private_redis.stop()
    socket = table_socket(application, campaign.pk, cookie)
    connected, _ = await socket.connect()
    assert connected
    notice = await socket.receive_from(timeout=5)
    assert "Live updates are unavailable" in notice
    assert (await socket.receive_output(timeout=5))["code"] == 1013

    private_redis.start()
    again = table_socket(application, campaign.pk, cookie)
    assert (await again.connect())[0]
    state = await receive_until(again, f'data-contest-id="{contest.pk}"', timeout=5)
    assert f'data-seq="{contest.seq}"' in state
    await again.disconnect()
