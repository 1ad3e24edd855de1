"""One typed, validated input per table action, parsed once for HTTP and websocket.

Every table message is `{"action", "contest"?, "key", "seq"?, "data"}`; `parse` checks
its size and depth, then reads it through `ACTION_ADAPTER`, a union discriminated on
`action` with one model per action (frame, undo and every `_do_<action>` of the flows).
Each action's `data` model lists exactly the fields the services and flows read for
it, with their types: ids are whole numbers, names and words are text of a bounded
length without NUL characters or unpaired surrogates, choices are the rules' own
constants, and numbers lie in the SRD's ranges. Anything else is refused with one
readable message that names the field by its label; nothing is stripped silently.

The websocket's JSON is read strictly (an id is an int, never "3", 3.0 or true). A
form posts only strings: with `form=True` a whole-number field also takes a string of
digits and a flag takes a checkbox's value; text stays text.

The values the rules decide a roll with (a rating, a bonus, the base resistance)
come from the sheet, the library or the GM: `GM_ONLY` lists the fields only the GM may
send with an action (a player names an ability, and the service reads its rating).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from ..rules.errors import RulesError
from .declaration import By, Data, Declared, OnTable, Pick, Place
from .fields import (
    CONTEST_KINDS,
    MAX_DEPTH,
    MAX_SIZE,
    STAKES,
    ActionInputError,
    plain_text_problem,
)
from .models import DECLARED
from .readable import LABELS, label_for, readable
from .registry import (
    ACTION_ADAPTER,
    ACTIONS,
    COMPLETED_MODELS,
    DATA_MODELS,
    DECLARED_BY_NAME,
    MESSAGE_MODELS,
    ON_TABLE,
    ON_TABLE_ADAPTER,
    ON_TABLE_BY_NAME,
    SHEETS_KEPT,
    TABLE_ACTIONS,
    Message,
)

__all__ = [
    "ACTIONS",
    "ACTION_ADAPTER",
    "COMPLETED_MODELS",
    "CONTEST_KINDS",
    "DATA_MODELS",
    "DECLARED",
    "DECLARED_BY_NAME",
    "LABELS",
    "MAX_DEPTH",
    "MAX_SIZE",
    "MESSAGE_MODELS",
    "ON_TABLE",
    "ON_TABLE_BY_NAME",
    "SHEETS_KEPT",
    "STAKES",
    "TABLE_ACTIONS",
    "ActionInputError",
    "By",
    "Data",
    "Declared",
    "Message",
    "OnTable",
    "Pick",
    "Place",
    "check_bounds",
    "completed",
    "data_of",
    "gm_only_fields",
    "label_for",
    "parse",
    "parse_on_table",
    "plain_text_problem",
    "readable",
    "stored",
]


# -- bounds, then the parse ------------------------------------------------------------------


def check_bounds(message: Any) -> None:
    """Refuse a message nested deeper than MAX_DEPTH or larger than MAX_SIZE before any
    parsing (a form, a socket's JSON or a test's dict alike)."""
    size = 0
    stack: list[tuple[Any, int]] = [(message, 1)]
    while stack:
        value, depth = stack.pop()
        size += 1
        if isinstance(value, dict | list | tuple):
            if depth > MAX_DEPTH:
                raise ActionInputError(
                    f"That message is nested too deeply (at most {MAX_DEPTH} levels)"
                )
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for name, item in items:
                if isinstance(value, dict):
                    size += len(name) if isinstance(name, str) else 1
                stack.append((item, depth + 1))
        elif isinstance(value, str):
            size += len(value)
        elif isinstance(value, int):
            size += value.bit_length() // 3
        if size > MAX_SIZE:
            raise ActionInputError(f"That message is too large (at most {MAX_SIZE} characters)")


def parse(message: dict[str, Any], *, form: bool = False) -> Message:
    """The message as its action's model, or ActionInputError with a readable reason.

    `message["action"]` must already be a known action (perform refuses others first)."""
    check_bounds(message)
    try:
        return ACTION_ADAPTER.validate_python(message, context={"form": form})
    except ValidationError as error:
        raise ActionInputError(readable(error, str(message.get("action")))) from None


def parse_on_table(message: dict[str, Any], *, form: bool = False) -> Message:
    """An action on the table (`ON_TABLE`: a proposal, the GM's answer) as its model, or
    ActionInputError with a readable reason. `message["action"]` must be one of them."""
    check_bounds(message)
    try:
        return ON_TABLE_ADAPTER.validate_python(message, context={"form": form})
    except ValidationError as error:
        raise ActionInputError(readable(error, str(message.get("action")))) from None


def data_of(parsed: Message) -> dict[str, Any]:
    """The validated data as a dict: exactly the fields sent (the framing reads it so;
    an action goes on as its typed model)."""
    return parsed.data.model_dump(exclude_unset=True)


def gm_only_fields(parsed: Message) -> list[str]:
    """The fields of this message that only the GM may send (ratings and the like)."""
    data = parsed.data
    return sorted(name for name in data.gm_only() if name in data.model_fields_set)


# -- the data the flows read ------------------------------------------------------------------


def completed(action: str, data: Data | Mapping[str, Any]) -> Data:
    """`data` as `action`'s completed model (`COMPLETED_MODELS`): what the browser sent
    with what the server filled in (the sheet's fields, the dice), each checked as
    typed. A RulesError with a readable reason otherwise."""
    model = COMPLETED_MODELS.get(action)
    if model is None:
        raise RulesError(f"unknown action {action!r}")
    if isinstance(data, model):
        return data
    if isinstance(data, Data) and issubclass(model, type(data)):
        # The browser's model, parsed already: its completed model adds only fields
        # the server fills in, none of them sent.
        return model.model_construct(set(data.model_fields_set), **dict(data))
    if isinstance(data, Data):
        data = data.model_dump(exclude_unset=True)
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise RulesError(readable(error, action)) from None


def stored(action: str, data: Mapping[str, Any]) -> Data:
    """An event's recorded data (`payload["data"]`) read back for a replay or an undo,
    through the same model as when it was done. A key the model does not declare (in a
    row written before the field was dropped) is ignored, as the flows always ignored it."""
    model = COMPLETED_MODELS.get(action)
    if model is None:
        raise RulesError(f"unknown action {action!r}")
    return completed(action, {k: v for k, v in data.items() if k in model.model_fields})
