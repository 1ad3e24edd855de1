"""Community changes reach every browser at the campaign's table websocket, through the
real ASGI application, once committed; a refused change sends nothing."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.core.exceptions import ValidationError

from campaigns import services as campaign_services
from community import services
from community.live import render_notation_table
from contests.core.rules import fixed_rolls
from questworlds_site.asgi import application
from tests.contests.socket_helpers import receive_until, session_cookie, table_socket

from .conftest import resource, start_draw

pytestmark = pytest.mark.django_db(transaction=True)


async def seated(user, campaign_id: int):
    """A socket at the table with its first messages (state, presence) read."""
    socket = table_socket(
        application, campaign_id, await database_sync_to_async(session_cookie)(user)
    )
    connected, _ = await socket.connect()
    assert connected
    await receive_until(socket, 'id="presence"')
    while not await socket.receive_nothing(timeout=0.3):
        await socket.receive_from()
    return socket


async def test_background_events_reach_players_and_spectators(community, gm, alice, sam):
    alice_socket = await seated(alice, community.campaign_id)
    sam_socket = await seated(sam, community.campaign_id)
    await database_sync_to_async(services.community_background_events)(
        community=community, actor=gm, roller=fixed_rolls(1, 20, *[19, 19] * 4)
    )
    for socket in (alice_socket, sam_socket):
        message = await receive_until(socket, 'id="notation-table"')
        assert 'hx-swap-oob="true"' in message
        assert "Background events of season 1: <strong>rolled</strong>" in message
        assert '<tr data-resource="Wealth">' in message and "+9" in message
        assert 'id="community-chart"' in message
        await socket.disconnect()


async def test_a_draw_in_session_is_broadcast(community, gm, alice, campaign, tamsin, ashfen_born):
    await database_sync_to_async(campaign_services.session_start)(campaign=campaign, actor=gm)
    socket = await seated(alice, community.campaign_id)
    draw = await database_sync_to_async(start_draw)(community, alice, tamsin, ashfen_born)
    message = await receive_until(socket, 'id="notation-table"')
    assert "Draws approved, awaiting their contest" in message
    await database_sync_to_async(services.community_draw_settle)(
        draw=draw, actor=gm, outcome_level=-1
    )
    message = await receive_until(socket, 'id="notation-table"')
    assert "Tamsin</strong>: -6 on social and community abilities" in message
    await socket.disconnect()


async def test_a_refused_change_sends_nothing(community, gm, alice):
    socket = await seated(alice, community.campaign_id)

    def refused():
        with pytest.raises(ValidationError):
            services.community_interval_end(community=community, actor=gm, interval=5)
        with pytest.raises(ValidationError):
            services.community_plot_event(
                community=community,
                actor=gm,
                resource=resource(community, "Wealth"),
                change=0,
                reason="nothing",
            )

    await database_sync_to_async(refused)()
    assert await socket.receive_nothing(timeout=0.5)
    # An interval that already ended is a no-op: nothing to broadcast either.
    await database_sync_to_async(services.community_interval_end)(
        community=community, actor=gm, interval=1
    )
    await receive_until(socket, 'id="notation-table"')
    await database_sync_to_async(services.community_interval_end)(
        community=community, actor=gm, interval=1
    )
    assert await socket.receive_nothing(timeout=0.5)
    await socket.disconnect()


def test_the_broadcast_and_page_versions_differ_only_by_the_swap(community):
    broadcast = render_notation_table(community)
    page = render_notation_table(community, oob=False)
    assert broadcast.replace(' hx-swap-oob="true"', "") == page
    assert '<section id="notation-table"' in page
