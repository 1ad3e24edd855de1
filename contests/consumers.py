"""The live table's websocket: authenticate, join the table's group, forward events.

Browsers may also act over the socket: `{"action": ..., "contest": id, "data": {...},
"key": "<idempotency key>", "seq": <last seen>}`; `{"action": "resync"}` asks for the
full current state (sent after a gap in sequence numbers or a reconnect).
"""

from __future__ import annotations

import functools
import json
import time

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string

from campaigns.access import campaign_role
from campaigns.models import Campaign

from . import live, presence
from .broadcast import table_group_name
from .table_actions import KNOWN_ACTIONS, perform

# Database work runs on the thread pool, not on the one shared "sync" thread: otherwise
# every socket's lookups, renders and actions queue behind each other (make bench).
db_async = functools.partial(database_sync_to_async, thread_sensitive=False)

CLOSE_NOT_LOGGED_IN = 4401
CLOSE_NOT_A_MEMBER = 4403
CLOSE_REMOVED = 4404
MAX_MESSAGE_BYTES = 4096
# Token bucket per connection: a burst of 10 actions, refilled at 5 a second.
RATE_BURST = 10
RATE_PER_SECOND = 5.0
# The bucket's clock (tests hold it still, so a slow machine's refills do not blur a burst).
clock = time.monotonic


async def release_channel(layer, channel: str) -> None:
    """Unsubscribe a finished consumer's channel from Redis if the pubsub layer did not.

    channels_redis's pubsub layer unsubscribes a channel only when its pending
    `receive()` is cancelled; a receive task cancelled before it ever ran is not, and its
    channel stays subscribed in Redis and in the layer for the life of the process
    (channels_redis#276). `make bench` found 16 of 2,800 sockets left so after a mass
    disconnect. A no-op for the other layers, and when the layer has already done it.
    """
    get_layer = getattr(layer, "_get_layer", None)
    if get_layer is None:
        return
    loop_layer = get_layer()
    channels = getattr(loop_layer, "channels", None)
    if not isinstance(channels, dict) or channel not in channels:
        return
    del channels[channel]
    await loop_layer._get_shard(channel).unsubscribe(channel)


@db_async
def _role_at_table(campaign_id: int, user) -> str | None:
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    return campaign_role(campaign, user) if campaign else None


class TableConsumer(AsyncWebsocketConsumer):
    """One browser at a campaign's table (`ws/tables/<campaign_id>/`).

    Refused sockets are accepted and closed at once with a code the page can show
    (4401 not logged in, 4403 not a member); they never join the group.
    """

    campaign_id: int
    role: str | None = None

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            layer = getattr(self, "channel_layer", None)
            if layer is not None and getattr(self, "channel_name", None):
                await release_channel(layer, self.channel_name)

    async def connect(self) -> None:
        self.campaign_id = int(self.scope["url_route"]["kwargs"]["campaign_id"])
        self.tokens = float(RATE_BURST)
        self.refilled_at = clock()
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self._refuse(CLOSE_NOT_LOGGED_IN)
            return
        self.role = await _role_at_table(self.campaign_id, user)
        if self.role is None:
            await self._refuse(CLOSE_NOT_A_MEMBER)
            return
        self.group_name = table_group_name(self.campaign_id)
        await self.channel_layer.group_add(self.group_name, self.channel_name)
        await db_async(presence.presence_join)(
            campaign_id=self.campaign_id, user=user, role=self.role, channel_name=self.channel_name
        )
        await self.accept()
        # The full current state, so a (re)connecting browser depends on nothing it missed.
        await self.send(text_data=await self._render_full_state())
        await self._broadcast_presence()

    async def _refuse(self, code: int) -> None:
        await self.accept()
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        if self.role is None:
            return
        await self.channel_layer.group_discard(self.group_name, self.channel_name)
        await db_async(presence.presence_leave)(channel_name=self.channel_name)
        self.role = None
        await self._broadcast_presence()

    def _take_token(self) -> bool:
        now = clock()
        self.tokens = min(RATE_BURST, self.tokens + (now - self.refilled_at) * RATE_PER_SECOND)
        self.refilled_at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.role is None:
            return
        if bytes_data is not None or text_data is None or len(text_data) > MAX_MESSAGE_BYTES:
            await self._send_error("That message is too large or not text; nothing was done.")
            return
        try:
            message = json.loads(text_data)
        except (ValueError, RecursionError):  # deep nesting is refused like bad JSON
            await self._send_error("That message is not valid JSON; nothing was done.")
            return
        if not isinstance(message, dict):
            await self._send_error("That message is not an object; nothing was done.")
            return
        if not self._take_token():
            await self._send_error("Too many actions at once; slow down. Nothing was done.")
            return
        action = message.get("action")
        if action == "resync":
            await self.send(text_data=await self._render_full_state())
            return
        if not isinstance(action, str) or action not in KNOWN_ACTIONS:
            await self._send_error(f"Unknown action {str(action)[:40]!r}; nothing was done.")
            return
        reply = await db_async(perform)(
            campaign_id=self.campaign_id, user=self.scope["user"], message=message
        )
        if reply.error:
            await self._send_error(reply.error)
        elif not reply.created:
            await self._send_error("Already done: that action was received before.", kind="notice")
        else:
            await self.send(
                text_data=render_to_string("contests/table.html#ack", {"seq": reply.seq})
            )

    # Group handlers: each re-checks that this socket is still seated at the table.

    async def table_fragment(self, event: dict) -> None:
        if self.role is not None:
            await self.send(text_data=event["html"])

    async def table_contest(self, event: dict) -> None:
        if self.role is not None:
            await self.send(text_data=event["html"][self.role])

    async def table_revoke(self, event: dict) -> None:
        if self.role is not None and event["user_id"] == self.scope["user"].pk:
            await self.disconnect(CLOSE_REMOVED)
            await self.close(code=CLOSE_REMOVED)

    async def _broadcast_presence(self) -> None:
        html = await db_async(presence.render_presence)(self.campaign_id)
        # This consumer's own layer, so a test can seat two app instances on two layers.
        await self.channel_layer.group_send(
            table_group_name(self.campaign_id), {"type": "table.fragment", "html": html}
        )

    @db_async
    def _render_full_state(self) -> str:
        contest = live.current_contest(self.campaign_id)
        return (
            presence.render_presence(self.campaign_id)
            + render_to_string("contests/table.html#status", {"role": self.role, "oob": True})
            + live.render_contest(contest, self.role)
        )

    async def _send_error(self, text: str, kind: str = "error") -> None:
        html = render_to_string("contests/table.html#error", {"error": text, "kind": kind})
        await self.send(text_data=html)
