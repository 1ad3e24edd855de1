"""A copy of a contest's state: the flows' own (an action's rollback, a probe of an
offer) and the readers' views (contests/audience.py)."""

from __future__ import annotations

import copy
from typing import Any, TypeVar

T = TypeVar("T")

_SCALARS = (str, int, float, bool, type(None))


def copy_state(value: T) -> T:
    """A copy of a value of the contest's state, sharing nothing with it: its dicts and
    lists copied at every depth, its strings and numbers as they are (immutable), any
    other value by `copy.deepcopy`. The same result as `copy.deepcopy` of the whole,
    at a third of its cost: the memo `deepcopy` keeps for shared references was most of
    it (issue 29), and the state is JSON, where nothing is shared. Every action copies
    the state once (to put it back if the action is refused half-way), every broadcast
    once (the view every copy reads), or twice while the players' view hides the GM's
    dice (the GM's view and everyone else's)."""
    return _copied(value)  # type: ignore[no-any-return]


def _copied(value: Any) -> Any:
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        return {key: _copied(item) for key, item in value.items()}
    if kind is list:
        return [_copied(item) for item in value]
    return copy.deepcopy(value)
