"""The table chat's fragments and their broadcast."""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string

from ..broadcast import send_to_table_sync
from ..models import ChatKind, ChatMessage
from ..selectors import CHAT_LENGTH, chat_lines


def chat_context(session, role: str, user_id: int | None) -> dict[str, Any]:
    """The open session's latest chat lines as this reader may see them."""
    lines = chat_lines(session, is_gm=role == "gm", user_id=user_id, last=CHAT_LENGTH)
    return {"chat_lines": lines, "chat_session": session}


def render_chat(session, role: str, user_id: int | None) -> str:
    """The chat list for one reader, as an out-of-band fragment (a full state)."""
    context = {**chat_context(session, role, user_id), "oob": True}
    return render_to_string("contests/_chat.html#chat_log", context)


def broadcast_chat(message: ChatMessage) -> None:
    """Add a new chat line at the bottom of every chat list at the table, after its
    commit. The line is rendered once: a whisper to the GM goes to the GM's sockets
    and its author's only (the consumer reads `whisper_from`)."""
    html = render_to_string("contests/_chat.html#chat_append", {"line": message})
    whisper_from = message.author_id if message.kind == ChatKind.WHISPER else None
    send_to_table_sync(
        message.campaign_id, {"type": "table.chat", "html": html, "whisper_from": whisper_from}
    )
