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


@register.tag("per_audience")
def per_audience(parser: template.base.Parser, token: template.base.Token) -> PerAudienceNode:
    """`{% per_audience %}…{% endper_audience %}`: a part of the panel that differs by
    reader (their forms, their "your move" bar), in a panel that is otherwise the same
    for all of them. Rendered alone, the body renders as any template text. When a
    broadcast renders every copy at once (contests/live/rendering.py `render_copies`),
    the rest of the panel is rendered once, and the body once per copy: the context's
    `copies` maps each copy's key to what differs for its reader."""
    nodelist = parser.parse(("endper_audience",))
    parser.delete_first_token()
    return PerAudienceNode(nodelist)


class PerAudienceNode(template.Node):
    def __init__(self, nodelist: template.NodeList) -> None:
        self.nodelist = nodelist

    def render(self, context: template.Context) -> str:
        copies = context.get("copies")
        if not copies:
            return self.nodelist.render(context)
        parts: list[dict[str, str]] = context["copy_parts"]
        rendered: dict[str, str] = {}
        for key, reader_context in copies.items():
            # No `copies` inside: a part within this one renders as plain text.
            with context.push(reader_context, copies=None):
                rendered[key] = self.nodelist.render(context)
        parts.append(rendered)
        return COPY_PART.format(len(parts) - 1)


# Where a part of each copy goes in the panel rendered once (`per_audience`). NUL never
# reaches a panel from its data: input with it is refused (questworlds_site/middleware).
COPY_PART = "\x00part{}\x00"
