"""One entry point for table actions, whether they come over HTTP (htmx) or a websocket.

Validates the message's shape, then calls the contest services; every refusal comes
back as a readable message and changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied

from campaigns.models import Campaign

from .services import ContestError, contest_act, contest_frame
from .table import known_actions

KNOWN_ACTIONS = frozenset({"frame", "undo"}) | known_actions()


@dataclass(frozen=True)
class Reply:
    error: str = ""
    created: bool = False
    seq: int = 0
    contest_id: int | None = None


def perform(*, campaign_id: int, user, message: dict[str, Any]) -> Reply:
    """Carry out `{"action", "contest"?, "data"?, "key", "seq"?}` for `user`."""
    action = message.get("action")
    if not isinstance(action, str) or action not in KNOWN_ACTIONS:
        return Reply(error=f"Unknown action {str(action)[:40]!r}; nothing was done.")
    data = message.get("data", {})
    data = {} if data is None else data
    key = message.get("key")
    seq = message.get("seq")
    if not isinstance(data, dict):
        return Reply(error="An action's data must be an object; nothing was done.")
    if seq is not None and (isinstance(seq, bool) or not isinstance(seq, int)):
        return Reply(error="seq must be a whole number; nothing was done.")
    try:
        if action == "frame":
            campaign = Campaign.objects.filter(pk=campaign_id).first()
            if campaign is None:
                return Reply(error="There is no such campaign.")
            result = contest_frame(campaign=campaign, user=user, data=data, idempotency_key=key)
        else:
            contest_id = message.get("contest")
            if isinstance(contest_id, bool) or not isinstance(contest_id, int):
                return Reply(error="There is no such contest at this table; nothing was done.")
            # The service locks the contest and refuses one from another campaign.
            result = contest_act(
                contest_id=contest_id,
                user=user,
                action=action,
                data=data,
                idempotency_key=key,
                expected_seq=seq,
                campaign_id=campaign_id,
            )
    except PermissionDenied as denied:
        return Reply(error=f"Not allowed: {denied}. Nothing was done.")
    except ContestError as error:
        text = str(error).rstrip(".")
        return Reply(error=f"{text}. Nothing was done.")
    return Reply(created=result.created, seq=result.event.seq, contest_id=result.contest.pk)
