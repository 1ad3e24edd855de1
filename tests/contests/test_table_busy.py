"""Past what a process can take on at once it bends, not breaks (issue 29): a table action
that finds the process full is answered at once, in words, with 503 and Retry-After,
and changes nothing; pages are still served; every action that was taken reaches the
table's sockets; and once the rush is over actions go through again.

Checked on the real server (uvicorn, as production runs it) with a burst of the
browsers' own htmx POSTs, and on the socket path with the process's count full."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from websockets.asyncio.client import connect

from bench.liveserver import app_process, fresh_database, log_in, manage, server_env
from bench.table_clients import connect_kwargs
from contests.models import ContestEvent
from questworlds_site.admission import ADMISSION, BUSY_MESSAGE, Admission
from questworlds_site.asgi import application
from tests.contests.socket_helpers import receive_until, session_cookie, table_socket
from tests.site.test_connection_burst import FRAME

BURST = 24
ACK = re.compile(r'data-acked="(\d+)"')
WAIT_S = 30.0


def _post_action(opener, base: str, campaign: int, contest: int, token: str, n: int, start):
    """The GM's tactic for the opposition, posted as htmx posts the table's form."""
    data = urllib.parse.urlencode(
        {
            "action": "set_tactic",
            "contest": str(contest),
            "key": uuid.uuid4().hex,
            "side": "opponent",
            "tactic": f"Rise {n}",
        }
    ).encode()
    request = urllib.request.Request(
        f"{base}/campaigns/{campaign}/table/act/",
        data=data,
        headers={"HX-Request": "true", "X-CSRFToken": token, "Referer": base},
    )
    start.wait(WAIT_S)
    try:
        with opener.open(request, timeout=WAIT_S) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


def _gm_at_the_table(base: str, campaign: int):
    """The GM logged in through the login form, with the table's page open: the
    browser's cookies, its session's key (for its socket) and the page's CSRF token."""
    opener = log_in(base, "gm", "questworlds")[0]
    jar = next(h for h in opener.handlers if hasattr(h, "cookiejar")).cookiejar
    session = next(c.value for c in jar if c.name == "sessionid")
    page = opener.open(f"{base}/campaigns/{campaign}/table/", timeout=WAIT_S)
    token = re.search(r'"X-CSRFToken": "([^"]+)"', page.read().decode()).group(1)
    return opener, session, token


def _get_page(opener, base: str, path: str, start) -> int:
    start.wait(WAIT_S)
    try:
        with opener.open(base + path, timeout=WAIT_S) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


async def _burst(base: str, port: int, ids: dict, opener, token: str, session: str):
    """The GM's page listens on its socket while the burst of actions and a few page
    loads are sent all at once; returns the answers and the steps the socket saw."""
    campaign, contest = ids["campaign"], ids["contest"]
    socket = await connect(
        f"ws://127.0.0.1:{port}/ws/tables/{campaign}/", **connect_kwargs(port, session)
    )
    seen: set[int] = set()

    async def listen() -> None:
        async for message in socket:
            found = re.search(r'id="contest" data-contest-id="\d*" data-seq="(\d+)"', message)
            if found:
                seen.add(int(found.group(1)))

    listening = asyncio.create_task(listen())
    # Every browser's request leaves at the same moment (a thread each).
    start = threading.Barrier(BURST + 4)
    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(max_workers=BURST + 4) as browsers:
        actions = [
            loop.run_in_executor(
                browsers, _post_action, opener, base, campaign, contest, token, n, start
            )
            for n in range(BURST)
        ]
        table_page = f"/campaigns/{campaign}/table/"
        pages = [
            loop.run_in_executor(browsers, _get_page, opener, base, table_page, start)
            for _ in range(4)
        ]
        answers = await asyncio.gather(*actions)
        page_statuses = await asyncio.gather(*pages)
    acked = [int(m.group(1)) for _s, _h, body in answers if (m := ACK.search(body))]

    async def all_seen() -> None:
        while not set(acked) <= seen:
            await asyncio.sleep(0.05)

    try:
        await asyncio.wait_for(all_seen(), WAIT_S)
    finally:
        listening.cancel()
        await socket.close()
    return answers, page_statuses, acked, seen


@pytest.mark.skipif(
    not (settings.DATABASES["default"]["ENGINE"].endswith("postgresql") and settings.REDIS_URL),
    reason="a burst of concurrent actions on the real server needs PostgreSQL's row locks",
)
@pytest.mark.xdist_group("servers")
def test_a_full_process_answers_the_actions_beyond_it_at_once_and_loses_none(tmp_path):
    with fresh_database(tmp_path, template="demo") as database_url:
        env = server_env(
            database_url,
            # Room for the burst's four page loads (which count, and are never refused)
            # and two actions: with less, the pages alone could fill it, and no action
            # in the burst would be taken.
            TABLE_BUSY_AFTER="6",
            ACTION_RATE_LIMIT="1000/10 seconds",  # this test is about the process's limit
        )
        ids = json.loads(manage(env, "shell", "-c", FRAME).strip().splitlines()[-1])
        with app_process(env) as (_process, base):
            port = urllib.parse.urlsplit(base).port
            opener, session, token = _gm_at_the_table(base, ids["campaign"])
            answers, page_statuses, acked, seen = asyncio.run(
                _burst(base, port, ids, opener, token, session)
            )
            # The rush is over: the next action is taken.
            after = _post_action(
                opener, base, ids["campaign"], ids["contest"], token, BURST, threading.Barrier(1)
            )
        with psycopg.connect(database_url) as db:
            (events,) = db.execute(
                "SELECT count(*) FROM contests_contestevent WHERE contest_id = %s",
                [ids["contest"]],
            ).fetchone()

    busy = [(headers, body) for status, headers, body in answers if status == 503]
    taken = [body for status, _headers, body in answers if status == 200]
    assert len(busy) + len(taken) == BURST, [status for status, _h, _b in answers]
    assert busy, "six in flight at most, 28 at once: some must have been refused"
    assert taken, "the process took what it could"
    for headers, body in busy:
        # In words, where the page shows the table's errors; the browser may try again.
        assert BUSY_MESSAGE in body and 'id="table-error"' in body
        assert headers.get("Retry-After") == "1"
    assert all(ACK.search(body) for body in taken), taken
    # Pages are never refused.
    assert page_statuses == [200] * 4
    # What was refused changed nothing; what was taken is each one step, and reached
    # the page's socket.
    assert sorted(acked) == sorted(set(acked))
    assert events == 1 + len(acked) + 1  # the framing, the burst's taken, and `after`
    assert set(acked) <= seen
    assert after[0] == 200 and ACK.search(after[2]), after


@pytest.mark.skipif(
    not (settings.DATABASES["default"]["ENGINE"].endswith("postgresql") and settings.REDIS_URL),
    reason="holding an action in its thread needs PostgreSQL's row locks",
)
@pytest.mark.xdist_group("servers")
def test_actions_are_refused_when_work_has_waited_for_a_thread_not_for_a_count(tmp_path):
    """Busy is how long the process's queue stands, not how many requests it holds: on
    a real process with one worker thread, an action held in that thread (the contest's
    row locked here, as a slow database would) and another queued behind it are both
    taken; once the queued one has waited past TABLE_BUSY_WAIT_MS the next action is
    answered "busy" while the two are still unanswered, and a page load still queues.
    When the lock goes, all that was taken is answered and stored, and the next action
    is taken again."""
    with fresh_database(tmp_path, template="demo") as database_url:
        env = server_env(
            database_url,
            WORKER_THREADS="1",
            TABLE_BUSY_AFTER="0",  # no count: the queue's wait alone decides
            TABLE_BUSY_WAIT_MS="50",
            ACTION_RATE_LIMIT="1000/10 seconds",
        )
        ids = json.loads(manage(env, "shell", "-c", FRAME).strip().splitlines()[-1])
        campaign, contest = ids["campaign"], ids["contest"]
        with app_process(env) as (_process, base), psycopg.connect(database_url) as db:
            opener, _session, token = _gm_at_the_table(base, campaign)
            go = threading.Barrier(1)

            def act(n: int):
                return _post_action(opener, base, campaign, contest, token, n, go)

            with ThreadPoolExecutor(max_workers=4) as browsers:
                # The contest's row locked: the first action holds the one thread.
                db.execute("SELECT id FROM contests_contest WHERE id = %s FOR UPDATE", [contest])
                held = browsers.submit(act, 1)
                _wait_until(lambda: _waiting_on_lock(database_url, contest))
                queued = browsers.submit(act, 2)  # waits for the thread: taken, queued
                time.sleep(0.3)  # ...for longer than TABLE_BUSY_WAIT_MS
                refused = act(3)
                page_load = browsers.submit(
                    _get_page, opener, base, f"/campaigns/{campaign}/table/", go
                )
                # Answered while the two taken are still waiting on the lock.
                assert not held.done() and not queued.done()
                db.commit()  # the lock goes
                answers = [held.result(WAIT_S), queued.result(WAIT_S)]
                assert page_load.result(WAIT_S) == 200  # pages are never refused
            after = act(4)
            (events,) = db.execute(
                "SELECT count(*) FROM contests_contestevent WHERE contest_id = %s", [contest]
            ).fetchone()

    status, headers, body = refused
    assert status == 503 and BUSY_MESSAGE in body and 'id="table-error"' in body
    assert headers.get("Retry-After") == "1"
    assert [status for status, _h, _b in answers] == [200, 200]
    assert all(ACK.search(body) for _s, _h, body in answers)
    assert after[0] == 200 and ACK.search(after[2]), after
    assert events == 1 + 2 + 1  # the framing, the two taken and `after`; not the refused


@pytest.mark.skipif(
    not (settings.DATABASES["default"]["ENGINE"].endswith("postgresql") and settings.REDIS_URL),
    reason="holding an action in its thread needs PostgreSQL's row locks",
)
@pytest.mark.xdist_group("servers")
def test_a_reconnecting_pages_wait_for_a_thread_counts_as_an_actions_does(tmp_path):
    """A page that comes back after a cut asks for the table's full state ("resync"):
    its rendering waits for a thread like any request, so once it has waited past
    TABLE_BUSY_WAIT_MS behind an action holding the one thread, the next action is
    answered "busy"; when the thread is free the page gets its state, and the next
    action is taken."""
    with fresh_database(tmp_path, template="demo") as database_url:
        env = server_env(
            database_url,
            WORKER_THREADS="1",
            TABLE_BUSY_AFTER="0",
            TABLE_BUSY_WAIT_MS="50",
            ACTION_RATE_LIMIT="1000/10 seconds",
        )
        ids = json.loads(manage(env, "shell", "-c", FRAME).strip().splitlines()[-1])
        campaign, contest = ids["campaign"], ids["contest"]
        with app_process(env) as (_process, base), psycopg.connect(database_url) as db:
            port = urllib.parse.urlsplit(base).port
            opener, session, token = _gm_at_the_table(base, campaign)
            go = threading.Barrier(1)

            def act(n: int):
                return _post_action(opener, base, campaign, contest, token, n, go)

            async def resync_behind_a_held_action():
                url = f"ws://127.0.0.1:{port}/ws/tables/{campaign}/"
                async with connect(url, **connect_kwargs(port, session)) as socket:
                    await _until(socket, 'id="contest"')  # the state on connecting
                    loop = asyncio.get_running_loop()
                    with ThreadPoolExecutor(max_workers=2) as browsers:
                        db.execute(
                            "SELECT id FROM contests_contest WHERE id = %s FOR UPDATE", [contest]
                        )
                        held = loop.run_in_executor(browsers, act, 1)
                        while not _waiting_on_lock(database_url, contest):
                            await asyncio.sleep(0.02)
                        await socket.send(json.dumps({"action": "resync"}))
                        await asyncio.sleep(0.3)  # longer than TABLE_BUSY_WAIT_MS
                        refused = await loop.run_in_executor(browsers, act, 2)
                        assert not held.done()
                        db.commit()  # the lock goes
                        state = await _until(socket, 'id="table-status"')
                        return refused, await held, state

            refused, held, state = asyncio.run(resync_behind_a_held_action())
            after = act(3)
            (events,) = db.execute(
                "SELECT count(*) FROM contests_contestevent WHERE contest_id = %s", [contest]
            ).fetchone()

    status, headers, body = refused
    assert status == 503 and BUSY_MESSAGE in body and headers.get("Retry-After") == "1"
    assert held[0] == 200 and ACK.search(held[2])
    assert 'id="contest"' in state  # the page got its full state all the same
    assert after[0] == 200 and ACK.search(after[2]), after
    assert events == 1 + 1 + 1  # the framing, the held action and `after`


async def _until(socket, text: str) -> str:
    while True:
        message = await asyncio.wait_for(socket.recv(), WAIT_S)
        if text in message:
            return message


def _waiting_on_lock(database_url: str, contest: int) -> bool:
    """Whether a connection to this test's database waits on a lock (the held action,
    in its thread)."""
    with psycopg.connect(database_url) as db:
        (waiting,) = db.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        ).fetchone()
    return waiting > 0


def _wait_until(condition, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the action never reached the contest's lock")
        time.sleep(0.02)


def test_the_wait_for_a_thread_refuses_actions_once_it_stands_past_its_limit(settings):
    settings.TABLE_BUSY_AFTER, settings.TABLE_BUSY_WAIT_MS = 0, 50
    now = [100.0]
    count = Admission(clock=lambda: now[0])
    first, second = count.queued(), count.queued()
    now[0] += 0.049
    assert count.try_take() is True  # queued work, but not waiting long yet
    now[0] += 0.001
    assert count.try_take() is False  # the oldest has waited 50 ms
    count.take()  # a page is served all the same, and counts
    assert (count.in_flight, count.refused) == (2, 1)
    first.started = True
    assert count.oldest_wait() == pytest.approx(0.05)  # the next in line waited as long
    assert count.try_take() is False
    second.started = True  # the queue is empty: whatever is in flight, room again
    assert count.oldest_wait() == 0.0
    assert count.try_take() is True
    late = count.queued()
    now[0] += 5
    settings.TABLE_BUSY_WAIT_MS = 0  # the wait not asked
    assert count.try_take() is True
    settings.TABLE_BUSY_WAIT_MS = 50
    assert count.try_take() is False
    assert late.run(lambda x: x + 1)(1) == 2 and late.started  # a thread took it up
    assert count.try_take() is True


def test_the_queue_holds_only_what_waits_when_no_action_asks(settings):
    """A process serving pages alone never asks whether it is full: what its threads
    took up does not pile up in the queue all the same."""
    count = Admission()
    for _ in range(10_000):
        with count.queued() as ticket:
            ticket.run(lambda: None)()
    assert len(count._queue) == 1


@pytest.mark.django_db(transaction=True)
async def test_a_socket_action_finding_the_process_full_is_refused_in_words(
    campaign, table, session, gm, tamsin, monkeypatch
):
    contest = await database_sync_to_async(table.frame)(
        pc=tamsin, prize="the ford", opponent={"name": "The Grey River", "level": "moderate"}
    )
    socket = table_socket(
        application, campaign.pk, await database_sync_to_async(session_cookie)(gm)
    )
    assert (await socket.connect())[0]
    await receive_until(socket, 'id="contest"')

    def tactic() -> str:
        return json.dumps(
            {
                "action": "set_tactic",
                "contest": contest.pk,
                "key": uuid.uuid4().hex,
                "data": {"side": "opponent", "tactic": "Rise"},
            }
        )

    # As many requests in flight as the process takes.
    monkeypatch.setattr(ADMISSION, "in_flight", settings.TABLE_BUSY_AFTER)
    await socket.send_to(text_data=tactic())
    refused = await receive_until(socket, 'id="table-error"', limit=40)
    assert BUSY_MESSAGE in refused
    assert await ContestEvent.objects.filter(contest=contest).acount() == 1
    # One finishes: the next action is taken.
    monkeypatch.setattr(ADMISSION, "in_flight", settings.TABLE_BUSY_AFTER - 1)
    await socket.send_to(text_data=tactic())
    await receive_until(socket, 'id="table-ack"', limit=40)
    assert await ContestEvent.objects.filter(contest=contest).acount() == 2
    await socket.disconnect()


def test_the_count_refuses_only_actions_and_only_past_its_limit(settings):
    settings.TABLE_BUSY_AFTER = 2
    count = Admission()
    count.take()
    assert count.try_take() is True  # the second of two
    assert count.try_take() is False  # a third action is refused...
    count.take()  # ...but a page is served, and counts
    assert (count.in_flight, count.refused) == (3, 1)
    count.give_back()
    assert count.try_take() is False  # still two in flight
    count.give_back()
    assert count.try_take() is True  # one finished: room for one more
    settings.TABLE_BUSY_AFTER = 0  # no limit
    assert all(count.try_take() for _ in range(50))
