"""The one way the app sends messages to a live table's channel-layer group.

Services call `send_to_table_on_commit`, so a rolled-back change never reaches a
browser (Zulip's send_event_on_commit). Payloads are typed (paperless-ngx helpers).
"""

from __future__ import annotations

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


class ContestMessage(TypedDict):
    """A contest changed: its panel rendered once per audience (gm/player/spectator)."""

    type: Literal["table.contest"]
    contest_id: int
    seq: int
    html: dict[str, str]


TableMessage = FragmentMessage | RevokeMessage | ContestMessage


def table_group_name(campaign_id: int) -> str:
    return f"table.{campaign_id}"


async def send_to_table(campaign_id: int, message: TableMessage) -> None:
    await get_channel_layer().group_send(table_group_name(campaign_id), message)


def send_to_table_sync(campaign_id: int, message: TableMessage) -> None:
    async_to_sync(get_channel_layer().group_send)(table_group_name(campaign_id), message)


def send_to_table_on_commit(campaign_id: int, message: TableMessage) -> None:
    """Send once the current transaction commits (at once outside a transaction)."""
    transaction.on_commit(lambda: send_to_table_sync(campaign_id, message))
