"""What every contest flow shares (issue 6): the actor, an action's dice, the framing's
readers, the `AvailableAction` an interface renders (inputs.py, named here too), and
`BaseFlow`.

Pure Python like the rules engine it drives (no Django here). A flow holds the
table-level state of one contest as JSON and changes only through `apply(action, data,
actor, roller)`: `data` is read as the action's completed model (contests/core/actions:
what the browser sent, with the sheet's fields the service filled in), every action is
checked for who may do it and whether the contest's phase allows it, and raises
`IllegalAction`/`RulesError` with a readable message otherwise, leaving the state
unchanged. The dice an action rolls are recorded in the completed data the payload
carries (`payload["data"]`), which the event stores, so that `replay`, reading each
stored row back through the same model, rebuilds the identical state from events.

Each kind of contest is one subclass with `KIND` set to the `state["kind"]` it plays;
`frame` and `from_json` on a family's base (one-on-one or group) build the kind's class.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from ..actions import Data, completed, stored
from ..actions.models import Holder, Rolls
from ..rules import (
    Augment,
    IllegalAction,
    Modifier,
    RulesError,
    TargetNumber,
    target_number,
)
from ..rules.dice import check_roll
from ..rules.simple import SIDES as SIDES
from ..rules.simple import Side, as_side
from ..terms import MAX_TEXT as MAX_TEXT
from ..terms import MODIFIER_KINDS as MODIFIER_KINDS
from .inputs import ActionInput as ActionInput
from .inputs import AvailableAction as AvailableAction
from .inputs import Choice as Choice
from .inputs import choice as choice
from .inputs import number as number
from .inputs import words as words
from .state import copy_state

Roller = Callable[[], int]
# What may adjust a GM resistance (R9: mobs raise it, ganging up lowers it); nothing else.
RESISTANCE_ADJUSTMENTS = ("mob", "ganging_up")
PLOT_AUGMENTS = (3, 6, 9, 20)  # §2.4.3
PHASE_NAMES = {
    "preparing": "before the roll",
    "rolled": "after the roll, before it is resolved",
    "resolved": "once the contest is decided",
    "finished": "after the contest",
}


@dataclass(frozen=True)
class Actor:
    """Who is acting: their user id, role at the table, and the characters they play."""

    user_id: int
    role: str  # "gm", "player" or "spectator"
    character_ids: frozenset[int] = field(default_factory=frozenset)

    @property
    def is_gm(self) -> bool:
        return self.role == "gm"


# A flow's `_do_<action>(data, actor, dice)`: the action's event payload, from its
# completed data (actions.COMPLETED_MODELS) and the dice it rolls (`Dice`).
Handler = Callable[[Any, Actor, "Dice"], dict[str, Any]]


# -- an action's dice ---------------------------------------------------------------------


class Dice:
    """The dice of one action: a roll its data records (in a replay, or a physical d20
    entered for it) is read back, any other rolled and recorded; `recorded` goes into
    the completed data the event stores (its `Rolls` fields)."""

    def __init__(self, roller: Roller, recorded: dict[str, Any] | None = None) -> None:
        self.roller = roller
        self.recorded: dict[str, Any] = {} if recorded is None else recorded

    @classmethod
    def of(cls, data: Data, roller: Roller) -> Dice:
        """The dice `data` records (a copy: the model stays as it was)."""
        recorded = {
            key: copy.deepcopy(getattr(data, key))
            for key in Rolls.model_fields
            if key in data.model_fields_set
        }
        return cls(roller, recorded)

    def take(self, key: str) -> int:
        """The roll under `key`, rolling (and recording) it when there is none yet."""
        if key not in self.recorded:
            self.recorded[key] = self.roller()
        try:
            return check_roll(self.recorded[key])
        except ValueError as error:
            raise RulesError(f"{key}: {error}") from None

    def enter(self, key: str, roll: int | None) -> None:
        """A physical d20 entered is the roll under `key` (a recorded roll, on replay,
        stays as it was)."""
        if roll is not None:
            self.recorded.setdefault(key, roll)

    def under(self, key: str) -> Dice:
        """The dice kept under `key`: a group contest's "dice", or a participant's."""
        inner = self.recorded.setdefault(key, {})
        if not isinstance(inner, dict):
            raise RulesError(f"{key} must be an object")
        return Dice(self.roller, inner)


# -- what an action's typed data leaves to the flow -----------------------------------------
# One model serves both families (a side one-on-one, a participant in a group), so its
# fields are optional: the flow says which it needs. Text is read without the spaces
# around it.


def text(value: str | None) -> str:
    return (value or "").strip()


def required(value: str | None, key: str) -> str:
    """`value` without the spaces around it, refused when empty."""
    if not (read := text(value)):
        raise RulesError(f"{key} is required")
    return read


def required_number(value: int | None, key: str) -> int:
    if value is None:
        raise RulesError(f"{key} is required")
    return value


def side_of(value: str | None, key: str = "side") -> Side:
    side = as_side(value)
    if side is None:
        raise RulesError(f"{key} must be 'pc' or 'opponent'")
    return side


# -- reading a framing ----------------------------------------------------------------------


def read_text(
    data: dict[str, Any], key: str, *, required: bool = False, limit: int = MAX_TEXT
) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise RulesError(f"{key} must be text")
    value = value.strip()
    if required and not value:
        raise RulesError(f"{key} is required")
    if len(value) > limit:
        raise RulesError(f"{key} is too long ({len(value)} characters; at most {limit})")
    return value


def read_int(data: dict[str, Any], key: str, *, default: int | None = None) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{key} must be a whole number")
    return value


def read_rounding(data: dict[str, Any]) -> str:
    """The campaign's quick-augment rounding from a framing (R8): down (2.2) or up (1e)."""
    rounding = data.get("quick_augment_rounding") or "down"
    if rounding not in ("down", "up"):
        raise RulesError("quick_augment_rounding must be 'down' or 'up'")
    return rounding


GM = Actor(user_id=0, role="gm")  # who may try any action (`_accepts`)


class BaseFlow(ABC):
    """A JSON state, replay from events, and `apply`, which refuses spectators and
    leaves the state unchanged when an action fails.

    A kind's class sets `KIND`, builds its state in `_build(data)` and defines one
    `_do_<action>(data, actor, dice)` per action, returning the event payload. The
    actions both the one-on-one and the group table take (modifier lines, augments,
    physical dice, the reveal of hidden GM rolls, narration) are `SharedActions`
    (shared_actions.py) and their offers `SharedOffers` (offers.py), over this class,
    on the side or participant that the subclass's `_holder` reads from the data.
    """

    KIND: ClassVar[str | None] = None  # the state["kind"] a class plays; None: a family
    KINDS: ClassVar[tuple[str, ...]] = ()  # a family's kinds, for the framing's message
    is_long: ClassVar[bool] = False  # runs through an engine machine over rounds (§5)

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = state

    # -- building -------------------------------------------------------------------

    @classmethod
    def kind_class(cls, kind: Any) -> type[Self] | None:
        """The class under this one that plays `kind` (the registry imports them all)."""
        if kind == cls.KIND:
            return cls
        for sub in cls.__subclasses__():
            found = sub.kind_class(kind)
            if found is not None:
                return found
        return None

    @classmethod
    def frame(cls, data: dict[str, Any]) -> BaseFlow:
        """A new contest from the GM's framing, as the class of its kind."""
        kind = data.get("kind")
        played_by = cls.kind_class(kind)
        if played_by is None:
            raise RulesError(cls._unknown_kind(kind))
        return played_by(played_by._build(data))

    @classmethod
    def _unknown_kind(cls, kind: Any) -> str:
        return f"unknown contest type {kind!r}; choose one of {', '.join(cls.KINDS)}"

    @classmethod
    @abstractmethod
    def _build(cls, data: dict[str, Any]) -> dict[str, Any]:
        """The state of a new contest of this kind from the GM's framing (validated)."""

    # What the services read of every flow, one-on-one or group.

    @abstractmethod
    def side(self, side: str) -> dict[str, Any]:
        """A side as the table shows it ("pc" or "opponent"): name, rating..."""

    @abstractmethod
    def participant_rows(self) -> list[dict[str, Any]]:
        """Who takes part, for the contest's participant records."""

    @abstractmethod
    def target(self, side: str) -> TargetNumber | None:
        """A side's target number now; None without a rating (or for a group's sides,
        whose participants each have their own)."""

    @abstractmethod
    def odds(self) -> dict[str, Any] | None:
        """The odds of the coming roll where one pair of TNs decides it."""

    @abstractmethod
    def level_for_pc(self) -> int | None:
        """The outcome level for the PCs' side once decided (+4 .. -4); None before."""

    def to_json(self) -> dict[str, Any]:
        return copy_state(self.state)

    @classmethod
    def from_json(cls, state: dict[str, Any]) -> Self:
        return cls.over(copy_state(state))

    @classmethod
    def over(cls, state: dict[str, Any]) -> Self:
        """The flow of its kind over `state` itself, not a copy: for a caller that hands
        the state over (an action's one pass: the state read from the database is
        acted on, saved and rendered, never copied)."""
        return (cls.kind_class(state.get("kind")) or cls)(state)

    @classmethod
    def replay(
        cls, framing: dict[str, Any], events: Iterable[tuple[str, Mapping[str, Any], Actor]]
    ) -> BaseFlow:
        """Rebuild a contest from its framing and its recorded (action, data, actor):
        each event's data read back through its action's model (`actions.stored`)."""
        flow = cls.frame(framing)

        def no_dice() -> int:
            raise RulesError("a recorded action is missing its roll")

        for action, data, actor in events:
            flow.apply(action, stored(action, data), actor, no_dice)
        return flow

    @property
    def kind(self) -> str:
        kind: str = self.state["kind"]
        return kind

    @property
    def phase(self) -> str:
        phase: str = self.state["phase"]
        return phase

    @property
    def started(self) -> bool:
        """Whether the engine's machine of a long contest is under way."""
        return self.state.get("machine") is not None

    # -- acting ---------------------------------------------------------------------

    def apply(
        self, action: str, data: Data | Mapping[str, Any], actor: Actor, roller: Roller
    ) -> dict[str, Any]:
        """Perform one action; returns the event payload (summary, rolls, totals...),
        with the action's completed data as the event stores it under "data": `data`,
        read through the action's completed model (`actions.completed`), with the dice
        rolled for it.

        Raises IllegalAction (not allowed now or not yours) or RulesError (bad input),
        leaving the flow unchanged.
        """
        handler: Handler | None = (
            getattr(self, f"_do_{action}", None) if action.isidentifier() else None
        )
        refusal = self._refusal(action) if handler is None else None
        if handler is None and refusal is None:
            raise RulesError(f"unknown action {action!r}")
        if actor.role == "spectator":
            raise IllegalAction("spectators watch; they cannot act in a contest")
        if refusal is not None:
            raise IllegalAction(refusal)
        assert handler is not None, "an action without a handler is refused above"
        done = completed(action, data)
        dice = Dice.of(done, roller)
        saved, played_by = copy_state(self.state), self.__class__
        try:
            payload = handler(done, actor, dice)
            kept = done.model_dump(exclude_unset=True)
            if dice.recorded:
                # The dice rolled, recorded for a replay: checked as the model types them.
                kept = completed(action, {**kept, **dice.recorded}).model_dump(exclude_unset=True)
        except Exception:
            # An escalation changes the class with the kind: both go back.
            self.state, self.__class__ = saved, played_by
            raise
        payload["data"] = kept
        return payload

    def _refusal(self, action: str) -> str | None:
        """Why this kind refuses an action another kind of its family takes (None: the
        action is unknown here)."""
        return None

    def available_actions(
        self, actor: Actor, hero_points: Mapping[int, int] | None = None
    ) -> list[AvailableAction]:
        """What `actor` may do now, with its inputs: every action listed is accepted
        with valid inputs, and any other is refused. `hero_points` (character id ->
        hero points left, as the service reads them) drops the hero point actions of
        characters with none left; without it they are listed for every PC."""
        if actor.role == "spectator":
            return []
        offers = self._available(actor, hero_points or {})
        return offers + self._shared_offers(actor)

    @abstractmethod
    def _available(self, actor: Actor, hero_points: Mapping[int, int]) -> list[AvailableAction]:
        """The actions of this kind and family that `actor` may take now."""

    @abstractmethod
    def _keys(self) -> list[tuple[str, str]]:
        """The sides or participants an action may name, as (key, label)."""

    KEY: ClassVar[str] = "side"  # the data key naming a side or participant

    @staticmethod
    def _has_points(hero_points: Mapping[int, int], character_id: int | None) -> bool:
        return character_id is not None and hero_points.get(character_id, 1) > 0

    def _accepts(self, action: str, actor: Actor, **data: Any) -> bool:
        """Whether `action` with `data` would be accepted now: tried on a copy (dice
        fixed), for the choices whose validity the rules engine decides."""
        probe = type(self)(copy_state(self.state))
        try:
            probe.apply(action, data, actor, lambda: 10)
        except RulesError:
            return False
        return True

    @abstractmethod
    def _shared_offers(self, actor: Actor) -> list[AvailableAction]:
        """What the shared actions offer `actor` now (offers.py)."""

    def _require_phase(self, *phases: str) -> None:
        if self.phase not in phases:
            allowed = " or ".join(PHASE_NAMES[p] for p in phases)
            raise IllegalAction(
                f"that can only be done {allowed}; the contest is {PHASE_NAMES[self.phase]}"
            )

    def _require_gm(self, actor: Actor, what: str) -> None:
        if not actor.is_gm:
            raise IllegalAction(f"only the GM can {what}")

    # -- hooks the families fill in: the side or participant an action names ---------

    def _holder(self, data: Holder) -> tuple[str, dict[str, Any]]:
        """The side (one-on-one) or participant (group) an action names: the key that
        `_require_control` takes, and its record (name, rating, states, modifiers,
        augments, entered_roll)."""
        key = self._held(data)
        return key, self.holder(key)

    @abstractmethod
    def _held(self, data: Holder) -> str:
        """The key of the side or participant an action names (refused if none)."""

    @abstractmethod
    def holder(self, key: str) -> dict[str, Any]:
        """The record of the side or participant `key` names (see `_holder`)."""

    @abstractmethod
    def _require_control(self, actor: Actor, key: str, what: str) -> Any:
        """Refuse unless `actor` plays (or, as the GM, runs) the side or participant."""

    @abstractmethod
    def controls(self, actor: Actor, key: str) -> bool:
        """Whether `actor` plays (or, as the GM, runs) the side or participant."""

    @abstractmethod
    def _gm_rolls_for(self, key: str) -> bool:
        """Whether this side's or participant's rolls are the GM's, hidden from the
        players until revealed (campaign option roll visibility "gm_hidden")."""

    def is_resistance(self, key: str, record: dict[str, Any]) -> bool:
        """Whether the side or participant is a GM resistance (no character, not on the
        PCs' side): its TN is its class or rating alone (R2, R18.3)."""
        return record.get("character_id") is None and not self._on_pc_side(key, record)

    def _on_pc_side(self, key: str, record: dict[str, Any]) -> bool:
        return key == "pc"

    def _refuse_on_resistance(self, key: str, record: dict[str, Any], what: str) -> None:
        if self.is_resistance(key, record):
            raise IllegalAction(
                f"{record.get('name') or key} is a resistance: {what} applies to a PC's target "
                "number only; give the resistance another class or rating, or a mob or "
                "ganging-up adjustment (R2, R9, R18.3)"
            )

    def gm_rolls_for(self, key: str) -> bool:
        """Whether this side's or participant's dice are the GM's hidden ones (what
        contests/audience.py keeps from the players)."""
        return self._gm_rolls_for(key)

    @abstractmethod
    def _reveal_text(self, pending: dict[str, Any]) -> str:
        """The log line when the GM shows the hidden dice of the pending roll."""

    @abstractmethod
    def _check_modifier(self, key: str, record: dict[str, Any], line: dict[str, Any]) -> None:
        """Refuse a modifier line (added or removed) that the contest cannot apply."""

    @staticmethod
    def _target_of(record: dict[str, Any]) -> TargetNumber | None:
        """A side's or participant's target number now (§2.11, R9): rating, modifier
        lines, augments and states; None without a rating yet."""
        if record.get("rating") is None:
            return None
        # A mob or ganging-up adjusts the resistance (§2.14, §2.15): the GM puts it on
        # the side it applies to, so it adds like any other modifier line.
        modifiers = [
            Modifier(
                m["label"],
                value=m["value"],
                bumps=m["bumps"],
                kind=m["kind"] if m["kind"] in ("stretch", "situational", "flaw") else "other",
            )
            for m in record.get("modifiers", [])
        ]
        return target_number(
            record["rating"],
            modifiers=modifiers,
            # Each augment named by where it comes from (§2.4): "rolled augment: Ysolde's Sword".
            augments=[
                Augment(
                    a["kind"],
                    a["bonus"],
                    helper=a.get("helper"),
                    ability=a.get("ability"),
                    reason=(a.get("ability") or "") if a["kind"] == "plot" else "",
                )
                for a in record.get("augments", [])
                if a["bonus"]
            ],
            states=record.get("states", []),
        )

    @staticmethod
    def _lapse_situational(records: Iterable[dict[str, Any]]) -> None:
        """At the end of a round of a long contest situational modifiers lapse (R9)."""
        for record in records:
            record["modifiers"] = [
                m for m in record.get("modifiers", []) if m["kind"] != "situational"
            ]

    # -- the shared actions ------------------------------------------------------------

    def hides_gm_roll(self, audience: str) -> bool:
        """Whether `audience` must not yet see the GM's dice of the pending roll."""
        pending: dict[str, Any] | None = self.state.get("pending")
        if audience == "gm" or not pending:
            return False
        return not pending.get("revealed", True)

    @staticmethod
    def _roll_payload(summary: str, rolls: list[dict[str, Any]], secret: str) -> dict[str, Any]:
        """A roll's event payload. While any of `rolls` is a hidden GM roll (marked
        `hidden`), players and the archive read `secret` and the GM `gm_summary`."""
        if not any(row.get("hidden") for row in rolls):
            return {"summary": summary, "rolls": rolls}
        return {"summary": secret, "gm_summary": summary, "rolls": rolls}
