"""One entry point for table actions, whether they come over HTTP (htmx) or a websocket.

Reads the message once through contests/core/actions/ (one typed, validated model per
action, the same for both paths), then calls the contest services with the validated
data; every refusal comes back as a readable message and changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied

from campaigns.models import Campaign
from questworlds_site import inputs, throttle
from questworlds_site.accounts.models import User

from .core import actions
from .services import ContestError, contest_act, contest_frame, on_table, proposals

KNOWN_ACTIONS = actions.ACTIONS
# Every action a message may name: a contest's, and those on the table (a proposal).
NAMED_ACTIONS = KNOWN_ACTIONS | actions.TABLE_ACTIONS


@dataclass(frozen=True)
class Reply:
    error: str = ""
    created: bool = False
    seq: int = 0
    contest_id: int | None = None
    # Refused by the rate limit: try again after this many seconds (HTTP 429).
    retry_after: int = 0


def perform(*, campaign_id: int, user: User, message: dict[str, Any], form: bool = False) -> Reply:
    """Carry out `{"action", "contest"?, "data"?, "key", "seq"?}` for `user`.

    `form`: the message comes from a form, whose fields are all strings (a whole-number
    field then also takes a string of digits, a flag a checkbox's value)."""
    # One limit per person for both paths and every process (questworlds_site/throttle.py).
    refusal = throttle.table_action(user.pk)
    if refusal is not None:
        return Reply(error=refusal.message, retry_after=refusal.retry_after)
    if not isinstance(message, dict):
        return Reply(error="That message is not an object; nothing was done.")
    try:
        actions.check_bounds(message)
    except actions.ActionInputError as error:
        return Reply(error=f"{error}; nothing was done.")
    action = message.get("action")
    if isinstance(action, str) and action in actions.TABLE_ACTIONS:
        return _on_table(campaign_id, user, message, form)
    if not isinstance(action, str) or action not in KNOWN_ACTIONS:
        return Reply(error=f"Unknown action {str(action)[:40]!r}; nothing was done.")
    data = message.get("data", {})
    data = {} if data is None else data
    if not isinstance(data, dict):
        return Reply(error="An action's data must be an object; nothing was done.")
    message = {**message, "data": data}
    if form:
        message.update(
            {name: _form_int(message.get(name)) for name in ("contest", "seq") if name in message}
        )
    seq = message.get("seq")
    if seq is not None and (isinstance(seq, bool) or not isinstance(seq, int)):
        return Reply(error="seq must be a whole number; nothing was done.")
    contest_id = message.get("contest")
    if action != "frame" and (isinstance(contest_id, bool) or not isinstance(contest_id, int)):
        return Reply(error="There is no such contest at this table; nothing was done.")
    try:
        parsed = actions.parse(message, form=form)
    except actions.ActionInputError as error:
        return Reply(error=f"{error}. Nothing was done.")
    gm_only = actions.gm_only_fields(parsed)
    if gm_only and not Campaign.objects.filter(pk=campaign_id, gm_id=user.pk).exists():
        named = ", ".join(actions.LABELS.get(name, name) for name in gm_only)
        return Reply(
            error=f"{named}: only the GM gives a number that decides a roll; a player's is "
            "read from their sheet (choose the ability). Nothing was done."
        )
    key = parsed.key
    try:
        if action == "frame":
            data = actions.data_of(parsed)
            proposal = data.pop("proposal", None)
            if proposal is not None:
                # A player's proposal, framed as the GM amended it in the frame form.
                campaign = Campaign.objects.filter(pk=campaign_id).first()
                if campaign is None:
                    return Reply(error="There is no such campaign.")
                result = proposals.proposal_amend(
                    campaign=campaign,
                    user=user,
                    proposal_id=proposal,
                    data=data,
                    idempotency_key=key,
                )
            else:
                # The campaign is read (and locked) by the framing itself: no query here.
                result = contest_frame(
                    campaign=campaign_id, user=user, data=data, idempotency_key=key
                )
        else:
            assert parsed.contest is not None, "an action on a contest names it (checked above)"
            # The service locks the contest and refuses one from another campaign.
            result = contest_act(
                contest_id=parsed.contest,
                user=user,
                action=action,
                data=parsed.data,
                idempotency_key=key,
                expected_seq=parsed.seq,
                campaign_id=campaign_id,
            )
    except PermissionDenied as denied:
        return Reply(error=f"Not allowed: {denied}. Nothing was done.")
    except ContestError as error:
        text = str(error).rstrip(".")
        return Reply(error=f"{text}. Nothing was done.")
    return Reply(created=result.created, seq=result.event.seq, contest_id=result.contest.pk)


def _on_table(campaign_id: int, user: User, message: dict[str, Any], form: bool) -> Reply:
    """An action on the table rather than on a contest (`actions.ON_TABLE`: a player's
    proposal, the GM's answer): read through its declared model and handed, typed, to
    the handler its service registered under its name (contests/services/on_table.py)."""
    data = message.get("data")
    if data is not None and not isinstance(data, dict):
        return Reply(error="An action's data must be an object; nothing was done.")
    message = {**message, "data": data or {}}
    try:
        parsed = actions.parse_on_table(message, form=form)
    except actions.ActionInputError as error:
        return Reply(error=f"{error}. Nothing was done.")
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return Reply(error="There is no such campaign.")
    try:
        result = on_table.HANDLERS[parsed.action](campaign, user, parsed.data, parsed.key)
    except PermissionDenied as denied:
        return Reply(error=f"Not allowed: {denied}. Nothing was done.")
    except ContestError as error:
        text = str(error).rstrip(".")
        return Reply(error=f"{text[:1].upper()}{text[1:]}. Nothing was done.")
    if result is None:
        return Reply(created=True)
    return Reply(created=result.created, seq=result.event.seq, contest_id=result.contest.pk)


def _form_int(value: Any) -> Any:
    """A form's "12" as 12 (the envelope's contest and seq); anything else as it is."""
    number = inputs.whole(value) if isinstance(value, str) else None
    return value if number is None else number
