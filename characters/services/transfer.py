"""Importing a character from its JSON export (see selectors.character_export)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.dateparse import parse_datetime

from contests.core.rules import advancement as rules
from contests.core.rules.errors import RulesError
from questworlds_site.accounts.models import User

from ..models import (
    Ability,
    AbilityKind,
    Character,
    CreationMethod,
    Follower,
    LedgerEntry,
    LedgerReason,
)
from ..selectors import EXPORT_FORMAT, EXPORT_VERSION
from ..translate import creation_problems, is_own_ability, rules_sheet
from .base import clean, clean_ability, entry, invalid, ledger_step, row_entries
from .creation import rate_flaws


def _field(data: dict[str, Any], key: str, kind: type, default: Any = None, where: str = "") -> Any:
    value = data.get(key, default)
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValidationError(f"{where}{key} must be a whole number, not {value!r}.")
    if kind is not int and not isinstance(value, kind):
        raise ValidationError(f"{where}{key} must be {kind.__name__}, not {value!r}.")
    return value


def _ability_rows(
    character: Character,
    items: Any,
    follower: Follower | None = None,
    earlier: Sequence[Ability] = (),
) -> list[Ability]:
    """The abilities `items` describes, saved (a sidekick's with `follower`), each
    checked beside the character's rows saved before (`earlier`) and these."""
    if not isinstance(items, list):
        raise ValidationError("abilities must be a list.")
    rows: list[Ability] = []
    pending: list[tuple[Ability, str]] = []
    for position, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise ValidationError(f"ability {position} must be an object.")
        where = f"ability {position}: "
        row = Ability(
            character=character,
            follower=follower,
            name=_field(item, "name", str, where=where).strip(),
            kind=_field(item, "kind", str, AbilityKind.STANDALONE, where),
            rating=_field(item, "rating", int, where=where),
            relationship=_field(item, "relationship", str, "", where),
            description=_field(item, "description", str, "", where),
            phrase=_field(item, "phrase", str, "", where),
            creation_role=_field(item, "creation_role", str, "", where) if not follower else "",
            position=position,
        )
        keyword = item.get("keyword")
        if keyword is not None:
            pending.append((row, _field(item, "keyword", str, where=where)))
        else:
            _save_imported(row, where, [*earlier, *rows])
        rows.append(row)
    keywords = {r.name.casefold(): r for r in rows if r.kind == AbilityKind.KEYWORD}
    for row, name in pending:
        if name.casefold() not in keywords:
            raise ValidationError(
                f"{row.name} sits under {name!r}, which is not one of the keywords (§3.3)."
            )
        row.keyword = keywords[name.casefold()]
        _save_imported(row, f"{row.name}: ", [*earlier, *rows])
    return rows


def _save_imported(row: Ability, where: str, rows: Sequence[Ability]) -> None:
    clean_ability(row, rows, where)
    row.save()


@transaction.atomic
def character_import(*, player: User, data: Any) -> Character:
    """Create a character from an export (see selectors.character_export). The file is
    checked as a whole (shape, then the rules engine); a bad file creates nothing."""
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise ValidationError(f"This is not a character export (format {EXPORT_FORMAT!r}).")
    if data.get("version") != EXPORT_VERSION:
        raise ValidationError(
            f"This export is version {data.get('version')!r}; "
            f"this site reads version {EXPORT_VERSION}."
        )
    traits = _field(data, "traits", list, [])
    if len(traits) > 3 or not all(isinstance(t, str) for t in traits):
        raise ValidationError("traits must be a list of up to three texts.")
    traits = [*traits, "", "", ""][:3]
    character = Character(
        player=player,
        name=_field(data, "name", str, "").strip(),
        concept=_field(data, "concept", str, ""),
        trait_1=traits[0],
        trait_2=traits[1],
        trait_3=traits[2],
        portrait=_field(data, "portrait", str, ""),
        creation_method=_field(data, "creation_method", str, CreationMethod.AS_YOU_GO),
        creation_complete=_field(data, "creation_complete", bool, False),
        prose=_field(data, "prose", str, ""),
        notes=_field(data, "notes", str, ""),
        hero_points=_field(data, "hero_points", int, rules.STARTING_HERO_POINTS),
        experience_points=_field(data, "experience_points", int, 0),
        experience_earned=_field(data, "experience_earned", int, 0),
    )
    clean(character)
    character.save()
    abilities = _ability_rows(character, data.get("abilities", []))
    followers_data = _field(data, "followers", list, [])
    for index, item in enumerate(followers_data, 1):
        if not isinstance(item, dict):
            raise ValidationError(f"follower {index} must be an object.")
        where = f"follower {index}: "
        lost_at = _field(item, "lost_at", str, where=where) if item.get("lost_at") else None
        follower = Follower(
            owner=character,
            kind=_field(item, "kind", str, where=where),
            name=_field(item, "name", str, where=where).strip(),
            description=_field(item, "description", str, "", where),
            origin=_field(item, "origin", str, "", where),
            # A sidekick lost in play (§6.5.2) travels as history.
            lost_at=parse_datetime(lost_at) if lost_at else None,
            lost_reason=_field(item, "lost_reason", str, "", where),
        )
        if lost_at and follower.lost_at is None:
            raise ValidationError(f"{where}lost_at must be a date and time, not {lost_at!r}.")
        clean(follower, f"follower {index}: ")
        follower.save()
        if follower.kind == Follower.Kind.SIDEKICK:
            abilities += _ability_rows(character, item.get("abilities", []), follower, abilities)
        elif item.get("abilities"):
            raise ValidationError(f"follower {index}: only a sidekick has abilities (§6.5).")
    names = {a.name.casefold(): a for a in abilities if is_own_ability(a)}
    offers = _field(data, "catch_ups", list, [])
    for offer in offers:
        if not isinstance(offer, dict) or str(offer.get("ability", "")).casefold() not in names:
            raise ValidationError(f"catch-up {offer!r} names none of the abilities.")
        rating = _field(offer, "rating", int, where="catch-up: ")
        character.catch_ups.append(
            {"ability": names[offer["ability"].casefold()].pk, "rating": rating}
        )
    character.save(update_fields=["catch_ups"])
    followers = list(character.followers.all())
    try:
        rules_sheet(character, abilities)  # names, keywords, counters (§3.3, §7)
        problems = creation_problems(character, abilities, followers)
    except RulesError as exc:
        raise invalid(exc) from exc
    if not character.creation_complete:
        # A sheet still in creation must be valid so far, as the wizard keeps it.
        errors = [str(p) for p in problems if not p.advice]
        if errors:
            raise ValidationError(errors)
        rate_flaws(abilities, followers)
    entries = row_entries({}, abilities, followers, "imported")
    for field, value in (
        (LedgerEntry.Field.HERO_POINTS, character.hero_points),
        (LedgerEntry.Field.XP, character.experience_points),
    ):
        entries.append(entry(field, None, value, note="imported"))
    ledger_step(
        character, player, LedgerReason.IMPORT, "imported from a JSON file", entries=entries
    )
    return character
