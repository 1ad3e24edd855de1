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

import re
from collections.abc import Callable, Iterable
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic.functional_validators import PlainValidator
from pydantic_core import PydanticCustomError

from .rules.extended_group.state import DARING_LEVELS, ORDER_RULES
from .rules.ratings import RESISTANCE_LEVELS, normalise_level
from .rules.scored.tables import TACTICS
from .rules.scored_group.participants import ROLES
from .table.base import MAX_TEXT, MODIFIER_KINDS, SIDES
from .table.group_framing import GROUP_KINDS, MAX_NAME, MAX_SIDE
from .table.one_on_one import KINDS
from .table.sides import VARIANTS

# -- bounds checked before any parsing ----------------------------------------------------

MAX_DEPTH = 5  # message -> data -> participants -> row -> a row's value
MAX_SIZE = 16_384  # characters of text and digits, and one per value, in a whole message
MAX_ID = 2**31 - 1  # a database id (PostgreSQL integer)
MAX_ROWS = 100
MAX_KEY_LENGTH = 64
INTEGER = re.compile(r"-?[0-9]{1,9}")
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


def Whole(minimum: int, maximum: int) -> Any:  # noqa: N802 - a type, named like one
    """A whole number from `minimum` to `maximum` (a form's digits with `form=True`)."""

    def check(value: Any, info: Any) -> int:
        if isinstance(value, str) and _form(info) and INTEGER.fullmatch(value):
            value = int(value)
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

    return Annotated[int, PlainValidator(check)]


Id = Whole(1, MAX_ID)


def Text(limit: int = MAX_TEXT) -> Any:  # noqa: N802
    """Text of at most `limit` characters, kept exactly as sent."""

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

    return Annotated[str, PlainValidator(check)]


def OneOf(choices: Iterable[Any], normalise: Callable[[str], str] | None = None) -> Any:  # noqa: N802
    """One of `choices` (text); with `normalise`, as the rules will read it."""
    allowed = tuple(choices)
    listed = ", ".join(str(c) for c in allowed)

    def check(value: Any) -> str:
        if not isinstance(value, str) or plain_text_problem(value):
            raise _fail("choice", "must be one of {listed}", listed=listed)
        read = normalise(value) if normalise else value
        if read not in allowed:
            raise _fail("choice", "must be one of {listed}", listed=listed)
        return value

    return Annotated[str, PlainValidator(check)]


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
    """A rating as a total (17) or in notation ("5M2"); the rules read it (R1)."""
    if isinstance(value, str):
        if plain_text_problem(value) or len(value) > 12:
            raise _fail("rating", "must be a whole number or a rating such as 7M")
        return value  # Rating.parse reads "17" and "5M2" alike, with its own message
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 999:
        raise _fail("rating", "must be a whole number or a rating such as 7M")
    return value


RatingValue = Annotated[int | str, PlainValidator(_rating)]


_NAME: TypeAdapter[str] = TypeAdapter(Text(MAX_NAME))


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

Name = Text(MAX_NAME)
ShortText = Text(40)
Side = OneOf(SIDES)
Level = OneOf(RESISTANCE_LEVELS, normalise_level)


def _rows(limit: int, item: Any) -> Any:
    return Annotated[list[item], Field(max_length=limit)]


# -- the models -----------------------------------------------------------------------------


class Data(BaseModel):
    """An action's data: only the fields listed, each checked as typed."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    GM_ONLY: ClassVar[frozenset[str]] = frozenset()


class Nothing(Data):
    """An action that takes no data."""


class Holder(Data):
    """The side (one-on-one) or participant (group) an action names."""

    side: Side | None = None
    participant: Name | None = None


class SheetChoice(Holder):
    """An ability: the sheet's (`ability_id`), one added as you go (`new_ability`, §3.1,
    with its rating), or the GM's words and rating for a participant without a sheet."""

    ability: Name | None = None
    ability_id: Id | None = None
    new_ability: Name | None = None
    rating: RatingValue | None = None
    states: _rows(20, ShortText) | None = None


class PartyRef(Data):
    """A side framed from a character's sheet."""

    character_id: Id | None = None
    ability_id: Id | None = None


class Opposition(PartyRef):
    """The opposition: a character, a resistance class or rating, or a library NPC."""

    name: Name | None = None
    level: Level | None = None
    rating: RatingValue | None = None
    npc_id: Id | None = None
    ability: Name | None = None


class ParticipantRow(Opposition):
    """One row of a group contest's participants (a blank row of the form is {})."""

    side: Text(MAX_SIDE) | None = None
    role: OneOf(ROLES) | None = None
    owner: Name | None = None


class Frame(Data):
    kind: OneOf(CONTEST_KINDS) | None = None
    prize: Text() | None = None
    secondary_prize: Text() | None = None
    obstacle: Text() | None = None
    variant: OneOf(VARIANTS) | None = None
    stakes: OneOf(STAKES) | None = None
    pc: PartyRef | None = None
    opponent: Opposition | None = None
    draw_id: Id | None = None
    participants: _rows(MAX_ROWS, ParticipantRow) | None = None
    characters: _rows(MAX_ROWS, Id) | None = None
    pc_side: Text(MAX_SIDE) | None = None
    order: OneOf(ORDER_RULES) | None = None


class ChooseAbility(SheetChoice):
    pass


class SetTactic(Holder):
    tactic: Text() | None = None
    round_tactic: OneOf(TACTICS) | None = None


class Augment(Holder):
    GM_ONLY = frozenset({"rating", "rounding", "base_resistance"})

    kind: OneOf(AUGMENT_KINDS) | None = None
    helper: Name | None = None
    ability: Name | None = None
    helper_ability_id: Id | None = None
    bonus: Whole(-40, 40) | None = None
    rating: RatingValue | None = None
    rounding: OneOf(ROUNDINGS) | None = None
    base_resistance: Whole(1, 99) | None = None


class Modifier(Holder):
    kind: OneOf(MODIFIER_KINDS) | None = None
    value: Whole(-40, 40) | None = None
    bumps: Whole(-3, 3) | None = None
    label: Text(80) | None = None


class RemoveModifier(Holder):
    index: Whole(0, 99)


class EnterRoll(Holder):
    entered: Whole(1, 20)


class HeroPoint(Holder):
    pass


class Resolve(Data):
    both_lose_half: Flag | None = None


class Consequence(Data):
    side: Side | None = None
    participant: Name | None = None
    state: ShortText


class ConsequenceEdit(Data):
    """The GM's edit from the form, per side ("" is none)."""

    pc: ShortText | None = None
    opponent: ShortText | None = None


class ApplyConsequences(Data):
    consequences: _rows(50, Consequence) | None = None
    edit: ConsequenceEdit | None = None
    narration: Text() | None = None


class Narrate(Data):
    narration: Text()


class Escalate(Data):
    into: OneOf(ESCALATIONS)


class Bid(Data):
    bid: Whole(1, 999)


class PartingShot(Holder):
    target: Name | None = None
    bid: Whole(1, 999) | None = None


class UnrelatedAction(Holder):
    description: Text() | None = None
    resistance_level: OneOf(RESISTANCE_LEVELS) | None = None


class Disengage(Holder):
    opponent: Name | None = None


class Gift(Data):
    GM_ONLY = frozenset({"rating"})

    recipient: Name
    opponent: Name | None = None
    helper: Name | None = None
    ability: Name | None = None
    helper_ability_id: Id | None = None
    rating: RatingValue | None = None
    bid: Whole(1, 999) | None = None
    wait_for_hero_point: Flag | None = None


class Boost(Holder):
    pass


class Engage(Data):
    pc: Name
    opponent: Name


class PlayRound(Data):
    pairing: Whole(1, 99)


class Assist(Holder):
    recipient: Name | None = None
    pairing: Whole(1, 99) | None = None
    resistance_shift: Whole(-1, 1) | None = None


class RemoveFollower(Holder):
    follower: Name | None = None


class ShiftPoints(Holder):
    follower: Name | None = None
    pairing: Whole(1, 99) | None = None
    points: Whole(0, 99) | None = None


class Join(Data):
    name: Name | None = None
    side: Text(MAX_SIDE) | None = None
    character_id: Id | None = None
    ability_id: Id | None = None
    ability: Name | None = None
    rating: RatingValue | None = None
    level: Level | None = None
    npc_id: Id | None = None
    states: _rows(20, ShortText) | None = None
    role: OneOf(ROLES) | None = None
    owner: Name | None = None


class SwitchAbility(SheetChoice):
    pairing: Whole(1, 99) | None = None


class Declare(Holder):
    targets: Names | None = None
    target: Name | None = None
    bid: Whole(1, 999) | None = None
    daring: OneOf(DARING_LEVELS) | None = None


class Delay(Holder):
    pass


class Act(Holder):
    target: Name | None = None
    bid: Whole(1, 999) | None = None


class Rejoin(Holder):
    restore: Whole(0, 999) | None = None


class Lend(Holder):
    target: Name | None = None
    amount: Whole(1, 999) | None = None


class FinalAction(SheetChoice):
    pass


DATA_MODELS: dict[str, type[Data]] = {
    "frame": Frame,
    "undo": Nothing,
    "choose_ability": ChooseAbility,
    "set_tactic": SetTactic,
    "augment": Augment,
    "modifier": Modifier,
    "remove_modifier": RemoveModifier,
    "enter_roll": EnterRoll,
    "roll": Nothing,
    "reveal": Nothing,
    "hero_point": HeroPoint,
    "resolve": Resolve,
    "apply_consequences": ApplyConsequences,
    "narrate": Narrate,
    "automatic_victory": Nothing,
    "pyrrhic": Nothing,
    "escalate": Escalate,
    "bid": Bid,
    "parting_shot": PartingShot,
    "unrelated_action": UnrelatedAction,
    "disengage": Disengage,
    "gift": Gift,
    "boost": Boost,
    "engage": Engage,
    "play_round": PlayRound,
    "assist": Assist,
    "remove_follower": RemoveFollower,
    "shift_points": ShiftPoints,
    "join": Join,
    "switch_ability": SwitchAbility,
    "declare": Declare,
    "delay": Delay,
    "act": Act,
    "rejoin": Rejoin,
    "lend": Lend,
    "final_action": FinalAction,
}


class Message(BaseModel):
    """The envelope every action shares."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    contest: Id | None = None
    key: Text(MAX_KEY_LENGTH) | None = None
    seq: Whole(0, MAX_ID) | None = None


def _message_model(action: str, data: type[Data]) -> type[Message]:
    name = "".join(part.title() for part in action.split("_")) + "Message"
    return create_model(
        name,
        __base__=Message,
        __module__=__name__,
        action=(Literal[action], ...),  # type: ignore[valid-type]
        data=(data, ...),
    )


MESSAGE_MODELS: dict[str, type[Message]] = {
    action: _message_model(action, data) for action, data in DATA_MODELS.items()
}
ACTIONS = frozenset(MESSAGE_MODELS)
ACTION_ADAPTER: TypeAdapter[Any] = TypeAdapter(
    Annotated[Union[tuple(MESSAGE_MODELS.values())], Field(discriminator="action")]  # noqa: UP007
)

# -- readable refusals ----------------------------------------------------------------------

LABELS = {
    "contest": "Contest",
    "key": "Idempotency key",
    "seq": "Step",
    "ability": "Ability",
    "ability_id": "Ability",
    "amount": "Amount",
    "base_resistance": "Base resistance",
    "bid": "Bid",
    "bonus": "Bonus",
    "both_lose_half": "Both lose half",
    "bumps": "Bumps",
    "character_id": "Character",
    "characters": "Characters",
    "consequences": "Consequences",
    "daring": "How daring",
    "description": "Description",
    "draw_id": "Resource draw",
    "edit": "Consequences",
    "entered": "Your d20 roll",
    "follower": "Follower",
    "helper": "Helper",
    "helper_ability_id": "Helping ability",
    "index": "Modifier",
    "into": "Escalate into",
    "kind": "Kind",
    "label": "Label",
    "level": "Resistance class",
    "name": "Name",
    "narration": "Narration",
    "new_ability": "New ability",
    "npc_id": "Library NPC",
    "obstacle": "Obstacle",
    "opponent": "Opponent",
    "order": "Order of action",
    "owner": "Owner",
    "pairing": "Pairing",
    "participant": "Participant",
    "participants": "Participant row",
    "pc": "PC",
    "pc_side": "PCs' side",
    "points": "Points",
    "prize": "Prize",
    "rating": "Rating",
    "recipient": "Recipient",
    "resistance_level": "Resistance",
    "resistance_shift": "Resistance shift",
    "restore": "AP restored",
    "role": "Role",
    "round_tactic": "Next round's tactic",
    "rounding": "Rounding",
    "secondary_prize": "Secondary prize",
    "side": "Side",
    "stakes": "Stakes",
    "state": "State",
    "states": "States",
    "tactic": "Tactic",
    "target": "Target",
    "targets": "Targets",
    "value": "Modifier value",
    "variant": "Variant",
    "wait_for_hero_point": "Wait for a hero point",
}
ROWS = {"participants": "participant row", "consequences": "consequence", "characters": "character"}


def _shown(name: Any) -> str:
    text = str(name)
    return text if re.fullmatch(r"[a-z_]{1,40}", text) else ascii(text)[:40]


def label_for(loc: tuple[Any, ...]) -> str:
    """ "Bid", "Participant row 3, rating", "PC, character" from a field's location."""
    parts: list[str] = []
    for position, step in enumerate(loc):
        if isinstance(step, int):
            parent = loc[position - 1] if position else ""
            if parts and parts[-1] == LABELS.get(str(parent)):
                parts.pop()
            parts.append(f"{ROWS.get(str(parent), 'item')} {step + 1}")
        else:
            parts.append(LABELS.get(str(step), _shown(step)))
    # Later parts in lower case, but not an abbreviation ("PC").
    parts = [p if i == 0 or p[:2].isupper() else p[0].lower() + p[1:] for i, p in enumerate(parts)]
    text = ", ".join(parts) or "Data"
    return text[0].upper() + text[1:]


def readable(error: ValidationError, what: str = "") -> str:
    """One sentence for the person who sent it, never a pydantic dump."""
    lines: list[str] = []
    for problem in error.errors(include_url=False, include_input=False):
        loc = tuple(problem["loc"])
        if loc[:1] == (what,) or (loc and loc[0] in ACTIONS):
            loc = loc[1:]  # the union's tag
        if loc[:1] == ("data",):
            loc = loc[1:]
        kind = problem["type"]
        if kind == "extra_forbidden":
            name = loc[-1] if loc else "?"
            if name in SERVER_KEYS:
                line = f"{_shown(name)}: dice and penalties are the server's to fill in"
            else:
                where = label_for(loc[:-1]) + ": " if loc[:-1] else ""
                line = f"{where}{_shown(name)} is not something this action takes"
        elif kind == "missing":
            line = f"{label_for(loc)}: is required"
        elif kind in ("model_type", "dict_type"):
            line = f"{label_for(loc)}: must be an object"
        elif kind == "list_type":
            line = f"{label_for(loc)}: must be a list"
        elif kind == "too_long":
            line = f"{label_for(loc)}: too many ({problem['msg']})"
        else:
            line = f"{label_for(loc)}: {problem['msg']}"
        if line not in lines:
            lines.append(line)
    shown = "; ".join(lines[:3])
    if len(lines) > 3:
        shown += f" (and {len(lines) - 3} more)"
    return shown


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


def data_of(parsed: Message) -> dict[str, Any]:
    """The validated data as the services read it: exactly the fields sent."""
    return parsed.data.model_dump(exclude_unset=True)  # type: ignore[attr-defined]


def gm_only_fields(parsed: Message) -> list[str]:
    """The fields of this message that only the GM may send (ratings and the like)."""
    data = parsed.data  # type: ignore[attr-defined]
    return sorted(name for name in data.GM_ONLY if name in data.model_fields_set)
