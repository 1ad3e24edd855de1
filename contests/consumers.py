"""The live table's websocket: authenticate, join the table's group, forward events.

Browsers may also act over the socket: `{"action": ..., "contest": id, "data": {...},
"key": "<idempotency key>", "seq": <last seen>}`; `{"action": "resync"}` asks for the
full current state (sent after a gap in sequence numbers or a reconnect);
`{"action": "ping"}` is the page's heartbeat, answered at once.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string

from campaigns.access import campaign_role
from campaigns.models import Campaign, Session
from questworlds_site import inputs
from questworlds_site.admission import ADMISSION, BUSY_MESSAGE, cap_worker_threads

from . import live, panels, presence
from .broadcast import table_group_name
from .heartbeat import PONG
from .table_actions import NAMED_ACTIONS, perform

logger = logging.getLogger(__name__)

# A player's sheet changed outside a contest's steps (`table.sheet`): an empty
# out-of-band swap of a hidden element that static/js/table.js hears and reloads after.
SHEET_CHANGED = '<div id="sheet-changed" hx-swap-oob="true" data-sheet-changed hidden></div>'

T = TypeVar("T")


def db_async(function: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """`function` (database work) run on the worker threads. On the pool, not on the one
    shared "sync" thread: otherwise every socket's lookups, renders and actions queue
    behind each other (make bench). Each hop holds a ticket, as each HTTP request does
    (questworlds_site/admission.py): a socket's wait for a thread (its role read on a
    reconnect, its full state, its action) counts toward "the table is busy"."""

    @functools.wraps(function)
    async def on_a_thread(*args: Any, **kwargs: Any) -> T:
        with ADMISSION.queued() as ticket:
            hop = database_sync_to_async(ticket.run(function), thread_sensitive=False)
            return await hop(*args, **kwargs)

    return on_a_thread


CLOSE_NOT_LOGGED_IN = 4401
CLOSE_NOT_A_MEMBER = 4403
CLOSE_REMOVED = 4404
# The person's role at the table changed (a GM hand-over): the page reloads for the new one.
CLOSE_ROLE_CHANGED = 4409
# Live updates are unavailable (the channel layer failed): "try again later", and the
# htmx ws extension reconnects by itself.
CLOSE_TRY_AGAIN = 1013
MAX_MESSAGE_BYTES = 4096


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


async def _come_back_later(receive, send) -> None:
    """Answer a socket with "live updates unavailable" and 1013 (try again later), from
    below the consumer: with no channel layer there is no consumer to speak for it."""
    message = await receive()
    if message.get("type") != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    text = "Live updates are unavailable right now; reconnecting…"
    html = render_to_string("contests/table.html#error", {"error": text, "kind": "error"})
    await send({"type": "websocket.send", "text": html})
    await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN})


@db_async
def _role_at_table(campaign_id: int, user) -> str | None:
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    return campaign_role(campaign, user) if campaign else None


class TableConsumer(AsyncWebsocketConsumer):
    """One browser at a campaign's table (`ws/tables/<campaign_id>/`).

    Refused sockets are accepted and closed at once with a code the page can show
    (4401 not logged in, 4403 not a member); they never join the group. The socket's
    role is re-read on every resync and follows every change of it: a removal closes it
    (4404), a GM hand-over closes it so the page reloads with the new role (4409).
    """

    campaign_id: int
    role: str | None = None
    joined: bool = False
    heartbeat_task: asyncio.Task | None = None

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        except Exception:
            if getattr(self, "channel_name", None):
                raise
            # The channel layer could not even give this socket a channel (Redis down).
            logger.warning("Table socket refused: the channel layer failed", exc_info=True)
            await _come_back_later(receive, send)
        finally:
            # However the socket ends (a close, a crash, a cancelled task), its presence
            # row and its subscription go with it.
            await self._leave()
            layer = getattr(self, "channel_layer", None)
            if layer is not None and getattr(self, "channel_name", None):
                await release_channel(layer, self.channel_name)

    async def connect(self) -> None:
        cap_worker_threads()
        # The route's <int:...>, bounded: beyond any id is no campaign (a closed socket
        # the page can explain, not a route that is not found and a server error).
        campaign_id = inputs.an_id(self.scope["url_route"]["kwargs"]["campaign_id"])
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self._refuse(CLOSE_NOT_LOGGED_IN)
            return
        role = await _role_at_table(campaign_id, user) if campaign_id else None
        if campaign_id is None or role is None:
            await self._refuse(CLOSE_NOT_A_MEMBER)
            return
        self.campaign_id = campaign_id
        self.group_name = table_group_name(self.campaign_id)
        try:
            await self.channel_layer.group_add(self.group_name, self.channel_name)
        except Exception:  # the channel layer (Redis) is down: no live updates for now
            logger.warning(
                "Table %s: socket not joined, the channel layer failed",
                self.campaign_id,
                exc_info=True,
            )
            await self.accept()
            await self._send_error("Live updates are unavailable right now; reconnecting…")
            await self.close(code=CLOSE_TRY_AGAIN)
            return
        self.role = role
        self.joined = True
        await db_async(presence.presence_join)(
            campaign_id=self.campaign_id, user=user, role=role, channel_name=self.channel_name
        )
        self.heartbeat_task = asyncio.create_task(self._heartbeat())
        await self.accept()
        # The full current state, so a (re)connecting browser depends on nothing it missed.
        await self.send(text_data=await self._full_state())
        await self._broadcast_presence()

    async def _refuse(self, code: int) -> None:
        await self.accept()
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        await self._leave()

    async def _leave(self) -> None:
        """Leave the table once: the group, the presence row, and tell the others."""
        if not self.joined:
            return
        self.joined = False
        self.role = None
        if self.heartbeat_task is not None:
            self.heartbeat_task.cancel()
        try:
            await self.channel_layer.group_discard(self.group_name, self.channel_name)
        except Exception:
            logger.warning("Table %s: group_discard failed", self.campaign_id, exc_info=True)
        await db_async(presence.presence_leave)(channel_name=self.channel_name)
        await self._broadcast_presence()

    async def _heartbeat(self) -> None:
        """Keep this process's presence rows alive (one write a period per process)."""
        while True:
            await asyncio.sleep(presence.HEARTBEAT_SECONDS)
            if presence.heartbeat_due():
                try:
                    await db_async(presence.heartbeat)()
                except Exception:
                    logger.warning("Presence heartbeat failed", exc_info=True)

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
        action = message.get("action")
        if action == "ping":
            # The page's heartbeat (static/js/table.js), written otherwise than the page
            # writes it (heartbeat.py answers that one before it gets here): an answer
            # says the connection is alive; no database work, no rate limit.
            await self.send(text_data=PONG)
            return
        if action == "resync":
            # The role as it is now: a change this socket missed is caught here.
            role = await _role_at_table(self.campaign_id, self.scope["user"])
            if role != self.role:
                await self._role_lost(CLOSE_ROLE_CHANGED if role else CLOSE_REMOVED)
                return
            ADMISSION.take()
            try:
                state = await self._full_state()
            finally:
                ADMISSION.give_back()
            await self.send(text_data=state)
            return
        if not isinstance(action, str) or action not in NAMED_ACTIONS:
            await self._send_error(f"Unknown action {str(action)[:40]!r}; nothing was done.")
            return
        # A process that has as much in flight as it can take refuses at once, in words,
        # rather than queue the action behind the rest (questworlds_site/admission.py).
        if not ADMISSION.try_take():
            await self._send_error(BUSY_MESSAGE)
            return
        try:
            reply = await db_async(perform)(
                campaign_id=self.campaign_id, user=self.scope["user"], message=message
            )
        finally:
            ADMISSION.give_back()
        if reply.error:
            await self._send_error(reply.error)
        elif not reply.created:
            await self._send_error("Already done: that action was received before.", kind="notice")
        else:
            await self.send(text_data=live.render_ack(reply.seq))

    # Group handlers: each re-checks that this socket is still seated at the table.

    async def table_fragment(self, event: dict) -> None:
        if self.role is not None:
            await self.send(text_data=event["html"])

    async def table_session(self, event: dict) -> None:
        if self.role is not None:
            context = {
                "session_notice": event["text"],
                "session_key": event["session_id"] or "",
                "oob": True,
            }
            html = render_to_string("contests/table.html#session_notice", context)
            await self.send(text_data=html)

    async def table_sheet(self, event: dict) -> None:
        # Only the player's own pages: their sheet at the table reloads (table.js).
        if self.role is not None and event["user_id"] == self.scope["user"].pk:
            await self.send(text_data=SHEET_CHANGED)

    async def table_contest(self, event: dict) -> None:
        if self.role is not None:
            # The copy for this socket's user and role: never another player's forms.
            copy = live.copy_for(event["html"], self.role, self.scope["user"].pk)
            await self.send(text_data=copy)

    async def table_chat(self, event: dict) -> None:
        # A whisper to the GM: the GM's sockets and its author's own, nobody else's.
        whisperer = event["whisper_from"]
        if self.role is None:
            return
        if whisperer is None or self.role == "gm" or whisperer == self.scope["user"].pk:
            await self.send(text_data=event["html"])

    async def table_revoke(self, event: dict) -> None:
        if self.role is not None and event["user_id"] == self.scope["user"].pk:
            await self._role_lost(CLOSE_REMOVED)

    async def table_role(self, event: dict) -> None:
        if self.role is not None and event["user_id"] == self.scope["user"].pk:
            await self._role_lost(CLOSE_ROLE_CHANGED)

    async def _role_lost(self, code: int) -> None:
        """Nothing more reaches this socket: it leaves the table and is closed; the page
        says why (4404) or reloads with the person's new role (4409)."""
        await self._leave()
        await self.close(code=code)

    async def _broadcast_presence(self) -> None:
        html = await db_async(presence.render_presence)(self.campaign_id)
        # This consumer's own layer, so a test can seat two app instances on two layers.
        try:
            await self.channel_layer.group_send(
                table_group_name(self.campaign_id), {"type": "table.fragment", "html": html}
            )
        except Exception:
            logger.warning("Table %s: presence not broadcast", self.campaign_id, exc_info=True)

    @db_async
    def _full_state(self) -> str:
        """Everything the page shows that can change while it is away: presence, the
        contest with its log and the bar, the session's parts (notice, chat panel, the
        GM's frame panel) and the chat's lines (issue 27)."""
        role = self.role
        assert role is not None, "only a socket at the table renders it"
        contest = live.current_contest(self.campaign_id)
        session = Session.objects.filter(campaign_id=self.campaign_id, ended_at__isnull=True)
        return (
            presence.render_presence(self.campaign_id)
            + render_to_string("contests/table.html#status", {"role": self.role, "oob": True})
            + live.render_contest(contest, role, reader=self.scope["user"].pk)
            + panels.render_session_parts(self.campaign_id, role, self.scope["user"])
            + live.render_chat(session.first(), role, self.scope["user"].pk)
        )

    async def _send_error(self, text: str, kind: str = "error") -> None:
        html = render_to_string("contests/table.html#error", {"error": text, "kind": kind})
        await self.send(text_data=html)
