"""The table's live fragments in Jinja2: the contest panel, the "your move" bar, the roll
log and a player's picks (templates/contests/live/), rendered on every step of every
contest for every reader at the table.

Why not the Django templates of the rest of the site: these fragments are the one page
the server renders on every action, and Django's engine spent most of a broadcast's
rendering walking its nodes. The same panel (a GM's copy of a one-on-one contest while
abilities are chosen, its forms built in Python either way) took 0.91 ms in Django's
engine against 0.25 ms in Jinja2's compiled template, in-process on the benchmark's
machine (issue 29, docs/benchmarks.md). Django's `Jinja2` backend would add a lookup
through every engine per fragment; the environment here is built once.

What differs by reader is marked in the templates with a call block, `{% call(r)
per_audience() %}…{% endcall %}`, whose body reads that reader's context as `r` (their
forms, their moves, their audience). Rendered for one reader, the body is rendered with
theirs. When a broadcast renders every copy at once (contests/live/rendering.py
`render_audiences`), the rest of the panel is rendered once, and each body once per
copy: the context's `copies` maps each copy's key to its reader's context, and the
marker `COPY_PART` stands for that part in the text rendered once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jinja2
from django.conf import settings
from django.utils.safestring import SafeString, mark_safe
from markupsafe import Markup

from ..action_form import render_action_form
from ..core.table import two_sides
from ..core.table.two_sides import TACTIC_LABELS

# Where a part of each copy goes in the panel rendered once (`per_audience`). NUL never
# reaches a panel from its data: input with it is refused (questworlds_site/middleware).
COPY_PART = "\x00part{}\x00"


# -- words for the table's codes: people read "risky gambit", never `risky_gambit` ----------


def _tactic_label(code: str) -> str:
    """A round tactic's words (§5.1.5, §5.1.6, §5.2.5, §5.2.6): "risky gambit"."""
    return TACTIC_LABELS.get(code, str(code).replace("_", " "))


def _possessive(name: str) -> str:
    """ "Tamsin" -> "Tamsin's", "the Grey Wolves" -> "the Grey Wolves'"."""
    return two_sides.possessive(str(name))


def _for_side(controls: list, side: str | None) -> list:
    """The controls (contests/live/controls.py `Control`) placed on one side, or with
    None those of the whole contest."""
    return [c for c in controls if c.side == side]


def _without(controls: list, name: str) -> list:
    """The controls but those of one action (shown elsewhere, e.g. the hero point)."""
    return [c for c in controls if c.name != name]


def _capfirst(value: Any) -> str:
    """Django's `capfirst`: the first letter in capitals, the rest as it is."""
    text = str(value)
    return text[:1].upper() + text[1:]


def _pluralize(value: Any) -> str:
    """Django's `pluralize` for a count: "s" unless it is 1."""
    return "" if value == 1 else "s"


def _signed(value: Any) -> str:
    """A whole number with its sign: "+3", "-2"; anything else as nothing (Django's
    `stringformat:"+d"`)."""
    try:
        return f"{int(value):+d}"
    except (TypeError, ValueError):
        return ""


@jinja2.pass_context
def _per_audience(context: jinja2.runtime.Context, caller: Any) -> Markup:
    copies = context.get("copies")
    if not copies:
        return caller(context.get("reader") or context.get_all())
    parts: list[dict[str, str]] = context["copy_parts"]
    parts.append({key: str(caller(reader)) for key, reader in copies.items()})
    return Markup(COPY_PART.format(len(parts) - 1))


def _action_form(control: Any, reader: Mapping[str, Any]) -> Markup:
    """The control's form (contests/action_form.py), read with its reader's context."""
    return Markup(render_action_form(control, reader))


# What `.name` finds on a dict as an attribute (its methods): nothing else is one.
_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """Jinja2's environment, reading `x.name` of a plain dict without raising first.

    Jinja2 tries the attribute, then the item: on a dict, whose keys are what the
    templates read (the views, the readers' contexts), every `view.phase` raised and
    caught an AttributeError, 5% of a broadcast's rendering (issue 29). A dict has no
    attributes but its class's, so looking the name up there first gives the same
    answer: a key named like a method (a participant called "items") still reads as
    the method, as before."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


ENV = _Environment(
    loader=jinja2.FileSystemLoader(settings.BASE_DIR / "templates" / "contests" / "live"),
    autoescape=True,
    # As Django's templates read a missing key: empty, at any depth.
    undefined=jinja2.ChainableUndefined,
    auto_reload=settings.DEBUG,
)
ENV.filters.update(
    capfirst=_capfirst,
    pluralize=_pluralize,
    signed=_signed,
    possessive=_possessive,
    tactic_label=_tactic_label,
    for_side=_for_side,
    without=_without,
)
ENV.globals.update(per_audience=_per_audience, action_form=_action_form)
# The forms a group contest's panel writes itself and an augment's line (forms.jinja),
# as globals: they read only their arguments, and a template's `{% from ... import %}`
# looked the template up and checked its globals on every rendering (issue 29).
_FORMS = ENV.get_template("forms.jinja").module
ENV.globals.update(
    augment_line=_FORMS.augment_line,  # type: ignore[attr-defined]
    group_form=_FORMS.group_form,  # type: ignore[attr-defined]
    hidden_fields=_FORMS.hidden_fields,  # type: ignore[attr-defined]
)


def render(name: str, context: Mapping[str, Any]) -> SafeString:
    """The fragment `name` (under templates/contests/live/) for `context`, as markup
    Django's templates take as it is."""
    return mark_safe(ENV.get_template(name).render(context))


def panel_and_bar(context: Mapping[str, Any]) -> str:
    """The contest panel and the "your move" bar, out of band, as a broadcast sends them."""
    return ENV.get_template("contest.jinja").render(context) + ENV.get_template("bar.jinja").render(
        context
    )


def log(events: list[dict[str, Any]], *, oob: bool) -> SafeString:
    """The roll log, its entries the latest first."""
    # A macro's Markup as a plain string: added to another string it would escape it.
    return mark_safe(str(ENV.get_template("log.jinja").module.log(events, oob)))  # type: ignore[attr-defined]


def log_append(event: dict[str, Any]) -> SafeString:
    """One new entry, put on top of the log a page has."""
    return mark_safe(str(ENV.get_template("log.jinja").module.log_append(event)))  # type: ignore[attr-defined]
