"""Sidekicks after creation (§6.5.2): a sidekick killed or gone from your service stays
on record as lost, and a new one, or a retainer promoted, takes its place without a
hero point, with §6.5.1's abilities as the engine checks them at creation.

Each is a ledger step whose `state_before` keeps the follower as it was, so the GM may
undo it while it is the latest (`follower_step_revert`, called by the undo service).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from contests.core.rules.creation import validate_sidekick
from questworlds_site.accounts.models import User

from ..models import Ability, Character, Follower, LedgerEntry, LedgerReason, LedgerStep
from ..translate import to_rules_sidekick
from .base import clean, entry, ledger_step, lock, saved_state
from .creation import write_sidekick_abilities

# What a sidekick step may change on the follower, and its undo puts back.
SNAPSHOT_FIELDS = ("kind", "name", "description", "origin", "lost_at", "lost_reason")
NO_HERO_POINT = "no hero point spent (§6.5.2)"


def _snapshot(follower: Follower, *, created: bool = False) -> dict[str, Any]:
    fields = {name: getattr(follower, name) for name in SNAPSHOT_FIELDS}
    fields["lost_at"] = follower.lost_at.isoformat() if follower.lost_at else None
    return {
        "follower": {
            "id": follower.pk,
            "created": created,
            "fields": fields,
            "abilities": [a.pk for a in follower.abilities.all()],
        }
    }


def _require_play(character: Character) -> None:
    if not character.creation_complete:
        raise ValidationError(
            "During creation the sidekick is written in the wizard (§6.5.1); a sidekick is "
            "lost and replaced once the character is in play (§6.5.2)."
        )


def _require_no_sidekick(character: Character) -> None:
    serving = character.followers.filter(kind=Follower.Kind.SIDEKICK, lost_at__isnull=True)
    current = serving.first()
    if current is not None:
        raise ValidationError(
            f"§6.5.1: {current.name} is still your sidekick, and you have one at most; "
            "a new sidekick comes when they are lost (§6.5.2)."
        )


def _require_unused_name(
    character: Character, name: str, *, besides: Follower | None = None
) -> None:
    """A new sidekick's name is not another follower's, lost ones included: the sheet,
    the ledger and a campaign's export tell followers and their abilities apart by it."""
    others = character.followers.filter(name__iexact=name.strip())
    if besides is not None:
        others = others.exclude(pk=besides.pk)
    taken = others.first()
    if taken is not None:
        lost = f" (lost: {taken.lost_reason})" if taken.lost_at else ""
        raise ValidationError(
            f"{character.name} already has a follower named {taken.name}{lost}; "
            "give the new sidekick another name."
        )


def _require_origin(name: str, origin: str) -> str:
    origin = origin.strip()
    if not origin:
        raise ValidationError(
            f"§6.5.2: explain how {name.strip() or 'the new sidekick'} has come to be your "
            "new follower."
        )
    return origin


def _sidekick_abilities(
    character: Character, sidekick: Follower, abilities: Sequence[tuple[str, int, str]]
) -> list[LedgerEntry]:
    """Write a new sidekick's abilities and have the engine check them as at creation
    (§6.5.1: 16, 13, 13 plus 15 points, at most 10 on one); the ledger lines."""
    rows = write_sidekick_abilities(character, sidekick, [], abilities)
    problems = validate_sidekick(to_rules_sidekick(sidekick, rows), finished=True)
    if problems:
        raise ValidationError([str(p) for p in problems])
    return [
        entry(
            LedgerEntry.Field.NEW_ABILITY,
            None,
            row.rating,
            ability=row,
            ability_name=f"{sidekick.name}: {row.name}",
            note=NO_HERO_POINT,
        )
        for row in rows
    ]


@transaction.atomic
def character_sidekick_lose(
    *, character: Character, actor: User, follower: Follower, reason: str
) -> Follower:
    """The sidekick is killed or leaves your service for good (§6.5.2): it stays on
    record as lost, with the reason, and its abilities are no longer yours to use."""
    lock(character)
    _require_play(character)
    sidekick = character.followers.filter(pk=follower.pk, kind=Follower.Kind.SIDEKICK).first()
    if sidekick is None:
        raise ValidationError("That follower is not this character's sidekick.")
    if sidekick.lost:
        raise ValidationError(f"{sidekick.name} is already lost: {sidekick.lost_reason}.")
    reason = reason.strip()
    if not reason:
        raise ValidationError(
            f"§6.5.2: say how {sidekick.name} was lost: killed, or gone from your service."
        )
    state_before = _snapshot(sidekick)
    sidekick.lost_at = timezone.now()
    sidekick.lost_reason = reason
    clean(sidekick)
    sidekick.save(update_fields=["lost_at", "lost_reason"])
    note = f"{sidekick.name} lost: {reason}"
    entries = [
        entry(
            LedgerEntry.Field.NEW_ABILITY,
            row.rating,
            None,
            ability=row,
            ability_name=f"{sidekick.name}: {row.name}",
            note=note,
        )
        for row in sidekick.abilities.all()
    ]
    ledger_step(
        character,
        actor,
        LedgerReason.SIDEKICK_LOST,
        note,
        entries=entries,
        state_before=state_before,
    )
    return sidekick


@transaction.atomic
def character_sidekick_replace(
    *,
    character: Character,
    actor: User,
    name: str,
    origin: str,
    description: str = "",
    abilities: Sequence[tuple[str, int, str]] = (),
) -> Follower:
    """A new sidekick when you have none in service (§6.5.2), without a hero point:
    its (name, rating, kind) abilities as §6.5.1 gives them, and how it came to you."""
    lock(character)
    _require_play(character)
    _require_no_sidekick(character)
    _require_unused_name(character, name)
    origin = _require_origin(name, origin)
    sidekick = Follower(
        owner=character,
        kind=Follower.Kind.SIDEKICK,
        name=name.strip(),
        description=description.strip(),
        origin=origin,
    )
    clean(sidekick)
    sidekick.save()
    entries = _sidekick_abilities(character, sidekick, abilities)
    ledger_step(
        character,
        actor,
        LedgerReason.SIDEKICK_NEW,
        f"{sidekick.name} becomes your sidekick: {origin}",
        entries=entries,
        state_before={"follower": {"id": sidekick.pk, "created": True, "abilities": []}},
    )
    return sidekick


@transaction.atomic
def character_retainer_promote(
    *,
    character: Character,
    actor: User,
    retainer: Follower,
    name: str,
    origin: str,
    description: str = "",
    abilities: Sequence[tuple[str, int, str]] = (),
) -> Follower:
    """A retainer promoted to sidekick when you have none in service (§6.5.2): a name
    and a personality, and §6.5.1's abilities as a new sidekick gets them."""
    lock(character)
    _require_play(character)
    _require_no_sidekick(character)
    follower = character.followers.filter(pk=retainer.pk, kind=Follower.Kind.RETAINER).first()
    if follower is None:
        raise ValidationError("That follower is not one of this character's retainers.")
    _require_unused_name(character, name, besides=follower)
    origin = _require_origin(name, origin)
    state_before = _snapshot(follower)
    was = follower.name
    follower.kind = Follower.Kind.SIDEKICK
    follower.name = name.strip()
    follower.description = description.strip()
    follower.origin = origin
    clean(follower)
    follower.save()
    note = f"{was} promoted to sidekick {follower.name}: {origin}"
    kind = entry(
        LedgerEntry.Field.KIND, None, None, ability_name=was, note="retainer → sidekick (§6.5.2)"
    )
    entries = [kind, *_sidekick_abilities(character, follower, abilities)]
    ledger_step(
        character,
        actor,
        LedgerReason.SIDEKICK_PROMOTED,
        note,
        entries=entries,
        state_before=state_before,
    )
    return follower


def follower_step_revert(character: Character, step: LedgerStep, note: str) -> list[LedgerEntry]:
    """Undo a sidekick step (the caller holds the lock and records the undo): abilities
    the step gave go, a follower it created goes, and one it changed is as it was."""
    saved = saved_state(step)["follower"]
    follower = character.followers.filter(pk=saved["id"]).first()
    if follower is None:
        raise ValidationError("The follower this step changed is gone: it cannot be undone.")
    entries = []
    kept = set(saved["abilities"])
    rows: list[Ability] = list(follower.abilities.all())
    for row in rows:
        if row.pk not in kept:
            entries.append(
                entry(
                    LedgerEntry.Field.NEW_ABILITY,
                    row.rating,
                    None,
                    ability_name=f"{follower.name}: {row.name}",
                    note=note,
                )
            )
            row.delete()
    if saved["created"]:
        follower.delete()
        return entries
    fields = dict(saved["fields"])
    fields["lost_at"] = parse_datetime(fields["lost_at"]) if fields["lost_at"] else None
    if follower.kind != fields["kind"]:
        entries.append(
            entry(
                LedgerEntry.Field.KIND,
                None,
                None,
                ability_name=follower.name,
                note=f"{follower.kind} → {fields['kind']}: {note}",
            )
        )
    if follower.lost and fields["lost_at"] is None:  # back in service, abilities too
        entries += [
            entry(
                LedgerEntry.Field.NEW_ABILITY,
                None,
                row.rating,
                ability=row,
                ability_name=f"{fields['name']}: {row.name}",
                note=note,
            )
            for row in rows
            if row.pk in kept
        ]
    for name, value in fields.items():
        setattr(follower, name, value)
    clean(follower)
    follower.save()
    return entries
