"""Augments: rolled, quick and plot bonuses to the ability used in a contest.

§2.4 Augments, §2.4.1 Rolled Augments, §2.4.2 Quick Augments, §2.4.3 Plot Augments;
RULINGS.md R8. `AugmentTracker` enforces who may augment a contest and how often.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from .errors import IllegalAction, RulesError
from .ratings import DEFAULT_BASE_RESISTANCE, Rating, resistance
from .simple import BetterRoll, Outcome, describe_level, simple_contest

AugmentKind = Literal["rolled", "quick", "plot"]
Rounding = Literal["down", "up"]

# §2.4.1 Augment Table, by the signed level of the augment contest (R8).
AUGMENT_BONUS_BY_LEVEL: dict[int, int] = {
    4: 20,  # complete victory: +M
    3: 9,
    2: 6,
    1: 3,
    0: 0,
    -1: 0,
    -2: 0,
    -3: 0,
    -4: -3,  # complete defeat: the only penalty an augment attempt can bring
}

AUGMENT_BONUSES: tuple[int, ...] = (20, 9, 6, 3, 0, -3)
"""Every bonus a rolled augment can give, best first."""

PLOT_AUGMENT_BONUSES: tuple[int, ...] = (3, 6, 9, 20)
"""§2.4.3: the only sizes a plot augment comes in (+M is 20)."""


def augment_bonus(outcome: Outcome | int) -> int:
    """The bonus a rolled augment gives, from its outcome or signed level (§2.4.1, R8).

    >>> augment_bonus(4), augment_bonus(2), augment_bonus(-3), augment_bonus(-4)
    (20, 6, 0, -3)
    """
    level = outcome.level if isinstance(outcome, Outcome) else outcome
    if level not in AUGMENT_BONUS_BY_LEVEL or isinstance(level, bool):
        raise RulesError(f"a contest level runs from -4 to +4, not {level!r}")
    return AUGMENT_BONUS_BY_LEVEL[level]


def basic_augment_bonus(outcome: Outcome | int, *, entertaining: bool = False) -> int:
    """The bonus without degrees of victory: +3 on a victory, +6 if the GM found the
    description particularly entertaining, else nothing (§2.4.1, basic mechanics).

    >>> basic_augment_bonus(1), basic_augment_bonus(3, entertaining=True), basic_augment_bonus(0)
    (3, 6, 0)
    """
    level = outcome.level if isinstance(outcome, Outcome) else outcome
    if level not in AUGMENT_BONUS_BY_LEVEL or isinstance(level, bool):
        raise RulesError(f"a contest level runs from -4 to +4, not {level!r}")
    if level <= 0:
        return 0
    return 6 if entertaining else 3


def rolled_augment(
    augmenting: Rating | int | str,
    roll: int,
    resistance_roll: int,
    *,
    base: int = DEFAULT_BASE_RESISTANCE,
    better_roll: BetterRoll = "high",
    hero_point: bool = False,
    bumps: int = 0,
) -> Outcome:
    """Resolve an augment contest: the augmenting ability against a moderate resistance
    (§2.4.1, §2.3.3: always the unmodified base). Feed the outcome to `augment_bonus`.

    An augment contest cannot itself be augmented, so it takes no augments; `bumps`
    is for states such as heroic that ride on the augmenting ability.

    >>> outcome = rolled_augment(17, 4, 15)
    >>> outcome.describe, augment_bonus(outcome)
    ('minor victory', 6)
    """
    return simple_contest(
        Rating.parse(augmenting),
        roll,
        resistance("moderate", base),
        resistance_roll,
        pc_hero_point=hero_point,
        better_roll=better_roll,
        pc_bumps=bumps,
    )


def quick_augment(augmenting: Rating | int | str, *, rounding: Rounding = "down") -> int:
    """A quick augment: one fifth of the augmenting rating (§2.4.2, R8).

    2.2 rounds down (the default); the campaign option `quick_augment_rounding="up"`
    follows 1e. A rating of 0 or less gives nothing: a quick augment never penalises.

    >>> quick_augment(17), quick_augment(17, rounding="up"), quick_augment("5M")
    (3, 4, 5)
    """
    total = Rating.parse(augmenting).total
    if rounding not in ("down", "up"):
        raise RulesError(f"quick augment rounding must be 'down' or 'up', not {rounding!r}")
    if total <= 0:
        return 0
    return total // 5 if rounding == "down" else -(-total // 5)


def plot_augment(bonus: int) -> int:
    """Check a plot augment's size: +3, +6, +9 or +20 (+M) only (§2.4.3).

    >>> plot_augment(9)
    9
    """
    if isinstance(bonus, bool) or bonus not in PLOT_AUGMENT_BONUSES:
        raise RulesError(f"a plot augment is +3, +6, +9 or +20 (+M), not {bonus!r} (§2.4.3)")
    return bonus


@dataclass(frozen=True, slots=True)
class Augment:
    """One augment on a contest. `helper` is the character whose ability gives it
    (None for a plot augment, which the GM gives); `outcome` is set for rolled ones."""

    kind: AugmentKind
    bonus: int
    helper: str | None = None
    ability: str | None = None
    outcome: Outcome | None = None
    reason: str = ""

    @property
    def failed(self) -> bool:
        """A rolled augment that brought no bonus (a tie or a defeat)."""
        return self.kind == "rolled" and self.outcome is not None and self.outcome.level <= 0

    @property
    def source(self) -> str:
        """Where the augment comes from, e.g. "rolled augment: Bob's Sword"."""
        if self.kind == "plot":
            return f"plot augment{': ' + self.reason if self.reason else ''}"
        return f"{self.kind} augment: {self.helper}'s {self.ability}"

    @property
    def label(self) -> str:
        """How the live table names this augment, e.g. "rolled augment: Bob's Sword (+6)"."""
        return f"{self.source} ({self.bonus:+d})"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "bonus": self.bonus,
            "helper": self.helper,
            "ability": self.ability,
            "reason": self.reason,
            "outcome": self.outcome.to_json() if self.outcome is not None else None,
        }


class AugmentTracker:
    """The augments gathered for one contestant's ability in one contest (§2.4, R8).

    Enforces: each character makes at most one augment attempt for the contest (your
    own: "only one of your own abilities"; once an attempt fails, no other); an ability
    cannot augment itself; an augment contest cannot itself be augmented. Augments from
    other characters and plot augments stack.

    >>> tracker = AugmentTracker(recipient="Ayla", ability="Knight Errant")
    >>> _ = tracker.add_quick(helper="Ayla", ability="My Word is my Bond", rating=17)
    >>> _ = tracker.add_plot(bonus=6, reason="the King's favour")
    >>> tracker.total
    9
    >>> tracker.add_quick(helper="Ayla", ability="Horse", rating=15)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    contests.core.rules.errors.IllegalAction: Ayla already augments this contest with My Word ...
    """

    def __init__(self, *, recipient: str, ability: str, is_augment_roll: bool = False) -> None:
        self.recipient = recipient
        self.ability = ability
        self.is_augment_roll = is_augment_roll
        self.augments: list[Augment] = []

    def for_augment_roll(self, *, helper: str, ability: str) -> AugmentTracker:
        """A tracker for the augment contest `helper` rolls with `ability`: it refuses
        every augment, since an augment contest cannot itself be augmented (§2.4.1)."""
        self.check_attempt(helper=helper, ability=ability)
        return AugmentTracker(recipient=helper, ability=ability, is_augment_roll=True)

    def check_attempt(self, *, helper: str, ability: str) -> None:
        """Raise IllegalAction if `helper` may not now try to augment with `ability`."""
        # §2.4, §2.4.1
        if self.is_augment_roll:
            raise IllegalAction(
                f"{self.ability} is being rolled as an augment: an augment contest cannot "
                "itself be augmented (§2.4.1)"
            )
        own = helper == self.recipient
        if own and ability == self.ability:
            raise IllegalAction(f"{ability} cannot augment itself (§2.4)")
        earlier = next((a for a in self.augments if a.helper == helper), None)
        if earlier is None:
            return
        if earlier.failed:
            assert earlier.outcome is not None
            raise IllegalAction(
                f"{helper}'s augment attempt with {earlier.ability} ended in a "
                f"{describe_level(earlier.outcome.level)}; after a failed attempt no other "
                f"augment attempt by {helper} is allowed for this contest (§2.4.1)"
            )
        if own:
            raise IllegalAction(
                f"{helper} already augments this contest with {earlier.ability} "
                f"({earlier.bonus:+d}); only one of your own abilities may augment a "
                "contest (§2.4)"
            )
        raise IllegalAction(
            f"{helper} already augments this contest with {earlier.ability} "
            f"({earlier.bonus:+d}); each character augments a contest at most once (§2.4)"
        )

    def add_rolled(self, *, helper: str, ability: str, outcome: Outcome) -> Augment:
        """Record a rolled augment from the outcome of its augment contest (§2.4.1)."""
        self.check_attempt(helper=helper, ability=ability)
        augment = Augment("rolled", augment_bonus(outcome), helper, ability, outcome)
        self.augments.append(augment)
        return augment

    def add_quick(
        self, *, helper: str, ability: str, rating: Rating | int | str, rounding: Rounding = "down"
    ) -> Augment:
        """Record a quick augment: rating / 5 (§2.4.2)."""
        self.check_attempt(helper=helper, ability=ability)
        augment = Augment("quick", quick_augment(rating, rounding=rounding), helper, ability)
        self.augments.append(augment)
        return augment

    def add_plot(self, *, bonus: int, reason: str = "") -> Augment:
        """Record a plot augment the GM gives (§2.4.3); any number of them stack."""
        if self.is_augment_roll:
            raise IllegalAction(
                f"{self.ability} is being rolled as an augment: an augment contest cannot "
                "itself be augmented (§2.4.1)"
            )
        augment = Augment("plot", plot_augment(bonus), reason=reason)
        self.augments.append(augment)
        return augment

    @property
    def total(self) -> int:
        """The sum of every augment: they all stack (§2.4)."""
        return sum_augments(self.augments)

    def to_json(self) -> dict[str, Any]:
        return {
            "recipient": self.recipient,
            "ability": self.ability,
            "is_augment_roll": self.is_augment_roll,
            "augments": [a.to_json() for a in self.augments],
            "total": self.total,
        }


def sum_augments(augments: Iterable[Augment | int]) -> int:
    """Add augments (Augment objects or plain bonuses): they all stack (§2.4)."""
    return sum(a.bonus if isinstance(a, Augment) else a for a in augments)
