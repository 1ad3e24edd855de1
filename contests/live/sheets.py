"""The character sheets a table's panel reads: every participant's abilities and
hero points, and their helpers', in one query of plain rows."""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from django.db.models import F, JSONField, OuterRef, QuerySet, Subquery
from django.db.models.functions import JSONObject

from characters.models import Ability, Character, Condition
from questworlds_site.sql import JSONList, PreparedRead

from ..core.rules import State
from ..core.table import BaseFlow
from ..models import Contest

# The columns the table reads of the sheets (`read_sheets`): the ability, whose it is, the
# sidekick it belongs to, and the hero points that decide who is offered one. Read as
# rows, not models: a table's sheets are a hundred abilities, read on every broadcast
# while abilities are chosen, and a model instance (three, with the character and the
# sidekick) per row cost more than the query (issue 16).
SHEET_COLUMNS = (
    "id",
    "character_id",
    "name",
    "kind",
    "rating",
    "follower__name",
    "character__name",
    "character__player_id",
    "character__hero_points",
    "character__creation_method",
)


def _sheets() -> QuerySet[Ability]:
    # A sidekick's abilities in service are its owner's to use (§6.5.1).
    return Ability.objects.filter(Ability.usable_as_own()).order_by(
        "character_id", F("follower_id").asc(nulls_first=True), "position", "id"
    )


# The sheets' read is built once (per database and number of characters), not per
# broadcast: building it cost more than running it (questworlds_site/sql.py).
_CAMPAIGN_SHEETS = PreparedRead(
    lambda campaign: _sheets().filter(character__campaign_id=campaign).values_list(*SHEET_COLUMNS)
)
_THESE_SHEETS = PreparedRead(
    lambda characters: _sheets().filter(character_id__in=characters).values_list(*SHEET_COLUMNS)
)


def _with_states(abilities: QuerySet[Ability]) -> QuerySet[Ability]:
    """The sheets' rows, each with its character's active conditions (a JSON list of
    their states and order), in the same statement: a step that may change a sheet
    brings its players' cards (`sheet_cards`) without a query of their own."""
    states = (
        Condition.objects.filter(character_id=OuterRef("character_id"), ended_at__isnull=True)
        .order_by()
        .annotate(rows=JSONList(JSONObject(state="state", created_at="created_at", id="id")))
        .values("rows")
    )
    return abilities.annotate(
        character_states=Subquery(states, output_field=JSONField())
    ).values_list(*SHEET_COLUMNS, "character_states")


_CAMPAIGN_SHEETS_AND_STATES = PreparedRead(
    lambda campaign: _with_states(_sheets().filter(character__campaign_id=campaign))
)
_THESE_SHEETS_AND_STATES = PreparedRead(
    lambda characters: _with_states(_sheets().filter(character_id__in=characters))
)


# A player's own sheets at the table (contests/views.py `table_me`, reloaded by their
# pages after the steps that can change them): their characters here, the abilities
# they may use and the conditions they hold, each read built once.
_MY_CHARACTERS = PreparedRead(
    lambda campaign, player: (
        Character.objects.filter(campaign_id=campaign, player_id=player)
        .order_by("name", "id")
        .values_list("id", "name", "hero_points")
    )
)
_MY_ABILITIES = PreparedRead(
    lambda characters: (
        _sheets()
        .filter(character_id__in=characters)
        .values_list("id", "character_id", "name", "kind", "rating", "follower__name")
    )
)
_MY_CONDITIONS = PreparedRead(
    lambda characters: (
        Condition.objects.filter(character_id__in=characters, ended_at__isnull=True)
        .order_by("created_at", "id")
        .values_list("character_id", "state")
    )
)


def my_sheets(
    campaign_id: int, user_id: int
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """A player's characters in the campaign (id, name, hero points), the abilities
    they may use (id, character, name, kind, rating, sidekick's name) and the states
    they hold (character, state), as rows: three reads, none built per request."""
    characters = _MY_CHARACTERS.rows(campaign_id, user_id)
    ids = [row[0] for row in characters]
    if not ids:
        return characters, [], []
    return characters, _MY_ABILITIES.rows(ids), _MY_CONDITIONS.rows(ids)


def condition_line(code: str) -> dict[str, str]:
    """A condition as a player's card says it: its name and what it does to a roll."""
    state = State(code)
    if state.modifier:
        effect = f"{state.modifier:+d}"
    else:
        effect = "a bump up" if state.bumps else "no action" if state.is_adversity else ""
    return {"label": Condition.State(code).label, "effect": effect}


def card(
    character: tuple[int, str, int], abilities: list[Any], states: list[str]
) -> dict[str, Any]:
    """One character's card at the table (templates/contests/_my_character.html
    `card`): (id, name, hero points), its abilities (each with `shown_name` and
    `rating_text`) and its active conditions' states in their order."""
    pk, name, hero_points = character
    return {
        "character": {"id": pk, "name": name, "hero_points": hero_points},
        "conditions": [condition_line(code) for code in states],
        "abilities": abilities,
    }


# A rating's words (15, 5M, 1M2; a breakout's +3), for each kind and number once: a
# table's sheets are a hundred abilities read on every step while abilities are chosen.
_rating_text = functools.lru_cache(maxsize=4096)(Ability.text_of_rating)


class SheetCharacter(NamedTuple):
    """A character as the table's sheets read it: its name, player and hero points.

    A named tuple, not a frozen dataclass: a broadcast reads a hundred abilities while
    abilities are chosen, and a frozen dataclass's `__init__` (an `object.__setattr__`
    a field) was 7% of its rendering (issue 29). Immutable either way."""

    pk: int
    name: str
    player_id: int | None
    hero_points: int
    creation_method: str

    def __deepcopy__(self, memo: dict[int, Any]) -> SheetCharacter:
        return self  # a frozen value: each audience's view shares it (contests/audience.py)


class SheetAbility(NamedTuple):
    """One ability of a sheet, with what a pick list shows of it (`Ability.shown_name`,
    `Ability.rating_text`) and its character."""

    id: int
    name: str
    kind: str
    rating: int
    shown_name: str
    rating_text: str
    character: SheetCharacter
    label: str  # as a pick list shows it: "Swimming 15"

    @property
    def character_id(self) -> int:
        return self.character.pk

    def __deepcopy__(self, memo: dict[int, Any]) -> SheetAbility:
        return self  # a frozen value: each audience's view shares it (contests/audience.py)


@functools.lru_cache(maxsize=2048)
def _character(pk: int, *columns: Any) -> SheetCharacter:
    """A character's columns as a `SheetCharacter`, the same value for the same columns
    (a hero point spent, a new name: other columns, another value)."""
    return SheetCharacter(pk, *columns)


@functools.lru_cache(maxsize=16384)
def _ability(
    pk: int, name: str, kind: str, rating: int, sidekick: str | None, character: SheetCharacter
) -> SheetAbility:
    """An ability's row as a `SheetAbility`: each step while abilities are chosen reads
    a hundred rows that are mostly those of the step before, whose values (immutable)
    are taken as they are rather than made again (issue 29)."""
    shown = Ability.name_shown(name, sidekick)
    rating_text = _rating_text(kind, rating)
    label = f"{shown} {rating_text}"
    return SheetAbility(pk, name, kind, rating, shown, rating_text, character, label)


class _Digest(NamedTuple):
    """A read of the sheets' rows as the table uses them: each character read, each
    one's abilities in order, and the helpers with the abilities they may augment with."""

    characters: tuple[SheetCharacter, ...]
    abilities: dict[int, tuple[SheetAbility, ...]]
    helpers: tuple[tuple[SheetCharacter, tuple[SheetAbility, ...]], ...]


@functools.lru_cache(maxsize=256)
def _digest(rows: tuple[tuple[Any, ...], ...], with_helpers: bool) -> _Digest:
    """The sheets' rows (`SHEET_COLUMNS`) as a `_Digest`, the same for the same rows:
    while abilities are chosen each step reads the campaign's hundred rows, mostly as
    the step before read them (issue 29). Its parts are tuples: each read gets lists of
    its own (`read_sheets`)."""
    characters: dict[int, SheetCharacter] = {}
    abilities: dict[int, list[SheetAbility]] = {}
    helpers: dict[int, list[SheetAbility]] = {}
    for pk, character_id, name, kind, rating, sidekick, *whose in rows:
        character = characters.get(character_id)
        if character is None:
            character = characters[character_id] = _character(character_id, *whose)
        ability = _ability(pk, name, kind, rating, sidekick, character)
        abilities.setdefault(character_id, []).append(ability)
        if with_helpers and kind != "flaw" and rating > 0:
            helpers.setdefault(character_id, []).append(ability)
    return _Digest(
        tuple(characters.values()),
        {pk: tuple(mine) for pk, mine in abilities.items()},
        tuple((characters[pk], tuple(mine)) for pk, mine in helpers.items()),
    )


def read_sheets(
    contest: Contest,
    flow: BaseFlow,
    character_ids: list[int | None],
    seen: dict[int, Any],
    states: dict[int, list[str]] | None = None,
) -> tuple[list[dict[str, Any]], dict[int, list[SheetAbility]]]:
    """The helpers who may offer an augment now (§2.4), and the sheets the contest's
    characters pick abilities from, in one query.

    Helpers are characters with an ability rated above 0 that is not a flaw; each form
    is shown only in its player's browser. There are none once the roll is made or in
    a long contest (whose augments are part of its own actions). `seen` collects the
    characters read with the abilities (their players and hero points); with `states`,
    each character's active conditions (their states, in order) go there, read in the
    same statement.
    """

    wanted = [c for c in character_ids if c is not None]
    with_helpers = flow.phase == "preparing" and not flow.state.get("machine")
    if not wanted and not with_helpers:
        return [], {c: [] for c in wanted}
    if states is None:
        rows = (
            _CAMPAIGN_SHEETS.rows(contest.campaign_id)
            if with_helpers
            else _THESE_SHEETS.rows(list(dict.fromkeys(wanted)))
        )
    else:
        read = (
            _CAMPAIGN_SHEETS_AND_STATES.rows(contest.campaign_id)
            if with_helpers
            else _THESE_SHEETS_AND_STATES.rows(list(dict.fromkeys(wanted)))
        )
        rows = []
        for *columns, held in read:
            character_id = columns[1]
            if character_id not in states:
                ordered = sorted(held or [], key=lambda c: (c["created_at"], c["id"]))
                states[character_id] = [c["state"] for c in ordered]
            rows.append(tuple(columns))
    digest = _digest(tuple(rows), with_helpers)
    for character in digest.characters:
        seen.setdefault(character.pk, character)
    sheets = {c: list(digest.abilities.get(c, ())) for c in wanted}
    helpers = [
        {"character": character, "player_id": character.player_id, "abilities": list(mine)}
        for character, mine in digest.helpers
    ]
    return helpers, sheets
