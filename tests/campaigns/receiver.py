"""A local HTTP receiver standing in for Discord (this machine has no internet): it
records each POST with the moment it arrived, and answers as a test scripts it (a
status, headers, a body; or holding the request until the test lets it go)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# Every wait on the receiver is bounded, and long: a wait is for an event, never a
# measure of speed.
WAIT = 20.0


@dataclass
class Reply:
    status: int = 204
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    hold: threading.Event | None = None  # answer only once the test sets it


@dataclass(frozen=True)
class Received:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    at: float  # time.monotonic() as it arrived

    @property
    def text(self) -> str:
        return self.body.get("content", "")


class Receiver:
    def __init__(self, port: int = 0) -> None:
        self.replies: list[Reply] = []
        self.received: list[Received] = []
        self.arrived = threading.Condition()
        self.holding = threading.Event()  # a request is being held now
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                got = Received(self.path, json.loads(raw), dict(self.headers), time.monotonic())
                with receiver.arrived:
                    reply = receiver.replies.pop(0) if receiver.replies else Reply()
                    receiver.received.append(got)
                    receiver.arrived.notify_all()
                if reply.hold is not None:
                    receiver.holding.set()
                    reply.hold.wait(WAIT)
                    receiver.holding.clear()
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

            def log_message(self, format: str, *args: object) -> None:
                """Nothing logged: the test reads what was received instead."""

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def url(self, path: str = "/hook") -> str:
        return f"http://{self.host}{path}"

    def wait_for(self, count: int) -> list[Received]:
        """The first `count` requests, once they have arrived (bounded)."""
        with self.arrived:
            arrived = self.arrived.wait_for(lambda: len(self.received) >= count, WAIT)
        assert arrived, f"the receiver got {len(self.received)} requests, not {count}"
        return self.received[:count]

    def texts(self) -> list[str]:
        return [r.text for r in self.received]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
