"""HTTP requests through the ASGI application: a request's signals, middleware and view
run in one worker thread, entered once, and the workers are kept from one request to the
next (questworlds_site/handler.py)."""

from __future__ import annotations

import threading

import pytest
from asgiref.sync import AsyncToSync
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
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"localhost")],
        "client": ("127.0.0.1", 5000),
        "server": ("localhost", 80),
    }
    app = ApplicationCommunicator(application, scope)
    await app.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await app.receive_output(timeout=10)
    body = b""
    while True:
        part = await app.receive_output(timeout=10)
        body += part.get("body", b"")
        if not part.get("more_body"):
            break
    return start["status"], body


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
