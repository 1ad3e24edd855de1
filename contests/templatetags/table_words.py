"""Words for the live table's codes: people read "risky gambit", never `risky_gambit`."""

from __future__ import annotations

from django import template

from contests.table.one_on_one import TACTIC_LABELS

register = template.Library()


@register.filter
def tactic_label(code: str) -> str:
    """A round tactic's words (§5.1.5, §5.1.6, §5.2.5, §5.2.6): "risky gambit"."""
    return TACTIC_LABELS.get(code, str(code).replace("_", " "))
