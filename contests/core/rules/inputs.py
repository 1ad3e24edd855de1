"""Reading the values a contest's setup and actions receive, with readable errors.

Setups and recorded actions must stay JSON, so each reader names what it expected.
"""

from __future__ import annotations

from typing import Any

from .dice import check_roll
from .errors import RulesError
from .options import RulesOptions
from .ratings import Rating
from .simple import BetterRoll


def read_rating(value: Any, what: str) -> Rating:
    """A rating from a Rating, an int total or a notation string such as "7M" (R1)."""
    if isinstance(value, Rating):
        return value
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise RulesError(f"{what} must be a whole number or a rating such as '7M', not {value!r}")
    try:
        return Rating.parse(value)
    except ValueError as error:
        raise RulesError(f"{what}: {error}") from None


def read_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{what} must be a whole number, not {value!r}")
    return value


def read_flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"{what} must be true or false, not {value!r}")
    return value


def read_roll(value: Any, whose: str) -> int:
    try:
        return check_roll(value)
    except ValueError as error:
        raise RulesError(f"{whose}: {error}") from None


def read_better_roll(value: Any) -> BetterRoll:
    # RulesOptions owns the list of choices and its message.
    return RulesOptions(better_roll=value).better_roll
