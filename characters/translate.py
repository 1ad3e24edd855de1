"""Translation between the sheet's rows and the rules engine's values (contests.core.rules).

The engine knows abilities by name; the database by id. `RulesSheet` carries both
ways, so services can hand the engine a `Character` and write its answer back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from contests.core.rules.advancement import Ability as RulesAbility
from contests.core.rules.advancement import AbilityKind as RulesAbilityKind
from contests.core.rules.advancement import CatchUp
from contests.core.rules.advancement import Character as RulesCharacter
from contests.core.rules.advancement import sidekick_raise_cost as rules_sidekick_raise_cost
from contests.core.rules.creation import (
    Flaw,
    Problem,
    Sidekick,
    check_prose,
    read_method,
    validate_character,
)

from .models import Ability, AbilityKind, Character, CreationRole, Follower

# The engine's kinds: a relationship is an ability like any other (§6), and with
# keywords as packages an ability of a package is a standalone ability (§3.3).
RULES_KIND: dict[str, RulesAbilityKind] = {
    AbilityKind.STANDALONE: "standalone",
    AbilityKind.RELATIONSHIP: "standalone",
    AbilityKind.KEYWORD: "keyword",
    AbilityKind.BREAKOUT: "breakout",
}


def sidekick_kind(ability: Ability) -> RulesAbilityKind:
    """The engine's kind of a sidekick's ability: a keyword or standalone (§6.5.1)."""
    return "keyword" if ability.kind == AbilityKind.KEYWORD else "standalone"


def sidekick_raise_cost(character: Character, ability: Ability) -> int:
    """The hero points +1 to this ability of the sidekick costs the character (§6.5.1),
    as one of the PC's own would."""
    engine = RulesCharacter(keywords=character.rules_options.keywords)
    return rules_sidekick_raise_cost(engine, sidekick_kind(ability))


def is_own_ability(ability: Ability) -> bool:
    """An ability of the character itself: not a flaw, not a sidekick's."""
    return ability.follower_id is None and ability.kind != AbilityKind.FLAW


def to_rules_ability(
    ability: Ability, names: dict[int, str], rating: int | None = None, kind: str | None = None
) -> RulesAbility:
    kind = kind or ability.kind
    keyword = None
    if kind == AbilityKind.BREAKOUT:
        assert ability.keyword_id is not None, "a breakout belongs to a keyword (§3.3)"
        keyword = names[ability.keyword_id]
    return RulesAbility(
        ability.name, ability.rating if rating is None else rating, RULES_KIND[kind], keyword
    )


@dataclass(frozen=True)
class RulesSheet:
    """A character as the advancement rules see it, with the rows behind each name."""

    character: RulesCharacter
    rows: dict[str, Ability]  # casefolded name -> row

    def row(self, name: str) -> Ability:
        return self.rows[name.casefold()]


def rules_sheet(
    character: Character, abilities: Sequence[Ability], *, state: dict | None = None
) -> RulesSheet:
    """The engine's `Character` for `character`, from its rows and stored counters.

    With `state` (a ledger step's `state_before`), the ratings, kinds and counters are
    the saved ones, and abilities created since are left out: what an undo restores. A
    state that kept no abilities (a hero point spent changed none) keeps them as they are.
    """
    own = [a for a in abilities if is_own_ability(a)]
    values = {a.pk: (a.rating, a.kind) for a in own}
    counters = counters_of(character)
    if state is not None:
        if state.get("abilities") is not None:
            saved = {int(pk): row for pk, row in state["abilities"].items()}
            own = [a for a in own if a.pk in saved]
            values = {pk: (row["rating"], row["kind"]) for pk, row in saved.items()}
        counters = state["character"]
    names = {a.pk: a.name for a in own}
    engine = RulesCharacter(
        abilities=tuple(to_rules_ability(a, names, *values[a.pk]) for a in own),
        **_counted(character, counters),
        raised_this_session=tuple(
            names[pk] for pk in counters["raised_this_session"] if pk in names
        ),
        catch_ups=tuple(
            CatchUp(names[offer["ability"]], offer["rating"])
            for offer in counters["catch_ups"]
            if offer["ability"] in names
        ),
    )
    return RulesSheet(engine, {a.name.casefold(): a for a in own})


def counters_sheet(character: Character) -> RulesCharacter:
    """The engine's `Character` for a step that needs only the counters (a hero point
    spent, §2.3.5.5): no abilities, so none are read. What the engine says of the
    abilities and of what they name (the abilities raised this session, the catch-ups
    on offer) is then not to be written back."""
    return RulesCharacter(**_counted(character, counters_of(character)))


def _counted(character: Character, counters: dict[str, Any]) -> dict[str, Any]:
    """The engine's `Character` fields that come from the campaign's options and the
    stored counters (§2.3.5, §2.12), whatever else a sheet carries."""
    return {
        "economy": character.rules_options.hero_point_economy,
        "keywords": character.rules_options.keywords,
        "hero_points": counters["hero_points"],
        "experience": counters["experience_points"],
        "experience_earned": counters["experience_earned"],
        "in_session": counters["in_session"],
        "awarded_this_session": counters["awarded_this_session"],
    }


COUNTERS = (
    "hero_points",
    "experience_points",
    "experience_earned",
    "in_session",
    "awarded_this_session",
    "raised_this_session",
    "catch_ups",
)


def counters_of(character: Character) -> dict:
    return {name: getattr(character, name) for name in COUNTERS}


def state_snapshot(character: Character, abilities: Sequence[Ability]) -> dict:
    """What a step may overwrite, for its undo: counters and each own ability's rating."""
    return {
        "character": counters_of(character),
        "abilities": {
            str(a.pk): {"rating": a.rating, "kind": a.kind, "relationship": a.relationship}
            for a in abilities
            if is_own_ability(a)
        },
    }


# --------------------------------------------------------------------- creation (§3)


def _role_name(abilities: Sequence[Ability], role: str) -> str | None:
    return next((a.name for a in abilities if a.creation_role == role), None)


def to_rules_sidekick(follower: Follower, abilities: Sequence[Ability]) -> Sidekick:
    """The engine's `Sidekick` (§6.5.1): the follower's name and its abilities' rows."""
    return Sidekick(
        follower.name,
        tuple(
            RulesAbility(a.name, a.rating, RULES_KIND[a.kind])
            for a in abilities
            if a.follower_id == follower.pk
        ),
    )


def creation_inputs(
    abilities: Sequence[Ability], followers: Sequence[Follower]
) -> tuple[list[RulesAbility], dict]:
    """The arguments of `validate_character` for these rows (see creation.py)."""
    own = [a for a in abilities if is_own_ability(a)]
    by_id = {a.pk: a for a in abilities}
    flaws = [
        Flaw(a.name, keyword=by_id[a.keyword_id].name if a.keyword_id else None)
        for a in abilities
        if a.kind == AbilityKind.FLAW
    ]
    # A lost sidekick (§6.5.2) is history: it no longer fills one of the 12.
    sidekicks = [
        to_rules_sidekick(f, abilities)
        for f in followers
        if f.kind == Follower.Kind.SIDEKICK and not f.lost
    ]
    kwargs = {
        "defining": _role_name(own, CreationRole.DEFINING),
        "distinguishing": _role_name(own, CreationRole.DISTINGUISHING),
        "free_keyword": _role_name(own, CreationRole.FREE_KEYWORD),
        "flaws": flaws,
        "sidekicks": sidekicks,
    }
    names = {a.pk: a.name for a in own}
    return [to_rules_ability(a, names) for a in own], kwargs


def creation_problems(
    character: Character,
    abilities: Sequence[Ability],
    followers: Sequence[Follower],
    *,
    finished: bool = False,
) -> list[Problem]:
    """Every problem the rules engine finds with the sheet (§3, §2.20, R16), plus the
    prose checks (§3.6) for a prose character."""
    rules_abilities, kwargs = creation_inputs(abilities, followers)
    problems = validate_character(
        rules_abilities, method=read_method(character.creation_method), finished=finished, **kwargs
    )
    if character.creation_method == "prose":
        phrases = [a.phrase for a in abilities if a.phrase]
        problems += check_prose(character.prose, phrases)
    return problems
