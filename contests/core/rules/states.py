"""States of adversity and fortune (§2.11, RULINGS.md R10).

This module holds the states and the two degree tables; healing, waning and the
"clearly inferior opponent" rule build on it.
"""

from __future__ import annotations

import enum

from .errors import RulesError


class State(enum.StrEnum):
    """A state of adversity or fortune, recorded against the abilities it affects."""

    HURT = "hurt"
    IMPAIRED = "impaired"
    INJURED = "injured"
    DYING = "dying"
    DEAD = "dead"
    FRESH = "fresh"
    PUMPED = "pumped"
    INVIGORATED = "invigorated"
    HEROIC = "heroic"

    @property
    def is_adversity(self) -> bool:
        return self in ADVERSITY

    @property
    def modifier(self) -> int:
        """The rating modifier of this state (§2.11.1, §2.11.2); 0 for those that
        work by bumps or forbid action (dying, dead, heroic)."""
        return _MODIFIERS.get(self, 0)

    @property
    def is_fortune(self) -> bool:
        return self in FORTUNE

    @property
    def rank(self) -> int:
        """Position on its own ladder, 1 the mildest: hurt 1 .. dead 5, fresh 1 .. heroic 4.

        >>> State.INJURED.rank, State.PUMPED.rank
        (3, 2)
        """
        ladder = ADVERSITY if self.is_adversity else FORTUNE
        return ladder.index(self) + 1

    @property
    def bumps(self) -> int:
        """Bumps this state gives on related abilities: heroic a bump up (§2.11.2)."""
        return 1 if self is State.HEROIC else 0


def parse_state(value: State | str) -> State:
    """A State from its name ("hurt", "Heroic"), or a RulesError naming the choices.

    >>> parse_state("Pumped")
    <State.PUMPED: 'pumped'>
    """
    if isinstance(value, State):
        return value
    try:
        return State(str(value).strip().lower())
    except ValueError:
        names = ", ".join(State)
        raise RulesError(f"{value!r} is not a state; the states are {names}") from None


ADVERSITY: tuple[State, ...] = (State.HURT, State.IMPAIRED, State.INJURED, State.DYING, State.DEAD)
"""§2.11.1: the five states of adversity, least punishing first."""

FORTUNE: tuple[State, ...] = (State.FRESH, State.PUMPED, State.INVIGORATED, State.HEROIC)
"""§2.11.2: the four states of fortune, least robust first."""

_MODIFIERS = {
    State.HURT: -3,
    State.IMPAIRED: -6,
    State.INJURED: -9,
    State.FRESH: 3,
    State.PUMPED: 6,
    State.INVIGORATED: 9,
}

# §2.11.1 Consequences of Defeat Table (R10).
CONSEQUENCE_OF_DEFEAT: dict[str, State] = {
    "marginal": State.HURT,
    "minor": State.IMPAIRED,
    "major": State.INJURED,
    "complete": State.DYING,
}

# §2.11.2 Benefits of Victory Table (R10).
BENEFIT_OF_VICTORY: dict[str, State] = {
    "marginal": State.FRESH,
    "minor": State.PUMPED,
    "major": State.INVIGORATED,
    "complete": State.HEROIC,
}
