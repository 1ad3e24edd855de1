"""Improving a character: advances (§7.1), catch-ups (§7.1.1), directed improvements
(§7.1.2) and the classic economy's HP purchases (1e §6.2, §6.4).

Every improvement that lifts an ability over a mastery threshold offers a catch-up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..errors import RulesError
from ..ratings import Rating
from .character import (
    ADVANCE_COST,
    CATCH_UP_ABILITIES,
    CATCH_UP_BONUS,
    CATCH_UP_GAP,
    CLASSIC_NEW_ABILITY_COST,
    CLASSIC_RAISE_COST,
    DIRECTED_AMOUNTS,
    NEW_ABILITY_RATING,
    NEW_BREAKOUT_BONUS,
    Ability,
    AbilityKind,
    CatchUp,
    Change,
    Character,
    Step,
    _pay,
    _require_economy,
)

# --------------------------------------------------------------------- advances (§7.1)

ADVANCE_OPTIONS: dict[str, str] = {
    "plus_9": "+9 to a standalone or breakout ability, or +6 to a keyword",
    "plus_6": "+6 to a standalone or breakout ability, or +3 to a keyword",
    "new_ability_or_breakout": "a new standalone ability at 13, or a new breakout ability at +1",
    "new_ability": "a new standalone ability at 13",
    "new_keyword": "turn a standalone ability into a keyword by adding a new +1 breakout to it",
}
"""§7.1: the five options of an advance, in the text's order."""

_RAISES = {
    "plus_9": {"standalone": 9, "breakout": 9, "keyword": 6},
    "plus_6": {"standalone": 6, "breakout": 6, "keyword": 3},
}


@dataclass(frozen=True, slots=True)
class AdvanceChoice:
    """One of the two options of an advance (§7.1).

    - `plus_9` / `plus_6`: `ability` is the ability to raise.
    - `new_ability_or_breakout`: `ability` is the new name; give `keyword` to make it a
      breakout at +1 under that keyword, else it is a standalone ability at 13.
    - `new_ability`: `ability` is the new standalone ability's name.
    - `new_keyword`: `ability` is the standalone ability that becomes a keyword and
      `breakout` the name of its new +1 breakout.
    """

    option: str
    ability: str
    keyword: str | None = None
    breakout: str | None = None

    def __post_init__(self) -> None:
        if self.option not in ADVANCE_OPTIONS:
            raise RulesError(
                f"unknown advance option {self.option!r}; choose from {', '.join(ADVANCE_OPTIONS)}"
            )
        if self.keyword is not None and self.option != "new_ability_or_breakout":
            raise RulesError(f"{self.option}: only new_ability_or_breakout takes a keyword")
        if self.option == "new_keyword" and not self.breakout:
            raise RulesError("new_keyword needs the name of the new +1 breakout ability")
        if self.breakout is not None and self.option != "new_keyword":
            raise RulesError(f"{self.option}: only new_keyword names a breakout")


def buy_advance(character: Character, first: AdvanceChoice, second: AdvanceChoice) -> Step:
    """Spend 10 XP on an advance of two different §7.1 options, applied in order.

    >>> hero = Character((Ability("Sword", 15),), experience=12)
    >>> hero, changes = buy_advance(hero, AdvanceChoice("plus_9", "Sword"),
    ...                             AdvanceChoice("new_ability", "Riding"))
    >>> [str(a) for a in hero.abilities], hero.experience
    (['Sword 4M', 'Riding 13'], 2)
    >>> hero.catch_ups
    (CatchUp(trigger='Sword', rating=24),)
    """
    _require_economy(character, "advances", "an advance")
    if first.option == second.option:
        raise RulesError(
            f"an advance is two different options (§7.1): you chose {first.option} twice"
        )
    if character.experience < ADVANCE_COST:
        raise RulesError(
            f"an advance costs {ADVANCE_COST} XP (§7.1); you have {character.experience}"
        )
    after = replace(character, experience=character.experience - ADVANCE_COST)
    changes = [Change("XP", character.experience, after.experience, "§7.1: an advance")]
    for choice in (first, second):
        after, more = _apply_advance_choice(after, choice)
        changes += more
    return _offer_catch_ups(character, after, changes)


def _apply_advance_choice(character: Character, choice: AdvanceChoice) -> Step:
    rule = f"§7.1 advance: {ADVANCE_OPTIONS[choice.option]}"
    if choice.option in _RAISES:
        ability = character.ability(choice.ability)
        return _raise(
            character, ability, _RAISES[choice.option][character.improves_as(ability)], rule
        )
    if choice.option == "new_ability_or_breakout" and choice.keyword is not None:
        keyword = _keyword(character, choice.keyword)
        return _add(
            character, Ability(choice.ability, NEW_BREAKOUT_BONUS, "breakout", keyword.name), rule
        )
    if choice.option in ("new_ability_or_breakout", "new_ability"):
        return _add(character, Ability(choice.ability, NEW_ABILITY_RATING), rule)
    # new_keyword
    ability = character.ability(choice.ability)
    if ability.kind != "standalone":
        raise RulesError(
            "only a standalone ability becomes a keyword (§7.1); "
            f"{ability.name} is a {ability.kind}"
        )
    keyword = replace(ability, kind="keyword")
    character = _swap(character, ability, keyword)
    changes = [Change(f"{ability.name} kind", "standalone", "keyword", rule)]
    character, more = _add(
        character, Ability(str(choice.breakout), NEW_BREAKOUT_BONUS, "breakout", keyword.name), rule
    )
    return character, changes + more


# --------------------------------------------------------------------- catch-ups (§7.1.1)


def take_catch_up(character: Character, trigger: str, targets: Sequence[str]) -> Step:
    """Take the catch-up `trigger` offered: +3 to up to three abilities or keywords
    rated at least 5 below the trigger's new rating (§7.1.1). Breakouts cannot take it.

    >>> hero = Character((Ability("Sword", 21), Ability("Riding", 14)),
    ...                  catch_ups=(CatchUp("Sword", 21),))
    >>> hero, changes = take_catch_up(hero, "Sword", ["Riding"])
    >>> hero.total("Riding"), hero.catch_ups
    (17, ())
    """
    offer = _offer(character, trigger)
    names = [character.ability(name).name for name in targets]
    if len(names) > CATCH_UP_ABILITIES:
        raise RulesError(
            f"a catch-up raises up to {CATCH_UP_ABILITIES} abilities (§7.1.1), not {len(names)}"
        )
    if len({n.casefold() for n in names}) != len(names):
        raise RulesError("a catch-up raises each chosen ability once (§7.1.1)")
    limit = offer.rating - CATCH_UP_GAP
    for name in names:
        ability = character.ability(name)
        if ability.kind == "breakout":
            raise RulesError(
                f"a catch-up cannot raise the bonus of a breakout ability (§7.1.1): {name}"
            )
        if ability.rating > limit:
            raise RulesError(
                f"a catch-up raises abilities rated {CATCH_UP_GAP} or more below "
                f"{offer.trigger}'s {Rating(offer.rating)} (§7.1.1): {name} is "
                f"{Rating(ability.rating)}, {ability.rating - limit} too high"
            )
    remaining = list(character.catch_ups)
    remaining.remove(offer)
    after = replace(character, catch_ups=tuple(remaining))
    rule = f"§7.1.1 catch-up from {offer.trigger} at {Rating(offer.rating)}"
    changes = [Change("catch-up", str(Rating(offer.rating)), None, f"{rule}: taken")]
    for name in names:
        after, more = _raise(after, after.ability(name), CATCH_UP_BONUS, rule)
        changes += more
    # A catch-up is an improvement too: one that crosses a threshold offers another.
    return _offer_catch_ups(character, after, changes)


def decline_catch_up(character: Character, trigger: str) -> Step:
    """Let an offered catch-up go (§7.1.1: "you may also improve...")."""
    offer = _offer(character, trigger)
    remaining = list(character.catch_ups)
    remaining.remove(offer)
    after = replace(character, catch_ups=tuple(remaining))
    reason = f"§7.1.1 catch-up from {offer.trigger}: declined"
    return after, [Change("catch-up", str(Rating(offer.rating)), None, reason)]


def catch_up_candidates(character: Character, trigger: str) -> list[str]:
    """The abilities the pending catch-up `trigger` may raise (§7.1.1)."""
    offer = _offer(character, trigger)
    return [
        a.name
        for a in character.abilities
        if a.kind != "breakout" and a.rating <= offer.rating - CATCH_UP_GAP
    ]


# --------------------------------------------------------------------- directed (§7.1.2)


def directed_improvement(character: Character, name: str, amount: int, *, reason: str = "") -> Step:
    """The GM raises an ability at once: +3, +6 or +9 (§7.1.2), or +1 to +3 in the
    classic economy (1e §6.4). A breakout's bonus rises by `amount`."""
    allowed = DIRECTED_AMOUNTS[character.economy]
    if amount not in allowed:
        choices = ", ".join(f"+{a}" for a in allowed)
        raise RulesError(
            f"a directed improvement is {choices} in the {character.economy} economy, "
            f"not {amount!r}"
        )
    rule = "§7.1.2 directed improvement" if character.economy == "advances" else "1e §6.4"
    rule += f": {reason}" if reason else ""
    ability = character.ability(name)
    after, changes = _raise(character, ability, amount, rule)
    return _offer_catch_ups(character, after, changes)


def directed_new_ability(
    character: Character, name: str, rating: int = NEW_ABILITY_RATING, *, reason: str = ""
) -> Step:
    """The GM gives a new standalone ability, "usually rated at 13" (§7.1.2)."""
    if isinstance(rating, bool) or not isinstance(rating, int) or rating < 1:
        raise RulesError(f"a new ability's rating must be 1 or more, not {rating!r}")
    rule = "§7.1.2 directed improvement" + (f": {reason}" if reason else "")
    return _add(character, Ability(name, rating), rule)


# --------------------------------------------------------------------- classic (1e §6.2)


def classic_raise(character: Character, name: str) -> Step:
    """+1 to an ability: 1 HP for a standalone or breakout, 2 HP for a keyword (1 HP
    when keywords are packages, §3.3); each ability at most once a session (1e §6.2)."""
    _require_economy(character, "classic", "buying +1 with hero points")
    ability = character.ability(name)
    if ability.name in character.raised_this_session:
        raise RulesError(
            f"{ability.name} was already raised this session; an ability improves "
            "by 1 point a session at most (1e §6.2)"
        )
    kind = character.improves_as(ability)
    cost = CLASSIC_RAISE_COST[kind]
    _pay(character, cost, f"raising a {ability.kind} by 1")
    paid = replace(
        character,
        hero_points=character.hero_points - cost,
        raised_this_session=(*character.raised_this_session, ability.name),
    )
    rule = f"1e §6.2: +1 to a {ability.kind} for {cost} HP" + (
        " (a keyword as a package, §3.3)" if kind != ability.kind else ""
    )
    changes = [Change("hero points", character.hero_points, paid.hero_points, rule)]
    after, more = _raise(paid, paid.ability(ability.name), 1, rule)
    return _offer_catch_ups(character, after, changes + more)


SIDEKICK_RAISE_COST = CLASSIC_RAISE_COST
"""§6.5.1 gives no price for "You can improve these abilities through the expenditure of
hero points": a sidekick's abilities, "as extensions of your character" (§2.3.5.5), cost
what the PC's own do when bought with hero points (1e §6.2): +1 for 1 HP, a keyword 2 HP
(1 HP when keywords are packages, §3.3)."""

SIDEKICK_KINDS: tuple[AbilityKind, ...] = (
    "standalone",
    "keyword",
)  # §6.5.1: "Any of these abilities may be a keyword"


def sidekick_raise_cost(character: Character, kind: str = "standalone") -> int:
    """The hero points +1 to a sidekick's ability of `kind` costs `character`'s player.

    >>> sidekick_raise_cost(Character(), "keyword"), sidekick_raise_cost(Character())
    (2, 1)
    >>> sidekick_raise_cost(Character(keywords="packages"), "keyword")
    1
    """
    checked = next((known for known in SIDEKICK_KINDS if known == kind), None)
    if checked is None:
        raise RulesError(f"a sidekick's ability is standalone or a keyword (§6.5.1), not {kind!r}")
    return SIDEKICK_RAISE_COST[character.improves_as(Ability("sidekick", 1, kind=checked))]


def sidekick_raise(
    character: Character, ability: str, rating: int, *, kind: str = "standalone"
) -> tuple[Character, int, list[Change]]:
    """+1 to a sidekick's ability (`ability`, "<sidekick>: <ability>", rated `rating`,
    of `kind`) for what +1 to one of the PC's own costs, in either economy (§6.5.1).
    Returns the character with the hero points paid, the ability's new rating, and
    the changes.

    >>> hero, rating, changes = sidekick_raise(Character(hero_points=2), "Rook: Climb", 16)
    >>> hero.hero_points, rating
    (1, 17)
    >>> hero, rating, _ = sidekick_raise(Character(), "Rex: Loyal Dog", 26, kind="keyword")
    >>> hero.hero_points, rating
    (1, 27)
    """
    if isinstance(rating, bool) or not isinstance(rating, int) or rating < 1:
        raise RulesError(f"{ability}'s rating must be a whole number of 1 or more")
    cost = sidekick_raise_cost(character, kind)
    _pay(character, cost, f"raising {ability} by 1")
    paid = replace(character, hero_points=character.hero_points - cost)
    rule = f"§6.5.1: +1 to a sidekick's {kind} for {cost} HP"
    changes = [
        Change("hero points", character.hero_points, paid.hero_points, rule),
        Change(ability, rating, rating + 1, rule),
    ]
    return paid, rating + 1, changes


def classic_new_ability(character: Character, name: str, *, keyword: str | None = None) -> Step:
    """1 HP: a new ability at 13, or with `keyword` a new breakout at +1 (1e §6.2)."""
    _require_economy(character, "classic", "buying a new ability with hero points")
    _pay(character, CLASSIC_NEW_ABILITY_COST, "a new ability")
    if keyword is not None:
        ability = Ability(name, NEW_BREAKOUT_BONUS, "breakout", _keyword(character, keyword).name)
    else:
        ability = Ability(name, NEW_ABILITY_RATING)
    if character.find(name) is not None:
        raise RulesError(f"this character already has an ability named {name!r}")
    paid = replace(character, hero_points=character.hero_points - CLASSIC_NEW_ABILITY_COST)
    rule = "1e §6.2: a new ability for 1 HP"
    changes = [Change("hero points", character.hero_points, paid.hero_points, rule)]
    after, more = _add(paid, ability, rule)
    return after, changes + more


# --------------------------------------------------------------------- helpers


def _keyword(character: Character, name: str) -> Ability:
    ability = character.ability(name)
    if ability.kind != "keyword":
        raise RulesError(
            f"a breakout sits under a keyword (§3.3); {ability.name} is a {ability.kind}"
        )
    return ability


def _swap(character: Character, old: Ability, new: Ability) -> Character:
    return replace(character, abilities=tuple(new if a is old else a for a in character.abilities))


def _raise(character: Character, ability: Ability, amount: int, rule: str) -> Step:
    raised = replace(ability, rating=ability.rating + amount)
    return _swap(character, ability, raised), [
        Change(ability.name, ability.rating, raised.rating, rule)
    ]


def _add(character: Character, ability: Ability, rule: str) -> Step:
    if character.find(ability.name) is not None:
        raise RulesError(f"this character already has an ability named {ability.name!r}")
    after = replace(character, abilities=(*character.abilities, ability))
    return after, [Change(ability.name, None, ability.rating, rule)]


def _offer(character: Character, trigger: str) -> CatchUp:
    key = trigger.casefold()
    for offer in character.catch_ups:
        if offer.trigger.casefold() == key:
            return offer
    pending = ", ".join(c.trigger for c in character.catch_ups) or "none"
    raise RulesError(f"no catch-up from {trigger!r} is on offer (pending: {pending})")


def _offer_catch_ups(before: Character, after: Character, changes: list[Change]) -> Step:
    """Offer a catch-up for each keyword or standalone ability whose rating crossed a
    mastery threshold (§7.1.1). Breakouts never trigger one, even when their total does."""
    offers = list(after.catch_ups)
    for ability in after.abilities:
        if ability.kind == "breakout":
            continue
        old = before.find(ability.name)
        if old is None or old.kind == "breakout":
            continue
        if Rating(ability.rating).masteries > Rating(old.rating).masteries:
            offer = CatchUp(ability.name, ability.rating)
            offers.append(offer)
            changes = [
                *changes,
                Change(
                    "catch-up",
                    None,
                    str(Rating(ability.rating)),
                    f"§7.1.1: {ability.name} crossed a mastery threshold; a catch-up is offered",
                ),
            ]
    return replace(after, catch_ups=tuple(offers)), changes
