"""The shared shape of every long contest state machine (§5).

A machine is built from a JSON-able `setup`, changed only through its action
methods, and records each successful action with its arguments (rolls included),
so `from_json(to_json())` rebuilds the identical state by replaying them. An action
that raises leaves the machine exactly as it was.
"""

from __future__ import annotations

import copy
import functools
import inspect
from collections.abc import Callable
from typing import Any, ClassVar, Self, TypeVar, cast

from .errors import IllegalAction, RulesError
from .ratings import Rating
from .sides import SideInput
from .simple import Outcome, Side, as_side

F = TypeVar("F", bound=Callable[..., Any])

# The actions allowed while a roll is held for hero points (`HoldsRolls`).
HOLD_ACTIONS = frozenset({"hero_point", "settle"})


def after_end(method: F) -> F:
    """Let an `@action` run after the contest is over; put it under `@action`.

    Parting shots (§5.1.4, §5.3.4) come right after the knock-out that ended a contest.
    """
    # A marker on the function, read with getattr (a Callable type has no attributes).
    setattr(method, "after_end", True)  # noqa: B010
    return method


def action(method: F) -> F:
    """Mark a method as a recorded action. Call it with keyword arguments only.

    The wrapper refuses actions after the contest is over, rolls the machine back if
    the action raises, and appends `{"action": name, **kwargs}` to `actions`.
    """

    @functools.wraps(method)
    def wrapper(self: ContestMachine, *args: Any, **kwargs: Any) -> Any:
        if args:
            raise TypeError(f"{method.__name__}() takes keyword arguments only")
        _refuse_unknown(method, kwargs, f"{method.__name__}()")
        if self.is_over and not getattr(method, "after_end", False):
            raise IllegalAction(f"the contest is over: {method.__name__} is not allowed")
        if getattr(self, "held", None) is not None and method.__name__ not in HOLD_ACTIONS:
            # §2.2: a rolled action waits for hero points; nothing else happens meanwhile.
            what = method.__name__.replace("_", " ")
            raise IllegalAction(f"a roll waits for hero points: settle it before you {what}")
        saved = copy.deepcopy(self.__dict__)
        try:
            result = method(self, **kwargs)
        except Exception:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        self.actions.append({"action": method.__name__, **_jsonable(kwargs)})
        return result

    setattr(wrapper, "is_action", True)  # noqa: B010 - a marker, as in after_end
    # functools.wraps keeps the method's signature: the wrapper is used as the method.
    return cast(F, wrapper)


class ContestMachine:
    """Base class: subclasses set `kind`, implement `_start(**setup)`, `state()` and
    `is_over`, and mark their action methods with `@action`."""

    kind: ClassVar[str] = ""

    def __init__(self, *args: Any, **setup: Any) -> None:
        # Positional arguments fill `_start`'s parameters in order (`ScoredContest(pc,
        # opponent)`); Ratings are stored as their notation so the setup stays JSON.
        names = [
            n for n in inspect.signature(self._start).parameters if n not in ("args", "kwargs")
        ]
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes at most {len(names)} setup values")
        for name, value in zip(names, args, strict=False):
            if name in setup:
                raise TypeError(f"{type(self).__name__}() got {name!r} twice")
            setup[name] = value
        kind = self.kind.replace("_", " ") or type(self).__name__
        article = "an" if kind[:1] in "aeiou" else "a"
        _refuse_unknown(self._start, setup, f"{article} {kind} contest")
        self.setup: dict[str, Any] = _jsonable(setup)
        self.actions: list[dict[str, Any]] = []
        self._start(**self.setup)

    # Each machine's `_start` takes its own keyword-only setup (`pc`, `opponent`, ...):
    # the setup arrives as JSON, and `__init__` checks it against that signature at run
    # time (`_refuse_unknown`). Typed as any callable, so each machine's own signature
    # is its contract rather than an override of a `**setup` catch-all.
    _start: Callable[..., None]

    @property
    def is_over(self) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def state(self) -> dict[str, Any]:  # pragma: no cover - abstract
        """A JSON-able snapshot of everything a player can see."""
        raise NotImplementedError

    def apply(self, recorded: dict[str, Any]) -> Any:
        """Perform one recorded action `{"action": name, **kwargs}`."""
        name = recorded.get("action")
        method = getattr(type(self), str(name), None)
        if not getattr(method, "is_action", False):
            raise RulesError(f"unknown action {name!r} for a {self.kind} contest")
        kwargs = {k: v for k, v in recorded.items() if k != "action"}
        return getattr(self, str(name))(**kwargs)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "setup": copy.deepcopy(self.setup),
            "actions": copy.deepcopy(self.actions),
            "state": self.state(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Rebuild a machine by replaying its recorded actions from its setup."""
        if data.get("kind") != cls.kind:
            raise RulesError(f"this is a {data.get('kind')!r} contest, not {cls.kind!r}")
        machine = cls(**data["setup"])
        for recorded in data["actions"]:
            machine.apply(recorded)
        return machine


class HoldsRolls:
    """A roll held for hero points, shared by the long one-on-one machines (§2.2: "You
    can decide to use a hero point for a bump after the die roll results are
    calculated"; R5.3). The machine's own `roll` action holds its arguments with
    `_hold`, both results known; `hero_point(side=...)` raises a player's result (once
    per roll; the machine's play refuses a critical and the GM's side); `settle()` plays
    it; `pending` is the outcome so far. Nothing else may happen meanwhile (machines call
    `_refuse_held`).

    A machine sets `held = None` at its start and gives `_play_held(arguments)` (play
    the held action, unrecorded) and `_held_outcome(result, arguments)` (its Outcome
    from the PC's side); `HERO_POINT_ARGS` names each side's hero point argument.
    """

    HERO_POINT_ARGS: ClassVar[dict[Side, str]] = {
        "pc": "pc_hero_point",
        "opponent": "opponent_hero_point",
    }
    held: dict[str, Any] | None

    def _hold(self, arguments: dict[str, Any]) -> Outcome:
        self._refuse_held("roll again")
        self.held = {**arguments, **{flag: False for flag in self.HERO_POINT_ARGS.values()}}
        return self._held_pending(self.held)

    def _refuse_held(self, what: str = "go on") -> None:
        if self.held is not None:
            raise IllegalAction(f"a roll waits for hero points: settle it before you {what}")

    @action
    @after_end
    def hero_point(self, *, side: str) -> Outcome:
        """`side` spends a hero point on the held roll: its result one step up
        (§2.3.5.5). Returns the outcome so far."""
        if self.held is None:
            raise IllegalAction("no roll waits for a hero point: roll first")
        spender = as_side(side)
        if spender is None:
            raise RulesError(f"side must be 'pc' or 'opponent', not {side!r}")
        flag = self.HERO_POINT_ARGS[spender]
        if self.held[flag]:
            raise IllegalAction(
                f"{self._side_name(spender)} has spent a hero point on this roll (R5.3)"
            )
        self.held[flag] = True
        return self._held_pending(self.held)

    @action
    @after_end
    def settle(self) -> Any:
        """Play the held roll with the hero points spent on it."""
        if self.held is None:
            raise IllegalAction("nothing is rolled: roll first")
        held, self.held = self.held, None
        return self._play_held(held)

    @property
    def pending(self) -> Outcome | None:
        """The held roll's outcome so far, from the PC's side; None if nothing is held.
        It is played on a copy, so whatever the rules refuse is refused now."""
        if self.held is None:
            return None
        return self._held_pending(self.held)

    def _held_pending(self, held: dict[str, Any]) -> Outcome:
        trial = copy.deepcopy(self)
        trial.held = None
        result = trial._play_held(copy.deepcopy(held))
        return self._held_outcome(result, held)

    def _side_name(self, side: Side) -> str:  # pragma: no cover - machines name sides
        return side

    def _play_held(self, arguments: dict[str, Any]) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _held_outcome(self, result: Any, arguments: dict[str, Any]) -> Outcome:  # pragma: no cover
        raise NotImplementedError


class HoldsGroupRolls:
    """A roll held for hero points in a group contest (§2.2, R5.3): the group machines'
    form of `HoldsRolls`. `roll(move=..., **arguments)` tries any of the machine's
    rolling actions (`ROLLING`, given without their hero point flags) on a copy, so
    whatever the rules refuse is refused now, and holds it; `hero_point(name=...)`
    raises that participant's result one step (once per roll, and only a player's);
    `settle()` plays it, recorded once; `pending` is the held action's result so far.
    Every other action is refused while a roll is held.

    A machine gives `_hero_flags(move, arguments, result)`: each hero point flag of the
    move and the participant it belongs to (None for someone outside the contest, like
    a gifter, §5.3.11). `SETTLE_OPTIONS` names the GM's calls `settle` may add to a move
    (the both-fumble tie of §5.3.1's footnote).
    """

    ROLLING: ClassVar[frozenset[str]] = frozenset()
    SETTLE_OPTIONS: ClassVar[dict[str, frozenset[str]]] = {}
    held: dict[str, Any] | None = None
    is_over: bool  # the machine's (ContestMachine.is_over), read by `roll`

    def _hero_flags(
        self, move: str, arguments: dict[str, Any], result: Any
    ) -> dict[str, str | None]:  # pragma: no cover - machines say whose flags they are
        raise NotImplementedError

    def _raw(self, move: str) -> Callable[..., Any]:
        """The undecorated method of the action `move` (`functools.wraps` keeps it)."""
        raw: Callable[..., Any] = getattr(type(self), move).__wrapped__
        return raw

    def _try(self, move: str, arguments: dict[str, Any]) -> tuple[Any, Any]:
        """Play `move` on a copy: the copy after it, and the move's result."""
        trial = copy.deepcopy(self)
        trial.held = None
        return trial, trial._raw(move)(trial, **arguments)

    @action
    @after_end
    def roll(self, *, move: str, **arguments: Any) -> Any:
        """Roll `move` (one of `ROLLING`, with its arguments but the hero points) and
        hold it: both results are known (§2.2). Returns its result so far."""
        if move not in self.ROLLING:
            moves = ", ".join(sorted(self.ROLLING))
            raise RulesError(f"roll holds one of {moves}, not {move!r}")
        if self.is_over and not getattr(getattr(type(self), move), "after_end", False):
            raise IllegalAction(f"the contest is over: {move} is not allowed")
        spent = {flag for flag in arguments if flag.endswith("hero_point")}
        if spent:
            raise RulesError(
                "hero points come after the roll: spend them with hero_point(name=...)"
            )
        result = self._try(move, arguments)[1]
        flags = self._hero_flags(move, arguments, result)
        self.held = {
            "move": move,
            "arguments": arguments,
            "whose": flags,
            "spent": dict.fromkeys(flags, False),
        }
        return result

    @action
    @after_end
    def hero_point(self, *, name: str | None = None) -> Any:
        """`name` spends a hero point on the held roll: their result one step up
        (§2.3.5.5); name nobody for a roll whose only hero point is an outsider's (a
        gift, §5.3.11). Returns the held action's result so far."""
        if self.held is None:
            raise IllegalAction("no roll waits for a hero point: roll first")
        held = self.held
        mine = [flag for flag, whose in held["whose"].items() if whose == name]
        if not mine:
            who = name or "nobody outside the contest"
            raise IllegalAction(f"{who} has no result in this roll to raise")
        free = [flag for flag in mine if not held["spent"][flag]]
        if not free:
            raise IllegalAction(
                f"{name or 'the gifter'} has spent a hero point on this roll (R5.3)"
            )
        held["spent"][free[0]] = True
        return self.pending

    @action
    @after_end
    def settle(self, **calls: Any) -> Any:
        """Play the held roll with the hero points spent on it, and the GM's `calls`
        the move allows (`SETTLE_OPTIONS`)."""
        if self.held is None:
            raise IllegalAction("nothing is rolled: roll first")
        allowed = self.SETTLE_OPTIONS.get(self.held["move"], frozenset())
        unknown = sorted(set(calls) - allowed)
        if unknown:
            raise RulesError(f"settling {self.held['move']} takes no {', '.join(unknown)}")
        held, self.held = self.held, None
        return self._raw(held["move"])(self, **held["arguments"], **held["spent"], **calls)

    @property
    def pending(self) -> Any:
        """The held action's result with the hero points spent so far; None if nothing
        is held. Played on a copy, so whatever the rules refuse is refused now."""
        settled = self.as_settled
        return None if settled is None else settled[1]

    @property
    def as_settled(self) -> tuple[Any, Any] | None:
        """The contest as it would stand if the held roll were settled now (a copy),
        and the held action's result; None if nothing is held."""
        if self.held is None:
            return None
        return self._try(self.held["move"], {**self.held["arguments"], **self.held["spent"]})


def _refuse_unknown(function: Callable[..., Any], kwargs: dict[str, Any], what: str) -> None:
    """A RulesError naming what `function` does not take (not Python's TypeError)."""
    parameters = inspect.signature(function).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return
    unknown = sorted(set(kwargs) - {name for name in parameters if name != "self"})
    if unknown:
        known = ", ".join(name for name in parameters if name != "self")
        raise RulesError(f"{what} takes no {', '.join(unknown)} (it takes {known})")


def _jsonable(value: Any) -> Any:
    """Setup values as JSON: a Rating becomes its notation ("7M"), a SideInput its
    JSON, tuples become lists."""
    if isinstance(value, Rating):
        return str(value)
    if isinstance(value, SideInput):
        return value.to_json()
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    return value
