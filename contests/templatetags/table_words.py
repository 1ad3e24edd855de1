"""Words for the live table's codes: people read "risky gambit", never `risky_gambit`."""

from __future__ import annotations

from django import template

from contests.action_form import render_action_form
from contests.core.table import two_sides
from contests.core.table.two_sides import TACTIC_LABELS

register = template.Library()


@register.filter
def tactic_label(code: str) -> str:
    """A round tactic's words (§5.1.5, §5.1.6, §5.2.5, §5.2.6): "risky gambit"."""
    return TACTIC_LABELS.get(code, str(code).replace("_", " "))


@register.filter
def possessive(name: str) -> str:
    """ "Tamsin" -> "Tamsin's", "the Grey Wolves" -> "the Grey Wolves'"."""
    return two_sides.possessive(str(name))


@register.filter
def for_side(controls: list, side: str | None) -> list:
    """The controls (contests/live/controls.py `Control`) placed on one side, or with None those
    of the whole contest."""
    return [c for c in controls if c.side == side]


@register.filter
def without(controls: list, name: str) -> list:
    """The controls but those of one action (shown elsewhere, e.g. the hero point)."""
    return [c for c in controls if c.name != name]


@register.simple_tag(takes_context=True)
def action_form(context, control) -> str:
    """`{% action_form c %}`: the control's form, built by contests/action_form.py."""
    return render_action_form(control, context)
