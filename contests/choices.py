"""The words people read for the values the table's forms post: every select's options
come from the constants the typed actions check against (contests/core/actions/), so a
template never copies a list of choices."""

from __future__ import annotations

from .core.actions import CONTEST_KINDS, STAKES
from .core.rules.extended_group.state import ORDER_RULES
from .core.rules.ratings import RESISTANCE_LEVELS
from .core.rules.scored_group.participants import ROLES
from .core.table.base import SIDES
from .core.terms import VARIANTS


def _choices(values: tuple[str, ...], labels: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """A select's options: the values the typed actions accept, in their order, each
    with its words for people (a label for a value that no longer exists fails here)."""
    if set(labels) != set(values):
        raise ValueError(f"the labels {sorted(labels)} do not match the choices {values}")
    return tuple((value, labels[value]) for value in values)


# The frame form's choices, from the constants the frame's model checks against.
FRAME_CHOICES = {
    "kinds": _choices(
        CONTEST_KINDS,
        {
            "simple": "Simple contest",
            "automatic": "Automatic victory (no roll)",
            "scored": "Scored contest",
            "extended": "Extended contest",
            "chained": "Chained contest",
            "group_simple": "Group simple contest (§4.2)",
            "group_scored": "Group scored contest (§5.2)",
            "group_extended": "Group extended contest (§5.3.3)",
        },
    ),
    "variants": _choices(
        VARIANTS,
        {
            "normal": "played normally",
            "costly": "a costly automatic victory (§2.19.2)",
            "graduated": "for graduated goals (§2.18)",
        },
    ),
    "stakes": _choices(
        STAKES, {"rising_action": "rising action (§5.1.2)", "climax": "climax (§5.1.3)"}
    ),
    "orders": _choices(
        ORDER_RULES,
        {"daring": "most daring first", "bid": "highest bid first", "ap": "most AP first"},
    ),
    # Easiest first, as the form lists them: "Very low" .. "Nearly impossible".
    "levels": tuple(
        (level, level.replace("_", " ").capitalize()) for level in reversed(RESISTANCE_LEVELS)
    ),
    "roles": _choices(
        ROLES,
        {
            "contestant": "contestant",
            "follower": "follower",
            "secondary": "secondary contestant",
            "supporter": "supporter",
        },
    ),
    "sides": _choices(SIDES, {"pc": "PCs'", "opponent": "opponents'"}),
}
