"""The table page's heartbeat, answered below the consumer (issue 16).

Every table page in view pings its socket every 2 s (static/js/table.js), so that a dead
connection shows within 5 s. A thousand pages in view send 500 pings a second: through
the consumer each one was parsed as JSON and dispatched like an action, which made
open pages cost more than everything else an idle table does (bench.http_path, "idle
sockets"). The page's exact ping is answered here instead, on a socket the consumer
has accepted and not closed; anything else, a differently written ping included, goes
on to the consumer unchanged (which answers pings too).
"""

from __future__ import annotations

from typing import Any

# What static/js/table.js sends: JSON.stringify({action: "ping"}).
PING = '{"action":"ping"}'
# The answer: an empty out-of-band swap of a hidden element (the page only needs to
# hear something).
PONG = '<div id="table-pong" hx-swap-oob="true" hidden></div>'
PONG_MESSAGE = {"type": "websocket.send", "text": PONG}


class HeartbeatMiddleware:
    """Wrap a websocket ASGI app: answer the page's ping while the app holds the socket
    open (between its `websocket.accept` and its `websocket.close`)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        accepted = False

        async def watched_send(message: dict) -> None:
            nonlocal accepted
            kind = message["type"]
            if kind == "websocket.accept":
                accepted = True
            elif kind == "websocket.close":
                accepted = False
            await send(message)

        async def answering_receive() -> dict:
            while True:
                message = await receive()
                if accepted and message.get("text") == PING:
                    await send(PONG_MESSAGE)
                    continue
                return message

        await self.app(scope, answering_receive, watched_send)
