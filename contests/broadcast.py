"""The one way the app sends messages to a live table's channel-layer group.

Services call `send_to_table_on_commit`, so a rolled-back change never reaches a
browser (Zulip's send_event_on_commit). Payloads are typed (paperless-ngx helpers).

A broadcast never fails the change it reports: the change is committed by then, so a
channel layer that is down (Redis stopped) is logged as a missed broadcast and the
request still answers with success. Browsers heal what they missed: every contest
message carries its sequence number and a page that sees a gap asks for the full state
(static/js/table.js); a socket that (re)connects gets the full state at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Literal, TypedDict

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction


class FragmentMessage(TypedDict):
    """Rendered HTML, swapped out-of-band into every browser at the table."""

    type: Literal["table.fragment"]
    html: str


class RevokeMessage(TypedDict):
    """Close one user's sockets at a table (they were removed from the campaign)."""

    type: Literal["table.revoke"]
    user_id: int


class RoleMessage(TypedDict):
    """One user's role at the table changed (a GM hand-over): their open sockets close
    with 4409 and their pages reload, so no page keeps a view its reader lost."""

    type: Literal["table.role"]
    user_id: int


class PackedCopies(TypedDict):
    """A broadcast's copies (the GM's, the public one, each player's own) with each
    distinct text once: `texts`, and for each copy the places in it of the texts it is
    made of, in order (contests/live/ `pack`, `copy_for`)."""

    texts: list[str]
    copies: dict[str, list[int]]


class ContestMessage(TypedDict):
    """A contest changed: its panel rendered once per copy (contests/live/
    `render_audiences`), packed: `html` holds the GM's, the public one and each
    player's own copy; each socket gets the one for its role and user
    (`live.copy_for`)."""

    type: Literal["table.contest"]
    contest_id: int
    seq: int
    html: PackedCopies


class ChatLineMessage(TypedDict):
    """A new line of table chat. A whisper to the GM names its author in
    `whisper_from`: only the GM's sockets and the author's own forward it."""

    type: Literal["table.chat"]
    html: str
    whisper_from: int | None


class SessionMessage(TypedDict):
    """The campaign's session began or ended: every open page says so in words, and
    reloads its chat (open or closed), the GM's frame panel and the player's own sheet
    (hero points, conditions that waned). `session_id`: the session now open, if any."""

    type: Literal["table.session"]
    text: str
    session_id: int | None


class SheetMessage(TypedDict):
    """A character's sheet changed outside a contest's steps (the GM awarded hero
    points, applied or ended a state): its player's open pages reload their sheet."""

    type: Literal["table.sheet"]
    user_id: int


TableMessage = (
    FragmentMessage
    | RevokeMessage
    | RoleMessage
    | ContestMessage
    | ChatLineMessage
    | SessionMessage
    | SheetMessage
)

logger = logging.getLogger(__name__)


def table_group_name(campaign_id: int) -> str:
    return f"table.{campaign_id}"


async def send_to_table(campaign_id: int, message: TableMessage) -> None:
    await get_channel_layer().group_send(table_group_name(campaign_id), message)


def send_to_table_sync(campaign_id: int, message: TableMessage) -> bool:
    """Send to the table's group; False (and a warning logged) if the layer failed."""
    try:
        async_to_sync(get_channel_layer().group_send)(table_group_name(campaign_id), message)
    except Exception:  # any layer failure: the change is committed, the message is missed
        logger.warning(
            "Missed broadcast %s to table %s: the channel layer failed; browsers resync on "
            "their next message or reconnect",
            message.get("type"),
            campaign_id,
            exc_info=True,
        )
        return False
    return True


def after_commit(send: Callable[[], object]) -> None:
    """Run `send` once the current transaction commits (at once outside one). `robust`:
    an error in it is logged, never raised into the request that committed."""
    transaction.on_commit(send, robust=True)


def send_to_table_on_commit(campaign_id: int, message: TableMessage) -> None:
    """Send once the current transaction commits (at once outside a transaction)."""
    after_commit(lambda: send_to_table_sync(campaign_id, message))
