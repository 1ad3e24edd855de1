"""Hero points and advancement (§7, 1e §6, R15): the engine gets the sheet as its
`Character`, returns the new one and its changes, and we write that back; the GM may
undo the latest step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from contests.core.rules import advancement as rules
from contests.core.rules.advancement import AdvanceChoice
from contests.core.rules.advancement import Character as RulesCharacter
from contests.core.rules.errors import RulesError
from questworlds_site.accounts.models import User
from questworlds_site.sql import Gathered, update_sql

from ..models import (
    SIDEKICK_REASONS,
    Ability,
    AbilityKind,
    Character,
    Follower,
    LedgerEntry,
    LedgerReason,
    LedgerStep,
)
from ..selectors import undoable_step
from ..translate import (
    RULES_KIND,
    RulesSheet,
    counters_of,
    counters_sheet,
    is_own_ability,
    rules_sheet,
    sidekick_kind,
    state_snapshot,
)
from .base import (
    clean,
    clean_ability,
    clean_character,
    engine_entries,
    entry,
    invalid,
    ledger_step,
    lock,
    saved_state,
    sidekick_of,
)
from .followers import follower_step_revert


def _engine_step(
    character: Character,
    actor: User,
    reason: str,
    note: str,
    operation: Callable[[RulesSheet], rules.Step],
) -> LedgerStep:
    """Run one advancement operation of the engine and write back what it returns."""
    lock(character)
    abilities = list(character.abilities.all())
    sheet = rules_sheet(character, abilities)
    try:
        after, changes = operation(sheet)
    except RulesError as exc:
        raise invalid(exc) from exc
    state_before = state_snapshot(character, abilities)
    rows = _write_engine_character(character, abilities, sheet, after)
    entries = engine_entries(sheet.character, after, changes, rows, note)
    return ledger_step(character, actor, reason, note, entries=entries, state_before=state_before)


def _write_engine_character(
    character: Character, abilities: list[Ability], sheet: RulesSheet, after: RulesCharacter
) -> dict[str, Ability]:
    rows = dict(sheet.rows)
    position = max((a.position for a in abilities), default=0)
    for ability in after.abilities:
        row = rows.get(ability.name.casefold())
        if row is None:
            position += 1
            keyword = rows[ability.keyword.casefold()] if ability.keyword else None
            row = Ability(
                character=character,
                name=ability.name,
                kind=ability.kind,
                rating=ability.rating,
                keyword=keyword,
                position=position,
            )
            clean_ability(row, [*abilities, *rows.values()])
            row.save()
            rows[ability.name.casefold()] = row
            continue
        changed = []
        if row.rating != ability.rating:
            row.rating = ability.rating
            changed.append("rating")
        if RULES_KIND[row.kind] != ability.kind:
            row.kind, row.relationship = ability.kind, ""
            changed += ["kind", "relationship"]
        if changed:
            row.save(update_fields=changed)
    character.hero_points = after.hero_points
    character.experience_points = after.experience
    character.experience_earned = after.experience_earned
    character.in_session = after.in_session
    character.awarded_this_session = after.awarded_this_session
    character.raised_this_session = [rows[n.casefold()].pk for n in after.raised_this_session]
    character.catch_ups = [
        {"ability": rows[c.trigger.casefold()].pk, "rating": c.rating} for c in after.catch_ups
    ]
    clean_character(character)  # locked by `_engine_step`
    character.save()
    return rows


def _name(sheet: RulesSheet, ability: Ability) -> str:
    """The engine's name for one of the character's own abilities (fresh from the lock)."""
    row = next((r for r in sheet.rows.values() if r.pk == ability.pk), None)
    if row is None:
        raise ValidationError(f"{ability.name} is not one of this character's own abilities.")
    return row.name


def _forbid_breakouts_in_packages(character: Character, makes_breakout: bool) -> None:
    if makes_breakout and character.rules_options.keywords == "packages":
        raise ValidationError(
            "This campaign treats keywords as packages (§3.3): there are no breakout "
            "abilities to add or to make."
        )


@transaction.atomic
def character_session_start(*, character: Character, actor: User) -> LedgerStep:
    """A session begins: +1 HP (advances) or +3 HP (classic) (§7.1, 1e §6.1, R15)."""
    return _engine_step(
        character,
        actor,
        LedgerReason.SESSION_START,
        "",
        lambda sheet: rules.start_session(sheet.character),
    )


@transaction.atomic
def character_session_end(*, character: Character, actor: User) -> LedgerStep:
    """A session ends: unspent HP become XP (advances) or are lost (classic)."""
    return _engine_step(
        character,
        actor,
        LedgerReason.SESSION_END,
        "",
        lambda sheet: rules.end_session(sheet.character),
    )


@transaction.atomic
def character_hero_points_award(
    *, character: Character, actor: User, count: int = 1, reason: str = ""
) -> LedgerStep:
    """The GM awards hero points for a significant action (§7.1: at most 5 a session)."""
    return _engine_step(
        character,
        actor,
        LedgerReason.HERO_POINT_AWARD,
        reason,
        lambda sheet: rules.award_hero_points(sheet.character, count, reason=reason),
    )


@transaction.atomic
def character_hero_point_spend(
    *, character: Character, actor: User, reason: str = "a bump in a contest"
) -> LedgerStep:
    """Spend one hero point in play (§2.3.5.5)."""
    lock(character)
    return hero_point_spend_locked(character=character, actor=actor, reason=reason)


def hero_point_spend_locked(
    *,
    character: Character,
    actor: User,
    reason: str = "a bump in a contest",
    into: Gathered | None = None,
) -> LedgerStep:
    """`character_hero_point_spend` for a caller that holds the character's row already
    (`locked_character`) in its own transaction (a contest's action): no second read of
    the row, and no savepoint of its own, so a refusal here must roll the caller back
    (as a contest's action does with any refusal). With `into`, its writes go out with
    the caller's own statement on PostgreSQL (a contest step's: `Gathered`), and the
    step returned has no id.

    A spend changes only the hero points: the engine gets the counters without the
    abilities (no rule of the spend looks at them), only the hero points are written
    back, and the step's `state_before` keeps no abilities, which its undo then leaves
    as they are (`_engine_step_revert`)."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("a hero point is spent from a locked row, inside a transaction")
    before = counters_sheet(character)
    try:
        after, changes = rules.spend_hero_point(before, reason=reason)
    except RulesError as exc:
        raise invalid(exc) from exc
    state_before = {"character": counters_of(character)}
    character.hero_points = after.hero_points
    clean_character(character)  # locked by the caller
    entries = engine_entries(before, after, changes, {}, reason)
    # The hero points written with the ledger's step and entry, in one statement.
    return ledger_step(
        character,
        actor,
        LedgerReason.HERO_POINT_SPEND,
        reason,
        entries=entries,
        state_before=state_before,
        also=[update_sql(character, ["hero_points"], {"id": character.pk})],
        into=into,
    )


@transaction.atomic
def character_advance_buy(
    *, character: Character, actor: User, first: AdvanceChoice, second: AdvanceChoice
) -> LedgerStep:
    """10 XP for an advance of two different §7.1 options (R15, `advances` economy)."""
    for choice in (first, second):
        _forbid_breakouts_in_packages(
            character,
            choice.option == "new_keyword"
            or (choice.option == "new_ability_or_breakout" and choice.keyword is not None),
        )
    return _engine_step(
        character,
        actor,
        LedgerReason.ADVANCE,
        "an advance",
        lambda sheet: rules.buy_advance(sheet.character, first, second),
    )


@transaction.atomic
def character_catch_up_take(
    *, character: Character, actor: User, trigger: Ability, targets: Sequence[Ability]
) -> LedgerStep:
    """Take a catch-up on offer: +3 to up to three abilities 5 or more below (§7.1.1)."""
    return _engine_step(
        character,
        actor,
        LedgerReason.CATCH_UP,
        f"catch-up from {trigger.name}",
        lambda sheet: rules.take_catch_up(
            sheet.character, _name(sheet, trigger), [_name(sheet, t) for t in targets]
        ),
    )


@transaction.atomic
def character_catch_up_decline(
    *, character: Character, actor: User, trigger: Ability
) -> LedgerStep:
    """Let a catch-up on offer go (§7.1.1)."""
    return _engine_step(
        character,
        actor,
        LedgerReason.CATCH_UP,
        f"catch-up from {trigger.name} declined",
        lambda sheet: rules.decline_catch_up(sheet.character, _name(sheet, trigger)),
    )


@transaction.atomic
def character_directed_improvement(
    *, character: Character, actor: User, ability: Ability, amount: int, reason: str = ""
) -> LedgerStep:
    """The GM raises an ability at once (§7.1.2: +3/+6/+9; classic 1e §6.4: +1 to +3)."""
    return _engine_step(
        character,
        actor,
        LedgerReason.DIRECTED,
        reason,
        lambda sheet: rules.directed_improvement(
            sheet.character, _name(sheet, ability), amount, reason=reason
        ),
    )


@transaction.atomic
def character_directed_new_ability(
    *,
    character: Character,
    actor: User,
    name: str,
    rating: int = rules.NEW_ABILITY_RATING,
    reason: str = "",
) -> LedgerStep:
    """The GM gives a new standalone ability, usually at 13 (§7.1.2)."""
    return _engine_step(
        character,
        actor,
        LedgerReason.DIRECTED,
        reason,
        lambda sheet: rules.directed_new_ability(
            sheet.character, name.strip(), rating, reason=reason
        ),
    )


@transaction.atomic
def character_classic_raise(*, character: Character, actor: User, ability: Ability) -> LedgerStep:
    """Classic economy: +1 for 1 HP (2 HP for a keyword), once a session (1e §6.2)."""
    return _engine_step(
        character,
        actor,
        LedgerReason.CLASSIC_IMPROVEMENT,
        f"+1 to {ability.name}",
        lambda sheet: rules.classic_raise(sheet.character, _name(sheet, ability)),
    )


@transaction.atomic
def character_classic_new_ability(
    *, character: Character, actor: User, name: str, keyword: Ability | None = None
) -> LedgerStep:
    """Classic economy: 1 HP for a new ability at 13 or a breakout at +1 (1e §6.2)."""
    _forbid_breakouts_in_packages(character, keyword is not None)
    return _engine_step(
        character,
        actor,
        LedgerReason.CLASSIC_IMPROVEMENT,
        f"new ability {name.strip()}",
        lambda sheet: rules.classic_new_ability(
            sheet.character,
            name.strip(),
            keyword=_name(sheet, keyword) if keyword is not None else None,
        ),
    )


@transaction.atomic
def character_sidekick_raise(*, character: Character, actor: User, ability: Ability) -> LedgerStep:
    """+1 to an ability of the character's sidekick in service for hero points, priced
    as the PC's own: 1, or 2 for a keyword under an umbrella (§6.5.1: "You can improve
    these abilities through the expenditure of hero points"; §2.3.5.5: sidekicks are
    "extensions of your character")."""
    lock(character)
    row = (
        character.abilities.filter(
            pk=ability.pk,
            follower__kind=Follower.Kind.SIDEKICK,
            follower__lost_at__isnull=True,
        )
        .select_related("follower")
        .first()
    )
    if row is None:
        raise ValidationError("Choose an ability of your sidekick in service to improve (§6.5.1).")
    abilities = list(character.abilities.all())
    sheet = rules_sheet(character, abilities)
    label = f"{sidekick_of(row).name}: {row.name}"
    try:
        after, rating, _ = rules.sidekick_raise(
            sheet.character, label, row.rating, kind=sidekick_kind(row)
        )
    except RulesError as exc:
        raise invalid(exc) from exc
    state_before = {
        **state_snapshot(character, abilities),
        "sidekick_ability": {"id": row.pk, "rating": row.rating},
    }
    note = f"+1 to {label}"
    entries = [
        entry(LedgerEntry.Field.HERO_POINTS, character.hero_points, after.hero_points, note=note),
        entry(LedgerEntry.Field.RATING, row.rating, rating, ability=row, ability_name=label),
    ]
    character.hero_points = after.hero_points
    character.save(update_fields=["hero_points"])
    row.rating = rating
    clean(row)
    row.save(update_fields=["rating"])
    return ledger_step(
        character,
        actor,
        LedgerReason.SIDEKICK_IMPROVEMENT,
        note,
        entries=entries,
        state_before=state_before,
    )


def _sidekick_raise_revert(character: Character, target: LedgerStep, note: str) -> list[Any]:
    saved = saved_state(target)["sidekick_ability"]
    row = character.abilities.filter(pk=saved["id"]).select_related("follower").first()
    if row is None:
        raise ValidationError(
            "The sidekick's ability this step raised is gone: it cannot be undone."
        )
    hero_points = saved_state(target)["character"]["hero_points"]
    entries = [
        entry(LedgerEntry.Field.HERO_POINTS, character.hero_points, hero_points, note=note),
        entry(
            LedgerEntry.Field.RATING,
            row.rating,
            saved["rating"],
            ability=row,
            ability_name=f"{sidekick_of(row).name}: {row.name}",
            note=note,
        ),
    ]
    character.hero_points = hero_points
    character.save(update_fields=["hero_points"])
    row.rating = saved["rating"]
    row.save(update_fields=["rating"])
    return entries


@transaction.atomic
def character_step_undo(*, character: Character, actor: User) -> LedgerStep:
    """The GM undoes the latest step of play or advancement: ratings, kinds, hero
    points, XP, session counters and catch-ups return to what they were, abilities the
    step created go, and the ledger records the undo. A sidekick step (§6.5.2) puts its
    follower back as it was."""
    lock(character)
    target = undoable_step(character)
    if target is None:
        raise ValidationError(
            "Nothing to undo: only the latest step of play or advancement can be undone."
        )
    note = f"undid {target.get_reason_display().lower()}" + (
        f" ({target.note})" if target.note else ""
    )
    if target.reason in SIDEKICK_REASONS:
        entries = follower_step_revert(character, target, note)
    elif target.reason == LedgerReason.SIDEKICK_IMPROVEMENT:
        entries = _sidekick_raise_revert(character, target, note)
    else:
        entries = _engine_step_revert(character, target, note)
    target.undone_at = timezone.now()
    target.undone_by = actor
    target.save(update_fields=["undone_at", "undone_by"])
    return ledger_step(character, actor, LedgerReason.UNDO, note, entries=entries)


def _engine_step_revert(character: Character, target: LedgerStep, note: str) -> list[LedgerEntry]:
    abilities = list(character.abilities.all())
    current = rules_sheet(character, abilities)
    restored = rules_sheet(character, abilities, state=target.state_before)
    entries = engine_entries(current.character, restored.character, [], current.rows, note)
    # A step that kept no abilities (a hero point spent) changed none: they stay.
    saved = saved_state(target).get("abilities")
    # Breakouts first, so deleting a keyword never finds its breakout gone already.
    for row in sorted(abilities, key=lambda a: a.kind != AbilityKind.BREAKOUT):
        if saved is None or not is_own_ability(row):
            continue
        old = saved.get(str(row.pk))
        if old is None:
            row.delete()
            continue
        if (row.rating, row.kind, row.relationship) != (
            old["rating"],
            old["kind"],
            old["relationship"],
        ):
            row.rating, row.kind, row.relationship = old["rating"], old["kind"], old["relationship"]
            row.save(update_fields=["rating", "kind", "relationship"])
    for name, value in saved_state(target)["character"].items():
        setattr(character, name, value)
    clean_character(character)  # locked by `character_step_undo`
    character.save()
    for line in entries:
        if line.ability is not None and line.ability.pk is None:
            line.ability = None  # the step created it and the undo removed it
    return entries
