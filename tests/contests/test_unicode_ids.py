"""Ids and numbers in a table action are the digits 0 to 9 and nothing else (issue 27,
item 5): the socket's frames and the table's form both refuse "١" (which int() reads
as 1), "²" (which str.isdigit() calls a digit and int() refuses), full-width "１",
spaces, signs, underscores and decimals in every whole-number field of every action,
with a readable message, and nothing is stored.

Frames go through the real ASGI application (tests/contests/socket_helpers.py), forms
as a browser posts them to `table/act/`.
"""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from contests.core.actions import DATA_MODELS
from contests.models import ContestEvent
from questworlds_site.asgi import application

from .socket_helpers import receive_until, session_cookie, table_socket
from .test_action_numbers import base_data, bounds, fields_of, frame, with_value
from .test_socket_fuzz import answer_to, send

# Not a number anywhere; as a JSON string in a frame, as a form's value in a post.
NOT_DIGITS = ["١", "²", "١٢", "１", " 1", "1 ", "+1", "1_0", "1.0", "٣"]


def whole_number_fields(value: str = "") -> list[tuple[str, str]]:
    """(action, path) of every whole-number field (ids included) of every action; for a
    signed `value` ("+1"), those that take no negative number (where a sign is no
    number; a modifier of +1 is one)."""
    return [
        (action, path)
        for action, model in sorted(DATA_MODELS.items())
        for path, kind, validator in fields_of(model)
        if kind == "Whole" and not (value.startswith("+") and bounds(validator)["minimum"] < 0)
    ]


def as_form(data: dict, path: str, value: str) -> dict:
    """The action's data as the table's form posts it: "pc.character_id", "participants.
    0.npc_id", and the multi-value "characters" field (contests/views.py)."""
    posted = {name: str(v) for name, v in data.items() if not isinstance(v, (dict, list))}
    head, _, rest = path.partition(".")
    name = head.removesuffix("[]")
    if not rest:
        posted[name] = value
    elif head.endswith("[]"):
        posted[f"{name}.0.{rest}"] = value
    else:
        posted[f"{head}.{rest}"] = value
    return posted


@database_sync_to_async
def _frame(table, tamsin, brannoc):
    return frame(table, "simple", tamsin, brannoc)


@pytest.mark.django_db(transaction=True)
async def test_frames_with_unicode_digits_in_ids_are_refused_and_store_nothing(
    campaign, table, session, gm, alice, tamsin, brannoc, settings
):
    settings.ACTION_RATE_LIMIT = "100000/minute"
    contest = await _frame(table, tamsin, brannoc)
    fields = whole_number_fields()
    assert {("frame", "pc.character_id"), ("choose_ability", "ability_id")} <= set(fields)
    sent = 0
    for user in (alice, gm):
        socket = table_socket(
            application, campaign.pk, await database_sync_to_async(session_cookie)(user)
        )
        assert (await socket.connect())[0]
        await receive_until(socket, 'id="contest"')
        for value in NOT_DIGITS:
            envelope = {"action": "set_tactic", "contest": value, "key": f"c{sent}"}
            text = await _answer(socket, {**envelope, "data": {"side": "pc"}})
            assert "no such contest" in text
            sent += 1
            for action, path in fields:
                data = with_value(base_data(action, "simple"), path, value)
                message = {"action": action, "contest": contest.pk, "key": f"u{sent}"}
                text = await _answer(socket, {**message, "data": data})
                assert "whole number" in text, (action, path, value, text[:300])
                sent += 1
        await socket.disconnect()
    assert sent > 300
    assert await ContestEvent.objects.filter(contest=contest).acount() == 1  # the framing


async def _answer(socket, message: dict) -> str:
    """The server's answer to one frame: the table's error line, never a close."""
    sent = {"text_data": json.dumps(message, ensure_ascii=False)}
    await send(socket, sent)
    return await answer_to(socket, str(message), sent)


@pytest.mark.django_db
def test_the_table_form_refuses_unicode_digits_in_every_id_and_number(
    client, campaign, table, session, gm, tamsin, brannoc, settings
):
    settings.ACTION_RATE_LIMIT = "100000/minute"
    contest = frame(table, "simple", tamsin, brannoc)
    client.force_login(gm)
    url = reverse("table_act", args=[campaign.pk])
    before = ContestEvent.objects.count()
    for value in NOT_DIGITS:
        envelope = {"action": "set_tactic", "contest": value, "key": "k", "side": "pc"}
        assert "no such contest" in client.post(url, envelope).content.decode()
        for action, path in whole_number_fields(value):
            posted = as_form(base_data(action, "simple"), path, value)
            envelope = {"action": action, "contest": contest.pk, "key": f"{action}{path}"}
            response = client.post(url, {**envelope, **posted})
            assert response.status_code == 400, (action, path, value)
            assert "whole number" in response.content.decode(), (action, path, value)
    assert ContestEvent.objects.count() == before


@pytest.mark.django_db(transaction=True)
async def test_a_table_socket_for_a_campaign_id_past_the_largest_is_refused(gm, campaign):
    """No campaign has such an id: the socket is closed as for a non-member (4403)."""
    cookie = await database_sync_to_async(session_cookie)(gm)
    socket = table_socket(application, 10**20, cookie)
    assert (await socket.connect())[0]
    assert (await socket.receive_output(timeout=10))["code"] == 4403
