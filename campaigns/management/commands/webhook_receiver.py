"""A stand-in for Discord on this machine: prints each message a webhook posts to it.

    WEBHOOK_ALLOWED_HOSTS=127.0.0.1:8765 WEBHOOK_ALLOW_HTTP=1 make run
    .venv/bin/python manage.py webhook_receiver --port 8765

then set http://127.0.0.1:8765/hook as the campaign's webhook (docs/setup.md).
"""

from __future__ import annotations

import contextlib
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Receive webhook messages on 127.0.0.1 and print them (a local stand-in for Discord)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--port", type=int, default=8765)
        parser.add_argument(
            "--status",
            type=int,
            default=204,
            help="The status to answer with (204 as Discord; 500 or 429 to watch the retries).",
        )

    def handle(self, *args, port: int, status: int, **options) -> None:
        if not 1 <= port <= 65535:
            raise CommandError("The port is a number from 1 to 65535.")
        if not 200 <= status <= 599:
            raise CommandError("The status is an HTTP status, 200 to 599.")
        out = self.stdout

        def write(line: str) -> None:
            out.write(line)
            out.flush()  # each message as it comes, even into a file or a pipe

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = min(int(self.headers.get("Content-Length") or 0), 1_000_000)
                raw = self.rfile.read(length)
                try:
                    content = json.loads(raw).get("content", raw.decode("utf-8", "replace"))
                except (ValueError, AttributeError):
                    content = raw.decode("utf-8", "replace")
                write(f"{self.path}: {content}")
                self.send_response(status)
                if status == 429:
                    self.send_header("Retry-After", "2")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass  # one line a message is printed above

        try:
            server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        except OSError as exc:
            raise CommandError(f"Cannot listen on 127.0.0.1:{port}: {exc}") from None
        write(
            f"Receiving webhook messages on http://127.0.0.1:{port}/hook "
            f"(answering {status}); Ctrl-C stops it."
        )
        try:
            with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: the receiver stops
                server.serve_forever()
        finally:
            server.server_close()
