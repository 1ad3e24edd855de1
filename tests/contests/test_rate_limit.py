"""One action rate limit per person, shared by the browsers' path (htmx POST), the
websocket and every server process (issue 12, item 6)."""

from __future__ import annotations

import json
import re
import urllib.parse
import urllib.request

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from bench.liveserver import app_process, fresh_database, log_in, server_env
from contests.models import ContestEvent
from questworlds_site.asgi import application

from .conftest import key
from .socket_helpers import receive_until, session_cookie, table_socket

pytestmark = pytest.mark.django_db(transaction=True)


def tactic_fields(contest, n: int) -> dict[str, str]:
    return {
        "action": "set_tactic",
        "contest": str(contest.pk),
        "key": key(),
        "side": "pc",
        "tactic": f"try {n}",
    }


@database_sync_to_async
def frame(table, tamsin):
    return table.frame(
        pc=tamsin, prize="the ford", opponent={"name": "The Grey River", "level": "moderate"}
    )


@database_sync_to_async
def post_tactic(client, campaign, contest, n: int) -> str:
    response = client.post(
        reverse("table_act", args=[campaign.pk]),
        tactic_fields(contest, n),
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    return response.content.decode()


async def test_a_persons_actions_count_once_whichever_path_they_take(
    campaign, table, session, gm, alice, tamsin, client, settings
):
    settings.ACTION_RATE_LIMIT = "6/minute"
    contest = await frame(table, tamsin)
    await database_sync_to_async(client.force_login)(gm)
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(gm)
    )
    assert (await socket.connect())[0]
    await receive_until(socket, 'id="contest"')

    for n in range(3):
        assert "Too many actions" not in await post_tactic(client, campaign, contest, n)
    for n in range(3, 6):
        message = {
            "action": "set_tactic",
            "contest": contest.pk,
            "key": key(),
            "data": {"side": "pc", "tactic": f"try {n}"},
        }
        await socket.send_to(text_data=json.dumps(message))
        await receive_until(socket, 'id="table-ack"', limit=40)
    # Both paths are now used up for the GM.
    refused = await post_tactic(client, campaign, contest, 6)
    assert "Too many actions at once: wait" in refused and "Nothing was done" in refused
    message = {"action": "set_tactic", "contest": contest.pk, "key": key(), "data": {}}
    await socket.send_to(text_data=json.dumps(message))
    await receive_until(socket, "Too many actions at once", limit=40)
    assert await ContestEvent.objects.filter(contest=contest).acount() == 1 + 6
    # The limit is the GM's own: Alice still acts.
    await database_sync_to_async(client.force_login)(alice)
    answer = await post_tactic(client, campaign, contest, 7)
    assert "Too many actions" not in answer
    assert await ContestEvent.objects.filter(contest=contest).acount() == 1 + 7
    await socket.disconnect()


def test_a_plain_form_post_over_the_limit_gets_429_with_retry_after(
    campaign, table, session, gm, tamsin, client, settings
):
    settings.ACTION_RATE_LIMIT = "2/minute"
    contest = table.frame(
        pc=tamsin, prize="the ford", opponent={"name": "The Grey River", "level": "moderate"}
    )
    client.force_login(gm)
    url = reverse("table_act", args=[campaign.pk])
    for n in range(2):
        assert client.post(url, tactic_fields(contest, n)).status_code == 200
    response = client.post(url, tactic_fields(contest, 2))
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 60
    assert "Too many actions" in response.content.decode()
    assert ContestEvent.objects.filter(contest=contest).count() == 1 + 2


def _post_act(opener, base: str, campaign_id: int, n: int) -> str:
    """The table's form posted as htmx does, by a logged-in browser session."""
    page = opener.open(f"{base}/campaigns/{campaign_id}/table/", timeout=20).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    token = token.group(1) if token else re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)
    data = urllib.parse.urlencode(
        {"action": "narrate", "contest": "999999", "key": f"k{n}", "narration": f"n{n}"}
    ).encode()
    request = urllib.request.Request(
        f"{base}/campaigns/{campaign_id}/table/act/",
        data=data,
        headers={"HX-Request": "true", "X-CSRFToken": token, "Referer": base},
    )
    with opener.open(request, timeout=20) as response:
        return response.read().decode()


@pytest.mark.xdist_group("servers")
def test_two_server_processes_share_one_limit(tmp_path):
    """Two server processes on one Redis: attempts made on either count together."""
    with fresh_database(tmp_path, template="demo") as database_url:
        env = server_env(database_url, ACTION_RATE_LIMIT="4/minute")
        with app_process(env) as (_a, first), app_process(env) as (_b, second):
            campaign_id = int(
                re.search(r"/campaigns/(\d+)/table/", log_in(first, "gm", "questworlds")[1]).group(
                    1
                )
            )
            openers = [log_in(base, "gm", "questworlds")[0] for base in (first, second)]
            answers = [
                _post_act(openers[n % 2], (first, second)[n % 2], campaign_id, n) for n in range(5)
            ]
    refused = ["Too many actions" in answer for answer in answers]
    assert refused == [False, False, False, False, True], answers
