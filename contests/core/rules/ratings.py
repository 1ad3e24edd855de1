"""Ratings, masteries and resistance classes.

§2.1.2 Ratings and Masteries; §2.3.3 Resistance. Readings of the text follow
RULINGS.md R1 (notation) and R2 (resistance classes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import RulesError

# §2.1.2: a mastery is 20 points of rating; `M` (or a genre glyph such as `W`)
# marks one, `M2` two and so on. The digits 0-9 only (re.ASCII): `\d` alone also reads
# "١٧" or full-width "１７" as 17, which nobody means as a rating (issue 27).
_NOTATION = re.compile(r"^\s*(-?\d+)\s*(?:([MmWw])\s*(\d+)?)?\s*$", re.ASCII)


@dataclass(frozen=True, order=True, slots=True)
class Rating:
    """An ability or resistance rating held as one integer total (R1).

    >>> Rating(27).target, Rating(27).masteries
    (7, 1)
    >>> str(Rating.parse("3M2"))
    '3M2'
    >>> str(Rating(17) + 6)
    '3M'
    """

    total: int

    def __post_init__(self) -> None:
        if isinstance(self.total, bool) or not isinstance(self.total, int):
            raise TypeError(f"a rating total must be an int, not {self.total!r}")

    # §2.1.2 / R1: masteries count every full 20 above 20; the target stays 1..20.
    @property
    def masteries(self) -> int:
        return (self.total - 1) // 20 if self.total > 20 else 0

    @property
    def target(self) -> int:
        return self.total - 20 * self.masteries

    @classmethod
    def parse(cls, text: object) -> Rating:
        """Read `14`, `7M`, `7m`, `7M1`, `3M2` or `12W` (R1).

        Raises RulesError (a ValueError) with a readable message for anything else.

        >>> Rating.parse("12W").total
        32
        >>> Rating.parse("0M2")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        contests.core.rules.errors.RulesError: '0M2': the number before the mastery ...
        """
        if isinstance(text, Rating):
            return text
        if isinstance(text, int) and not isinstance(text, bool):
            return cls(text)
        if not isinstance(text, str):
            raise RulesError(f"cannot read a rating from {text!r}")
        match = _NOTATION.match(text)
        if not match:
            raise RulesError(
                f"{text!r} is not a rating: write a number such as 14, or a target and "
                "masteries such as 7M, 3M2 or 12W"
            )
        number, glyph, count = match.groups()
        target = int(number)
        if glyph is None:
            return cls(target)
        masteries = int(count) if count is not None else 1
        if masteries < 1:
            raise RulesError(f"{text!r}: a mastery count must be 1 or more")
        if not 1 <= target <= 20:
            raise RulesError(
                f"{text!r}: the number before the mastery must be 1 to 20 (use 20M, not 0M2)"
            )
        return cls(target + 20 * masteries)

    def __str__(self) -> str:
        m = self.masteries
        if m == 0:
            return str(self.total)
        if m == 1:
            return f"{self.target}M"
        return f"{self.target}M{m}"

    # §2.11 Modifiers / R1: modifiers add to the total before the mastery conversion,
    # so 17 + 6 is 3M and 1M - 3 is 18.
    def __add__(self, modifier: int) -> Rating:
        if isinstance(modifier, Rating):
            modifier = modifier.total
        if isinstance(modifier, bool) or not isinstance(modifier, int):
            return NotImplemented
        return Rating(self.total + modifier)

    __radd__ = __add__

    def __sub__(self, modifier: int) -> Rating:
        if isinstance(modifier, bool) or not isinstance(modifier, int):
            return NotImplemented
        return Rating(self.total - modifier)


def normalise_level(level: str) -> str:
    """`"Very High"`, `"very-high"` and `"very_high"` all name the same resistance class."""
    if not isinstance(level, str):
        raise RulesError(f"a resistance class is a name such as 'moderate', not {level!r}")
    return re.sub(r"[\s\-]+", "_", level.strip().lower())


RESISTANCE_LEVELS = ("nearly_impossible", "very_high", "high", "moderate", "low", "very_low")

DEFAULT_BASE_RESISTANCE = 14


def resistance(level: str, base: int = DEFAULT_BASE_RESISTANCE) -> Rating:
    """The rating of a resistance class (§2.3.3, R2).

    `level` is one of RESISTANCE_LEVELS; spaces, hyphens and capitals are forgiven
    ("Very High" reads as "very_high").

    >>> [str(resistance(level)) for level in RESISTANCE_LEVELS]
    ['14M2', '14M', '20', '14', '8', '-6']
    >>> str(resistance("Very High", base=10))
    '10M'
    """
    if isinstance(base, bool) or not isinstance(base, int):
        raise RulesError(f"the base resistance must be a whole number, not {base!r}")
    level = normalise_level(level)
    offsets = {
        "nearly_impossible": 40,
        "very_high": 20,
        "high": 6,
        "moderate": 0,
        "low": -6,
    }
    if level == "very_low":
        # R2: "base - 20 or 6, whichever is lower".
        return Rating(min(base - 20, 6))
    if level not in offsets:
        raise RulesError(
            f"unknown resistance class {level!r}; choose one of {', '.join(RESISTANCE_LEVELS)}"
        )
    return Rating(base + offsets[level])
