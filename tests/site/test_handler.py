"""HTTP requests through the ASGI application: a request's signals, middleware and view
run in one worker thread, entered once, and the workers are kept from one request to the
next (questworlds_site/handler.py)."""

from __future__ import annotations

import gc
import re
import threading
import urllib.parse
import uuid

import pytest
from asgiref.sync import AsyncToSync, sync_to_async
from asgiref.testing import ApplicationCommunicator
from django.core import signals

from questworlds_site.handler import OneThreadASGIHandler

pytestmark = pytest.mark.django_db(transaction=True)

SEEN: list[tuple[str, int]] = []


class Recording:
    """A middleware in the stack, noting the thread each request and answer pass in."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        SEEN.append(("request", threading.get_ident()))
        response = self.get_response(request)
        SEEN.append(("response", threading.get_ident()))
        return response


async def get(application, path: str) -> tuple[int, bytes]:
    status, _, body = await exchange(application, "GET", path)
    return status, body


async def exchange(
    application, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """One request as uvicorn hands it to the application: its status, headers and body."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [
            (b"host", b"localhost"),
            *((k.lower().encode(), v.encode()) for k, v in (headers or {}).items()),
        ],
        "client": ("127.0.0.1", 5000),
        "server": ("localhost", 80),
    }
    app = ApplicationCommunicator(application, scope)
    await app.send_input({"type": "http.request", "body": body, "more_body": False})
    start = await app.receive_output(timeout=10)
    answer = b""
    while True:
        part = await app.receive_output(timeout=10)
        answer += part.get("body", b"")
        if not part.get("more_body"):
            break
    return start["status"], start["headers"], answer


def _cookies(headers: list[tuple[bytes, bytes]]) -> dict[str, str]:
    found = {}
    for name, value in headers:
        if name.lower() == b"set-cookie":
            cookie, _, _ = value.decode().partition(";")
            key, _, content = cookie.partition("=")
            found[key] = content
    return found


async def test_a_request_runs_its_middleware_and_view_in_one_thread(settings, monkeypatch):
    crossings_back = []
    back_to_the_loop = AsyncToSync.__call__

    def counted(self, *args, **kwargs):
        crossings_back.append(self.awaitable)
        return back_to_the_loop(self, *args, **kwargs)

    monkeypatch.setattr(AsyncToSync, "__call__", counted)
    settings.MIDDLEWARE = [
        "tests.site.test_handler.Recording",
        *settings.MIDDLEWARE,
        "tests.site.test_handler.Recording",
    ]
    SEEN.clear()
    status, body = await get(OneThreadASGIHandler(), "/accounts/login/")
    assert status == 200 and b"<form" in body
    threads = {thread for _, thread in SEEN}
    assert [kind for kind, _ in SEEN] == ["request", "request", "response", "response"]
    # One thread for the whole stack, and not the event loop's; entered once, never
    # left for the event loop in the middle of the stack (Django's own handler does so
    # around every middleware in async mode).
    assert len(threads) == 1 and threading.get_ident() not in threads
    assert crossings_back == []


async def test_a_request_starts_and_finishes_in_its_own_thread_and_threads_are_kept():
    """request_finished (which hands the request's database connection back to the pool)
    runs in the thread that used the connection; and a burst of requests is served by a
    few kept threads, not a new thread each (Django's handler starts one per request)."""
    seen: list[tuple[str, str]] = []

    def started(**kwargs):
        seen.append(("started", threading.current_thread().name))

    def finished(**kwargs):
        seen.append(("finished", threading.current_thread().name))

    signals.request_started.connect(started)
    signals.request_finished.connect(finished)
    try:
        handler = OneThreadASGIHandler()
        for _ in range(20):
            status, _ = await get(handler, "/accounts/login/")
            assert status == 200
    finally:
        signals.request_started.disconnect(started)
        signals.request_finished.disconnect(finished)
    assert [kind for kind, _ in seen] == ["started", "finished"] * 20
    pairs = list(zip(seen[::2], seen[1::2], strict=True))
    assert all(start[1] == finish[1] for start, finish in pairs)
    assert len({name for _, name in seen}) <= 8


async def test_the_sites_application_answers_pages_and_refusals():
    from questworlds_site.asgi import application

    status, body = await get(application, "/accounts/login/")
    assert status == 200 and b"<form" in body
    status, _ = await get(application, "/characters/")
    assert status == 302  # not logged in: to the login page
    status, _ = await get(application, "/no/such/page/")
    assert status == 404


def _framed(campaign, gm, alice) -> tuple[int, str, str]:
    """A table with a contest framed for Alice's Tamsin, played through the services:
    the contest's id and the GM's and Alice's session cookies."""
    from django.utils import timezone

    from campaigns.models import Session
    from characters.models import Ability, Character
    from tests.contests.socket_helpers import session_cookie
    from tests.table import Table

    Session.objects.create(campaign=campaign, number=1, started_at=timezone.now())
    tamsin = Character.objects.create(name="Tamsin", player=alice, campaign=campaign)
    Ability.objects.create(character=tamsin, name="Boatcraft", rating=17)
    contest = Table(campaign, gm).frame(
        "simple", pc={"character_id": tamsin.pk}, opponent={"name": "The river", "rating": 14}
    )
    return contest.pk, session_cookie(gm)[1].decode(), session_cookie(alice)[1].decode()


async def test_an_action_leaves_nothing_of_its_request_for_the_garbage_collector(
    campaign, gm, alice
):
    """Django's request sits in reference cycles (its lazy user, htmx's details, the
    messages' storage, the upload handlers); once its answer is whole, the handler lets
    it go (questworlds_site/handler.py `let_go`), so the request and all it holds (the
    form, the session, the user) are freed at once rather than piling up for the
    collector, whose passes paused every request and socket of the process. Played as
    the table plays: the GM opens the table, then sets tactics by htmx, as every step of
    a contest is posted."""
    contest, gm_cookie, _ = await sync_to_async(_framed)(campaign, gm, alice)
    handler = OneThreadASGIHandler()
    table = f"/campaigns/{campaign.pk}/table/"
    status, headers, page = await exchange(handler, "GET", table, headers={"Cookie": gm_cookie})
    assert status == 200
    csrf = _cookies(headers)["csrftoken"]
    token = re.search(rb'"X-CSRFToken": ?"([^"]+)"', page)[1].decode()
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector would free is kept to be seen
    try:
        for seq in (1, 2, 3):
            form = {"action": "set_tactic", "contest": contest, "seq": seq, "key": uuid.uuid4().hex}
            form.update(side="opponent", tactic=f"Rise {seq}")
            status, _, answer = await exchange(
                handler,
                "POST",
                f"{table}act/",
                urllib.parse.urlencode(form).encode(),
                {
                    "Content-Type": "application/x-www-form-urlencoded",
                    "Cookie": f"{gm_cookie}; csrftoken={csrf}",
                    "X-CSRFToken": token,
                    "HX-Request": "true",
                },
            )
            assert status == 200 and f'data-acked="{seq + 1}"'.encode() in answer
        gc.collect()
        left = {type(o).__name__ for o in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    held = {"ASGIRequest", "QueryDict", "SessionStore", "User", "HtmxDetails"}
    assert not left & held


async def test_a_full_process_refuses_only_posts_to_actions_in_words_with_the_sites_headers(
    campaign, gm, alice, settings, monkeypatch
):
    """Past what a process takes on at once (questworlds_site/admission.py), a POST to a
    table action is answered at once: 503, the busy words where the page shows the
    table's errors, Retry-After, and the headers every answer of the site carries though
    no middleware ran; nothing is done. Every time, not only the first: the refusal is
    made once and sent again. A POST to any other view (signing in) is still served, and
    a path that goes nowhere is still a 404."""
    from contests.models import ContestEvent
    from questworlds_site.admission import ADMISSION, BUSY_MESSAGE
    from questworlds_site.security import POLICY

    contest, gm_cookie, _ = await sync_to_async(_framed)(campaign, gm, alice)
    handler = OneThreadASGIHandler()
    events = await ContestEvent.objects.filter(contest_id=contest).acount()
    settings.TABLE_BUSY_AFTER = 3
    monkeypatch.setattr(ADMISSION, "in_flight", 3)
    form = urllib.parse.urlencode(
        {"action": "set_tactic", "contest": contest, "key": uuid.uuid4().hex}
    ).encode()
    for _ in range(3):
        status, headers, answer = await exchange(
            handler,
            "POST",
            f"/campaigns/{campaign.pk}/table/act/",
            form,
            {"Cookie": gm_cookie, "HX-Request": "true"},
        )
        said = {name.decode().lower(): value.decode() for name, value in headers}
        assert status == 503
        assert BUSY_MESSAGE in answer.decode() and b'id="table-error"' in answer
        assert said["retry-after"] == "1"
        assert said["content-type"].startswith("text/html")
        assert said["content-length"] == str(len(answer))
        assert said["content-security-policy"] == POLICY
        assert said["x-content-type-options"] == "nosniff"
        assert said["x-frame-options"] == "DENY"
        assert "no-store" in said["cache-control"]
    assert await ContestEvent.objects.filter(contest_id=contest).acount() == events
    assert ADMISSION.in_flight == 3  # a refusal holds no place
    status, _, answer = await exchange(
        handler, "POST", "/accounts/login/", b"username=gm&password=wrong"
    )
    assert status != 503 and BUSY_MESSAGE.encode() not in answer
    # Paths that go nowhere, full or not: Unicode digits for the campaign, a long one.
    from questworlds_site import handler as module

    remembered = module._busy_answer_at.cache_info().currsize
    for path in (
        "/no/such/page/",
        f"/campaigns/{'١٢'}/table/act/",
        f"/campaigns/{'9' * 5000}x/table/act/",
    ):
        status, _, _ = await exchange(handler, "POST", path)
        assert status == 404, path
    assert module._busy_answer_at.cache_info().currsize == remembered  # none kept
