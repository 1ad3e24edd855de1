"""Every change to a contest: framing, each action at the table, and undo; and the
table's chat (`chat_post`: a line stored with the open session, sent after commit).

Each contest call is one transaction that locks the contest row, checks who may act,
validates through the rules engine (via the contest's flow), appends one `ContestEvent`
and broadcasts only after commit. A client idempotency key makes a double click, a resend or
two browsers submitting the same action at once give exactly one event.
"""

# The actions on the table (a proposal, the GM's answer) register their handlers with
# `on_table` as their services are imported: here, so that `HANDLERS` is whole.
from . import on_table, proposals
from .acting import contest_act
from .chat import ChatError, chat_post
from .common import ActionResult, ContestError, actor_for
from .framing import contest_frame
from .sheets import social_penalties

__all__ = [
    "ActionResult",
    "ChatError",
    "ContestError",
    "actor_for",
    "chat_post",
    "contest_act",
    "contest_frame",
    "on_table",
    "proposals",
    "social_penalties",
]
