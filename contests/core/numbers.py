"""Whole numbers and ids read from what people send: ASCII digits only, within what a
PostgreSQL integer holds (the reasons: questworlds_site/inputs.py, which builds the
forms' and URLs' readers on these). Pure Python, for the play core's typed actions and
the site alike."""

from __future__ import annotations

import re
from typing import Any

MAX_ID = 2**31 - 1  # a database id, and the largest PostgreSQL integer
MIN_INT = -(2**31)
# Enough digits that a number too large reads "at most ...", not "not a number".
DIGITS = 40
UNSIGNED = re.compile(rf"[0-9]{{1,{DIGITS}}}")
SIGNED = re.compile(rf"[-+]?[0-9]{{1,{DIGITS}}}")


def whole(
    value: Any, *, minimum: int | None = 0, maximum: int = MAX_ID, signed: bool = False
) -> int | None:
    """`value` (a string of ASCII digits, with a leading sign if `signed`; or an int
    already read, not a bool) as an int from `minimum` to `maximum`; otherwise None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        if not (SIGNED if signed else UNSIGNED).fullmatch(value):
            return None
        value = int(value)
    if not isinstance(value, int):
        return None
    low = -maximum - 1 if minimum is None else minimum
    return value if low <= value <= maximum else None


def an_id(value: Any) -> int | None:
    """A database id (1 to MAX_ID) from input, or None."""
    return whole(value, minimum=1)
