"""Rendering the live table for its audiences, and broadcasting contest changes.

A broadcast renders the contest's fragments once per copy, not once per socket: the
GM's; the public copy (spectators, and players with nothing to do now), which holds
nobody's forms; and each player's own copy, for each player who has forms now (their
sheets' abilities, augments, hero points): nobody's browser receives another person's
forms (issue 27). The consumer sends each socket the copy for its user and role
(`copy_for`); the server checks every action anyway.

By job: `rendering` (contexts, copies, the broadcast), `controls` (the forms, from
the actions' declarations), `moves` (the bar), `sheets` (the sheets read), `chat`."""

from .chat import broadcast_chat, chat_context, render_chat
from .controls import players_with_forms
from .rendering import (
    PUBLIC,
    broadcast_contest,
    contest_context,
    copy_for,
    current_contest,
    own_copy,
    pack,
    page_fragments,
    render_ack,
    render_audiences,
    render_contest,
    render_error,
    unpack,
)

__all__ = [
    "PUBLIC",
    "broadcast_chat",
    "broadcast_contest",
    "chat_context",
    "contest_context",
    "copy_for",
    "current_contest",
    "own_copy",
    "pack",
    "page_fragments",
    "players_with_forms",
    "render_ack",
    "render_audiences",
    "render_chat",
    "render_contest",
    "render_error",
    "unpack",
]
