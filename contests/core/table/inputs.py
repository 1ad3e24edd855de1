"""What an actor may do now (`BaseFlow.available_actions`): each action offered, with
its inputs, as an interface renders them (the panel's forms, contests/live/). Frozen
values: a panel works out every actor's offers on every step, and the same inputs are
shared from one step to the next (`choice`).

Pure Python like the rest of the play core; `base` re-exports every name here."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..terms import MAX_TEXT


@dataclass(frozen=True)
class Choice:
    """One allowed value of a choice input, with its label for people."""

    value: Any
    label: str


@dataclass(frozen=True)
class ActionInput:
    """One input of an available action, named as the action's data key.

    `kind`: "choice" (one of `choices`), "int" (`minimum`..`maximum`), "text" (at most
    `limit` characters) or "rating" (a rating such as "17" or "5W2"; the service reads
    a character's from the sheet). An optional input may be left out (its `default`).
    """

    name: str
    kind: str
    label: str
    choices: tuple[Choice, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    limit: int = MAX_TEXT
    required: bool = True
    default: Any = None

    def __hash__(self) -> int:
        """The hash of its fields, as the dataclass's own, worked out once: an input is
        frozen, and the panel's forms are remembered by their inputs (contests/
        action_form.py), each step hashing the same inputs again (issue 29)."""
        cached: int | None = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(
                (
                    self.name,
                    self.kind,
                    self.label,
                    self.choices,
                    self.minimum,
                    self.maximum,
                    self.limit,
                    self.required,
                    self.default,
                )
            )
            object.__setattr__(self, "_hash", cached)
        return cached


@dataclass(frozen=True)
class AvailableAction:
    """What one actor may do now: `action` is the `_do_<action>` it performs.

    Any combination of valid values for its inputs is accepted (so an action whose
    choices depend on one another is listed once per fixed value, the fixed one a
    choice of one). `confirm`: it cannot be taken back by the player (the GM can undo)
    and asks for confirmation; `primary`: the move the table waits for; `under`: the
    side whose panel shows it, for an action placed by the flow (`Place.FLOW`: whose
    turn it is to bid, who takes the parting shot).
    """

    action: str
    label: str
    inputs: tuple[ActionInput, ...] = ()
    confirm: bool = False
    primary: bool = False
    under: str | None = None

    def input(self, name: str) -> ActionInput | None:
        return next((i for i in self.inputs if i.name == name), None)


def choice(name: str, label: str, options: Iterable[tuple[Any, str]], **kw: Any) -> ActionInput:
    """A choice input of these (value, label) options. The same input for the same
    options: a panel works out every actor's offers on every step, mostly the same
    choices as the step before (issue 29); an input is frozen, so it is shared as it
    is. Each value's type is part of the key (1 and True are equal, not the same)."""
    listed = tuple((type(v), v, t) for v, t in options)
    keys = tuple((k, type(v), v) for k, v in sorted(kw.items()))
    try:
        return _choice(name, label, listed, keys)
    except TypeError:  # an unhashable value or default: made anew
        return _choice.__wrapped__(name, label, listed, keys)


@functools.lru_cache(maxsize=4096)
def _choice(name: str, label: str, listed: tuple[Any, ...], kw: tuple[Any, ...]) -> ActionInput:
    options = tuple(Choice(v, t) for _, v, t in listed)
    return ActionInput(name, "choice", label, options, **{k: v for k, _, v in kw})


def number(name: str, label: str, minimum: int, maximum: int, **kw: Any) -> ActionInput:
    return ActionInput(name, "int", label, minimum=minimum, maximum=maximum, **kw)


def words(name: str, label: str, *, limit: int = MAX_TEXT, required: bool = False) -> ActionInput:
    return ActionInput(name, "text", label, limit=limit, required=required, default="")
