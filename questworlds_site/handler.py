"""Django's ASGI handler with the middleware and the view run together in one thread.

Every view and every middleware of this project is synchronous (the ORM, templates).
Django's own ASGI handler builds the middleware chain in async mode, and then crosses
between the event loop and a worker thread at every boundary: each Django middleware
in async mode runs its `process_request` and `process_response` through `sync_to_async`,
each synchronous one is wrapped back with `async_to_sync`, and the view goes to a
thread once more. The browsers'-path benchmark (bench.http_path) sampled about a fifth
of a busy process in that back-and-forth, and every crossing waits for the GIL while the
loop thread is busy sending to sockets.

Here the chain is built as under WSGI (synchronous throughout) and entered once, in the
request's own thread (`sync_to_async`, thread-sensitive, so the request's database
connection stays in that thread as Django requires). The request's body is still read,
and the answer sent, by the event loop.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler


class OneThreadASGIHandler(ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)
        self._middleware_chain = sync_to_async(self._middleware_chain, thread_sensitive=True)
