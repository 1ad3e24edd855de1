"""Exceptions the rules engine raises. Both are ValueErrors with a readable message."""


class RulesError(ValueError):
    """Input the rules do not allow (a bad rating, a bid of 0, an unknown option)."""


class IllegalAction(RulesError):
    """An action a contest's current state does not allow (acting out of turn, a
    second own augment, a hero point on a critical, acting after the end)."""
