"""What every service shares: locking the character, cleaning models into plain
messages, and writing the ledger (who, when, why; what a step overwrote, for undo).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast, overload

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db.models import Model, QuerySet

from contests.broadcast import send_to_table_on_commit
from contests.core.rules.advancement import Change
from contests.core.rules.advancement import Character as RulesCharacter
from contests.core.rules.errors import RulesError
from questworlds_site.accounts.models import User
from questworlds_site.sql import Gathered, PreparedRead, insert_family

from ..models import (
    Ability,
    Character,
    Follower,
    LedgerEntry,
    LedgerStep,
)
from ..translate import is_own_ability


def invalid(exc: RulesError) -> ValidationError:
    return ValidationError(str(exc))


def error_lines(exc: ValidationError, where: str = "") -> list[str]:
    """A ValidationError as plain lines, each naming its field: what a form shows."""
    if not hasattr(exc, "error_dict"):
        return [f"{where}{message}" for message in exc.messages]
    return [
        f"{where}{message}" if field == NON_FIELD_ERRORS else f"{where}{field}: {message}"
        for field, messages in exc.message_dict.items()
        for message in messages
    ]


def clean(instance: Model, where: str = "", exclude: Sequence[str] = ()) -> None:
    """Validate `instance`; `exclude`: fields not to check, such as a foreign key to a
    row the caller holds already (each such check is a query)."""
    try:
        instance.full_clean(exclude=list(exclude) or None)
    except ValidationError as exc:
        raise ValidationError(error_lines(exc, where)) from exc


def clean_ability(row: Ability, rows: Sequence[Ability], where: str = "") -> None:
    """`clean` for an ability of a character whose rows the caller read under its lock
    (`rows`: its abilities, its own and its followers'): the fields as Django checks
    them, the constraints in memory (`Ability.constraint_violations`), the same
    messages. Not the foreign keys: the character is locked, and its keyword and
    follower rows were read with it."""
    problems = []
    try:
        row.full_clean(exclude=["character", "follower", "keyword"], validate_constraints=False)
    except ValidationError as exc:
        problems = error_lines(exc, where)
    problems += [f"{where}{message}" for message in row.constraint_violations(rows)]
    if problems:
        raise ValidationError(problems)


def clean_character(character: Character, where: str = "") -> None:
    """`clean` for a character whose player and campaign the caller has made sure of: a
    new one's (its player's membership of the campaign was read) or a row locked and
    written back with both unchanged (`lock`). The fields as Django checks them and the
    constraints in memory (`Character.constraint_violations`), with the same messages;
    not the foreign keys, which Django checks by a query each."""
    problems = []
    try:
        character.full_clean(exclude=["player", "campaign"], validate_constraints=False)
    except ValidationError as exc:
        problems = error_lines(exc, where)
    problems += [f"{where}{message}" for message in character.constraint_violations()]
    if problems:
        raise ValidationError(problems)


def _locking() -> QuerySet[Character]:
    # The campaign (its rules options) comes in the same statement; only the
    # character's row is locked.
    return Character.objects.select_for_update(of=("self",)).select_related("campaign")


def lock(character: Character) -> None:
    """Reload the character and hold its row until commit, so two requests never
    spend the same hero point (PostgreSQL; SQLite serialises writers anyway)."""
    character.refresh_from_db(from_queryset=_locking())


# A contest's steps lock their characters by id (a hero point, the consequences): the
# statement is built once (questworlds_site/sql.py).
_LOCKED = PreparedRead(lambda pk: _locking().filter(pk=pk))


def locked_character(pk: int) -> Character:
    """The character read and held as `lock` does, for a caller that has only its id."""
    if type(pk) is not int:
        return _locking().get(pk=pk)
    found = _LOCKED.objects(pk)
    if not found:
        raise Character.DoesNotExist(f"there is no character {pk}")
    return cast(Character, found[0])


def rows_of(character: Character) -> tuple[list[Ability], list[Follower]]:
    return list(character.abilities.all()), list(character.followers.all())


@overload
def own_row(rows: Sequence[Ability], ability: Ability, what: str) -> Ability: ...
@overload
def own_row(rows: Sequence[Ability], ability: None, what: str) -> None: ...
@overload
def own_row(rows: Sequence[Ability], ability: Ability | None, what: str) -> Ability | None: ...
def own_row(rows: Sequence[Ability], ability: Ability | None, what: str) -> Ability | None:
    """The character's own row for `ability` (fresh), refusing anyone else's."""
    if ability is None:
        return None
    row = next((a for a in rows if a.pk == ability.pk and is_own_ability(a)), None)
    if row is None:
        raise ValidationError(f"{what}: {ability.name} is not one of this character's abilities.")
    return row


# --------------------------------------------------------------------- the ledger


def sidekick_of(ability: Ability) -> Follower:
    """The follower whose ability this is (one queried as a sidekick's)."""
    follower = ability.follower
    assert follower is not None, f"{ability.name} is the character's own ability"
    return follower


def saved_state(step: LedgerStep) -> dict[str, Any]:
    """What a step kept of the sheet it overwrote (`state_before`), to undo it."""
    if step.state_before is None:
        raise ValidationError("This step kept nothing to undo.")
    saved: dict[str, Any] = step.state_before
    return saved


def entry(field: str, before: int | None, after: int | None, **kwargs: Any) -> LedgerEntry:
    return LedgerEntry(field=field, before=before, after=after, **kwargs)


def sheet_changed(character: Character) -> None:
    """Once committed, the player's open pages at the campaign's table reload their
    sheet there (hero points, states, abilities): for a change made on the character's
    own pages (the GM's award, a state applied or ended, an advance). A contest's steps
    reload the sheets of those who play in it themselves (contests.live)."""
    if character.campaign_id is not None:
        send_to_table_on_commit(
            character.campaign_id, {"type": "table.sheet", "user_id": character.player_id}
        )


def ledger_step(
    character: Character,
    actor: User,
    reason: str,
    note: str = "",
    *,
    entries: Sequence[LedgerEntry] = (),
    state_before: dict[str, Any] | None = None,
    also: Sequence[tuple[str, list[Any]]] = (),
    into: Gathered | None = None,
) -> LedgerStep:
    """Record a step of the character's ledger with its entries, and run `also` (the
    step's own change to the sheet, as `update_sql` writes it) with it: one statement
    on PostgreSQL (`insert_family`), or `into` a caller's own."""
    step = LedgerStep(
        character=character,
        actor=actor,
        reason=reason,
        note=note[:300],
        state_before=state_before,
    )
    for entry in entries:
        entry.note = entry.note[:300]
    insert_family(step, [("step", entries)], also=also, into=into)
    for entry in entries:
        entry.step = step
    return step


def row_values(rows: Sequence[Ability]) -> dict[int, tuple[str, int]]:
    return {a.pk: (a.name, a.rating) for a in rows}


def row_entries(
    before: dict[int, tuple[str, int]],
    rows: Sequence[Ability],
    followers: Sequence[Follower],
    note: str,
) -> list[LedgerEntry]:
    """Ledger lines for what a creation change did to the rows (ids before/after)."""
    owners = {f.pk: f.name for f in followers}

    def label(row: Ability) -> str:
        return f"{owners[row.follower_id]}: {row.name}" if row.follower_id else row.name

    entries = []
    now = {a.pk for a in rows}
    for row in rows:
        old = before.get(row.pk)
        if old is None:
            entries.append(
                entry(
                    LedgerEntry.Field.NEW_ABILITY,
                    None,
                    row.rating,
                    ability=row,
                    ability_name=label(row),
                    note=note,
                )
            )
        elif old[1] != row.rating:
            entries.append(
                entry(
                    LedgerEntry.Field.RATING,
                    old[1],
                    row.rating,
                    ability=row,
                    ability_name=label(row),
                    note=note,
                )
            )
    for pk, (name, rating) in before.items():
        if pk not in now:
            entries.append(
                entry(LedgerEntry.Field.NEW_ABILITY, rating, None, ability_name=name, note=note)
            )
    return entries


def engine_entries(
    before: RulesCharacter,
    after: RulesCharacter,
    changes: Sequence[Change],
    rows: dict[str, Ability],
    note: str = "",
) -> list[LedgerEntry]:
    """Ledger lines for what the engine changed, each with the rule it cited."""
    why: dict[str, str] = {}
    for change in changes:
        why.setdefault(change.what.casefold(), change.reason)
    entries = []
    if before.hero_points != after.hero_points:
        entries.append(
            entry(
                LedgerEntry.Field.HERO_POINTS,
                before.hero_points,
                after.hero_points,
                note=why.get("hero points", note),
            )
        )
    if before.experience != after.experience:
        entries.append(
            entry(
                LedgerEntry.Field.XP, before.experience, after.experience, note=why.get("xp", note)
            )
        )
    for ability in after.abilities:
        old = before.find(ability.name)
        row = rows.get(ability.name.casefold())
        reason = why.get(ability.name.casefold(), note)
        if old is None:
            entries.append(
                entry(
                    LedgerEntry.Field.NEW_ABILITY,
                    None,
                    ability.rating,
                    ability=row,
                    ability_name=ability.name,
                    note=reason,
                )
            )
            continue
        if old.kind != ability.kind:
            kind_reason = why.get(f"{ability.name} kind".casefold(), note)
            entries.append(
                entry(
                    LedgerEntry.Field.KIND,
                    None,
                    None,
                    ability=row,
                    ability_name=ability.name,
                    note=f"{old.kind} → {ability.kind}: {kind_reason}",
                )
            )
        if old.rating != ability.rating:
            entries.append(
                entry(
                    LedgerEntry.Field.RATING,
                    old.rating,
                    ability.rating,
                    ability=row,
                    ability_name=ability.name,
                    note=reason,
                )
            )
    for ability in before.abilities:
        if after.find(ability.name) is None:
            entries.append(
                entry(
                    LedgerEntry.Field.NEW_ABILITY,
                    ability.rating,
                    None,
                    ability_name=ability.name,
                    note=note,
                )
            )
    offered_why = [c.reason for c in changes if c.what == "catch-up" and c.before is None]
    closed_why = [c.reason for c in changes if c.what == "catch-up" and c.after is None]
    offered = [c for c in after.catch_ups if c not in before.catch_ups]
    closed = [c for c in before.catch_ups if c not in after.catch_ups]
    for offer, reason in zip(offered, offered_why + [note] * len(offered), strict=False):
        entries.append(
            entry(
                LedgerEntry.Field.CATCH_UP,
                None,
                offer.rating,
                ability=rows.get(offer.trigger.casefold()),
                ability_name=offer.trigger,
                note=reason,
            )
        )
    for offer, reason in zip(closed, closed_why + [note] * len(closed), strict=False):
        entries.append(
            entry(
                LedgerEntry.Field.CATCH_UP,
                offer.rating,
                None,
                ability=rows.get(offer.trigger.casefold()),
                ability_name=offer.trigger,
                note=reason,
            )
        )
    return entries
