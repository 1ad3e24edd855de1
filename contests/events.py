"""The contest's one durable contract: the events the live table writes.

Every `ContestEvent` has a type (`EventType`: the framing, an undo, or the table action
it records) and a payload of that type's shape (`payload_type`), checked once where
events are written (`checked_payload`). Who may see what of an event is decided in one
place (`visible`), for the live log, the archive and the public link alike.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, Required

from django.db import models
from pydantic import ConfigDict, TypeAdapter, ValidationError
from typing_extensions import TypedDict

# The payloads are JSON written once and read for years: a key nobody declared is an
# error at the write point, not a surprise in the archive.
_STRICT = ConfigDict(extra="forbid")


class EventType(models.TextChoices):
    """What an event records, with the words the log and the archive use for it."""

    FRAMED = "framed", "framed the contest"
    UNDONE = "undone", "undid an action"
    # -- actions of every kind
    CHOOSE_ABILITY = "choose_ability", "chose an ability"
    SET_TACTIC = "set_tactic", "chose a tactic"
    AUGMENT = "augment", "augmented"
    MODIFIER = "modifier", "added a modifier"
    REMOVE_MODIFIER = "remove_modifier", "removed a modifier"
    ENTER_ROLL = "enter_roll", "entered a roll"
    ROLL = "roll", "rolled"
    REVEAL = "reveal", "revealed a roll"
    HERO_POINT = "hero_point", "spent a hero point"
    RESOLVE = "resolve", "resolved the roll"
    APPLY_CONSEQUENCES = "apply_consequences", "confirmed the consequences"
    NARRATE = "narrate", "narrated"
    # -- simple contests and their variants
    AUTOMATIC_VICTORY = "automatic_victory", "took an automatic victory"
    PYRRHIC = "pyrrhic", "fought for a pyrrhic victory"
    ESCALATE = "escalate", "escalated the contest"
    CONFUSING_TIE = "confusing_tie", "ruled the tie a marginal victory"
    # -- the GM's rulings of R18.10 in other kinds
    NO_RELEVANT_ABILITY = "no_relevant_ability", "ruled there is no relevant ability"
    BOTH_FUMBLE = "both_fumble", "ruled a double fumble a marginal defeat"
    # -- long contests
    BID = "bid", "bid"
    PARTING_SHOT = "parting_shot", "took a parting shot"
    UNRELATED_ACTION = "unrelated_action", "took an unrelated action"
    DISENGAGE = "disengage", "tried to disengage"
    GIFT = "gift", "gave advantage points"
    # -- group contests
    BOOST = "boost", "boosted"
    ENGAGE = "engage", "engaged an opponent"
    PLAY_ROUND = "play_round", "played a round"
    ASSIST = "assist", "assisted"
    REMOVE_FOLLOWER = "remove_follower", "removed a follower"
    SHIFT_POINTS = "shift_points", "shifted points"
    JOIN = "join", "joined the contest"
    SWITCH_ABILITY = "switch_ability", "switched ability"
    DECLARE = "declare", "declared an action"
    DELAY = "delay", "delayed"
    ACT = "act", "acted"
    REJOIN = "rejoin", "rejoined the contest"
    LEND = "lend", "lent advantage points"
    FINAL_ACTION = "final_action", "took a final action"


ACTION_TYPES = frozenset(EventType) - {EventType.FRAMED, EventType.UNDONE}


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
    if event_type == EventType.FRAMED:
        return FramedPayload
    if event_type == EventType.UNDONE:
        return UndonePayload
    return ActionPayload


_ADAPTERS = {shape: TypeAdapter(shape) for shape in (FramedPayload, UndonePayload, ActionPayload)}


class EventContractError(ValueError):
    """A payload that breaks the contract: a bug in the code that wrote it."""


def checked_payload(event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    """`payload` if it is a valid payload of `event_type`; raises EventContractError."""
    if event_type not in EventType.values:
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
