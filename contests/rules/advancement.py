"""Hero points, experience and improving a character (§7, 1e §6, RULINGS.md R15).

Two economies, chosen per campaign (`RulesOptions.hero_point_economy`):

- `advances` (§7.1, the default): 1 HP at each session start, the GM awards up to 5 more
  a session, unspent HP become XP at the session's end, and 10 XP buy an advance made
  of two different options from the §7.1 list.
- `classic` (1e §6): 3 HP at each session start, unspent HP are lost at the end, and HP
  buy improvements directly (1 HP: +1 to an ability or breakout, once per ability a
  session; 2 HP: +1 to a keyword; 1 HP: a new ability at 13 or a new breakout at +1).

A new character has 3 HP in either economy. Catch-ups (§7.1.1) and directed
improvements (§7.1.2) exist in both.

Everything here is a pure function over an immutable `Character`: each returns the
new character and the list of `Change`s it made, so the app can write a ledger.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, NamedTuple

from .errors import RulesError
from .ratings import Rating

Economy = Literal["advances", "classic"]
ECONOMIES: tuple[str, ...] = ("advances", "classic")
AbilityKind = Literal["standalone", "keyword", "breakout"]
ABILITY_KINDS: tuple[str, ...] = ("standalone", "keyword", "breakout")

STARTING_HERO_POINTS = 3  # §2.2, R15: a new character, either economy
SESSION_HERO_POINTS = {"advances": 1, "classic": 3}  # §7.1 / 1e §6.1
MAX_AWARDS_PER_SESSION = 5  # §7.1: "a maximum of 5 HPs in a session"
ADVANCE_COST = 10  # §7.1: 10 XP buy an advance
NEW_ABILITY_RATING = 13  # §7.1, 1e §6.2
NEW_BREAKOUT_BONUS = 1  # §7.1, 1e §6.2
CATCH_UP_BONUS = 3  # §7.1.1: +3 each
CATCH_UP_ABILITIES = 3  # §7.1.1: up to three abilities or keywords
CATCH_UP_GAP = 5  # §7.1.1: rated five or more points lower
# §7.1.2 directed improvements: +3, +6 or +9; 1e §6.4: by 1 to 3 points.
DIRECTED_AMOUNTS = {"advances": (3, 6, 9), "classic": (1, 2, 3)}
# 1e §6.2 classic costs.
CLASSIC_RAISE_COST = {"standalone": 1, "breakout": 1, "keyword": 2}
CLASSIC_NEW_ABILITY_COST = 1


class Change(NamedTuple):
    """One line of a character's ledger: what changed, from what, to what, and why."""

    what: str
    before: Any
    after: Any
    reason: str


@dataclass(frozen=True, slots=True)
class Ability:
    """A character ability (§2.1, §3.3).

    `rating` is the rating total for a standalone ability or a keyword, and the bonus
    (the `+N`) for a breakout ability, whose `keyword` names the keyword it sits under.

    >>> Ability("Forensics", 2, kind="breakout", keyword="Detective")
    Ability(name='Forensics', rating=2, kind='breakout', keyword='Detective')
    """

    name: str
    rating: int
    kind: AbilityKind = "standalone"
    keyword: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise RulesError(f"an ability needs a name, not {self.name!r}")
        if isinstance(self.rating, bool) or not isinstance(self.rating, int):
            raise RulesError(f"{self.name}: a rating must be a whole number, not {self.rating!r}")
        if self.kind not in ABILITY_KINDS:
            raise RulesError(
                f"{self.name}: kind must be one of {', '.join(ABILITY_KINDS)}, not {self.kind!r}"
            )
        if self.kind == "breakout" and not self.keyword:
            raise RulesError(f"{self.name}: a breakout ability names its keyword (§3.3)")
        if self.kind != "breakout" and self.keyword is not None:
            raise RulesError(f"{self.name}: only a breakout ability sits under a keyword (§3.3)")

    def __str__(self) -> str:
        if self.kind == "breakout":
            return f"{self.name} +{self.rating}"
        return f"{self.name} {Rating(self.rating)}"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rating": self.rating,
            "kind": self.kind,
            "keyword": self.keyword,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Ability:
        return cls(
            name=data["name"],
            rating=data["rating"],
            kind=data.get("kind", "standalone"),
            keyword=data.get("keyword"),
        )


@dataclass(frozen=True, slots=True)
class CatchUp:
    """A catch-up on offer (§7.1.1): `trigger` crossed a mastery threshold and now
    has `rating`; abilities rated `rating - 5` or lower may take +3."""

    trigger: str
    rating: int


@dataclass(frozen=True, slots=True)
class Character:
    """The minimal character the advancement rules need: abilities, hero points, XP,
    and what the current session has already used.

    >>> hero = Character((Ability("Detective", 17, kind="keyword"),
    ...                   Ability("Forensics", 2, kind="breakout", keyword="Detective")))
    >>> hero.total("Forensics"), hero.hero_points
    (19, 3)
    """

    abilities: tuple[Ability, ...] = ()
    economy: Economy = "advances"
    hero_points: int = STARTING_HERO_POINTS
    experience: int = 0
    experience_earned: int = 0  # §7.1: a running tally, some genres' reputation
    in_session: bool = False
    awarded_this_session: int = 0
    raised_this_session: tuple[str, ...] = ()  # classic: once per ability per session
    catch_ups: tuple[CatchUp, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.economy not in ECONOMIES:
            raise RulesError(
                f"the hero point economy must be 'advances' or 'classic', not {self.economy!r}"
            )
        object.__setattr__(self, "abilities", tuple(self.abilities))
        object.__setattr__(self, "raised_this_session", tuple(self.raised_this_session))
        object.__setattr__(self, "catch_ups", tuple(self.catch_ups))
        for name in ("hero_points", "experience", "experience_earned", "awarded_this_session"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise RulesError(f"{name} must be a whole number of 0 or more, not {value!r}")
        seen: set[str] = set()
        for ability in self.abilities:
            key = ability.name.casefold()
            if key in seen:
                raise RulesError(f"two abilities are named {ability.name!r}")
            seen.add(key)
        keywords = {a.name for a in self.abilities if a.kind == "keyword"}
        for ability in self.abilities:
            if ability.kind == "breakout" and ability.keyword not in keywords:
                raise RulesError(
                    f"{ability.name} breaks out from {ability.keyword!r}, "
                    "which is not one of this character's keywords (§3.3)"
                )

    def find(self, name: str) -> Ability | None:
        """The ability called `name` (case-insensitive), or None."""
        key = name.casefold() if isinstance(name, str) else name
        return next((a for a in self.abilities if a.name.casefold() == key), None)

    def ability(self, name: str) -> Ability:
        """The ability called `name`; a RulesError naming the choices if there is none."""
        found = self.find(name)
        if found is None:
            known = ", ".join(a.name for a in self.abilities) or "none"
            raise RulesError(f"no ability named {name!r} (this character has: {known})")
        return found

    def total(self, name: str) -> int:
        """The rating to roll: a breakout adds its bonus to its keyword (§3.3)."""
        ability = self.ability(name)
        if ability.kind == "breakout":
            return self.ability(str(ability.keyword)).rating + ability.rating
        return ability.rating

    def to_json(self) -> dict[str, Any]:
        return {
            "abilities": [a.to_json() for a in self.abilities],
            "economy": self.economy,
            "hero_points": self.hero_points,
            "experience": self.experience,
            "experience_earned": self.experience_earned,
            "in_session": self.in_session,
            "awarded_this_session": self.awarded_this_session,
            "raised_this_session": list(self.raised_this_session),
            "catch_ups": [{"trigger": c.trigger, "rating": c.rating} for c in self.catch_ups],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Character:
        return cls(
            abilities=tuple(Ability.from_json(a) for a in data.get("abilities", ())),
            economy=data.get("economy", "advances"),
            hero_points=data.get("hero_points", STARTING_HERO_POINTS),
            experience=data.get("experience", 0),
            experience_earned=data.get("experience_earned", 0),
            in_session=data.get("in_session", False),
            awarded_this_session=data.get("awarded_this_session", 0),
            raised_this_session=tuple(data.get("raised_this_session", ())),
            catch_ups=tuple(CatchUp(c["trigger"], c["rating"]) for c in data.get("catch_ups", ())),
        )


Step = tuple[Character, list[Change]]
"""What every operation returns: the new character and the changes it made."""


def new_character(abilities: Iterable[Ability] = (), *, economy: Economy = "advances") -> Character:
    """A new character: 3 hero points in either economy (§2.2, R15)."""
    return Character(tuple(abilities), economy=economy, hero_points=STARTING_HERO_POINTS)


# --------------------------------------------------------------------- sessions


def start_session(character: Character) -> Step:
    """Begin a session: +1 HP (`advances`, §7.1) or +3 HP (`classic`, 1e §6.1).

    >>> hero, changes = start_session(new_character())
    >>> hero.hero_points, changes[0].reason
    (4, '§7.1: each session starts with 1 HP')
    """
    if character.in_session:
        raise RulesError("a session has already started; end it before starting the next")
    gain = SESSION_HERO_POINTS[character.economy]
    rule = "§7.1: each session starts with 1 HP" if gain == 1 else "1e §6.1: 3 HP each session"
    after = replace(
        character,
        hero_points=character.hero_points + gain,
        in_session=True,
        awarded_this_session=0,
        raised_this_session=(),
    )
    return after, [Change("hero points", character.hero_points, after.hero_points, rule)]


def end_session(character: Character) -> Step:
    """End a session: unspent HP become XP (`advances`, §7.1) or are lost (1e §6.1)."""
    if not character.in_session:
        raise RulesError("no session is running: start one before ending it")
    unspent = character.hero_points
    changes = []
    if character.economy == "advances":
        after = replace(
            character,
            hero_points=0,
            experience=character.experience + unspent,
            experience_earned=character.experience_earned + unspent,
            in_session=False,
        )
        if unspent:
            reason = "§7.1: unspent HP become XP at the end of the session"
            changes.append(Change("hero points", unspent, 0, reason))
            changes.append(Change("XP", character.experience, after.experience, reason))
    else:
        after = replace(character, hero_points=0, in_session=False)
        if unspent:
            changes.append(
                Change("hero points", unspent, 0, "1e §6.1: unspent HP are lost at session end")
            )
    return after, changes


def award_hero_points(character: Character, count: int = 1, *, reason: str = "") -> Step:
    """The GM awards `count` HP for a significant action (§7.1), at most 5 a session."""
    _require_economy(character, "advances", "GM hero point awards")
    if not character.in_session:
        raise RulesError("the GM awards hero points during a session (§7.1); none is running")
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise RulesError(f"award at least 1 hero point, not {count!r}")
    room = MAX_AWARDS_PER_SESSION - character.awarded_this_session
    if count > room:
        raise RulesError(
            f"the GM awards at most {MAX_AWARDS_PER_SESSION} HP a session (§7.1): "
            f"{character.awarded_this_session} awarded already, so {room} more at most, not {count}"
        )
    after = replace(
        character,
        hero_points=character.hero_points + count,
        awarded_this_session=character.awarded_this_session + count,
    )
    why = f"§7.1: GM award{': ' + reason if reason else ''}"
    return after, [Change("hero points", character.hero_points, after.hero_points, why)]


def spend_hero_point(character: Character, *, reason: str = "a bump in a contest") -> Step:
    """Spend one HP in play, e.g. to bump a result (§2.3.5.5)."""
    _pay(character, 1, "a hero point")
    after = replace(character, hero_points=character.hero_points - 1)
    return after, [Change("hero points", character.hero_points, after.hero_points, reason)]


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
        return _raise(character, ability, _RAISES[choice.option][ability.kind], rule)
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
    """+1 to an ability: 1 HP for a standalone or breakout, 2 HP for a keyword; each
    ability at most once a session (1e §6.2)."""
    _require_economy(character, "classic", "buying +1 with hero points")
    ability = character.ability(name)
    if ability.name in character.raised_this_session:
        raise RulesError(
            f"{ability.name} was already raised this session; an ability improves "
            "by 1 point a session at most (1e §6.2)"
        )
    cost = CLASSIC_RAISE_COST[ability.kind]
    _pay(character, cost, f"raising a {ability.kind} by 1")
    paid = replace(
        character,
        hero_points=character.hero_points - cost,
        raised_this_session=(*character.raised_this_session, ability.name),
    )
    rule = f"1e §6.2: +1 to a {ability.kind} for {cost} HP"
    changes = [Change("hero points", character.hero_points, paid.hero_points, rule)]
    after, more = _raise(paid, paid.ability(ability.name), 1, rule)
    return _offer_catch_ups(character, after, changes + more)


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


def _require_economy(character: Character, economy: str, what: str) -> None:
    if character.economy != economy:
        raise RulesError(
            f"{what} belongs to the '{economy}' hero point economy (R15); "
            f"this character uses '{character.economy}'"
        )


def _pay(character: Character, cost: int, what: str) -> None:
    if character.hero_points < cost:
        raise RulesError(f"{what} costs {cost} HP; you have {character.hero_points}")


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
