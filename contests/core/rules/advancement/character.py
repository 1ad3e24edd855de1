"""The character the advancement rules work on, and the numbers of §7 (§2.2, §3.3, R15).

`Ability`, `CatchUp` and the immutable `Character`; `Change`, one ledger line; `Step`,
what every operation returns; `new_character`. The economy checks at the bottom are
shared by the session and improvement rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from ..errors import RulesError
from ..ratings import Rating

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
    # §3.3: "umbrella" keywords raise their breakouts with them; as "packages" they are
    # "too unrelated to increase together during a game": a keyword improves like any
    # standalone ability.
    keywords: Literal["umbrella", "packages"] = "umbrella"

    def __post_init__(self) -> None:
        if self.economy not in ECONOMIES:
            raise RulesError(
                f"the hero point economy must be 'advances' or 'classic', not {self.economy!r}"
            )
        if self.keywords not in ("umbrella", "packages"):
            raise RulesError(f"keywords are 'umbrella' or 'packages' (§3.3), not {self.keywords!r}")
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

    def improves_as(self, ability: Ability) -> str:
        """The kind an improvement prices `ability` as: a keyword as a package of
        abilities is "too unrelated to increase together during a game" (§3.3), so it
        costs and gains what a standalone ability does."""
        if ability.kind == "keyword" and self.keywords == "packages":
            return "standalone"
        return ability.kind

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
            "keywords": self.keywords,
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
            keywords=data.get("keywords", "umbrella"),
        )


Step = tuple[Character, list[Change]]
"""What every operation returns: the new character and the changes it made."""


def new_character(abilities: Iterable[Ability] = (), *, economy: Economy = "advances") -> Character:
    """A new character: 3 hero points in either economy (§2.2, R15)."""
    return Character(tuple(abilities), economy=economy, hero_points=STARTING_HERO_POINTS)


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
