"""Table chat: one line said at the table, stored with the session in progress and sent
to the table once it commits."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction

from campaigns.access import campaign_role
from campaigns.models import Campaign, Role
from characters.models import Character
from questworlds_site.accounts.models import User
from questworlds_site.limits import CHAT_LINE

from ..broadcast import after_commit
from ..core.actions import plain_text_problem
from ..live import broadcast_chat
from ..models import ChatKind, ChatMessage

# The kinds said as a character: the others are the person's own words.
AS_CHARACTER = (ChatKind.IN_CHARACTER, ChatKind.EMOTE)


class ChatError(Exception):
    """A line the table refuses, with a message for the person who wrote it."""


@transaction.atomic
def chat_post(
    *, campaign: Campaign, user: User, kind: str, text: str, character_id: int | None = None
) -> ChatMessage:
    """Say `text` at the campaign's table as `user`, in the open session.

    The role is read now (a page may have been opened before the GM changed it): the
    GM and players chat, spectators only read. `character_id` must be one of the
    user's own characters in the campaign; it is kept for the lines said as a
    character (in character, an emote). The text is trimmed; empty or too long text,
    an unknown kind or no session in progress is refused and nothing is stored."""
    role = campaign_role(campaign, user)
    if role is None:
        raise PermissionDenied("not a member of this campaign")
    if role == Role.SPECTATOR:
        raise ChatError("Spectators read the chat; only the GM and players write in it.")
    if kind not in ChatKind.values:
        kinds = ", ".join(f"{label[0].lower()}{label[1:]}" for label in ChatKind.labels)
        raise ChatError(f"Choose what kind of line it is: {kinds}.")
    if kind == ChatKind.WHISPER and role == Role.GM:
        raise ChatError("You are the GM: a whisper to the GM would reach only you.")
    problem = plain_text_problem(text)
    if problem:
        raise ChatError(f"The message {problem}.")
    text = text.strip()
    if not text:
        raise ChatError("Write something first: an empty message is not sent.")
    if len(text) > CHAT_LINE:
        raise ChatError(
            f"A message takes at most {CHAT_LINE} characters (this one has {len(text)})."
        )
    character = None
    if character_id is not None:
        character = Character.objects.filter(
            pk=character_id, campaign=campaign, player=user
        ).first()
        if character is None:
            raise ChatError("You may speak only as one of your own characters in this campaign.")
    session = campaign.open_session()
    if session is None:
        raise ChatError(
            "No session is in progress: the chat opens when the GM starts one (campaign page)."
        )
    message = ChatMessage(
        campaign=campaign,
        session=session,
        author=user,
        character=character if kind in AS_CHARACTER else None,
        kind=kind,
        text=text,
    )
    message.full_clean()
    message.save()
    after_commit(lambda: broadcast_chat(message))
    return message
