"""The character sheets a table's panel reads: every participant's abilities and
hero points, and their helpers', in one query of plain rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import F, QuerySet

from characters.models import Ability, Character, Condition
from questworlds_site.sql import PreparedRead

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


@dataclass(frozen=True, slots=True)
class SheetCharacter:
    """A character as the table's sheets read it: its name, player and hero points."""

    pk: int
    name: str
    player_id: int | None
    hero_points: int
    creation_method: str

    def __deepcopy__(self, memo: dict[int, Any]) -> SheetCharacter:
        return self  # a frozen value: each audience's view shares it (contests/audience.py)


@dataclass(frozen=True, slots=True)
class SheetAbility:
    """One ability of a sheet, with what a pick list shows of it (`Ability.shown_name`,
    `Ability.rating_text`) and its character."""

    id: int
    name: str
    kind: str
    rating: int
    shown_name: str
    rating_text: str
    character: SheetCharacter

    @property
    def character_id(self) -> int:
        return self.character.pk

    def __deepcopy__(self, memo: dict[int, Any]) -> SheetAbility:
        return self  # a frozen value: each audience's view shares it (contests/audience.py)


def read_sheets(
    contest: Contest, flow: BaseFlow, character_ids: list[int | None], seen: dict[int, Any]
) -> tuple[list[dict[str, Any]], dict[int, list[SheetAbility]]]:
    """The helpers who may offer an augment now (§2.4), and the sheets the contest's
    characters pick abilities from, in one query.

    Helpers are characters with an ability rated above 0 that is not a flaw; each form
    is shown only in its player's browser. There are none once the roll is made or in
    a long contest (whose augments are part of its own actions). `seen` collects the
    characters read with the abilities (their players and hero points).
    """

    wanted = [c for c in character_ids if c is not None]
    sheets: dict[int, list[SheetAbility]] = {c: [] for c in wanted}
    with_helpers = flow.phase == "preparing" and not flow.state.get("machine")
    if not wanted and not with_helpers:
        return [], sheets
    rows = (
        _CAMPAIGN_SHEETS.rows(contest.campaign_id)
        if with_helpers
        else _THESE_SHEETS.rows(list(dict.fromkeys(wanted)))
    )
    helpers: dict[int, dict[str, Any]] = {}
    for pk, character_id, name, kind, rating, sidekick, *whose in rows:
        character = seen.get(character_id)
        if character is None:
            character = seen[character_id] = SheetCharacter(character_id, *whose)
        ability = SheetAbility(
            pk,
            name,
            kind,
            rating,
            Ability.name_shown(name, sidekick),
            Ability.text_of_rating(kind, rating),
            character,
        )
        if character_id in sheets:
            sheets[character_id].append(ability)
        if not with_helpers or kind == "flaw" or rating <= 0:
            continue
        if character_id not in helpers:
            helpers[character_id] = {
                "character": character,
                "player_id": character.player_id,
                "abilities": [],
            }
        helpers[character_id]["abilities"].append(ability)
    return list(helpers.values()), sheets
