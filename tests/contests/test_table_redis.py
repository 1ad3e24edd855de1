"""Presence crosses Redis between two separate ASGI application instances (issue 2).

Each instance's consumers use their own channel-layer object, so a message from one
to the other can only travel through Redis, never through process memory.
"""

from __future__ import annotations

import uuid

import pytest
from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.urls import path

from contests.consumers import TableConsumer
from questworlds_site.env import CHANNEL_LAYER_BACKENDS

from .socket_helpers import receive_until, session_cookie, table_socket

pytestmark = pytest.mark.django_db(transaction=True)


class SecondInstanceTableConsumer(TableConsumer):
    channel_layer_alias = "second"


def build_application(consumer):
    routes = [path("ws/tables/<int:campaign_id>/", consumer.as_asgi())]
    return AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(routes)))


@pytest.fixture(params=sorted(CHANNEL_LAYER_BACKENDS))
def redis_layers(request, settings):
    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL is not set (CI sets it, and REQUIRE_SERVICES fails without it)")
    prefix = f"test-{uuid.uuid4().hex[:8]}"
    layer = {
        "BACKEND": CHANNEL_LAYER_BACKENDS[request.param],
        "CONFIG": {"hosts": [settings.REDIS_URL], "prefix": prefix},
    }
    settings.CHANNEL_LAYERS = {"default": layer, "second": dict(layer)}
    first, second = get_channel_layer("default"), get_channel_layer("second")
    assert first is not second and "Redis" in type(first).__name__
    return request.param


async def test_presence_crosses_redis_between_two_app_instances(redis_layers, campaign, gm, alice):
    first_app = build_application(TableConsumer)
    second_app = build_application(SecondInstanceTableConsumer)

    alice_socket = table_socket(
        first_app, campaign.pk, await database_sync_to_async(session_cookie)(alice)
    )
    assert (await alice_socket.connect())[0]
    await receive_until(alice_socket, "Alice", timeout=5)

    gm_socket = table_socket(
        second_app, campaign.pk, await database_sync_to_async(session_cookie)(gm)
    )
    assert (await gm_socket.connect())[0]
    seen_by_alice = await receive_until(alice_socket, "Gwen", timeout=5)
    assert "Game master" in seen_by_alice
    seen_by_gm = await receive_until(gm_socket, "Alice", timeout=5)
    assert "Gwen" in seen_by_gm

    await gm_socket.disconnect()
    # Presence comes in bursts: a list sent for the GM's arrival may still be on its way
    # after the first one Alice read. The lists go on until one without the GM, the
    # last she is shown (a list with him for ever after fails at the timeout).
    after = await receive_until(alice_socket, 'id="presence"', timeout=5)
    for _ in range(10):
        if "Gwen" not in after:
            break
        after = await receive_until(alice_socket, 'id="presence"', timeout=5)
    assert "Gwen" not in after
    await alice_socket.disconnect()


async def test_an_action_on_one_instance_reaches_clients_of_the_other(
    redis_layers, campaign, table, gm, alice, tamsin_and_session
):
    """The broadcast of a contest action crosses Redis to the other app instance."""
    import json

    contest = await database_sync_to_async(table.frame)(
        pc=tamsin_and_session, prize="", opponent={"name": "River", "level": "moderate"}
    )
    first_app = build_application(TableConsumer)
    second_app = build_application(SecondInstanceTableConsumer)
    gm_socket = table_socket(
        first_app, campaign.pk, await database_sync_to_async(session_cookie)(gm)
    )
    alice_socket = table_socket(
        second_app, campaign.pk, await database_sync_to_async(session_cookie)(alice)
    )
    for socket in (gm_socket, alice_socket):
        assert (await socket.connect())[0]
        await receive_until(socket, 'id="contest"', timeout=5)
    await gm_socket.send_to(
        text_data=json.dumps(
            {
                "action": "set_tactic",
                "contest": contest.pk,
                "key": "cross-redis",
                "data": {"side": "pc", "tactic": "follow the heron"},
            }
        )
    )
    seen = await receive_until(alice_socket, 'data-seq="2"', timeout=5)
    assert "follow the heron" in seen
    await gm_socket.disconnect()
    await alice_socket.disconnect()


@pytest.fixture
def tamsin_and_session(campaign, alice):
    from django.utils import timezone

    from campaigns.models import Session
    from characters.models import Character

    Session.objects.create(campaign=campaign, number=1, started_at=timezone.now())
    return Character.objects.create(name="Tamsin", player=alice, campaign=campaign)


async def _subscribed(redis_url: str, prefix: str) -> set[str]:
    import redis.asyncio as redis

    client = redis.Redis.from_url(redis_url)
    try:
        return {name.decode() for name in await client.pubsub_channels(f"{prefix}*")}
    finally:
        await client.aclose()


async def test_a_pubsub_channel_whose_receive_never_ran_is_released(settings):
    """channels_redis#276: the pubsub layer unsubscribes a channel only when a running
    receive() is cancelled. `release_channel`, which every table socket runs as it ends,
    unsubscribes one whose receive task was cancelled before it started."""
    import asyncio

    from channels_redis.pubsub import RedisPubSubChannelLayer

    from contests.consumers import release_channel

    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL is not set (CI sets it, and REQUIRE_SERVICES fails without it)")
    prefix = f"test-{uuid.uuid4().hex[:8]}"
    layer = RedisPubSubChannelLayer(hosts=[settings.REDIS_URL], prefix=prefix)
    try:
        channel = await layer.new_channel()
        assert channel in await _subscribed(settings.REDIS_URL, prefix)
        never_ran = asyncio.ensure_future(layer.receive(channel))
        never_ran.cancel()
        with pytest.raises(asyncio.CancelledError):
            await never_ran
        await release_channel(layer, channel)
        assert channel not in await _subscribed(settings.REDIS_URL, prefix)
        await release_channel(layer, channel)  # a second time does nothing
    finally:
        await layer.flush()


async def test_a_table_socket_leaves_no_subscription_behind(redis_layers, settings, campaign, gm):
    app = build_application(TableConsumer)
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    socket = table_socket(app, campaign.pk, await database_sync_to_async(session_cookie)(gm))
    assert (await socket.connect())[0]
    await receive_until(socket, 'id="presence"', timeout=5)
    await socket.disconnect(timeout=5)  # waits for the consumer to end
    # The core layer subscribes to nothing; the pubsub layer unsubscribes the socket's
    # channel and, once the table is empty, the table's group.
    assert await _subscribed(settings.REDIS_URL, prefix) == set()
