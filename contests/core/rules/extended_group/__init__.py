"""The group extended contest (§5.3.3-§5.3.11, RULINGS.md R13).

Three or more contestants, on two sides or more (a free-for-all). Each round everyone
still in declares a bid, the opponents they single out and how daring the action is;
the GM's chosen order rule then sets who acts when. An action is one exchange against
one target, read on the same Extended Contest Table as the one-on-one contest. A
contestant at 0 AP or below is knocked out; the contest ends when only one side has
anyone in it.

The modules, each importing only from those above it:

- `participants.py`: a contestant and how the setup names one;
- `state.py`: `GroupExtendedBase`, the setup, what the table shows, the checks and the
  order of a round;
- `rounds.py`: `GroupExtendedRounds`, the actions of a round;
- `contest.py`: `GroupExtendedContest`, the free actions.

Every public name is importable from `contests.core.rules.extended_group` itself.
"""

from .contest import GroupExtendedContest
from .state import DARING_LEVELS, ORDER_RULES

__all__ = [
    "DARING_LEVELS",
    "ORDER_RULES",
    "GroupExtendedContest",
]
