"""Django's ASGI handler with a request's whole synchronous part run in one step.

Every view and every middleware of this project is synchronous (the ORM, templates).
Django's own ASGI handler builds the middleware chain in async mode, and then crosses
between the event loop and a worker thread at every boundary: each Django middleware
in async mode runs its `process_request` and `process_response` through `sync_to_async`,
each synchronous one is wrapped back with `async_to_sync`, and the view goes to a
thread once more; the `request_started` and `request_finished` signals take a crossing
each, and every request gets a new thread of its own (`ThreadSensitiveContext`). The
browsers'-path benchmark (bench.http_path) sampled about a fifth of a busy process in
that back-and-forth, and every crossing waits for the GIL while the loop thread is busy
sending to sockets.

Here the event loop reads the request's body, then hands the rest to a worker thread in
one call: `request_started`, the middleware chain built as under WSGI (synchronous
throughout), the view, and, for an answer already whole in memory (every page and
fragment), `request_finished`, which hands the request's database connection back to
the pool. The loop then sends the answer. Everything a request does with the database
happens inside that one call, in one thread, as Django requires. The worker threads
are the loop's default executor's, kept from one request to the next; a streamed answer
(a static file) is sent and then closed as Django's handler does.

Every request counts in the process's admission (admission.py) from when its body is in
until its answer is sent, and its wait for a thread is timed there; a POST to a view
marked `sheds_when_busy` that finds the process full is answered 503 with the view's
words at once, without a thread.
"""

from __future__ import annotations

import functools

from asgiref.sync import sync_to_async
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse, HttpRequest, HttpResponseBase
from django.urls import Resolver404, URLResolver, get_resolver, set_script_prefix

from .admission import ADMISSION, RETRY_AFTER_SECONDS, cap_worker_threads
from .security import POLICY


class OneThreadASGIHandler(ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        cap_worker_threads()
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        try:
            # Counted once its body is in (a slow sender holds no place in the count).
            busy_answer = self._busy_answer(scope) if scope.get("method") == "POST" else None
            if busy_answer is None:
                ADMISSION.take()
            elif not ADMISSION.try_take():
                await self._send_busy(busy_answer, send)
                return
            try:
                set_script_prefix(get_script_prefix(scope))
                # Its wait for a thread is what says the process is full (admission.py).
                with ADMISSION.queued() as ticket:
                    respond = sync_to_async(ticket.run(self._respond), thread_sensitive=False)
                    response = await respond(scope, body_file)
                await self.send_response(response, send)
                if response.streaming:
                    await sync_to_async(response.close, thread_sensitive=False)()
            finally:
                ADMISSION.give_back()
        finally:
            body_file.close()

    @staticmethod
    def _busy_answer(scope):
        """The refusal words of the view this POST goes to, if it is one that may be
        refused when the process is full (`sheds_when_busy`)."""
        path = scope["path"]
        root = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        resolver = get_resolver()
        try:
            if len(path) > _REMEMBERED_PATH_LENGTH:
                return _busy_answer_at.__wrapped__(resolver, path)
            return _busy_answer_at(resolver, path)
        except Resolver404:
            return None

    async def _send_busy(self, answer, send) -> None:
        """The refusal, sent as it was made the first time (`_refusal`)."""
        headers, body = _refusal(answer)
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _respond(self, scope, body_file) -> HttpResponseBase:
        """The request's synchronous part, in the worker thread that calls it."""
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            # Set by BaseHandler.load_middleware; django-stubs does not declare it.
            response = self._middleware_chain(request)  # type: ignore[attr-defined]
            response._handler_class = self.__class__
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size
        assert response is not None, "create_request answers a request it cannot build"
        if not response.streaming:
            # request_finished, here in the thread that used the connection.
            response.close()
            if request is not None:
                let_go(request)
        return response


def let_go(request: HttpRequest) -> None:
    """Drop everything a finished request holds, so that it goes at once.

    Django's request is caught in reference cycles: its lazy user's closure, htmx's
    details, the messages' storage and the upload handlers each point back at it. So
    when a request ends, it and all it holds (the form's fields, the session, the user:
    about 120 objects) are freed not by reference counting but by the garbage
    collector, and those objects were what made its young collections run every few
    dozen requests, each a pause for every request and socket of the process (the
    browsers'-path benchmark's p99, docs/benchmarks.md). Nothing reads a request once
    its answer is whole and closed; a streamed answer (a static file) keeps its request
    until it is sent."""
    request.__dict__.clear()


# The paths remembered: as many as a process's tables' action and chat paths, each
# short; a path that goes nowhere (Resolver404) or is longer is resolved every time, so
# that no stream of made-up paths fills the process's memory.
_REMEMBERED_PATHS = 2048
_REMEMBERED_PATH_LENGTH = 200


@functools.lru_cache(maxsize=_REMEMBERED_PATHS)
def _busy_answer_at(resolver: URLResolver, path: str):
    """Whether a POST to `path` may be refused, and in which words (`sheds_when_busy`);
    Resolver404 for a path that goes nowhere. The view a path goes to does not change
    while the URLconf does not, and past its capacity a process is asked this for every
    POST it refuses, a table's action path many times over (resolving it took 31 us
    here, the rest of a refusal 4)."""
    return getattr(resolver.resolve(path).func, "busy_answer", None)


@functools.lru_cache(maxsize=64)
def _refusal(answer) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """A full process's answer to a POST to a view that sheds when busy: 503 with the
    view's words, Retry-After, and the headers every answer carries (security.py),
    though no middleware ran. Made once per view (its words do not change)."""
    body = answer().encode()
    headers = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(RETRY_AFTER_SECONDS).encode()),
        (b"content-security-policy", POLICY.encode()),
        (b"cache-control", b"no-store, no-cache, must-revalidate, private"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),
        (b"x-frame-options", b"DENY"),
    ]
    return headers, body
