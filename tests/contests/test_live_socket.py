"""Contest actions and broadcasts over the real ASGI application (issue 6)."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async

from contests.models import Contest, ContestEvent
from questworlds_site.asgi import application

from .conftest import ability, key
from .socket_helpers import receive_until, session_cookie, table_socket

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def framed_contest(table, tamsin):
    return table.frame(
        pc=tamsin, prize="the ford", opponent={"name": "The Grey River", "level": "moderate"}
    )


async def seat(campaign, user):
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(user)
    )
    connected, _ = await socket.connect()
    assert connected
    await receive_until(socket, 'id="contest"')
    return socket


async def test_an_action_reaches_every_member_and_spectator_but_no_outsider(
    campaign, table, session, gm, alice, sam, charlie, tamsin
):
    contest = await framed_contest(table, tamsin)
    boatcraft = await database_sync_to_async(ability)(tamsin, "Boatcraft")
    gm_socket, alice_socket, sam_socket = [await seat(campaign, u) for u in (gm, alice, sam)]
    outsider = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(charlie)
    )
    await outsider.connect()
    assert (await outsider.receive_output(timeout=3))["code"] == 4403

    await alice_socket.send_to(
        text_data=json.dumps(
            {
                "action": "choose_ability",
                "contest": contest.pk,
                "key": key(),
                "seq": 1,
                "data": {"side": "pc", "ability_id": boatcraft.pk},
            }
        )
    )
    for socket in (gm_socket, alice_socket, sam_socket):
        update = await receive_until(socket, 'data-seq="2"')
        assert "Boatcraft" in update and "TN" in update
        # The new entry goes on top of the log; the log is not sent whole again.
        assert 'hx-swap-oob="afterbegin:#roll-log"' in update
        assert 'id="roll-log"' not in update and "Tamsin uses Boatcraft (17)" in update
    assert await ContestEvent.objects.filter(contest=contest).acount() == 2
    for socket in (gm_socket, alice_socket, sam_socket, outsider):
        await socket.disconnect()


async def test_each_audience_gets_its_own_rendering(campaign, table, session, gm, sam, tamsin):
    contest = await framed_contest(table, tamsin)
    gm_socket, sam_socket = await seat(campaign, gm), await seat(campaign, sam)
    await gm_socket.send_to(
        text_data=json.dumps(
            {
                "action": "modifier",
                "contest": contest.pk,
                "key": key(),
                "data": {
                    "side": "pc",
                    "kind": "situational",
                    "value": -3,
                    "label": "rising water",
                },
            }
        )
    )
    gm_view = await receive_until(gm_socket, 'data-seq="2"')
    sam_view = await receive_until(sam_socket, 'data-seq="2"')
    assert "GM controls" in gm_view and "Undo the last action" in gm_view
    assert "GM controls" not in sam_view and "rising water" in sam_view
    await gm_socket.disconnect()
    await sam_socket.disconnect()


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"action": "roll", "contest": "1", "key": "x"}, "no such contest"),
        ({"action": "roll", "key": "x"}, "no such contest"),
        ({"action": ["roll"], "key": "x"}, "Unknown action"),
        ({"action": "roll", "contest": None, "key": "x", "data": []}, "data must be an object"),
    ],
)
async def test_malformed_actions_get_a_clear_error_and_change_nothing(
    campaign, table, session, gm, tamsin, message, error
):
    contest = await framed_contest(table, tamsin)
    if message.get("contest") is None and "data" in message:
        message["contest"] = contest.pk
    socket = await seat(campaign, gm)
    await socket.send_to(text_data=json.dumps(message))
    reply = await receive_until(socket, 'id="table-error"')
    assert error in reply and "nothing was done" in reply.lower()
    assert (await Contest.objects.aget(pk=contest.pk)).seq == 1
    await socket.disconnect()


async def test_a_player_cannot_act_for_the_gm_over_the_socket(
    campaign, table, session, alice, tamsin
):
    contest = await framed_contest(table, tamsin)
    socket = await seat(campaign, alice)
    await socket.send_to(
        text_data=json.dumps({"action": "roll", "contest": contest.pk, "key": key(), "data": {}})
    )
    reply = await receive_until(socket, 'id="table-error"')
    assert "only the GM can call for the roll" in reply
    assert await ContestEvent.objects.filter(contest=contest).acount() == 1
    await socket.disconnect()


async def test_a_resend_is_answered_already_done(campaign, table, session, gm, tamsin):
    contest = await framed_contest(table, tamsin)
    socket = await seat(campaign, gm)
    message = json.dumps(
        {
            "action": "set_tactic",
            "contest": contest.pk,
            "key": "once",
            "data": {"side": "pc", "tactic": "follow the shallows"},
        }
    )
    await socket.send_to(text_data=message)
    await receive_until(socket, 'data-seq="2"')
    await socket.send_to(text_data=message)
    reply = await receive_until(socket, "Already done")
    assert 'class="notice"' in reply
    assert await ContestEvent.objects.filter(contest=contest).acount() == 2
    await socket.disconnect()


async def test_resync_sends_the_full_current_state(campaign, table, session, gm, tamsin):
    contest = await framed_contest(table, tamsin)
    socket = await seat(campaign, gm)
    await socket.send_to(text_data=json.dumps({"action": "resync"}))
    state = await receive_until(socket, f'data-contest-id="{contest.pk}"')
    assert 'id="presence"' in state and 'data-seq="1"' in state
    await socket.disconnect()
