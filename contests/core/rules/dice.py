"""Die results and the injected roller.

§2.3.4 Die Rolls; RULINGS.md R3 (criticals and fumbles) and R4 (targets of 0 or less).
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Callable

from .errors import RulesError

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


def check_roll(roll: object) -> int:
    """`roll` itself if it is a d20 roll (1..20); otherwise a RulesError."""
    if isinstance(roll, bool) or not isinstance(roll, int) or not 1 <= roll <= 20:
        raise RulesError(f"a d20 roll must be a whole number from 1 to 20, not {roll!r}")
    return roll


def roll_result(roll: int, target: int) -> Result:
    """The result of `roll` against target number `target` (§2.3.4, R3, R4).

    >>> roll_result(1, 1), roll_result(20, 20), roll_result(5, 7)
    (<Result.CRITICAL: 3>, <Result.FUMBLE: 0>, <Result.SUCCESS: 2>)
    """
    # §2.3.4
    check_roll(roll)
    if isinstance(target, bool) or not isinstance(target, int):
        raise RulesError(f"a target number must be a whole number, not {target!r}")
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


def rolls_giving(target: int) -> dict[Result, range]:
    """The die faces that give each result against `target` (§2.3.4, R3, R4).

    Each result comes from one run of consecutive faces, which lets the odds module
    count roll pairs arithmetically instead of enumerating all 400.

    >>> rolls_giving(3)[Result.SUCCESS], rolls_giving(3)[Result.FAILURE]
    (range(2, 4), range(4, 20))
    >>> {result.label: len(faces) for result, faces in rolls_giving(0).items()}
    {'critical': 0, 'success': 0, 'failure': 19, 'fumble': 1}
    """
    if target <= 0:
        # R4: every face but the 20 fails.
        return {
            Result.CRITICAL: range(1, 1),
            Result.SUCCESS: range(2, 2),
            Result.FAILURE: range(1, 20),
            Result.FUMBLE: range(20, 21),
        }
    last_success = min(target, 19)
    return {
        Result.CRITICAL: range(1, 2),
        Result.SUCCESS: range(2, last_success + 1),
        Result.FAILURE: range(last_success + 1, 20),
        Result.FUMBLE: range(20, 21),
    }
