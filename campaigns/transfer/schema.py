"""The campaign file's one declared schema: each section's fields, in the file's order,
and where ids hide inside JSON columns. The export (`export.py`) writes and the import
(`load.py`) reads every section through these declarations (`rows.py` reads them), so
a field added here is both exported and imported.

A field is one of these kinds (`Kind`):

- `VALUE`: the column as it is (`get` for what the export writes instead).
- `WHEN`: a date and time, ISO 8601 in the file.
- `STAMP`: a date and time the database stamps on insert (`auto_now_add`); the import
  puts the file's back after saving.
- `USER`: a foreign key to an account, by username.
- `REF`: a foreign key to another row of the file, by that row's key in `table`.
- `REFS`: ids of rows of `table` (a many-to-many, sorted, or a JSON list, in order);
  the ones not in the file are left out.
- `KEY`: the row's own key in `table` (characters 1, 2, ...; draws 1, 2, ...).
- `JSON`: a JSON column, its ids rewritten as `ids` declares (`JsonIds`).
- `NESTED`: written and read by the section's code: nested rows, a character's sheet.

Keys by table: characters by their place in the export (`1`, `2`, ...); abilities by
character and name (`1:Boatcraft`, `1:flaw:Greedy`, `1:Oro/Sharp eyes`); followers by
character and name (`1:Oro`); conditions by character and place (`1:2`, the second of
character 1's conditions); contest participants by contest number and place (`2:3`);
people by username, NPCs and community resources by name, seasons, sessions and
contests by number, draws by their place in the export, a question's choices by place.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from django.db import models

from characters.models import Character, Condition, LedgerEntry, LedgerStep
from community.models import (
    Answer,
    AnswerMode,
    Choice,
    Community,
    CommunityStep,
    IntervalRecord,
    Question,
    RequiredResourceUse,
    Resource,
    ResourceChange,
    ResourceDraw,
    UsedAs,
)
from contests.models import ChatMessage, Contest, ContestEvent, ContestParticipant

from ..models import Campaign, Membership, Npc, Season, Session

EXPORT_FORMAT = "questworlds-table/campaign"
EXPORT_VERSION = 1


class Kind(Enum):
    VALUE = "value"
    WHEN = "when"
    STAMP = "stamp"
    USER = "user"
    REF = "ref"
    REFS = "refs"
    KEY = "key"
    JSON = "json"
    NESTED = "nested"


class Table(Enum):
    """The key tables: export id -> key, import key -> new id. The value names a row
    of the table in the import's messages."""

    CHARACTERS = "character"
    ABILITIES = "ability"
    FOLLOWERS = "follower"
    CONDITIONS = "condition"
    USERS = "user"
    NPCS = "NPC"
    SEASONS = "season"
    SESSIONS = "session"
    CONTESTS = "contest"
    PARTICIPANTS = "participant"
    RESOURCES = "resource"
    DRAWS = "draw"
    CHOICES = "choice"


# The import leaves a field out when the file has no value for it: the model's
# default applies (options that older exports do not have).
MODEL_DEFAULT = object()


# --------------------------------------------------------------------- ids in JSON


@dataclass(frozen=True)
class Id:
    """A place in a JSON column that holds an id of `table`. An id not in the file
    becomes None, or with `drop` takes the nearest enclosing list item (or entry of
    a dict keyed by ids) out."""

    table: Table
    drop: bool = False


# Anywhere in a JSON column (unless `anywhere=False`): keys ending so hold ids.
ID_SUFFIXES: tuple[tuple[tuple[str, ...], Table], ...] = (
    (("character_id", "character_ids"), Table.CHARACTERS),
    (("player_id", "user_id"), Table.USERS),
    (("ability_id", "ability_ids"), Table.ABILITIES),
    (("npc_id", "npc_ids"), Table.NPCS),
)


@dataclass(frozen=True)
class JsonIds:
    """Where a JSON column holds ids: keys with the `ID_SUFFIXES` at any depth, and
    `paths` from the column's top. A path is a tuple of steps: a key, `"[]"` for each
    item of a list, `"{}"` for the keys of a dict keyed by ids (whose entries with an
    id not in the file go)."""

    paths: Mapping[tuple[str, ...], Id] = field(default_factory=dict)
    anywhere: bool = True


# Contests' framing and state, draws' lobbying and community steps' rolls. (A framing's
# `draw_id`, the community draw a contest settles, is not among them yet: draws are
# imported after the contests they name, so it keeps the old database's id.)
BY_SUFFIX = JsonIds()

# Events' payloads: what an action did outside the contest, for its undo to reverse.
# Their keys are text ("2:1"), so a file exported before these were rewritten, which
# holds the old database's ids, imports them as None rather than as someone's row.
PAYLOAD = JsonIds(
    paths={
        ("conditions", "[]"): Id(Table.CONDITIONS),  # apply_consequences
        ("participant_row",): Id(Table.PARTICIPANTS),  # join
    }
)

# Ledger steps' `state_before`, which the step's undo puts back: the counters and each
# own ability's row (characters.translate.state_snapshot), or the follower a sidekick
# step changed (characters.services.followers).
STATE_BEFORE = JsonIds(
    paths={
        ("abilities", "{}"): Id(Table.ABILITIES, drop=True),
        ("character", "raised_this_session", "[]"): Id(Table.ABILITIES, drop=True),
        ("character", "catch_ups", "[]", "ability"): Id(Table.ABILITIES, drop=True),
        ("follower", "id"): Id(Table.FOLLOWERS),
        ("follower", "abilities", "[]"): Id(Table.ABILITIES, drop=True),
    }
)

# A finished interval's rows name their resource by id; a choice's scores map
# resource ids (as text) to points.
INTERVAL_ROWS = JsonIds(paths={("[]", "id"): Id(Table.RESOURCES)}, anywhere=False)
SCORES = JsonIds(paths={("{}",): Id(Table.RESOURCES, drop=True)}, anywhere=False)


# --------------------------------------------------------------------- sections


@dataclass(frozen=True)
class Field:
    """One key of a section: the column `attr` (default: the key) as `kind`."""

    key: str
    kind: Kind = Kind.VALUE
    default: Any = None  # the import's value when the file has none
    table: Table | None = None  # REF, REFS, KEY
    ids: JsonIds | None = None  # JSON
    attr: str = ""
    strict: bool = False  # REF: a key not in the file is an error (else None)
    later: bool = False  # REF: its table fills after the row; the import sets it then
    cast: Callable[[Any], Any] | None = None  # the import's conversion
    get: Callable[[Any], Any] | None = None  # what the export writes (VALUE)

    @property
    def column(self) -> str:
        return self.attr or self.key

    @property
    def ref_table(self) -> Table:
        """The table a REF, REFS or KEY field refers to (every one names it)."""
        assert self.table is not None, f"{self.key} names no table"
        return self.table

    @property
    def json_ids(self) -> JsonIds:
        """The ids inside a JSON field (`_json` always gives them)."""
        assert self.ids is not None, f"{self.key} declares no ids"
        return self.ids


@dataclass(frozen=True)
class Section:
    model: type[models.Model]
    fields: tuple[Field, ...]

    def field(self, key: str) -> Field:
        return next(f for f in self.fields if f.key == key)


def _value(key: str, default: Any = None, **options: Any) -> Field:
    return Field(key, Kind.VALUE, default, **options)


def _text(key: str) -> Field:
    return Field(key, Kind.VALUE, "")


def _when(key: str) -> Field:
    return Field(key, Kind.WHEN)


def _stamp(key: str) -> Field:
    return Field(key, Kind.STAMP)


def _user(key: str, attr: str = "") -> Field:
    return Field(key, Kind.USER, attr=attr)


def _ref(key: str, table: Table, **options: Any) -> Field:
    return Field(key, Kind.REF, table=table, **options)


def _refs(key: str, table: Table) -> Field:
    return Field(key, Kind.REFS, table=table)


def _json(key: str, ids: JsonIds, default: Any = None) -> Field:
    return Field(key, Kind.JSON, default, ids=ids)


def _nested(key: str) -> Field:
    return Field(key, Kind.NESTED)


CAMPAIGN = Section(
    Campaign,
    (
        _value("name"),  # required: the import checks it first
        _text("genre"),
        _text("description"),
        _user("gm"),
        _value("rules", {}, get=lambda campaign: campaign.rules_options.to_json()),
        _value("long_contest_default", MODEL_DEFAULT),
        _value("apply_consequences", MODEL_DEFAULT),
        _value("roll_visibility", MODEL_DEFAULT),
        _value("physical_dice", MODEL_DEFAULT),
        _value("resistance_progression", MODEL_DEFAULT),
        _stamp("created_at"),
    ),
)

MEMBER = Section(Membership, (_user("username", attr="user"), _value("role"), _stamp("joined_at")))

CHARACTER = Section(
    Character,
    (
        Field("key", Kind.KEY, table=Table.CHARACTERS),
        _user("player"),
        _nested("sheet"),  # characters.selectors.character_export, services.character_import
        _stamp("created_at"),
        _value("in_session", False, cast=bool),
        _value("awarded_this_session", 0),
        _refs("raised_this_session", Table.ABILITIES),
        _nested("conditions"),
        _nested("ledger"),
    ),
)

CONDITION = Section(
    Condition,
    (
        _value("state"),
        _refs("abilities", Table.ABILITIES),
        _text("cause"),
        # Contests come after the characters: the import links them once they are in.
        _ref("contest", Table.CONTESTS, later=True),
        _user("applied_by"),
        _stamp("created_at"),
        _when("ended_at"),
        _user("ended_by"),
        _text("end_reason"),
        # §2.11.1.5: a doomed character and their contest of wherewithal.
        _value("doomed", False, cast=bool),
        _text("final_action"),
    ),
)

LEDGER_STEP = Section(
    LedgerStep,
    (
        _user("actor"),
        _value("reason"),
        _text("note"),
        _json("state_before", STATE_BEFORE),
        _stamp("created_at"),
        _when("undone_at"),
        _user("undone_by"),
        _nested("entries"),
    ),
)

LEDGER_ENTRY = Section(
    LedgerEntry,
    (
        _value("field"),
        _ref("ability", Table.ABILITIES),
        _text("ability_name"),
        _value("before"),
        _value("after"),
        _text("note"),
    ),
)

SEASON = Section(
    Season,
    (_value("number"), _text("name"), _value("base_resistance", 14), _stamp("started_at")),
)

SESSION = Section(
    Session,
    (
        _value("number"),
        _ref("season", Table.SEASONS),
        _text("title"),
        _when("started_at"),
        _when("ended_at"),
        _text("recap"),
        _when("recap_published_at"),
        _refs("attendees", Table.CHARACTERS),
    ),
)

NPC = Section(
    Npc,
    (_text("name"), _value("rating"), _text("description"), _text("notes"), _stamp("created_at")),
)

CONTEST = Section(
    Contest,
    (
        _value("number"),
        _ref("session", Table.SESSIONS, strict=True),
        _value("kind"),
        _value("status"),
        _text("prize"),
        _text("obstacle"),
        _text("resistance_name"),
        _value("resistance_rating"),
        _json("framing", BY_SUFFIX, {}),
        _json("state", BY_SUFFIX, {}),
        _value("seq", 0),
        _text("winner"),
        _text("degree"),
        _value("outcome_level"),
        _text("narration"),
        _text("gm_notes"),
        _stamp("created_at"),
        _when("finished_at"),
        _nested("participants"),
        _nested("events"),
    ),
)

PARTICIPANT = Section(
    ContestParticipant,
    (
        _ref("character", Table.CHARACTERS),
        _text("name"),
        _text("side"),
        _text("ability"),
        _value("rating"),
    ),
)

EVENT = Section(
    ContestEvent,
    (
        _value("seq"),
        _user("actor"),
        _text("type"),
        _json("payload", PAYLOAD, {}),
        _text("idempotency_key"),
        _stamp("created_at"),
    ),
)

# A line of table chat, in the session in which it was said (older exports have none).
CHAT = Section(
    ChatMessage,
    (
        _ref("session", Table.SESSIONS, strict=True),
        _user("author"),
        _ref("character", Table.CHARACTERS),
        _value("kind"),
        _text("text"),
        _stamp("created_at"),
    ),
)

COMMUNITY = Section(
    Community,
    (
        _text("name"),
        _text("description"),
        _value("interval_name", "season"),
        _value("interval_number", 1),
        _value("background_done", False, cast=bool),
        _ref("crisis_tests_session", Table.SESSIONS, strict=True),
        _value("answer_mode", AnswerMode.CONSENSUS),
        # Absent from older exports: the standard rule (§8.2).
        _value("social_penalties_linger", False, cast=bool),
        _nested("resources"),
        _nested("required_uses"),
        _nested("draws"),
        _nested("steps"),
        _nested("intervals"),
        _nested("questions"),
    ),
)

RESOURCE = Section(
    Resource,
    (
        _text("name"),
        _value("position"),
        *(_value(column, None if column == "rating" else 0) for column in Resource.COLUMNS),
        _text("crisis_note"),
    ),
)

REQUIRED_USE = Section(
    RequiredResourceUse, (_ref("resource", Table.RESOURCES, strict=True), _text("action"))
)

DRAW = Section(
    ResourceDraw,
    (
        Field("key", Kind.KEY, table=Table.DRAWS),
        _ref("resource", Table.RESOURCES, strict=True),
        _ref("character", Table.CHARACTERS, strict=True),
        _text("character_name"),
        _user("actor"),
        _ref("session", Table.SESSIONS, strict=True),
        _value("interval"),
        _text("purpose"),
        _value("used_as", UsedAs.ABILITY),
        _text("required_action"),
        _text("ability_name"),
        _value("ability_rating"),
        _text("resistance_level"),
        _value("resistance_rating"),
        _value("modifier", 0),
        _json("lobbying", BY_SUFFIX, {}),
        _value("lobbying_level"),
        _value("status"),
        _value("outcome_level"),
        _value("depletion"),
        _value("social_penalty", 0),
        _ref("contest", Table.CONTESTS, strict=True),
        _stamp("created_at"),
        _when("settled_at"),
    ),
)

STEP = Section(
    CommunityStep,
    (
        _value("interval"),
        _value("kind"),
        _text("summary"),
        _text("note"),
        _user("actor"),
        _ref("session", Table.SESSIONS, strict=True),
        _ref("contest", Table.CONTESTS, strict=True),
        _ref("draw", Table.DRAWS, strict=True),
        _json("rolls", BY_SUFFIX, []),
        _stamp("created_at"),
        _nested("changes"),
    ),
)

CHANGE = Section(
    ResourceChange,
    (
        _ref("resource", Table.RESOURCES, strict=True),
        _value("column"),
        _value("before"),
        _value("after"),
        _text("reason"),
    ),
)

INTERVAL = Section(
    IntervalRecord,
    (
        _value("number"),
        _json("rows", INTERVAL_ROWS, []),
        _stamp("ended_at"),
        _user("ended_by"),
    ),
)

QUESTION = Section(
    Question,
    (_value("position", 0), _text("text"), _nested("choices"), _nested("answers")),
)

CHOICE = Section(Choice, (_value("position", 0), _text("text"), _json("scores", SCORES, {})))

ANSWER = Section(
    Answer,
    (_ref("choice", Table.CHOICES, strict=True), _user("user"), _stamp("answered_at")),
)
