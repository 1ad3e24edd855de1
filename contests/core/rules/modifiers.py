"""Modifiers and the final target number.

§2.11 Modifiers, §2.12.1 Stretches, §2.12.2 Situational Modifiers, §2.13 Combined
Abilities, §2.14 Mobs, §2.15 Ganging Up, §3.3 Flaws (as penalties), §2.11.1-2 states;
RULINGS.md R9, R10.

`target_number` totals everything the live table shows against an ability: the base
rating, each modifier, augment and state, and the bumps that ride along, giving the
final Rating (masteries recomputed from the new total, R1) and the bump count to pass
to `simple_contest`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .augments import Augment
from .errors import IllegalAction, RulesError
from .ratings import Rating
from .simple import Side
from .states import State, parse_state

ModifierKind = Literal[
    "stretch", "situational", "flaw", "augment", "plot_augment", "state", "final_action", "other"
]

STRETCH_PENALTIES: tuple[int, ...] = (3, 6, 9)
DEFAULT_STRETCH = 6  # §2.12.1: "A default stretch penalty should be -6"
SITUATIONAL_MODIFIERS: tuple[int, ...] = (-6, -3, 3, 6)
MOB_BONUSES: tuple[int, ...] = (0, 3, 6, 9)
GANGING_UP_PENALTIES: tuple[int, ...] = (0, -3, -6, -9)
MAX_PHYSICAL_OPPONENTS = 6  # §2.14, §2.15: more get in each other's way
MAX_SOCIAL_OPPONENTS = 2


@dataclass(frozen=True, slots=True)
class Modifier:
    """One line of a target number: a bonus or penalty (`value`) and/or bumps.

    `kind` tells the live table where it came from; a "situational" modifier lasts a
    single round in a long contest (§2.12.2, R9).
    """

    label: str
    value: int = 0
    bumps: int = 0
    kind: ModifierKind = "other"

    def __post_init__(self) -> None:
        for name in ("value", "bumps"):
            number = getattr(self, name)
            if isinstance(number, bool) or not isinstance(number, int):
                raise RulesError(f"a modifier's {name} must be a whole number, not {number!r}")

    @property
    def lasts_one_round(self) -> bool:
        return self.kind == "situational"

    @property
    def describe(self) -> str:
        """E.g. "stretch -6", "heroic (bump up)", "hurt -3"."""
        parts = []
        if self.value:
            parts.append(f"{self.value:+d}")
        if self.bumps:
            word = "bump up" if self.bumps > 0 else "bump down"
            count = abs(self.bumps)
            parts.append(f"({word})" if count == 1 else f"({count} x {word})")
        return " ".join([self.label, *parts])

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "value": self.value, "bumps": self.bumps, "kind": self.kind}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Modifier:
        return cls(**data)


def stretch(penalty: int | Literal["bump"] = DEFAULT_STRETCH) -> Modifier:
    """A stretch: -3, -6 (default) or -9, or a bump down instead (§2.12.1, R9).

    >>> stretch().describe, stretch("bump").describe
    ('stretch -6', 'stretch (bump down)')
    """
    if penalty == "bump":
        return Modifier("stretch", bumps=-1, kind="stretch")
    if (
        isinstance(penalty, bool)
        or not isinstance(penalty, int)
        or abs(penalty) not in STRETCH_PENALTIES
    ):
        raise RulesError(f"a stretch is -3, -6 or -9 or a bump down, not {penalty!r} (§2.12.1)")
    return Modifier("stretch", value=-abs(penalty), kind="stretch")


def situational(value: int, label: str = "situation") -> Modifier:
    """A situational modifier: +6, +3, -3 or -6 (§2.12.2, R9).

    >>> situational(-3, "slippery deck").describe
    'slippery deck -3'
    """
    if isinstance(value, bool) or value not in SITUATIONAL_MODIFIERS:
        raise RulesError(f"a situational modifier is +6, +3, -3 or -6, not {value!r} (§2.12.2)")
    return Modifier(label, value=value, kind="situational")


def flaw_penalty(flaw_rating: Rating | int | str) -> int:
    """A flaw used as a penalty: its rating / 5, rounded half up, as a negative
    (§3.3, R9: a flaw of 19 imposes -4).

    >>> flaw_penalty(19), flaw_penalty(17), flaw_penalty("5M")
    (-4, -3, -5)
    """
    total = Rating.parse(flaw_rating).total
    if total <= 0:
        return 0
    return -((2 * total + 5) // 10)  # half up: floor(total / 5 + 1/2)


def flaw(flaw_rating: Rating | int | str, label: str = "flaw") -> Modifier:
    """A Modifier for a flaw used as a penalty (§3.3)."""
    return Modifier(label, value=flaw_penalty(flaw_rating), kind="flaw")


def state_modifier(state: State | str, *, final_action: bool = False) -> Modifier:
    """The Modifier a state of adversity or fortune puts on a related ability (§2.11).

    Dying forbids action unless the GM grants a final action, which then takes a bump
    down (§2.11.1.5); the dead do not act.

    >>> state_modifier("hurt").describe, state_modifier(State.HEROIC).describe
    ('hurt -3', 'heroic (bump up)')
    """
    state = parse_state(state)
    if state is State.DEAD:
        raise IllegalAction("the dead take no actions (§2.11.1.6)")
    if state is State.DYING:
        if not final_action:
            raise IllegalAction(
                "a dying character takes no actions, unless the GM grants a final action "
                "after a won contest of wherewithal (§2.11.1.5)"
            )
        return Modifier("dying: final action", bumps=-1, kind="final_action")
    return Modifier(state.value, value=state.modifier, bumps=state.bumps, kind="state")


def combined_rating(first: Rating | int | str, second: Rating | int | str) -> Rating:
    """Two abilities used together: their average, rounded half up, before any
    modifier (§2.13, R9). Masteries count as 20 each.

    >>> str(combined_rating(17, "5M")), str(combined_rating(13, 14))
    ('1M', '14')
    """
    total = Rating.parse(first).total + Rating.parse(second).total
    return Rating((total + 1) // 2)  # half up, negatives included


def adjust_resistance(
    resistance: Rating | int | str, *, mob: int = 0, ganging_up: int = 0
) -> Rating:
    """A resistance adjusted for numbers: a mob outnumbering the PCs raises it +3/+6/+9
    (§2.14), PCs ganging up on one foe lower it -3/-6/-9 (§2.15). R9.

    These are the only changes to a resistance: other modifiers never apply to it (R2).

    >>> str(adjust_resistance(14, mob=9)), str(adjust_resistance("5M", ganging_up=-6))
    ('3M', '19')
    """
    if isinstance(mob, bool) or mob not in MOB_BONUSES:
        raise RulesError(f"a mob raises the resistance by +3, +6 or +9, not {mob!r} (§2.14)")
    if isinstance(ganging_up, bool) or ganging_up not in GANGING_UP_PENALTIES:
        raise RulesError(
            f"ganging up lowers the resistance by -3, -6 or -9, not {ganging_up!r} (§2.15)"
        )
    return Rating.parse(resistance) + mob + ganging_up


def split_mob(opponents: int, pcs: int) -> list[int]:
    """Divide a crowd among the contesting PCs, as evenly as possible (§2.14).

    >>> split_mob(10, 3)
    [4, 3, 3]
    """
    if isinstance(opponents, bool) or not isinstance(opponents, int) or opponents < 1:
        raise RulesError(f"a mob has at least one member, not {opponents!r}")
    if isinstance(pcs, bool) or not isinstance(pcs, int) or pcs < 1:
        raise RulesError(f"at least one PC faces the mob, not {pcs!r}")
    share, extra = divmod(opponents, pcs)
    return [share + (1 if i < extra else 0) for i in range(pcs)]


@dataclass(frozen=True, slots=True)
class TargetNumber:
    """A final target number with its breakdown, for the live table.

    `rating` is the final Rating (base + every value); `bumps` the net bumps of this
    side besides masteries, to pass as `pc_bumps` to `simple_contest`; `lines` every
    modifier in order; `stretched` says a stretch applies, which caps major and complete
    victories at minor (§2.10, see `outcomes.stretch_capped_level`).
    """

    base: Rating
    rating: Rating
    bumps: int
    lines: tuple[Modifier, ...]

    @property
    def total_modifier(self) -> int:
        return self.rating.total - self.base.total

    @property
    def stretched(self) -> bool:
        """A stretch penalty applies, which caps victories at minor (§2.10). A stretch
        taken as a bump down is a bump, not a cap (R9, R18.4)."""
        return any(line.kind == "stretch" and line.value < 0 for line in self.lines)

    @property
    def always_fails(self) -> bool:
        """A target of 0 or less fails whatever the die shows (§2.11, R4)."""
        return self.rating.total <= 0

    @property
    def describe(self) -> str:
        """E.g. "17 +6 (augment) -3 (hurt) = 1M, 1 bump up"."""
        parts = [str(self.base)]
        parts += [f"{line.value:+d} ({line.label})" for line in self.lines if line.value]
        text = f"{' '.join(parts)} = {self.rating}"
        if self.bumps:
            word = "bump up" if self.bumps > 0 else "bump down"
            text += f", {abs(self.bumps)} {word}{'s' if abs(self.bumps) > 1 else ''}"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "base": self.base.total,
            "base_text": str(self.base),
            "rating": self.rating.total,
            "rating_text": str(self.rating),
            "target": self.rating.target,
            "masteries": self.rating.masteries,
            "bumps": self.bumps,
            "total_modifier": self.total_modifier,
            "stretched": self.stretched,
            "lines": [line.to_json() for line in self.lines],
            "describe": self.describe,
        }


FINAL_ACTION = "final action"
"""Among a TN's states, marks a dying character's granted final action (§2.11.1.5):
the dying state then takes a bump down instead of forbidding action."""


def target_number(
    base: Rating | int | str,
    *,
    modifiers: Iterable[Modifier] = (),
    augments: Iterable[Augment | int] = (),
    states: Iterable[State | str] = (),
    final_action: bool = False,
) -> TargetNumber:
    """Total a target number (TN) from a base rating (§2.11, §4.1.1 step 2, R9, R10).

    `modifiers` are Modifier lines (stretch, situational, flaw...); `augments` are
    Augment objects (from an AugmentTracker) or plain bonuses; `states` are the states
    recorded against this ability (with FINAL_ACTION among them, a dying state is a
    granted final action's bump down). All of them stack. Bonuses can raise the rating to a
    new mastery and penalties can lose one (R1); heroic adds a bump up, a stretch taken
    as a bump down and a dying final action a bump down.

    >>> tn = target_number(17, augments=[6], states=["hurt", "heroic"])
    >>> str(tn.rating), tn.bumps
    ('20', 1)
    >>> tn.describe
    '17 +6 (augment) -3 (hurt) = 20, 1 bump up'
    """
    base_rating = Rating.parse(base)
    lines: list[Modifier] = []
    for modifier in modifiers:
        if not isinstance(modifier, Modifier):
            raise RulesError(f"modifiers must be Modifier objects, not {modifier!r}")
        lines.append(modifier)
    for augment in augments:
        if isinstance(augment, Augment):
            kind: ModifierKind = "plot_augment" if augment.kind == "plot" else "augment"
            lines.append(Modifier(augment.source, value=augment.bonus, kind=kind))
        elif isinstance(augment, int) and not isinstance(augment, bool):
            lines.append(Modifier("augment", value=augment, kind="augment"))
        else:
            raise RulesError(f"augments must be Augment objects or whole numbers, not {augment!r}")
    states = list(states)
    if FINAL_ACTION in states:
        final_action = True
        states = [state for state in states if state != FINAL_ACTION]
    for state in states:
        lines.append(state_modifier(state, final_action=final_action))
    return TargetNumber(
        base=base_rating,
        rating=base_rating + sum(line.value for line in lines),
        bumps=sum(line.bumps for line in lines),
        lines=tuple(lines),
    )


def refuse_resistance_modifier(value: Any, players: Mapping[Side, bool | None]) -> None:
    """R2, R18.3: situational and round modifiers apply to a PC's (or a PC opponent's)
    target number only; a GM resistance takes none: the GM picks another class or
    rating instead. A modifier of 0 is no modifier."""
    if value and not players.get("opponent"):
        raise RulesError(
            f"a resistance takes no modifier ({value:+d} asked): modifiers apply to a PC's "
            "target number only; give the resistance another class or rating (R2, R18.3)"
        )
