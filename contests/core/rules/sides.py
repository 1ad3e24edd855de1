"""One side of a contest as every machine takes it: `SideInput` (issue 13, R18.4-R18.5).

A side is its rating and the effects that last the whole contest: modifier lines
(a stretch, a flaw, lasting augments), the states recorded against the ability,
lasting bumps (heroic, a pyrrhic victory, a stretch taken as a bump down, a dying
final action) and whether a player controls it. Every machine is built from two of
these (or a list, in group contests) instead of a keyword argument per effect and
side, and reads them the same way: `target` totals the TN (§2.11, R9, R10),
`stretched` says whether its victories are capped at minor (§2.10, R18.4).

A bare rating (17, "7M") stands for a side with nothing else, so the short forms of
the doctests keep working: `ScoredContest(pc="15", opponent="14")`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from .errors import RulesError
from .inputs import read_flag, read_int, read_rating
from .modifiers import Modifier, TargetNumber, target_number
from .ratings import Rating
from .simple import SIDES, Side
from .states import State, parse_state


@dataclass(frozen=True, slots=True)
class SideInput:
    """A side of a contest: `rating` and what lasts the whole contest.

    - `name`: how messages and the log name it.
    - `is_pc`: a player's side: only then may it spend hero points and take parting
      shots (R18.2), and only then does it take modifiers (R18.3).
    - `modifiers`: lasting Modifier lines (a stretch, a flaw, an augment).
    - `states`: the states recorded against the ability in use (R10).
    - `bumps`: lasting bumps besides those of `modifiers` and `states` (R5.4).

    >>> side = SideInput(Rating(15), modifiers=(Modifier("stretch", -6, kind="stretch"),))
    >>> str(side.target.rating), side.stretched
    ('9', True)
    >>> SideInput.read("7M").target.rating.total
    27
    """

    rating: Rating
    name: str = ""
    is_pc: bool = True
    modifiers: tuple[Modifier, ...] = ()
    states: tuple[State, ...] = ()
    bumps: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "rating", read_rating(self.rating, f"{self.label}'s rating"))
        object.__setattr__(self, "is_pc", read_flag(self.is_pc, f"{self.label}'s is_pc"))
        object.__setattr__(self, "bumps", read_int(self.bumps, f"{self.label}'s bumps"))
        if not isinstance(self.name, str):
            raise RulesError(f"a side's name must be text, not {self.name!r}")
        lines = tuple(_modifier(line) for line in self.modifiers)
        states = tuple(_state(state) for state in self.states)
        object.__setattr__(self, "modifiers", lines)
        object.__setattr__(self, "states", states)
        if not self.is_pc and (lines or states):
            # R2, R18.3: the GM gives a resistance another class or rating instead.
            raise RulesError(
                f"{self.label} is a resistance: it takes no modifiers or states; give it "
                "another class or rating (R2, R18.3)"
            )

    @property
    def label(self) -> str:
        return self.name or "a side"

    @property
    def target(self) -> TargetNumber:
        """The TN this side rolls against, with its breakdown (§2.11, R9, R10)."""
        return target_number(self.rating, modifiers=self.modifiers, states=self.states)

    @property
    def total_bumps(self) -> int:
        """Every lasting bump: `bumps` and those of the modifier lines and states (R5.4)."""
        return self.bumps + self.target.bumps

    @property
    def stretched(self) -> bool:
        """A stretch penalty applies: major and complete victories count as minor
        (§2.10, R18.4). A stretch taken as a bump down is a bump, not a cap (R9)."""
        return self.target.stretched

    def with_rating(self, rating: Any) -> SideInput:
        """The same side using another ability (§5.2.8, §5.3.8)."""
        return SideInput(rating, self.name, self.is_pc, self.modifiers, self.states, self.bumps)

    @classmethod
    def read(
        cls, value: Any, *, name: str = "", is_pc: bool = True, what: str = "a side"
    ) -> SideInput:
        """A SideInput from a SideInput, its JSON, or a bare rating (`name` and
        `is_pc` then fill in what a bare rating cannot say)."""
        if isinstance(value, SideInput):
            return value
        if isinstance(value, dict):
            return cls.from_json(value)
        if isinstance(value, Rating | int | str) and not isinstance(value, bool):
            return cls(read_rating(value, f"{name or what}'s rating"), name=name, is_pc=is_pc)
        raise RulesError(
            f"{what} must be a whole number or a rating such as '7M' (or a SideInput), "
            f"not {value!r}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "rating": str(self.rating),
            "name": self.name,
            "is_pc": self.is_pc,
            "modifiers": [line.to_json() for line in self.modifiers],
            "states": [state.value for state in self.states],
            "bumps": self.bumps,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SideInput:
        unknown = set(data) - {"rating", "name", "is_pc", "modifiers", "states", "bumps"}
        if unknown:
            raise RulesError(f"a side has no {', '.join(sorted(unknown))}")
        if "rating" not in data:
            raise RulesError("a side needs a rating")
        modifiers = data.get("modifiers", [])
        states = data.get("states", [])
        if not isinstance(modifiers, list | tuple) or not isinstance(states, list | tuple):
            raise RulesError("a side's modifiers and states are lists")
        return cls(
            data["rating"],
            name=data.get("name", ""),
            is_pc=data.get("is_pc", True),
            modifiers=tuple(_modifier(line) for line in modifiers),
            states=tuple(states),
            bumps=data.get("bumps", 0),
        )


def _modifier(value: Any) -> Modifier:
    if isinstance(value, Modifier):
        return value
    if isinstance(value, dict):
        try:
            return Modifier.from_json(value)
        except TypeError as error:
            raise RulesError(f"a modifier line: {error}") from None
    raise RulesError(f"a side's modifiers are Modifier lines, not {value!r}")


def _state(value: Any) -> State:
    try:
        return parse_state(value)
    except (ValueError, TypeError) as error:
        raise RulesError(str(error)) from None


def read_sides(
    pc: Any,
    opponent: Any,
    *,
    opponent_is_pc: bool = False,
    names: tuple[str, str] = ("the PC", "the opponent"),
) -> dict[Side, SideInput]:
    """Both sides of a one-on-one contest, named by `names` where a bare rating gives
    no name; a bare opponent rating is the GM's resistance. The PC's side is a player's."""
    sides: dict[Side, SideInput] = {
        "pc": SideInput.read(pc, name=names[0], what=names[0]),
        "opponent": SideInput.read(opponent, name=names[1], is_pc=opponent_is_pc, what=names[1]),
    }
    for key, default in zip(SIDES, names, strict=True):
        if not sides[key].name:
            sides[key] = replace(sides[key], name=default)
    if not sides["pc"].is_pc:
        raise RulesError(f"{sides['pc'].label} is the PC's side: a player controls it")
    return sides


GROUP_SIDE_KEYS = frozenset({"rating", "modifiers", "states", "bumps"})
"""The keys of a group contest's participant entry that make its `SideInput`."""


def group_side(entry: dict[str, Any], name: str, *, is_pc: bool) -> SideInput:
    """The `SideInput` of a participant in a group contest: its entry's `rating`,
    `modifiers` (Modifier lines, or whole numbers as plain modifiers), `states` and
    `bumps`, read as every machine reads a side (R18.3-R18.5).

    >>> side = group_side({"rating": 15, "modifiers": [3], "bumps": 1}, "Asha", is_pc=True)
    >>> str(side.target.rating), side.total_bumps
    ('18', 1)
    """
    modifiers = entry.get("modifiers", [])
    if isinstance(modifiers, int) and not isinstance(modifiers, bool):
        modifiers = [modifiers]
    states = entry.get("states", [])
    if not isinstance(modifiers, list | tuple) or not isinstance(states, list | tuple):
        raise RulesError(f"{name}'s modifiers and states are lists")
    lines = tuple(
        Modifier("modifier", value)
        if isinstance(value, int) and not isinstance(value, bool)
        else _modifier(value)
        for value in modifiers
    )
    return SideInput(
        read_rating(entry.get("rating"), f"{name or 'a side'}'s rating"),
        name=name,
        is_pc=is_pc,
        modifiers=lines,
        states=tuple(states),
        bumps=entry.get("bumps", 0),
    )


def check_update(current: SideInput, value: Any) -> SideInput:
    """A side's new lasting effects between rounds (R18.5): the same side (its name and
    who controls it stay), with new modifiers, states or bumps."""
    new = SideInput.read(value, name=current.name, is_pc=current.is_pc, what=current.label)
    if new.name != current.name or new.is_pc != current.is_pc:
        raise RulesError(
            f"{current.label}: a side keeps its name and who controls it; "
            "change only its rating, modifiers, states and bumps"
        )
    return new


def stretched_sides(sides: Iterable[tuple[str, SideInput]]) -> frozenset[str]:
    """The keys of the sides whose victories a stretch caps (§2.10, R18.4)."""
    return frozenset(key for key, side in sides if side.stretched)
