"""Open websockets to the real ASGI application as a given user."""

from __future__ import annotations

from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

ORIGIN = (b"origin", b"http://localhost")


def session_cookie(user) -> tuple[bytes, bytes]:
    """A real login session for `user`, as the Cookie header a browser would send."""
    client = Client()
    client.force_login(user)
    return (
        b"cookie",
        f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode(),
    )


class TableSocket(WebsocketCommunicator):
    """A browser's socket to the table. Its handshake may wait as long as a message
    does (`receive_until`): the first socket of a test worker imports and connects
    everything, which on a busy 2-core machine can take more than Channels' default
    second."""

    async def connect(self, timeout: float = 10):
        return await super().connect(timeout=timeout)

    async def disconnect(self, code: int = 1000, timeout: float = 10):
        return await super().disconnect(code=code, timeout=timeout)


def table_socket(application, campaign_id: int, cookie=None, origin=ORIGIN) -> TableSocket:
    headers = [h for h in (origin, cookie) if h is not None]
    return TableSocket(application, f"/ws/tables/{campaign_id}/", headers=headers)


async def receive_until(
    communicator: WebsocketCommunicator, text: str, timeout: float = 10, limit: int = 20
) -> str:
    """Read messages until one contains `text` (presence updates arrive in bursts)."""
    seen = []
    while True:
        message = await communicator.receive_from(timeout=timeout)
        if text in message:
            return message
        seen.append(message)
        if len(seen) > limit:
            raise AssertionError(f"{text!r} never arrived; got {seen!r}")
