"""A TCP relay the test controls, between a browser and the live server: a real network
drop, which Playwright's `context.set_offline` is not (it leaves open websockets
working, playwright#4910, so a page never sees a dead socket).

The browser loads the site through the relay (`relay.base`), so its HTTP requests and
its websockets all cross it. `cut()` stops every byte both ways without closing any
connection: nothing arrives, nothing fails, as when a phone's network drops. New
connections are taken but left unanswered while cut. `restore()` lets bytes flow again
for every connection, those held included, as TCP does when a link comes back within
its retransmission time (what was sent meanwhile arrives late, never lost or out of
order).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import urllib.parse
from collections.abc import Iterator


class Relay:
    def __init__(self, target: str) -> None:
        parts = urllib.parse.urlsplit(target)
        self.target_host, self.target_port = parts.hostname, parts.port
        self.loop = asyncio.new_event_loop()
        self.flowing = asyncio.Event()
        self.connections = 0
        self.base = ""
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="relay", daemon=True)

    # -- controls, from the test's thread -------------------------------------------------

    def cut(self) -> None:
        """From now on no byte crosses, either way, on any connection."""
        self._call(self.flowing.clear)

    def restore(self) -> None:
        """Bytes flow again, those held during the cut first."""
        self._call(self.flowing.set)

    def _call(self, function) -> None:
        done = threading.Event()

        def run():
            function()
            done.set()

        self.loop.call_soon_threadsafe(run)
        done.wait(5)

    # -- the relay, on its own thread and event loop ---------------------------------------

    def start(self) -> Relay:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the relay did not start")
        return self

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.flowing.set()
        server = self.loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
        port = server.sockets[0].getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        self._ready.set()
        try:
            self.loop.run_forever()
        finally:
            server.close()
            for task in asyncio.all_tasks(self.loop):
                task.cancel()
            with contextlib.suppress(Exception):
                self.loop.run_until_complete(asyncio.sleep(0))
            self.loop.close()

    async def _serve(self, client_reader, client_writer) -> None:
        self.connections += 1
        # A connection made while cut is held: no answer until the network is back.
        await self.flowing.wait()
        try:
            server_reader, server_writer = await asyncio.open_connection(
                self.target_host, self.target_port
            )
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(
            self._pipe(client_reader, server_writer),
            self._pipe(server_reader, client_writer),
            return_exceptions=True,
        )

    async def _pipe(self, reader, writer) -> None:
        try:
            while data := await reader.read(65536):
                # Read but not passed on while cut: what is on its way waits here.
                await self.flowing.wait()
                writer.write(data)
                await writer.drain()
        finally:
            with contextlib.suppress(Exception):
                if writer.can_write_eof():
                    writer.write_eof()
                else:
                    writer.close()


@contextlib.contextmanager
def relay_to(base: str) -> Iterator[Relay]:
    """A relay to the server at `base`, for one test."""
    relay = Relay(base).start()
    try:
        yield relay
    finally:
        relay.stop()
