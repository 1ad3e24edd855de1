"""Reading an uploaded JSON export (a character, a campaign) with a readable refusal.

`json.loads` alone lets through what the database cannot store (a NUL character; a lone
surrogate, which is not Unicode text) and fails with RecursionError, not a message, on
JSON nested thousands deep. An export is a few levels deep and plain text throughout.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ValidationError

MAX_DEPTH = 32


def _where(path: list[str | int]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "the file"


def _text_problem(text: str) -> str | None:
    if "\x00" in text:
        return "contains a NUL character (\\0)"
    if any("\ud800" <= char <= "\udfff" for char in text):
        return "contains an unpaired surrogate (not valid Unicode text)"
    return None


def check_plain(value: Any, max_depth: int = MAX_DEPTH) -> None:
    """Refuse a value nested deeper than `max_depth` or with text the database cannot
    store, naming where (walked without recursion)."""
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        if len(path) > max_depth:
            raise ValidationError(
                f"The file is nested too deeply (at {_where(path[:3])}…): an export is at "
                f"most {max_depth} levels deep."
            )
        if isinstance(item, dict):
            for key, child in item.items():
                problem = _text_problem(key)
                if problem:
                    raise ValidationError(f"A name in {_where(path)} {problem}.")
                stack.append((child, [*path, key]))
        elif isinstance(item, list):
            stack.extend((child, [*path, i]) for i, child in enumerate(item))
        elif isinstance(item, str):
            problem = _text_problem(item)
            if problem:
                raise ValidationError(f"The text at {_where(path)} {problem}.")


def read_json(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON document in `text`, checked by `check_plain`, or ValidationError."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValidationError(
            f"The file is nested too deeply: an export is at most {max_depth} levels deep."
        ) from None
    except ValueError as exc:
        raise ValidationError(f"The file is not valid JSON: {exc}.") from None
    check_plain(data, max_depth)
    return data
