"""Each action at the table and its undo: one transaction that locks the contest,
checks who may act, plays the flow, appends one event and broadcasts after commit."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from questworlds_site.accounts.models import User

from ..core.rules import IllegalAction, Roller, RulesError, d20
from ..core.table import Actor, BaseFlow, flow_class, load_flow
from ..events import checked_payload
from ..models import Contest, ContestEvent, ContestParticipant, ContestStatus
from .common import (
    ROLL_KEYS,
    UNDOABLE,
    ActionResult,
    ContestError,
    _check_key,
    _emit,
    _message,
    actor_for,
)
from .effects import _apply_side_effects, _reverse_side_effects
from .sheets import _from_sheet


@transaction.atomic
def contest_act(
    *,
    contest_id: int,
    user: User,
    action: str,
    data: dict[str, Any],
    idempotency_key: str | None,
    expected_seq: int | None = None,
    roller: Roller = d20,
    campaign_id: int | None = None,
) -> ActionResult:
    """Perform one action at the table (see `TableFlow` for the actions).

    With `campaign_id` (the table the action came from) a contest of another campaign
    is refused as if it did not exist.
    """
    key = _check_key(idempotency_key)
    if not isinstance(data, dict):
        raise ContestError("an action's data must be an object")
    contests = Contest.objects.select_for_update().select_related("campaign")
    if campaign_id is not None:
        contests = contests.filter(campaign_id=campaign_id)
    contest = contests.filter(pk=contest_id).first()
    if contest is None:
        raise ContestError("there is no such contest at this table")
    actor = actor_for(contest.campaign, user)
    if actor.role == "spectator":
        raise ContestError("spectators watch; they cannot act in a contest")
    # Read once the lock is held, in a statement of its own: it then sees an event that
    # a request holding the lock before this one committed (a double click). Read in the
    # locking statement itself, it would not (that statement's snapshot is older).
    done = contest.events.filter(idempotency_key=key).first()
    if done:
        return ActionResult(contest, done, created=False)
    if expected_seq is not None and expected_seq != contest.seq:
        raise ContestError(
            f"the table has moved on (you saw step {expected_seq}, it is at {contest.seq}); "
            "your screen has been refreshed, try again"
        )
    if action == "undo":
        return _undo(contest, user, actor, key)
    flow = load_flow(contest.state)
    # Dice are rolled here, never taken from the browser (physical dice come in
    # through `enter_roll`); the completed data records the rolls for replay.
    data = {k: v for k, v in data.items() if k not in ROLL_KEYS}
    try:
        data = _from_sheet(contest, action, data, user)
        payload = flow.apply(action, data, actor, roller)
        side_effects = _apply_side_effects(contest, flow, action, payload, user)
    except (IllegalAction, RulesError, ValidationError) as error:
        raise ContestError(_message(error)) from None
    payload.update(side_effects)
    payload["data"] = data
    event = _append(contest, flow, user, action, payload, key)
    return ActionResult(contest, event, created=True)


def _append(
    contest: Contest, flow: BaseFlow, user: User, action: str, payload: dict[str, Any], key: str
) -> ContestEvent:
    contest.seq += 1
    # No savepoint: the contest row is locked, so a clash here is a bug or a race the
    # lock did not cover, and the whole action rolls back with the error.
    try:
        event = ContestEvent.objects.create(
            contest=contest,
            seq=contest.seq,
            actor=user,
            type=action,
            payload=checked_payload(action, payload),
            idempotency_key=key,
        )
    except IntegrityError:
        raise ContestError(
            "that action was just done by someone else; nothing was changed"
        ) from None
    # Read before the new state replaces it (the flow only reads the dict it wraps).
    before = flow_class(contest.state["kind"])(contest.state).participant_rows()
    contest.state = flow.to_json()
    _sync_participants(contest, before, flow.participant_rows())
    _record_outcome(contest, flow)
    contest.save(
        update_fields=[
            "kind",
            "seq",
            "state",
            "status",
            "winner",
            "degree",
            "outcome_level",
            "narration",
            "finished_at",
        ]
    )
    _emit(contest, event)
    return event


def _sync_participants(
    contest: Contest, before: list[dict[str, Any]], after: list[dict[str, Any]]
) -> None:
    """The participant records (what the archive lists: who used which ability at what
    rating) follow the abilities chosen at the table after the framing, and an undo."""
    earlier = {(row["side"], row["name"]): row for row in before}
    for row in after:
        old = earlier.get((row["side"], row["name"]))
        if old is not None and (old["ability"], old["rating"]) != (row["ability"], row["rating"]):
            ContestParticipant.objects.filter(
                contest=contest, side=row["side"], name=row["name"]
            ).update(ability=row["ability"] or "", rating=row["rating"])


def _record_outcome(contest: Contest, flow: BaseFlow) -> None:
    outcome = flow.state.get("outcome") or {}
    contest.winner = outcome.get("winner") or ""
    contest.degree = outcome.get("degree") or ""
    contest.outcome_level = flow.level_for_pc()
    contest.kind = flow.kind  # a simple contest may escalate (§2.8.2)
    contest.narration = flow.state.get("narration", "")
    if flow.phase == "finished":
        contest.status = ContestStatus.FINISHED
        contest.finished_at = contest.finished_at or timezone.now()
    elif flow.phase == "resolved":
        contest.status = ContestStatus.RESOLVING
        contest.finished_at = None
    else:
        contest.status = ContestStatus.RUNNING
        contest.finished_at = None


def _undo(contest: Contest, user: User, actor: Actor, key: str) -> ActionResult:
    """The GM undoes the latest action: recorded as its own event, state rebuilt."""
    if not actor.is_gm:
        raise ContestError("only the GM can undo")
    events = list(contest.events.select_related("actor").order_by("seq"))
    undone = {e.payload.get("undoes") for e in events if e.type == UNDOABLE}
    live = [e for e in events[1:] if e.type != UNDOABLE and e.seq not in undone]
    if not live:
        raise ContestError("there is nothing to undo")
    target = live[-1]
    _reverse_side_effects(target, user)
    replayed = []
    for event in live[:-1]:
        replayed.append(
            (
                event.type,
                event.payload.get("data", {}),
                actor_for(contest.campaign, event.actor) if event.actor else actor,
            )
        )
    try:
        flow = flow_class(contest.framing["kind"]).replay(contest.framing, replayed)
    except (IllegalAction, RulesError) as error:
        raise ContestError(f"cannot rebuild the contest: {error}") from None
    payload = {
        "summary": f"The GM undid: {target.payload.get('summary', target.type)}",
        "undoes": target.seq,
    }
    event = _append(contest, flow, user, UNDOABLE, payload, key)
    return ActionResult(contest, event, created=True)
