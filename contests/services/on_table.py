"""The handlers of the actions on the table rather than on a contest (a player's
proposal, the GM's answer: `core.actions.ON_TABLE`), each registered under its
declared name by the service that carries it out (`@on_table("propose")`), and the
check of who may take one (`allowed`), read from its declaration at the moment.

`contests.table_actions.perform` reads the message through the declared model and
calls the handler with the typed data; it names no action itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied

from campaigns.access import campaign_role
from campaigns.models import Campaign, Role
from questworlds_site.accounts.models import User

from ..core.actions import ON_TABLE_BY_NAME, By
from .common import ActionResult, ContestError

# A handler: the campaign, the user taking the action, its typed data (the declared
# model) and its idempotency key; the framing's result when it framed a contest.
Handler = Callable[[Campaign, User, Any, str | None], ActionResult | None]
HANDLERS: dict[str, Handler] = {}


def on_table(name: str) -> Callable[[Handler], Handler]:
    """Register the handler of the declared action `name` (a name nobody declared, or
    one registered twice, is a mistake found at import)."""
    if name not in ON_TABLE_BY_NAME:
        raise LookupError(f"{name!r} is not declared among the actions on the table")
    if name in HANDLERS:
        raise LookupError(f"{name!r} has a handler already")

    def register(handler: Handler) -> Handler:
        HANDLERS[name] = handler
        return handler

    return register


def allowed(campaign: Campaign, user: User, name: str) -> Role:
    """`user`'s role now, if the declaration of `name` lets them take it; else a
    refusal in words (PermissionDenied for someone outside the campaign)."""
    role = campaign_role(campaign, user)
    if role is None:
        raise PermissionDenied("not a member of this campaign")
    declared = ON_TABLE_BY_NAME[name]
    if role == declared.by:
        return Role(role)
    if declared.by == By.GM:
        raise ContestError(f"only the GM may {declared.words}")
    if role == Role.GM:
        raise ContestError(f"you are the GM; only players may {declared.words}")
    raise ContestError(f"spectators watch the table; only players may {declared.words}")
