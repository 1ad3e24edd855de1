"""Read-side helpers: the sheet, the roster and the export, each in a fixed number of
queries whatever the number of abilities, conditions or ledger steps."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, JSONField, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import JSONObject

from campaigns.models import Campaign
from contests.core.rules import Rating
from contests.core.rules.advancement import catch_up_candidates
from contests.core.rules.creation import points_spent
from contests.core.rules.modifiers import FINAL_ACTION, flaw_penalty, target_number
from contests.core.rules.outcomes import can_act
from contests.core.rules.states import State
from questworlds_site.sql import JSONList

from .models import (
    UNDOABLE_REASONS,
    Ability,
    AbilityKind,
    Character,
    Condition,
    Follower,
    LedgerEntry,
    LedgerReason,
    LedgerStep,
)
from .translate import creation_inputs, creation_problems, is_own_ability, rules_sheet

# The character export's format: this module writes it, services.character_import reads it.
EXPORT_FORMAT = "questworlds-table/character"
EXPORT_VERSION = 1

HISTORY_STEPS = 50  # the sheet shows the latest steps; the export and admin keep all


@dataclass
class AbilityLine:
    """One line of the sheet: an ability, its rating, and its TN with conditions."""

    ability: Ability
    total: int
    states: list[str] = field(default_factory=list)
    tn: str = ""  # e.g. "17 -3 (hurt) = 14"
    tn_rating: str = ""
    blocked: str = ""  # why the ability cannot be used (dying, dead)
    points: int | None = None  # extra points at creation (§3.2)
    penalty: int | None = None  # a flaw used as a penalty (§3.3)
    children: list[AbilityLine] = field(default_factory=list)

    @property
    def rating_text(self) -> str:
        if self.ability.kind == AbilityKind.BREAKOUT:
            return f"{self.ability.rating:+d} ({Rating(self.total)})"
        return str(Rating(self.total))

    @property
    def conditioned(self) -> bool:
        return bool(self.states)


def ability_rating(ability: Ability) -> int:
    """The rating a character rolls with this ability (§3.3): a breakout (keywords as an
    umbrella) is its keyword's rating plus its bonus ("Detective 17 Forensics +2": 19).
    Any other row is rated on its own: with keywords as packages an ability of a
    keyword's package that is written on the sheet has its own rating (it names its
    package in `keyword` but does not add to it), and a flaw that came with a keyword
    has its own rating too (§3.3 Flaws)."""
    # §3.3
    if ability.kind == AbilityKind.BREAKOUT and ability.keyword is not None:
        return ability.keyword.rating + ability.rating
    return ability.rating


def with_active_conditions(abilities: QuerySet[Ability]) -> QuerySet[Ability]:
    """The abilities with their active conditions, in their own statement (a JSON list
    each, `active_conditions_of`), where a second query would read them."""
    active = (
        Condition.objects.filter(abilities=OuterRef("pk"), ended_at__isnull=True)
        .order_by()
        .annotate(
            rows=JSONList(
                JSONObject(
                    id="id",
                    created_at="created_at",
                    state="state",
                    doomed="doomed",
                    final_action="final_action",
                )
            )
        )
        .values("rows")
    )
    return abilities.annotate(active_conditions=Subquery(active, output_field=JSONField()))


def active_conditions_of(ability: Ability) -> list[Condition] | None:
    """The ability's active conditions in their order (created, then id), as read
    `with_active_conditions`: rows enough to name, compare and end them. None if the
    ability was not read so."""
    read: Any = getattr(ability, "active_conditions", False)  # None: read, there are none
    if read is False:
        return None
    found: list[dict[str, Any]] = read or []
    rows = sorted(found, key=lambda r: (str(r["created_at"]), r["id"]))
    return [
        Condition(
            id=r["id"],
            character_id=ability.character_id,
            state=r["state"],
            doomed=bool(r["doomed"]),
            final_action=r["final_action"],
        )
        for r in rows
    ]


def ability_states(ability: Ability, active: Iterable[Condition] | None = None) -> list[str]:
    """The states of adversity and fortune now recorded against this ability. A doomed
    character roused to a final action (§2.11.1.5) acts despite dying: with a bump down
    (the state and FINAL_ACTION), or none when the GM waived it (the state left out).
    `active`: its active conditions in order, when the caller read them already."""
    states = []
    if active is None:
        active = ability.conditions.filter(ended_at__isnull=True)
    for condition in active:
        if condition.grants_final_action:
            if condition.final_action == Condition.FinalAction.BUMP:
                states += [condition.state, FINAL_ACTION]
            continue
        states.append(condition.state)
    return states


def _line(
    ability: Ability,
    total: int,
    conditions: list[Condition],
    points: dict[str, int] | None = None,
) -> AbilityLine:
    states: list[State | str] = [State(c.state) for c in conditions]
    line = AbilityLine(ability, total, [c.get_state_display() for c in conditions])
    if points is not None and is_own_ability(ability):
        line.points = points.get(ability.name)
    if not states:
        return line
    final = [c for c in conditions if c.grants_final_action]
    if final:
        # §2.11.1.5: roused to a final action: dying is a bump down, or nothing if waived.
        bump = any(c.final_action == Condition.FinalAction.BUMP for c in final)
        states = [s for s in states if s is not State.DYING] + (
            [State.DYING, FINAL_ACTION] if bump else []
        )
    elif not can_act(states):
        line.blocked = (
            "dead" if State.DEAD in states else "dying: no action but a final action (§2.11.1.5)"
        )
        return line
    tn = target_number(total, states=states)
    line.tn, line.tn_rating = tn.describe, str(tn.rating)
    if tn.bumps:
        line.tn_rating += f" +{tn.bumps} bump" if tn.bumps > 0 else f" {tn.bumps} bump"
    return line


def sheet_context(character: Character, access) -> dict:
    """Everything the sheet shows, read in a bounded number of queries."""
    abilities = list(character.abilities.all())
    followers = list(character.followers.all())
    active = list(
        character.conditions.filter(ended_at__isnull=True)
        .select_related("applied_by")
        .prefetch_related(Prefetch("abilities", queryset=Ability.objects.only("id", "name")))
    )
    steps = list(
        character.ledger.select_related("actor", "undone_by")
        .prefetch_related(
            Prefetch("entries", queryset=LedgerEntry.objects.select_related("ability"))
        )
        .order_by("-created_at", "-id")[:HISTORY_STEPS]
    )
    sheet = rules_sheet(character, abilities)
    engine = sheet.character

    # A state recorded against a keyword also bears on its breakouts, whose rating is
    # the keyword's plus a bonus (§3.3); each condition counts once.
    held: dict[int, list[Condition]] = {a.pk: [] for a in abilities}
    for condition in active:
        for ability in condition.abilities.all():
            held.setdefault(ability.pk, []).append(condition)
    for ability in abilities:
        if ability.kind == AbilityKind.BREAKOUT:
            assert ability.keyword_id is not None, "a breakout belongs to a keyword (§3.3)"
            kept = held[ability.pk]
            held[ability.pk] = kept + [c for c in held[ability.keyword_id] if c not in kept]

    points = None
    if not character.creation_complete:
        rules_abilities, kwargs = creation_inputs(abilities, followers)
        points = points_spent(
            rules_abilities, defining=kwargs["defining"], distinguishing=kwargs["distinguishing"]
        )

    def line(ability: Ability) -> AbilityLine:
        total = engine.total(ability.name) if is_own_ability(ability) else ability.rating
        return _line(ability, total, held[ability.pk], points)

    own = [a for a in abilities if a.follower_id is None]
    keywords = [line(a) for a in own if a.kind == AbilityKind.KEYWORD]
    by_keyword = {k.ability.pk: k for k in keywords}
    standalone, relationships, flaws = [], [], []
    for ability in own:
        if ability.kind == AbilityKind.KEYWORD:
            continue
        if ability.kind == AbilityKind.FLAW:
            flaw = line(ability)
            flaw.penalty = flaw_penalty(ability.rating)
            flaws.append(flaw)
        elif ability.kind == AbilityKind.RELATIONSHIP:
            relationships.append(line(ability))
        elif ability.keyword_id is not None:  # a breakout, or an ability of a package
            by_keyword[ability.keyword_id].children.append(line(ability))
        else:
            standalone.append(line(ability))

    # Only the sidekick in service lends its abilities (§6.5.1); a lost one is history.
    sidekicks = [f for f in followers if f.kind == Follower.Kind.SIDEKICK]
    sidekick = next((f for f in sidekicks if not f.lost), None)
    sidekick_lines = [line(a) for a in abilities if sidekick and a.follower_id == sidekick.pk]
    retainers = [f for f in followers if f.kind == Follower.Kind.RETAINER]

    catch_ups = []
    for offer in engine.catch_ups:
        candidates = [sheet.row(name) for name in catch_up_candidates(engine, offer.trigger)]
        catch_ups.append(
            {
                "trigger": sheet.row(offer.trigger),
                "rating": Rating(offer.rating),
                "candidates": candidates,
            }
        )

    context = {
        "character": character,
        "access": access,
        "options": character.rules_options,
        "keywords": keywords,
        "standalone": standalone,
        "relationships": relationships,
        "flaws": flaws,
        "sidekick": sidekick,
        "sidekick_lines": sidekick_lines,
        "retainers": retainers,
        "lost_sidekicks": [f for f in sidekicks if f.lost],
        "conditions": active,
        "catch_ups": catch_ups,
        "steps": steps,
        "undoable": undoable_step(character) if access.can_direct else None,
        "dead": any(c.state == State.DEAD for c in active),
        "prose_phrases": [
            {"phrase": a.phrase, "keyword": a.kind == AbilityKind.KEYWORD}
            for a in abilities
            if a.phrase
        ],
    }
    if not character.creation_complete:
        context.update(creation_summary(character, abilities, followers, points or {}))
    return context


def creation_summary(
    character: Character,
    abilities: list[Ability],
    followers: list[Follower],
    points: dict[str, int],
) -> dict:
    """Where a sheet in creation stands: the engine's problems now, what finishing
    still needs, and the points spent (§3.2)."""
    now = creation_problems(character, abilities, followers)
    to_finish = creation_problems(character, abilities, followers, finished=True)
    problems = [p for p in now if not p.advice]
    return {
        "problems": problems,
        "advice": [p for p in now if p.advice],
        "to_finish": [p for p in to_finish if not p.advice and p not in problems],
        "points_spent": sum(max(p, 0) for p in points.values()),
        "can_finish": not any(not p.advice for p in to_finish),
    }


def characters_of_player(user) -> QuerySet[Character]:
    """My characters: each with its campaign and its count of active conditions."""
    return (
        Character.objects.filter(player=user)
        .select_related("campaign")
        .annotate(
            active_conditions=Count("conditions", filter=Q(conditions__ended_at__isnull=True))
        )
        .order_by("name", "id")
    )


def campaign_roster(campaign: Campaign) -> QuerySet[Character]:
    """The GM's roster: every character of the campaign with its player and state."""
    return (
        campaign.characters.select_related("player")
        .annotate(
            active_conditions=Count("conditions", filter=Q(conditions__ended_at__isnull=True)),
            ability_count=Count(
                "abilities",
                filter=Q(abilities__follower__isnull=True) & ~Q(abilities__kind="flaw"),
            ),
        )
        .order_by("name", "id")
    )


def character_export(character: Character) -> dict:
    """The character as JSON (services.character_import reads it back): the sheet,
    its followers, hero points, XP and catch-ups on offer; not its campaign, session,
    conditions or history, which belong to the table it played at."""
    abilities = list(character.abilities.all())
    by_id = {a.pk: a for a in abilities}

    def ability_json(a: Ability) -> dict:
        data = {
            "name": a.name,
            "kind": a.kind,
            "rating": a.rating,
            "keyword": by_id[a.keyword_id].name if a.keyword_id else None,
            "relationship": a.relationship,
            "description": a.description,
            "phrase": a.phrase,
        }
        if a.follower_id is None:
            data["creation_role"] = a.creation_role
        return data

    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "name": character.name,
        "concept": character.concept,
        "traits": [character.trait_1, character.trait_2, character.trait_3],
        "portrait": character.portrait,
        "creation_method": character.creation_method,
        "creation_complete": character.creation_complete,
        "prose": character.prose,
        "notes": character.notes,
        "hero_points": character.hero_points,
        "experience_points": character.experience_points,
        "experience_earned": character.experience_earned,
        "abilities": [ability_json(a) for a in abilities if a.follower_id is None],
        "followers": [
            {
                "kind": f.kind,
                "name": f.name,
                "description": f.description,
                "origin": f.origin,
                "lost_at": f.lost_at.isoformat() if f.lost_at else None,
                "lost_reason": f.lost_reason,
                "abilities": [ability_json(a) for a in abilities if a.follower_id == f.pk],
            }
            for f in character.followers.all()
        ],
        "catch_ups": [
            {"ability": by_id[offer["ability"]].name, "rating": offer["rating"]}
            for offer in character.catch_ups
            if offer["ability"] in by_id
        ],
    }


def undoable_step(character: Character) -> LedgerStep | None:
    """The step the GM may undo: the latest one still standing, if it is a step of play
    or advancement (creation and imports are not undone, nor undos)."""
    latest = (
        character.ledger.filter(undone_at__isnull=True)
        .exclude(reason=LedgerReason.UNDO)
        .order_by("-created_at", "-id")
        .first()
    )
    return latest if latest is not None and latest.reason in UNDOABLE_REASONS else None
