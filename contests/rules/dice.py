"""Die results and the injected roller.

§2.3.4 Die Rolls; RULINGS.md R3 (criticals and fumbles) and R4 (targets of 0 or less).
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Callable

Roller = Callable[[], int]
"""A function returning one d20 roll, 1..20. Every rolling function takes one."""

_SYSTEM_RANDOM = secrets.SystemRandom()


def d20() -> int:
    """The default roller: a cryptographically random d20."""
    return _SYSTEM_RANDOM.randint(1, 20)


def fixed_rolls(*rolls: int) -> Roller:
    """A roller that returns the given rolls in order (for tests and replays).

    >>> roll = fixed_rolls(3, 17)
    >>> roll(), roll()
    (3, 17)
    """
    queue = list(rolls)

    def roller() -> int:
        if not queue:
            raise RuntimeError("fixed_rolls ran out of rolls")
        return queue.pop(0)

    return roller


class Result(enum.IntEnum):
    """The four results of a die roll, ordered by rank (§2.3.4)."""

    FUMBLE = 0
    FAILURE = 1
    SUCCESS = 2
    CRITICAL = 3

    def bumped(self, steps: int) -> Result:
        """This result moved `steps` up (or down), clamped to fumble..critical."""
        return Result(max(Result.FUMBLE, min(Result.CRITICAL, self + steps)))

    @property
    def label(self) -> str:
        return self.name.lower()


def check_roll(roll: int) -> int:
    if isinstance(roll, bool) or not isinstance(roll, int) or not 1 <= roll <= 20:
        raise ValueError(f"a d20 roll must be a whole number from 1 to 20, not {roll!r}")
    return roll


def roll_result(roll: int, target: int) -> Result:
    """The result of `roll` against target number `target` (§2.3.4, R3, R4).

    >>> roll_result(1, 1), roll_result(20, 20), roll_result(5, 7)
    (<Result.CRITICAL: 3>, <Result.FUMBLE: 0>, <Result.SUCCESS: 2>)
    """
    check_roll(roll)
    if roll == 20:
        return Result.FUMBLE
    if target <= 0:
        # R4: a target of 0 or less always fails, except a 20 stays a fumble.
        return Result.FAILURE
    if roll == 1:
        return Result.CRITICAL
    if roll <= target:
        return Result.SUCCESS
    return Result.FAILURE
