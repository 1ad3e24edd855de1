"""Creating a character (§3, §2.20, §6.5, R16): each change is written, then the whole
sheet is checked by the rules engine and the change rolled back if it brings a problem.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from django.core.exceptions import ValidationError
from django.db import transaction

from campaigns.models import Campaign, Membership, Role
from contests.core.rules import advancement as rules
from contests.core.rules.creation import flaw_ratings
from contests.core.rules.errors import RulesError
from questworlds_site.accounts.models import User

from ..models import (
    Ability,
    AbilityKind,
    Character,
    CreationMethod,
    CreationRole,
    Follower,
    LedgerEntry,
    LedgerReason,
    RelationshipKind,
)
from ..translate import creation_inputs, creation_problems
from .base import (
    clean,
    clean_ability,
    clean_character,
    entry,
    invalid,
    ledger_step,
    lock,
    own_row,
    row_entries,
    row_values,
    rows_of,
)

T = TypeVar("T")

CREATION_FINISHED = (
    "This character's creation is finished: abilities now change through advances, "
    "directed improvements or hero points (§7)."
)


def _check_campaign(player: User, campaign: Campaign | None) -> None:
    if campaign is None:
        return
    if not Membership.objects.filter(campaign=campaign, user=player, role=Role.PLAYER).exists():
        raise ValidationError(
            f"{player} does not play in {campaign.name}: a character joins a campaign its "
            "player plays in."
        )


@transaction.atomic
def character_create(
    *,
    player: User,
    name: str,
    creation_method: str = CreationMethod.AS_YOU_GO,
    concept: str = "",
    campaign: Campaign | None = None,
    traits: Sequence[str] = (),
    portrait: str = "",
) -> Character:
    """Start a character (§3): name, concept, physical traits, and a creation method.

    It starts with the hero points the rules give a new character (R15: 3).
    """
    _check_campaign(player, campaign)
    traits = [*traits, "", "", ""][:3]
    economy = campaign.rules_options.hero_point_economy if campaign else "advances"
    starting = rules.new_character(economy=economy).hero_points
    character = Character(
        name=name.strip(),
        concept=concept.strip(),
        player=player,
        campaign=campaign,
        creation_method=creation_method,
        trait_1=traits[0].strip(),
        trait_2=traits[1].strip(),
        trait_3=traits[2].strip(),
        portrait=portrait.strip(),
        hero_points=starting,
    )
    clean_character(character)  # its player plays in the campaign (`_check_campaign`)
    character.save()
    ledger_step(
        character,
        player,
        LedgerReason.CREATION,
        "a new character",
        entries=[
            entry(
                LedgerEntry.Field.HERO_POINTS,
                None,
                starting,
                note="§2.2, R15: a new character has 3 hero points",
            )
        ],
    )
    return character


DETAIL_FIELDS = ("name", "concept", "trait_1", "trait_2", "trait_3", "portrait", "notes")


@transaction.atomic
def character_details_update(*, character: Character, actor: User, **fields: str) -> Character:
    """Change the words on the sheet: name, concept, traits, portrait, notes."""
    unknown = set(fields) - set(DETAIL_FIELDS)
    if unknown:
        raise ValueError(f"not a detail of a character: {', '.join(sorted(unknown))}")
    lock(character)
    for name, value in fields.items():
        setattr(character, name, value.strip())
    clean_character(character)
    character.save(update_fields=list(fields))
    return character


@transaction.atomic
def character_campaign_join(
    *, character: Character, actor: User, campaign: Campaign | None
) -> Character:
    """Bring the character into a campaign its player plays in (None: leave it)."""
    lock(character)
    _check_campaign(character.player, campaign)
    character.campaign = campaign
    character.save(update_fields=["campaign"])
    return character


def _creation_change(
    character: Character,
    actor: User,
    note: str,
    change: Callable[[list[Ability], list[Follower]], T],
) -> T:
    """Apply `change` to a sheet still being created, then check the whole sheet.

    A change may not bring a problem the sheet did not have (so an as-you-go sheet stays
    valid while incomplete); flaws are re-rated (§3.3) and the ledger records what moved.
    """
    lock(character)
    if character.creation_complete:
        raise ValidationError(CREATION_FINISHED)
    abilities, followers = rows_of(character)
    known = {str(p) for p in creation_problems(character, abilities, followers) if not p.advice}
    before = row_values(abilities)
    result = change(abilities, followers)
    abilities, followers = rows_of(character)
    new = [
        str(p)
        for p in creation_problems(character, abilities, followers)
        if not p.advice and str(p) not in known
    ]
    if new:
        raise ValidationError(new)
    rate_flaws(abilities, followers)
    entries = row_entries(before, abilities, followers, note)
    if entries:
        ledger_step(character, actor, LedgerReason.CREATION, note, entries=entries)
    return result


def rate_flaws(abilities: Sequence[Ability], followers: Sequence[Follower]) -> None:
    """§3.3: flaws take the ratings of the highest, second-highest and lowest abilities."""
    flaws = [a for a in abilities if a.kind == AbilityKind.FLAW]
    if not flaws:
        return
    rules_abilities, kwargs = creation_inputs(abilities, followers)
    try:
        ratings = flaw_ratings(rules_abilities, kwargs["flaws"])
    except RulesError as exc:
        raise invalid(exc) from exc
    for flaw in flaws:
        if flaw.rating != ratings[flaw.name]:
            flaw.rating = ratings[flaw.name]
            flaw.save(update_fields=["rating"])


def _check_kind(
    character: Character,
    rows: Sequence[Ability],
    *,
    kind: str,
    keyword: Ability | None,
    relationship: str,
    rating: int | None,
) -> Ability | None:
    """What the sheet's shape requires of a new ability; returns the fresh keyword row."""
    packages = character.rules_options.keywords == "packages"
    if kind not in AbilityKind.values:
        raise ValidationError(f"{kind!r} is not a kind of ability.")
    if kind != AbilityKind.FLAW and rating is None:
        raise ValidationError("Give the ability a rating (§3.2).")
    if keyword is not None:
        keyword = own_row(rows, keyword, "A keyword")
        if keyword.kind != AbilityKind.KEYWORD:
            raise ValidationError(f"{keyword.name} is not a keyword (§3.3).")
    if kind == AbilityKind.BREAKOUT:
        if packages:
            raise ValidationError(
                "This campaign treats keywords as packages (§3.3): an ability of a keyword's "
                "package has its own rating, not a +N breakout."
            )
        if keyword is None:
            raise ValidationError("A breakout ability sits under one of your keywords (§3.3).")
    elif kind == AbilityKind.STANDALONE and keyword is not None and not packages:
        raise ValidationError(
            "Under an umbrella keyword a specialised ability is a breakout with a +N "
            "bonus (§3.3): choose Breakout."
        )
    elif kind in (AbilityKind.KEYWORD, AbilityKind.RELATIONSHIP) and keyword is not None:
        raise ValidationError("Only breakouts, package abilities and flaws sit under a keyword.")
    if kind == AbilityKind.RELATIONSHIP and relationship not in RelationshipKind.values:
        raise ValidationError(
            "Say what the relationship is: ally, patron, contact, dependent or adversary (§6)."
        )
    return keyword


@transaction.atomic
def character_ability_add(
    *,
    character: Character,
    actor: User,
    name: str,
    kind: str = AbilityKind.STANDALONE,
    rating: int | None = None,
    keyword: Ability | None = None,
    relationship: str = "",
    description: str = "",
    phrase: str = "",
    creation_role: str = "",
) -> Ability:
    """Add an ability, keyword, breakout, flaw or relationship to a sheet in creation.

    Also how an as-you-go character gains an ability on the spot in play (§3.1 step 4).
    A flaw's rating is derived (§3.3); `creation_role` marks the defining ability, the
    distinguishing characteristic or the free keyword (moving the mark if it was set).
    """

    def add(rows: list[Ability], followers: list[Follower]) -> Ability:
        parent = _check_kind(
            character,
            rows,
            kind=kind,
            keyword=keyword,
            relationship=relationship,
            rating=rating,
        )
        if creation_role:
            Ability.objects.filter(character=character, creation_role=creation_role).update(
                creation_role=""
            )
            for row in rows:
                if row.creation_role == creation_role:
                    row.creation_role = ""
        if kind == AbilityKind.FLAW:
            value = 0  # a flaw's rating is derived (§3.3)
        else:
            assert rating is not None, "_check_kind refuses an ability without a rating"
            value = rating
        ability = Ability(
            character=character,
            name=name.strip(),
            kind=kind,
            rating=value,
            keyword=parent,
            relationship=relationship if kind == AbilityKind.RELATIONSHIP else "",
            description=description.strip(),
            phrase=" ".join(phrase.split()),
            creation_role=creation_role,
            position=max((a.position for a in rows), default=0) + 1,
        )
        clean_ability(ability, rows)
        ability.save()
        return ability

    return _creation_change(character, actor, f"added {name.strip()}", add)


@transaction.atomic
def character_ability_update(
    *,
    character: Character,
    actor: User,
    ability: Ability,
    name: str | None = None,
    description: str | None = None,
    rating: int | None = None,
) -> Ability:
    """Rename or describe an ability at any time; re-rate it only during creation
    (afterwards ratings change through advancement, §7)."""
    lock(character)
    row = next((a for a in character.abilities.all() if a.pk == ability.pk), None)
    if row is None:
        raise ValidationError(f"{ability.name} is not on this character's sheet.")
    if rating is not None and rating != row.rating:
        if row.kind == AbilityKind.FLAW:
            raise ValidationError("A flaw's rating comes from your abilities (§3.3).")

        def rerate(rows: list[Ability], followers: list[Follower]) -> None:
            fresh = next(a for a in rows if a.pk == row.pk)
            fresh.rating = rating
            clean_ability(fresh, rows)
            fresh.save(update_fields=["rating"])

        _creation_change(character, actor, f"re-rated {row.name}", rerate)
        row.refresh_from_db()
    if name is not None:
        row.name = name.strip()
    if description is not None:
        row.description = description.strip()
    clean(row)
    row.save(update_fields=["name", "description"])
    return row


@transaction.atomic
def character_ability_remove(*, character: Character, actor: User, ability: Ability) -> None:
    """Take an ability off a sheet in creation (a keyword takes its breakouts along)."""

    def remove(rows: list[Ability], followers: list[Follower]) -> None:
        row = next((a for a in rows if a.pk == ability.pk), None)
        if row is None or row.follower_id is not None:
            raise ValidationError(f"{ability.name} is not one of this character's abilities.")
        row.delete()

    _creation_change(character, actor, f"removed {ability.name}", remove)


@transaction.atomic
def character_concept_set(
    *,
    character: Character,
    actor: User,
    defining: Ability | None = None,
    distinguishing: Ability | None = None,
    free_keyword: Ability | None = None,
) -> None:
    """Mark the two abilities of the concept (17 each, §3.2) and the free keyword (§3.1)."""

    def mark(rows: list[Ability], followers: list[Follower]) -> None:
        chosen = {
            CreationRole.DEFINING: own_row(rows, defining, "The defining ability"),
            CreationRole.DISTINGUISHING: own_row(
                rows, distinguishing, "The distinguishing characteristic"
            ),
            CreationRole.FREE_KEYWORD: own_row(rows, free_keyword, "The free keyword"),
        }
        Ability.objects.filter(character=character).exclude(creation_role="").update(
            creation_role=""
        )
        for role, row in chosen.items():
            if row is not None:
                if row.creation_role:
                    raise ValidationError(
                        f"{row.name} cannot be both the {row.get_creation_role_display().lower()}"
                        f" and the {CreationRole(role).label.lower()} (§3.2)."
                    )
                row.creation_role = role
                row.save(update_fields=["creation_role"])

    _creation_change(character, actor, "concept abilities", mark)


@transaction.atomic
def character_sidekick_set(
    *,
    character: Character,
    actor: User,
    name: str,
    description: str = "",
    abilities: Sequence[tuple[str, int, str]] = (),
) -> Follower:
    """Create or rewrite the sidekick (§6.5.1): its name and its (name, rating, kind)
    abilities, standalone or keyword, 16/13/13 plus 15 points as the engine checks."""

    def write(rows: list[Ability], followers: list[Follower]) -> Follower:
        sidekick = next(
            (f for f in followers if f.kind == Follower.Kind.SIDEKICK and not f.lost), None
        )
        sidekick = sidekick or Follower(owner=character, kind=Follower.Kind.SIDEKICK)
        sidekick.name = name.strip()
        sidekick.description = description.strip()
        clean(sidekick)
        sidekick.save()
        existing = [a for a in rows if a.follower_id == sidekick.pk]
        write_sidekick_abilities(character, sidekick, existing, abilities)
        return sidekick

    return _creation_change(character, actor, f"sidekick {name.strip()}", write)


def write_sidekick_abilities(
    character: Character,
    sidekick: Follower,
    existing: Sequence[Ability],
    abilities: Sequence[tuple[str, int, str]],
) -> list[Ability]:
    """Write the sidekick's (name, rating, kind) abilities over its `existing` rows
    (§6.5.1: standalone abilities or keywords); the rows left over go."""
    written = []
    for position, (ability_name, rating, kind) in enumerate(abilities):
        if kind not in (AbilityKind.STANDALONE, AbilityKind.KEYWORD):
            raise ValidationError(
                f"{sidekick.name}'s abilities are standalone abilities or keywords (§6.5.1)."
            )
        if position < len(existing):
            row = existing[position]
        else:
            row = Ability(character=character, follower=sidekick)
        row.name, row.rating, row.kind, row.position = (
            ability_name.strip(),
            rating,
            kind,
            position,
        )
        clean(row)
        row.save()
        written.append(row)
    for row in existing[len(abilities) :]:
        row.delete()
    return written


@transaction.atomic
def character_follower_add(
    *, character: Character, actor: User, name: str, description: str = ""
) -> Follower:
    """A retainer (§6.5.3): a helper or staff, used through an ability to augment."""
    lock(character)
    follower = Follower(
        owner=character, kind=Follower.Kind.RETAINER, name=name.strip(), description=description
    )
    clean(follower)
    follower.save()
    return follower


@transaction.atomic
def character_follower_remove(*, character: Character, actor: User, follower: Follower) -> None:
    """A follower leaves (a lost sidekick takes its abilities along, §6.5.2)."""
    lock(character)
    leaving = character.followers.filter(pk=follower.pk).first()
    if leaving is None:
        raise ValidationError("That follower does not follow this character.")
    rows = list(leaving.abilities.all())
    before = row_values(rows)
    label = {a.pk: f"{leaving.name}: {a.name}" for a in rows}
    leaving.delete()
    if rows:
        note = f"{leaving.name} left"
        entries = [
            entry(LedgerEntry.Field.NEW_ABILITY, rating, None, ability_name=label[pk], note=note)
            for pk, (_, rating) in before.items()
        ]
        reason = LedgerReason.CREATION if not character.creation_complete else LedgerReason.FOLLOWER
        ledger_step(character, actor, reason, note, entries=entries)


@transaction.atomic
def character_prose_set(*, character: Character, actor: User, prose: str) -> Character:
    """The prose method's paragraph (§3.6); the phrases already taken must still occur."""

    def write(rows: list[Ability], followers: list[Follower]) -> Character:
        character.prose = prose.strip()
        clean_character(character)  # locked by `_creation_change`
        character.save(update_fields=["prose"])
        return character

    return _creation_change(character, actor, "prose", write)


@transaction.atomic
def character_creation_finish(*, character: Character, actor: User) -> Character:
    """Close creation once the engine finds no problem with the finished sheet (§3.1
    step 6: 12 abilities; the list method spends all 20 points, §2.20.1)."""
    lock(character)
    if character.creation_complete:
        raise ValidationError("This character's creation is already finished.")
    abilities, followers = rows_of(character)
    problems = [
        str(p)
        for p in creation_problems(character, abilities, followers, finished=True)
        if not p.advice
    ]
    if problems:
        raise ValidationError(problems)
    character.creation_complete = True
    character.save(update_fields=["creation_complete"])
    return character
