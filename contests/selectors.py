"""Reads of the table that pages and other apps share: its chat as one reader may see it."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from .models import ChatKind, ChatMessage

# The table shows the open session's latest lines; the archive shows a session's all.
CHAT_LENGTH = 50


def visible_chat(
    lines: QuerySet[ChatMessage], *, is_gm: bool, user_id: int | None
) -> QuerySet[ChatMessage]:
    """The lines this reader may see: a whisper to the GM only by the GM and by whoever
    whispered it; a reader with no account (a public archive link) sees no whisper."""
    if is_gm:
        return lines
    seen = ~Q(kind=ChatKind.WHISPER)
    if user_id is not None:
        seen |= Q(author_id=user_id)
    return lines.filter(seen)


def chat_lines(
    session, *, is_gm: bool, user_id: int | None, last: int | None = None
) -> list[ChatMessage]:
    """The session's chat as this reader may see it, oldest first (one query): all of
    it, or the `last` lines."""
    if session is None:
        return []
    lines = visible_chat(
        ChatMessage.objects.filter(session=session), is_gm=is_gm, user_id=user_id
    ).select_related("author", "character")
    if last is None:
        return list(lines.order_by("created_at", "id"))
    return list(reversed(lines.order_by("-created_at", "-id")[:last]))
