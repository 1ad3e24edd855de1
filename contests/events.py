"""The contest's one durable contract: the events the live table writes.

Every `ContestEvent` has a type (`EVENT_WORDS`: the framing, an undo, or the table
action it records, as each action declares it) and a payload of that type's shape
(`payload_type`), checked once where events are written (`checked_payload`). Who may
see what of an event is decided in one
place (`visible`), for the live log, the archive and the public link alike.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, Required

from pydantic import ConfigDict, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from .core.actions import DECLARED

# The payloads are JSON written once and read for years: a key nobody declared is an
# error at the write point, not a surprise in the archive.
_STRICT = ConfigDict(extra="forbid")


# Every event type, with the words the log and the archive use for it: one per table
# action, from the action's declaration (contests/core/actions/models.py `DECLARED`;
# the framing writes "framed" and an undo "undone").
EVENT_WORDS: dict[str, str] = {action.event: action.logged for action in DECLARED}
FRAMED = "framed"
UNDONE = "undone"
ACTION_TYPES = frozenset(EVENT_WORDS) - {FRAMED, UNDONE}


def event_choices() -> list[tuple[str, str]]:
    """`ContestEvent.type`'s choices, read when asked (Django 5's callable choices): a
    new action needs no migration of its own."""
    return list(EVENT_WORDS.items())


class RollRow(TypedDict, total=False):
    """One die rolled, as the log and the archive show it."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]
    who: Required[str]
    roll: Required[int]
    ability: str | None
    tn: str | int | None
    result: str
    bumps: int
    hero_point: bool
    # A GM roll kept secret (campaign option): the GM's alone until revealed.
    hidden: bool
    against: str
    participant: str


class Applied(TypedDict, total=False):
    """One consequence or benefit the GM confirmed: who by side (one-on-one) or by
    participant (group), the state and the ability it bears on."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]
    state: Required[str]
    side: Literal["pc", "opponent"]
    participant: str
    ability: str | None
    character_id: int | None


class HeroPointPaid(TypedDict, total=False):
    """Whose hero point an action spent: the character who pays (§2.3.5.5, §5.2.4)."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]
    character_id: Required[int | None]
    side: Literal["pc", "opponent"]
    participant: str


class Joined(TypedDict):
    """A participant who joined a group contest once it was framed (§5.2.3)."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]
    name: str
    side: str
    character_id: int | None
    ability: str | None
    rating: int | None


class ResourceDrawSettled(TypedDict):
    """A community resource drawn on for the contest, settled by its outcome (§8.2)."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]
    resource: str
    depletion: int
    social_penalty: int


class ActionPayload(TypedDict, total=False):
    """The payload of every table action. `data` is the action's input as performed,
    dice included, so the contest replays from its events (undo does exactly that)."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]
    summary: Required[str]
    data: dict[str, Any]
    # A hidden GM roll's full text: players and the archive read `summary`.
    gm_summary: str
    rolls: list[RollRow]
    # Each side's RP, AP, outcome points or state after the event (the archive's
    # charts); `totals_kind` says which.
    totals: dict[str, int | str | None]
    totals_kind: Literal["RP", "AP", "OP", "RP against", "state"]
    augments: list[dict[str, Any]]
    applied: list[Applied]
    hero_point: HeroPointPaid
    joined: Joined
    # What the action changed outside the contest, so an undo can reverse it:
    # the participant record a join made, the conditions the consequences made.
    # (None: an id an export from before 2026-11 could not carry over.)
    participant_row: int | None
    conditions: list[int | None]
    resource_draw: ResourceDrawSettled


class FramedPayload(TypedDict):
    __pydantic_config__ = _STRICT  # type: ignore[misc]
    summary: str
    data: dict[str, Any]


class UndonePayload(TypedDict):
    __pydantic_config__ = _STRICT  # type: ignore[misc]
    summary: str
    undoes: int
    data: NotRequired[dict[str, Any]]


def payload_type(
    event_type: str,
) -> type[FramedPayload] | type[UndonePayload] | type[ActionPayload]:
    """The payload shape of an event type."""
    if event_type == FRAMED:
        return FramedPayload
    if event_type == UNDONE:
        return UndonePayload
    return ActionPayload


_ADAPTERS = {shape: TypeAdapter(shape) for shape in (FramedPayload, UndonePayload, ActionPayload)}


class EventContractError(ValueError):
    """A payload that breaks the contract: a bug in the code that wrote it."""


def checked_payload(event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    """`payload` if it is a valid payload of `event_type`; raises EventContractError."""
    if event_type not in EVENT_WORDS:
        raise EventContractError(f"unknown event type {event_type!r}")
    try:
        _ADAPTERS[payload_type(event_type)].validate_python(payload, strict=True)
    except ValidationError as error:
        raise EventContractError(f"a {event_type!r} event's payload: {error}") from None
    return payload


def visible(payload: dict[str, Any], audience: str) -> dict[str, Any]:
    """What one audience ("gm", "player", "spectator", "public": a role as the database
    keeps it) may see of an event's payload.

    The GM sees everything, hidden rolls in full (`gm_summary`). Everyone else (players,
    spectators, the archive's readers and the public link) sees no hidden GM roll, and
    the summary written for them.
    """
    if audience == "gm":
        return {**payload, "summary": payload.get("gm_summary", payload.get("summary", ""))}
    secret = "gm_summary" in payload or any(r.get("hidden") for r in payload.get("rolls") or [])
    # An event with hidden dice keeps its action's `data` (the dice, a die the GM entered)
    # for the GM too: replaying needs it, nobody else reads it.
    dropped = {"gm_summary", "data"} if secret else {"gm_summary"}
    shown = {key: value for key, value in payload.items() if key not in dropped}
    shown["rolls"] = [row for row in payload.get("rolls") or [] if not row.get("hidden")]
    return shown
