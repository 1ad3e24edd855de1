"""Each action at the table and its undo: one transaction that locks the contest,
checks who may act, plays the flow, appends one event and broadcasts after commit."""

from __future__ import annotations

from typing import Any, cast

from django.core.exceptions import ValidationError
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connections, transaction
from django.db.models import QuerySet
from django.utils import timezone

from campaigns import webhooks
from campaigns.models import WebhookKind
from campaigns.webhooks import texts as webhook_texts
from questworlds_site.accounts.models import User
from questworlds_site.sql import Gathered, PreparedRead, update_sql

from ..core.actions import DECLARED_BY_NAME, Data, Pick
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
    member_rows,
    with_actor_rows,
    with_member_rows,
)
from .effects import _apply_side_effects, _reverse_side_effects
from .sheets import _from_sheet


class _AlreadyDone(Exception):
    """The action's idempotency key was used already: all it did here rolls back."""


def contest_act(
    *,
    contest_id: int,
    user: User,
    action: str,
    data: Data | dict[str, Any],
    idempotency_key: str | None,
    expected_seq: int | None = None,
    roller: Roller = d20,
    campaign_id: int | None = None,
) -> ActionResult:
    """Perform one action at the table (see `TableFlow` for the actions).

    With `campaign_id` (the table the action came from) a contest of another campaign
    is refused as if it did not exist. An action whose key was used already (a double
    click, a resend) changes nothing and answers with the event it wrote.
    """
    key = _check_key(idempotency_key)
    try:
        return _act(contest_id, user, action, data, key, expected_seq, roller, campaign_id)
    except _AlreadyDone:
        done = ContestEvent.objects.select_related("contest").get(
            contest_id=contest_id, idempotency_key=key
        )
        return ActionResult(done.contest, done, created=False)


@transaction.atomic
def _act(
    contest_id: int,
    user: User,
    action: str,
    data: Data | dict[str, Any],
    key: str,
    expected_seq: int | None,
    roller: Roller,
    campaign_id: int | None,
) -> ActionResult:
    if not isinstance(data, Data | dict):
        raise ContestError("an action's data must be an object")
    # Who the user is at this table (their membership and the characters they play
    # there) is read in the statement that locks the contest and its campaign: at the
    # moment of the action, without a query of its own.
    rows = _locked(contest_id, user, campaign_id)
    if not rows:
        raise ContestError("there is no such contest at this table")
    contest = rows[0]
    actor = actor_for(contest.campaign, user, member_rows(rows))
    if actor.role == "spectator":
        raise ContestError("spectators watch; they cannot act in a contest")
    # A key used already is found where the event is written (`_write_step`), in the
    # common case without a query of its own. A double click's second request waits for
    # the lock, then finds the table a step on: its key is looked for then (in a
    # statement of its own, which sees what the first request committed).
    if expected_seq is not None and expected_seq != contest.seq:
        if contest.events.filter(idempotency_key=key).exists():
            raise _AlreadyDone
        raise ContestError(
            f"the table has moved on (you saw step {expected_seq}, it is at {contest.seq}); "
            "your screen has been refreshed, try again"
        )
    if action == "undo":
        return _undo(contest, user, actor, key)
    # One pass: the state just read under the lock is acted on, saved and rendered for
    # the broadcast as it is (no copy, no second load). What the archive's participant
    # records say is read before the action changes it.
    flow = load_flow(contest.state, handed_over=True)
    before = flow.participant_rows()
    # Dice are rolled here, never taken from the browser (physical dice come in
    # through `enter_roll`; a parsed message has no field for them, a caller's dict
    # loses them); the completed data records the rolls for replay.
    sent: Data | dict[str, Any] = (
        data if isinstance(data, Data) else {k: v for k, v in data.items() if k not in ROLL_KEYS}
    )
    # What the action writes outside the contest and nobody reads back goes out with
    # the step's own write (one statement on PostgreSQL).
    gathered = Gathered()
    try:
        if _reads_sheet(action):
            # The sheet's fields, read as the service reads a sheet (a dict), go into
            # the action's completed model in `apply`.
            fields = sent.model_dump(exclude_unset=True) if isinstance(sent, Data) else sent
            sent = _from_sheet(contest, action, fields, user)
        payload = flow.apply(action, sent, actor, roller)
        side_effects = _apply_side_effects(contest, flow, action, payload, user, gathered)
    except (IllegalAction, RulesError, ValidationError, ContestError) as error:
        # A resend of an action done already may be refused now (a second roll): it is
        # answered as done, as it would have been before the refusal.
        if contest.events.filter(idempotency_key=key).exists():
            raise _AlreadyDone from None
        raise ContestError(_message(error)) from None
    payload.update(side_effects)  # with the completed data the flow read ("data")
    event = _append(contest, flow, before, user, action, payload, key, gathered)
    return ActionResult(contest, event, created=True)


def _locking(user: User | int) -> QuerySet[Contest]:
    return with_member_rows(
        Contest.objects.select_for_update(of=("self", "campaign")).select_related("campaign"),
        user,
    )


# The statement every action starts with, built once (questworlds_site/sql.py).
_LOCK = PreparedRead(lambda contest, user: _locking(user).filter(pk=contest))
_LOCK_AT = PreparedRead(
    lambda contest, user, campaign: _locking(user).filter(pk=contest, campaign_id=campaign)
)


def _locked(contest_id: Any, user: User, campaign_id: int | None) -> list[Contest]:
    """The contest (of the campaign `campaign_id`, if given) locked with its campaign,
    one row for each character the user plays there (`with_member_rows`)."""
    ids = (contest_id, user.pk) if campaign_id is None else (contest_id, user.pk, campaign_id)
    if getattr(user, "is_authenticated", False) and all(type(i) is int for i in ids):
        read = _LOCK if campaign_id is None else _LOCK_AT
        return cast("list[Contest]", read.objects(*ids))
    contests = _locking(user)
    if campaign_id is not None:
        contests = contests.filter(campaign_id=campaign_id)
    return list(contests.filter(pk=contest_id))


def _reads_sheet(action: str) -> bool:
    """Whether `_from_sheet` completes this action's data: a pick from a sheet, or a
    join (a character's, or the GM's resistance); any other goes on as it was parsed."""
    declared = DECLARED_BY_NAME.get(action)
    return declared is not None and declared.pick is not Pick.NONE


def _append(
    contest: Contest,
    flow: BaseFlow,
    before: list[dict[str, Any]],
    user: User,
    action: str,
    payload: dict[str, Any],
    key: str,
    gathered: Gathered | None = None,
) -> ContestEvent:
    contest.seq += 1
    # No savepoint: the contest row is locked, so a clash here is a bug or a race the
    # lock did not cover, and the whole action rolls back with the error.
    event = ContestEvent(
        contest=contest,
        seq=contest.seq,
        actor=user,
        type=action,
        payload=checked_payload(action, payload),
        idempotency_key=key,
        created_at=timezone.now(),
    )
    contest.state = flow.state
    was_decided = contest.status in DECIDED
    _record_outcome(contest, flow)
    try:
        changes = _participant_changes(before, flow.participant_rows())
        written = _write_step(contest, event, changes, gathered or Gathered())
    except IntegrityError:
        raise ContestError(
            "that action was just done by someone else; nothing was changed"
        ) from None
    if not written:
        raise _AlreadyDone
    _emit(contest, event, flow)
    if contest.status in DECIDED and not was_decided:
        _announce_outcome(contest, flow)
    return event


# A contest's outcome is known (and shown to every reader: a hidden GM roll is revealed
# as it is resolved) from the moment it is resolving its consequences.
DECIDED = (ContestStatus.RESOLVING, ContestStatus.FINISHED)


def _announce_outcome(contest: Contest, flow: BaseFlow) -> None:
    """Discord, if the GM relays outcomes: the outcome in words from the PCs' side, as
    the archive says it (once a decision: again only if an undo reopened it)."""
    if WebhookKind.CONTEST_OUTCOME not in (contest.campaign.relayed_kinds or []):
        return  # nothing to word (announce would check the same)
    outcome = flow.state.get("outcome") or {}
    text = webhook_texts.contest_outcome(
        contest.campaign,
        prize=contest.prize,
        obstacle=contest.obstacle,
        framing=contest.framing,
        level=contest.outcome_level,
        automatic=bool(outcome.get("automatic")),
    )
    webhooks.announce(contest.campaign, WebhookKind.CONTEST_OUTCOME, text)


_EVENT_COLUMNS = ("contest", "seq", "actor", "type", "payload", "idempotency_key", "created_at")
# What a step changes of the contest's row (`_record_outcome` and the state).
_CONTEST_COLUMNS = (
    "kind",
    "seq",
    "state",
    "status",
    "winner",
    "degree",
    "outcome_level",
    "narration",
    "finished_at",
)


def _write_step(
    contest: Contest, event: ContestEvent, changes: list[dict[str, Any]], gathered: Gathered
) -> bool:
    """Write a step: its event (unless its contest has an event of its key already: the
    key's unique constraint, `ON CONFLICT ... DO NOTHING`), the contest's row as the
    step left it, the participant records whose ability changed (`changes`) and what
    the action `gathered` to write with it (a hero point's ledger step; if the key was
    used, the action rolls back whole, these with it).

    On PostgreSQL this is one statement (the updates are data-modifying `WITH` clauses
    that run only if the event was written); elsewhere (SQLite, `make run`) one
    statement each. False: the key was used, nothing was written."""
    connection = connections[DEFAULT_DB_ALIAS]  # looked up once (questworlds_site/sql.py `_db`)
    quote = connection.ops.quote_name
    insert, insert_params = _insert_sql(event, connection)
    updates = [update_sql(contest, _CONTEST_COLUMNS, {"id": contest.pk})]
    for change in changes:
        participant = ContestParticipant(ability=change["ability"] or "", rating=change["rating"])
        match = {"contest_id": contest.pk, "side": change["side"], "name": change["name"]}
        updates.append(update_sql(participant, ("ability", "rating"), match))
    if connection.vendor == "postgresql":
        clauses = [f"{quote('written')} AS ({insert})"]
        params = list(insert_params)
        for n, (sql, values) in enumerate(updates):
            guarded = f"{sql} AND EXISTS (SELECT 1 FROM {quote('written')})"
            clauses.append(f"{quote(f'changed_{n}')} AS ({guarded})")
            params += values
        clauses += gathered.clauses
        params += gathered.params
        sql = f"WITH {', '.join(clauses)} SELECT * FROM {quote('written')}"
        row = _fetch_one(connection, sql, params)
    else:
        row = _fetch_one(connection, insert, insert_params)
        if row is not None:
            for sql, values in updates:
                _fetch_one(connection, sql, values, rows=False)
    if row is None:
        return False
    event.pk = row[0]
    event._state.adding = False
    return True


def _fetch_one(
    connection: Any, sql: str, params: list[Any], *, rows: bool = True
) -> tuple[Any, ...] | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone() if rows else None


def _insert_sql(event: ContestEvent, connection: Any) -> tuple[str, list[Any]]:
    meta = ContestEvent._meta
    fields = [field for field in meta.concrete_fields if field.name in _EVENT_COLUMNS]
    assert meta.pk is not None and meta.pk.column is not None, "an event has an id column"
    quote = connection.ops.quote_name
    columns = ", ".join(quote(field.column or field.attname) for field in fields)
    values = [field.get_db_prep_save(getattr(event, field.attname), connection) for field in fields]
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({', '.join(['%s'] * len(values))})"
        f" ON CONFLICT ({quote('contest_id')}, {quote('idempotency_key')}) DO NOTHING"
        f" RETURNING {quote(meta.pk.column)}"
    )
    return sql, values


def _participant_changes(
    before: list[dict[str, Any]], after: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The participant records (what the archive lists: who used which ability at what
    rating) follow the abilities chosen at the table after the framing, and an undo:
    the rows of `after` whose ability or rating is not what it was `before`."""
    earlier = {(row["side"], row["name"]): row for row in before}
    changed = []
    for row in after:
        old = earlier.get((row["side"], row["name"]))
        if old is not None and (old["ability"], old["rating"]) != (row["ability"], row["rating"]):
            changed.append(row)
    return changed


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
    # The events, each with its actor's membership and characters here now (in the
    # same statement: one row an event and character, `with_actor_rows`).
    rows = list(with_actor_rows(contest.events.select_related("actor"), contest.campaign_id))
    events = list({row.pk: row for row in rows}.values())
    undone = {e.payload.get("undoes") for e in events if e.type == UNDOABLE}
    live = [e for e in events[1:] if e.type != UNDOABLE and e.seq not in undone]
    if not live:
        raise ContestError("there is nothing to undo")
    target = live[-1]
    _reverse_side_effects(target, user)
    # Each past actor as they are now, read once however many events they did.
    read: dict[int, list[tuple[str, int | None]]] = {}
    for row in rows:
        if row.actor_id is not None:
            read.setdefault(row.actor_id, []).extend(member_rows([row]))
    actors: dict[int, Actor] = {user.pk: actor}
    replayed = []
    for event in live[:-1]:
        if event.actor is not None and event.actor.pk not in actors:
            mine = list(dict.fromkeys(read.get(event.actor.pk, [])))
            actors[event.actor.pk] = actor_for(contest.campaign, event.actor, mine)
        replayed.append(
            (
                event.type,
                event.payload.get("data", {}),
                actors[event.actor.pk] if event.actor else actor,
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
    before = load_flow(contest.state, handed_over=True).participant_rows()
    event = _append(contest, flow, before, user, UNDOABLE, payload, key)
    return ActionResult(contest, event, created=True)
