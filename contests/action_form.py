"""One available action (contests/live/controls.py `Control`) as the form the contest panel shows.

Built in Python rather than by a template include: a panel holds a form for every
action its audience may take (while abilities are chosen, an augment form for every
helper at the table, each with its sheet), and the include of the form was some two
thirds of the panel's rendering, which every step of every contest does twice (the
GM's copy and the players'). Built here, a form takes about a third of the include's
time, and a panel while abilities are chosen (seven helpers) half: 2.0 -> 1.0 ms a copy
(issue 16, docs/benchmarks.md). The markup is the one the template wrote, whitespace
included; every value is escaped as the template escaped it (`_e`).

The form: the hidden action, contest, seq and key like every table form, the inputs
the control fixes, a select of the sheet's abilities when the server reads the rating
from a sheet, the confirm form's consequence selects, one field per input and a button
with the action's label.
"""

from __future__ import annotations

import contextlib
import functools
import html
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.utils.safestring import SafeString

from .core.actions import DECLARED_BY_NAME
from .core.table.base import ActionInput


def _e(value: Any) -> str:
    """A value as `{{ value }}` writes it (localisation off): str() of it, escaped as
    Django's `conditional_escape` escapes it (markup that is safe already, as is), but
    without its check for lazy arguments on every call: a panel escapes some two
    hundred values, and that check was most of the forms' time (bench.http_path)."""
    kind = type(value)
    if kind is int:
        return str(value)  # digits and a sign: nothing to escape
    if kind is str:
        return _escaped(value)
    if hasattr(value, "__html__"):
        return value.__html__()
    return _escaped(str(value))


@functools.lru_cache(maxsize=4096)
def _escaped(text: str) -> str:
    """`html.escape`, remembered: a panel's values are mostly the same few hundred
    strings on every step (action and field names, the sheets' abilities)."""
    return html.escape(text)


def _attr(name: str, value: Any) -> str:
    """` name="value"` when the value is truthy (`{% if value %}`), else nothing."""
    return f' {name}="{_e(value)}"' if value else ""


# Where the contest and the step's number go in a form remembered for every step and
# contest of its table (`render_action_form`). NUL never reaches a panel from its data:
# input with it is refused (questworlds_site/middleware).
_CONTEST = "\x00contest\x00"
_SEQ = "\x00seq\x00"


def render_action_form(control: Any, context: Mapping[str, Any]) -> SafeString:
    """The control's form, read with the panel's context: the contest (`act_url`,
    `id`), the step (`seq`), and for the confirm form the view, the sides and the
    states to offer.

    A form the panel showed on an earlier step, unchanged but for the contest and the
    step's number, is that form again with the new ones (`_remembered`): while
    abilities are chosen every step shows each helper's augment form again, twenty
    forms a step, and each new contest of the table the same forms (issue 29)."""
    contest = context.get("contest")
    contest_id, seq = _e(getattr(contest, "id", "")), _e(context.get("seq"))
    key = _form_key(control, context)
    if key is None:
        return SafeString(_form(control, context, contest_id, seq))
    try:
        form = _remembered.get(key)
    except TypeError:  # an unhashable value somewhere: rendered as it is
        return SafeString(_form(control, context, contest_id, seq))
    if form is None:
        form = _remembered[key] = _form(control, context, _CONTEST, _SEQ)
        if len(_remembered) > _REMEMBERED:
            # The oldest goes (another thread may have taken it, or be adding one).
            with contextlib.suppress(RuntimeError, StopIteration):
                _remembered.pop(next(iter(_remembered)), None)
    # SafeString as `mark_safe` makes it, without its check for lazy text on every call.
    return SafeString(form.replace(_CONTEST, contest_id).replace(_SEQ, seq))


_remembered: dict[tuple[Any, ...], str] = {}
_REMEMBERED = 4096


def _form_key(control: Any, context: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """Everything `_form` reads, but the contest and the step's number (None: a form not
    remembered, the GM's confirm form, which reads the view's suggested consequences)."""
    name = control.name
    if _takes_edits(name):
        return None
    contest = context.get("contest")
    action = control.action
    offer = context.get("hero_point_offer") if _in_bar(name) and not control.text else None
    return (
        getattr(contest, "act_url", ""),
        name,
        action.label,
        action.confirm,
        action.primary,
        control.css,
        control.aria_label,
        tuple((k, type(v), v) for k, v in control.hidden.items()),
        control.sheet_name,
        control.sheet_label,
        tuple(control.sheet) if control.sheet_name else (),
        type(control.sheet_selected),
        control.sheet_selected,
        control.inputs,
        control.text,
        offer,
    )


def _form(control: Any, context: Mapping[str, Any], contest_id: str, seq: str) -> str:
    """The form's markup, with `contest_id` and `seq` (escaped already) as given."""
    contest = context.get("contest")
    act_url = getattr(contest, "act_url", "")
    action = control.action
    name = control.name
    opening = (
        f'<form hx-post="{_e(act_url)}" hx-swap="none" class="inline-form'
        f'{" " + _e(control.css) if control.css else ""}" data-action-form '
        f'data-action="{_e(name)}"{_attr("aria-label", control.aria_label)}'
    )
    if action.confirm:
        opening += f' hx-confirm="{_e(action.label)}: this cannot be taken back. Go ahead?"'
    parts = [
        opening,
        ">\n",
        f'  <input type="hidden" name="action" value="{_e(name)}">'
        f'<input type="hidden" name="contest" value="{contest_id}">\n',
        f'  <input type="hidden" name="seq" value="{seq}">'
        '<input type="hidden" name="key" data-fresh-key>\n  ',
    ]
    parts += (
        f'<input type="hidden" name="{_e(key)}" value="{_e(value)}">'
        for key, value in control.hidden.items()
    )
    parts.append("\n  ")
    if control.sheet_name:
        parts.append(
            f"<label>{_e(control.sheet_label)} <select "
            f'name="{_e(control.sheet_name)}">{control.sheet_options}</select></label>'
        )
    parts.append("\n  ")
    view = context.get("view") or {}
    if _takes_edits(name) and view.get("apply_consequences"):
        parts += _consequence_selects(context, view)
    parts.append("\n  ")
    for one in control.inputs:
        parts += ("\n  ", _input(one), "\n  ")
    parts.append("\n  ")
    parts.append(_button(control, context))
    parts.append("\n</form>")
    return "".join(parts)


@functools.lru_cache(maxsize=256)
def _takes_edits(name: str) -> bool:
    """An action whose data takes the GM's edit of each side's consequences (its model's
    `edit`): its form carries the selects for them."""
    declared = DECLARED_BY_NAME.get(name)
    return declared is not None and "edit" in declared.data.model_fields


@functools.lru_cache(maxsize=256)
def _in_bar(name: str) -> bool:
    """An action the "your move" bar offers as a choice that will not wait (a hero
    point): its button says so, and what it would do."""
    declared = DECLARED_BY_NAME.get(name)
    return declared is not None and declared.in_bar


def _consequence_selects(context: Mapping[str, Any], view: Mapping[str, Any]) -> list[str]:
    """The GM's confirm form (§2.11): for each side played by a character, a select of
    adversity and one of fortune, the suggested state selected."""
    suggested = view.get("suggested") or []
    parts: list[str] = []
    for side in context.get("sides") or []:
        if not side.get("character_id"):
            continue
        chosen = {s.get("state") for s in suggested if s.get("side") == side.get("key")}
        side_name, key = _e(side.get("name")), _e(side.get("key"))
        parts += (
            "\n  ",
            f'<label>{side_name}: consequence <select name="edit.{key}">',
            _options(context.get("adversity_options") or (), chosen),
            "</select></label>\n  ",
            f'<label>{side_name}: benefit <select name="edit.{key}_benefit">',
            _options(context.get("fortune_options") or (), chosen),
            "</select></label>\n  ",
        )
    return parts


def option_tags(pairs: Iterable[tuple[Any, Any]], selected: Callable[[Any], bool]) -> str:
    """`<option>`s of (value, label) pairs, those whose value `selected` says selected."""
    return "".join(
        f'<option value="{_e(value)}"{" selected" if selected(value) else ""}>{_e(label)}</option>'
        for value, label in pairs
    )


def _options(options: Iterable[Any], chosen: set[Any]) -> str:
    return '<option value="">none</option>' + option_tags(
        ((o, o) for o in options), chosen.__contains__
    )


def _input(one: ActionInput) -> str:
    """One input of the action, by its kind."""
    required = " required" if one.required else ""
    name = _e(one.name)
    if one.kind == "choice" and len(one.choices) == 1:
        return f'<input type="hidden" name="{name}" value="{_e(one.choices[0].value)}">'
    if one.kind == "choice":
        pairs = ((o.value, o.label) for o in one.choices)
        options = option_tags(pairs, lambda value: value == one.default)
        return f'<label>{_e(one.label)} <select name="{name}"{required}>{options}</select></label>'
    if one.kind == "int":
        bounds = "".join(
            f' {attr}="{_e(value)}"'
            for attr, value in (("min", one.minimum), ("max", one.maximum), ("value", one.default))
            if value is not None
        )
        return (
            f'<label>{_e(one.label)} <input name="{name}" type="number"{bounds}{required}></label>'
        )
    if one.kind == "rating":
        return (
            f'<label>{_e(one.label)} <input name="{name}" maxlength="8" size="4" '
            f'placeholder="13"{required}></label>'
        )
    return (
        f'<label>{_e(one.label)} <input name="{name}" maxlength="{_e(one.limit)}"'
        f"{required}></label>"
    )


def _button(control: Any, context: Mapping[str, Any]) -> str:
    action = control.action
    css = "primary" if action.primary else "confirm" if action.confirm else ""
    in_bar = _in_bar(control.name)
    if in_bar:
        css += " hero-point"
    text = _e(control.text) if control.text else _e(action.label)
    offer = context.get("hero_point_offer")
    if in_bar and offer and not control.text:
        text += f": {_e(offer)}"
    return f'<button type="submit" class="{css}">{text}</button>'
