"""The field types of the table's typed actions: bounded whole numbers, clean text,
the rules' choices, flags and ratings, read strictly from JSON or from a form."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Annotated, Any

from pydantic import TypeAdapter, ValidationError
from pydantic.functional_validators import AfterValidator, PlainValidator
from pydantic_core import PydanticCustomError

from .. import numbers
from ..rules.errors import RulesError
from ..rules.ratings import RESISTANCE_LEVELS, Rating, normalise_level
from ..rules.simple import SIDES
from ..terms import GROUP_KINDS, KINDS, MAX_NAME, MAX_TEXT

# -- bounds checked before any parsing ----------------------------------------------------

MAX_DEPTH = 5  # message -> data -> participants -> row -> a row's value
MAX_SIZE = 16_384  # characters of text and digits, and one per value, in a whole message
MAX_ID = numbers.MAX_ID  # a database id (PostgreSQL integer)
MAX_RATING = 999  # a rating's total (19M49)
MAX_ROWS = 100
MAX_KEY_LENGTH = 64
FORM_TRUE = frozenset({"1", "on", "true", "yes"})
FORM_FALSE = frozenset({"0", "off", "false", "no"})
STAKES = ("rising_action", "climax")
AUGMENT_KINDS = ("rolled", "quick", "plot")
ROUNDINGS = ("down", "up")
ESCALATIONS = ("scored", "chained")
CONTEST_KINDS = (*KINDS, *GROUP_KINDS)
# What only the server fills in (the service drops them; a message never carries them).
SERVER_KEYS = frozenset(
    {"pc_roll", "opponent_roll", "roll", "resistance_roll", "dice", "sheet_penalties"}
)


class ActionInputError(ValueError):
    """A message refused before anything was done, with its readable reason."""


def _form(info: Any) -> bool:
    context = getattr(info, "context", None)
    return isinstance(context, dict) and bool(context.get("form"))


def _fail(code: str, message: str, **context: Any) -> PydanticCustomError:
    return PydanticCustomError(code, message, context or None)


def plain_text_problem(value: str) -> str | None:
    """Why `value` cannot be stored as text (PostgreSQL refuses NUL; a lone surrogate
    is not Unicode a page can show), or None."""
    if "\x00" in value:
        return "must not contain NUL characters"
    if any("\ud800" <= char <= "\udfff" for char in value):
        return "contains an unpaired surrogate (not valid Unicode text)"
    return None


# -- the field types ------------------------------------------------------------------------


def Whole(minimum: int, maximum: int) -> PlainValidator:  # noqa: N802 - named as a type
    """The check of a whole number (`Annotated[int, Whole(1, 99)]`) from `minimum` to
    `maximum`: an int from JSON (not a bool, not a string, none of pydantic's lax
    readings), or with `form=True` a form's digits 0-9 as questworlds_site.inputs reads
    them (a sign only where a negative is allowed)."""

    def check(value: Any, info: Any) -> int:
        if isinstance(value, str) and _form(info):
            digits = numbers.whole(
                value, minimum=None, maximum=10**numbers.DIGITS, signed=minimum < 0
            )
            value = value if digits is None else digits
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail("whole", "must be a whole number")
        if not minimum <= value <= maximum:
            raise _fail(
                "range",
                "must be a whole number from {minimum} to {maximum}",
                minimum=minimum,
                maximum=maximum,
            )
        return value

    return PlainValidator(check)


Id = Annotated[int, Whole(1, MAX_ID)]


def Text(limit: int = MAX_TEXT) -> PlainValidator:  # noqa: N802
    """The check of text (`Annotated[str, Text(80)]`) of at most `limit` characters,
    kept exactly as sent."""

    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise _fail("text", "must be text")
        problem = plain_text_problem(value)
        if problem:
            raise _fail("plain_text", problem)
        if len(value) > limit:
            raise _fail(
                "text_too_long",
                "is too long ({length} characters; at most {limit})",
                length=len(value),
                limit=limit,
            )
        return value

    return PlainValidator(check)


def OneOf(  # noqa: N802
    choices: Iterable[Any], normalise: Callable[[str], str] | None = None
) -> PlainValidator:
    """The check of one of `choices` (`Annotated[str, OneOf(TACTICS)]`), as text; with
    `normalise`, as the rules will read it."""
    allowed = tuple(choices)
    # In words, as people read them ("nearly impossible", not "nearly_impossible").
    words = [str(c).replace("_", " ") for c in allowed]
    listed = ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else "".join(words)

    def check(value: Any) -> str:
        if not isinstance(value, str) or plain_text_problem(value):
            raise _fail("choice", "must be one of {listed}", listed=listed)
        read = normalise(value) if normalise else value
        if read not in allowed:
            raise _fail("choice", "must be one of {listed}", listed=listed)
        return value

    return PlainValidator(check)


def _flag(value: Any, info: Any) -> bool:
    if isinstance(value, str) and _form(info):
        if value.lower() in FORM_TRUE:
            return True
        if value.lower() in FORM_FALSE:
            return False
    if not isinstance(value, bool):
        raise _fail("flag", "must be true or false")
    return value


Flag = Annotated[bool, PlainValidator(_flag)]


def _rating(value: Any, info: Any) -> int | str:
    """A rating as a total (17) or in notation ("5M2"), of at most MAX_RATING either way;
    the rules read it (R1). Kept as sent: the services parse it where they use it."""
    problem = _fail("rating", "must be a whole number or a rating such as 7M")
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise problem
    if isinstance(value, str):
        if plain_text_problem(value) or len(value) > 12:
            raise problem
        try:
            total = Rating.parse(value).total
        except RulesError:
            return value  # not a rating: the services refuse it, naming its row
    else:
        total = value
    # "20M99999999" is a valid notation whose total no column holds.
    if not 0 <= total <= MAX_RATING:
        raise _fail("rating", "must be a rating from 0 to {maximum}", maximum=MAX_RATING)
    return value


RatingValue = Annotated[int | str, PlainValidator(_rating)]


Name = Annotated[str, Text(MAX_NAME)]
_NAME: TypeAdapter[str] = TypeAdapter(Name)


def _names(value: Any, info: Any) -> str | list[str]:
    """One name, or a list of them (a declaration's targets)."""
    check = _NAME.validate_python
    if isinstance(value, list):
        if len(value) > 20:
            raise _fail("too_many", "names at most 20")
        try:
            return [check(v) for v in value]
        except ValidationError:
            raise _fail("names", "must be names (text)") from None
    try:
        return check(value)
    except ValidationError as error:
        raise _fail("names", error.errors()[0]["msg"]) from None


Names = Annotated[str | list[str], PlainValidator(_names)]

ShortText = Annotated[str, Text(40)]

# The states a message may name (the GM's for a participant without a sheet).
MAX_STATES_SENT = 20


def _states(value: list[str], info: Any) -> list[str]:
    """States stack, however many a character holds (R10): only a message (parsed with
    a context, `parse`) is bounded. The states the server reads from a sheet, in a
    completed action or a stored row read back, are as many as the sheet holds."""
    if getattr(info, "context", None) is not None and len(value) > MAX_STATES_SENT:
        raise _fail(
            "too_long",
            "List should have at most {max_length} items after validation, not {actual_length}",
            max_length=MAX_STATES_SENT,
            actual_length=len(value),
        )
    return value


States = Annotated[list[ShortText], AfterValidator(_states)]
Side = Annotated[str, OneOf(SIDES)]
Level = Annotated[str, OneOf(RESISTANCE_LEVELS, normalise_level)]
