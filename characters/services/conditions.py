"""States of adversity and fortune on a character's abilities (§2.11, R10)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from contests.core.rules.errors import RulesError
from contests.core.rules.outcomes import (
    apply_benefit,
    apply_consequence,
    contest_of_wherewithal,
    healed_state,
    read_wane_at,
    update_abilities,
    wane,
)
from contests.core.rules.simple import DEGREES, describe_level
from contests.core.rules.states import BENEFIT_OF_VICTORY, CONSEQUENCE_OF_DEFEAT, State, parse_state
from questworlds_site.accounts.models import User
from questworlds_site.sql import insert_family

from ..models import (
    Ability,
    AbilityKind,
    Character,
    Condition,
)
from ..selectors import active_conditions_of
from .base import clean, invalid, lock

# A state of the consequence and benefit tables is recorded as a defeat or a victory of
# its degree (so a defeat ends freshness, §2.11.2.1); dead has no table row.
_DEFEAT_LEVEL = {state: -(DEGREES.index(d) + 1) for d, state in CONSEQUENCE_OF_DEFEAT.items()}
_VICTORY_LEVEL = {state: DEGREES.index(d) + 1 for d, state in BENEFIT_OF_VICTORY.items()}


def _record_state(states: tuple[State, ...], state: State) -> tuple[State, ...]:
    if state in _DEFEAT_LEVEL:
        return apply_consequence(states, _DEFEAT_LEVEL[state])
    if state in _VICTORY_LEVEL:
        return apply_benefit(states, _VICTORY_LEVEL[state])
    return (*states, state)


def _end_condition(condition: Condition, actor: User, reason: str) -> None:
    condition.ended_at = timezone.now()
    condition.ended_by = actor
    condition.end_reason = reason[:200]
    condition.save(update_fields=["ended_at", "ended_by", "end_reason"])


def _active_condition(character: Character, condition: Condition) -> Condition:
    found = (
        character.conditions.filter(pk=condition.pk, ended_at__isnull=True)
        .prefetch_related("abilities")
        .first()
    )
    if found is None:
        raise ValidationError("That condition is not active on this character.")
    return found


def character_condition_apply(
    *,
    character: Character,
    actor: User,
    state: State | str,
    abilities: Sequence[Ability],
    cause: str = "",
    contest_id: int | None = None,
    held: bool = False,
) -> Condition:
    """Record a state of adversity or fortune against the abilities it affects (§2.11,
    R10). States stack; recording a defeat's state ends freshness on those abilities.

    With `held`, the caller holds the character's row already (`locked_character`) in
    its own transaction (a contest's consequences) and read `abilities`, the character's
    own rows, after taking the lock: neither is read again, and there is no savepoint of
    its own, so a refusal here must roll the caller back (as a contest's action does
    with any refusal)."""
    try:
        state = parse_state(state)
    except RulesError as exc:
        raise invalid(exc) from exc
    wanted = {a.pk for a in abilities}
    if held:
        if not transaction.get_connection().in_atomic_block:
            raise RuntimeError("a state is recorded on a locked row, inside a transaction")
        rows = [a for a in abilities if a.character_id == character.pk]
        return _record_condition(character, actor, state, rows, len(wanted), cause, contest_id)
    with transaction.atomic():
        lock(character)
        rows = list(character.abilities.filter(pk__in=wanted))
        return _record_condition(character, actor, state, rows, len(wanted), cause, contest_id)


def _record_condition(
    character: Character,
    actor: User,
    state: State,
    rows: list[Ability],
    wanted: int,
    cause: str,
    contest_id: int | None,
) -> Condition:
    """Record `state` on `rows`, the character's abilities read under its lock (as many
    as the `wanted` abilities, none of them a flaw)."""
    rows = [a for a in rows if a.kind != AbilityKind.FLAW]
    if not rows or len(rows) != wanted:
        raise ValidationError(
            "Choose the abilities the state affects (§2.11): abilities of this character."
        )
    read = [active_conditions_of(row) for row in rows]  # read with the rows, if they were
    if all(conditions is not None for conditions in read):
        held = {row.pk: conditions or [] for row, conditions in zip(rows, read, strict=True)}
    else:
        active = list(
            character.conditions.filter(ended_at__isnull=True, abilities__in=rows)
            .distinct()
            .prefetch_related("abilities")
        )
        held = {row.pk: [c for c in active if row in c.abilities.all()] for row in rows}
    current = {str(row.pk): tuple(State(c.state) for c in held[row.pk]) for row in rows}
    after = update_abilities(current, list(current), _record_state, state)
    for row in rows:
        kept = list(after.get(str(row.pk), ()))
        kept.reverse()
        kept.remove(state)  # the state just recorded
        lost = Counter(current[str(row.pk)]) - Counter(kept)
        for gone, count in lost.items():
            for condition in [c for c in held[row.pk] if c.state == gone][:count]:
                condition.abilities.remove(row)
                if not condition.abilities.exists():
                    _end_condition(condition, actor, f"ended by a defeat: {cause}".strip(": "))
    condition = Condition(
        character=character,
        state=state.value,
        cause=cause.strip(),
        contest_id=contest_id,
        applied_by=actor,
    )
    # The character is the row locked above and the actor the one acting: their
    # foreign keys need no query to prove they exist.
    clean(condition, exclude=("character", "applied_by"))
    # The condition and the abilities it falls on, in one statement on PostgreSQL.
    linked = [Condition.abilities.through(ability_id=row.pk) for row in rows]
    insert_family(condition, [("condition", linked)])
    return condition


@transaction.atomic
def character_condition_heal(
    *, character: Character, actor: User, condition: Condition, outcome: int, reason: str = ""
) -> Condition | None:
    """A healing attempt's outcome on a state of adversity (§2.11.3, R10): each degree
    of victory removes a step, a major defeat worsens it one, a complete defeat two.
    Returns the condition the abilities now hold (None when healed)."""
    lock(character)
    condition = _active_condition(character, condition)
    if condition.doomed:
        # §2.11.1.5: "the character typically has just enough time left for the other
        # characters to make this one attempt"; a failed one dooms them.
        raise ValidationError(
            f"{character.name} is doomed: the one attempt to save them failed (§2.11.1.5). "
            "Only a final action remains, after a contest of wherewithal."
        )
    try:
        after = healed_state(condition.state, outcome)
        how = describe_level(outcome)
    except RulesError as exc:
        raise invalid(exc) from exc
    # §2.11.1.5, R18.7: a failed intervention leaves the dying PC doomed (recorded).
    doomed = after is State.DYING and condition.state == State.DYING.value
    if after is not None and after.value == condition.state and not doomed:
        return condition
    fate = "; doomed: a final action at most (§2.11.1.5)" if doomed else ""
    why = f"healing, {how}{fate}" + (f": {reason.strip()}" if reason.strip() else "")
    _end_condition(condition, actor, why)
    if after is None:
        return None
    replacement = Condition.objects.create(
        character=character,
        state=after.value,
        cause=f"{condition.get_state_display().lower()}, then {why}"[:200],
        contest_id=condition.contest_id,
        applied_by=actor,
        doomed=doomed,
    )
    replacement.abilities.set(condition.abilities.all())
    return replacement


@transaction.atomic
def character_wherewithal(
    *,
    character: Character,
    actor: User,
    condition: Condition,
    outcome: int,
    waive_bump: bool = False,
    reason: str = "",
) -> Condition:
    """A doomed character's contest of wherewithal, against a moderate resistance
    (§2.11.1.5): a victory rouses them to one final action (a bump down on related
    abilities, which the GM may waive after a major or complete victory); a tie or a
    defeat leaves them none. One try. Returns the condition, its `final_action` set."""
    lock(character)
    condition = _active_condition(character, condition)
    if not condition.doomed:
        raise ValidationError(
            "A contest of wherewithal is for a doomed character: one whose saving "
            "intervention failed (§2.11.1.5)."
        )
    if condition.final_action:
        raise ValidationError(
            f"{character.name} has had their contest of wherewithal: "
            f"{condition.get_final_action_display().lower()}."
        )
    try:
        result = contest_of_wherewithal(outcome, waive_bump=waive_bump)
        how = describe_level(outcome)
    except RulesError as exc:
        raise invalid(exc) from exc
    if not result.roused:
        condition.final_action = Condition.FinalAction.REFUSED
    elif result.bump_down:
        condition.final_action = Condition.FinalAction.BUMP
    else:
        condition.final_action = Condition.FinalAction.CLEAN
    note = f"; contest of wherewithal, {how}: {result.describe}"
    if reason.strip():
        note += f" ({reason.strip()})"
    condition.cause = (condition.cause + note)[:200]
    condition.save(update_fields=["final_action", "cause"])
    return condition


@transaction.atomic
def character_conditions_wane(
    *, character: Character, actor: User, at: str = "session_end", reason: str = ""
) -> list[Condition]:
    """States that lapse with time (§2.11.4): hurt and fresh at a session's end, all
    benefits too at a storyline's end. Returns the conditions that ended."""
    lock(character)
    ended = []
    for condition in character.conditions.filter(ended_at__isnull=True):
        try:
            remaining = wane((condition.state,), at=read_wane_at(at))
        except RulesError as exc:
            raise invalid(exc) from exc
        if not remaining:
            place = "session" if at == "session_end" else "storyline"
            _end_condition(
                condition, actor, f"waned at the {place}'s end" + (f": {reason}" if reason else "")
            )
            ended.append(condition)
    return ended


@transaction.atomic
def character_condition_clear(
    *, character: Character, actor: User, condition: Condition, reason: str
) -> Condition:
    """The GM ends a condition for a reason of the story."""
    if not reason.strip():
        raise ValidationError("Say why the condition ends.")
    lock(character)
    condition = _active_condition(character, condition)
    _end_condition(condition, actor, reason.strip())
    return condition
