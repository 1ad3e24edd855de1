"""What a contest's outcome does afterwards: consequences, benefits, healing, waning,
and the advanced outcome rules.

§2.10 (stretch caps victories), §2.11 Benefits and Consequences (§2.11.1 consequences,
§2.11.2 benefits, §2.11.2.1 clearly inferior opponents, §2.11.3 healing, §2.11.4
waning, §2.11.5 benefits meet consequences), §2.17 Pyrrhic Victories, §2.18 Graduated
Goals, §2.19.2 Costly Automatic Victory, §2.8.2 Escalating Contests;
RULINGS.md R10, R11.

A character's conditions are kept minimal: for each ability, a tuple of the States
recorded against it (several stack). Every function here is pure: it takes a tuple (or
a dict of ability -> tuple) and returns a new one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .errors import IllegalAction, RulesError
from .ratings import DEFAULT_BASE_RESISTANCE, Rating, resistance
from .simple import DEGREES, Outcome, describe_level
from .states import (
    ADVERSITY,
    BENEFIT_OF_VICTORY,
    CONSEQUENCE_OF_DEFEAT,
    FORTUNE,
    State,
    parse_state,
)

States = tuple[State, ...]
"""The states recorded against one ability."""

Conditions = dict[str, States]
"""A character's conditions: ability name -> the states recorded against it."""

Ratings = Rating | int | str | Sequence[Rating | int | str]
"""One rating, or several (the abilities a side used in a long contest)."""

CLEARLY_INFERIOR_MARGIN = 6  # §2.11.2.1

# §2.11.3.2 Healing Resistances Table.
HEALING_RESISTANCE_CLASS: dict[State, str] = {
    State.HURT: "low",
    State.IMPAIRED: "moderate",
    State.INJURED: "high",
    State.DYING: "very_high",
}

# §2.17 Pyrrhic Victory Table (R11), by signed level. A tie is not in the table; it
# sits between "any defeat" and a marginal victory, both dead, so it is dead too.
PYRRHIC_VICTORY: dict[int, State] = {
    4: State.IMPAIRED,
    3: State.INJURED,
    2: State.DYING,
    1: State.DEAD,
    0: State.DEAD,
    -1: State.DEAD,
    -2: State.DEAD,
    -3: State.DEAD,
    -4: State.DEAD,
}
PYRRHIC_VICTORY_BUMPS = 1  # §2.17: a bump up on the ability prosecuting the contest


def _level(outcome: Outcome | int) -> int:
    level = outcome.level if isinstance(outcome, Outcome) else outcome
    if isinstance(level, bool) or not isinstance(level, int) or not -4 <= level <= 4:
        raise RulesError(f"a contest level runs from -4 (complete defeat) to +4, not {level!r}")
    return level


def _states(states: Iterable[State | str]) -> States:
    return tuple(parse_state(state) for state in states)


# --- Consequences and benefits (§2.11.1, §2.11.2) -------------------------------------


def consequence_of_defeat(outcome: Outcome | int) -> State | None:
    """The state of adversity a defeat brings; None for a tie or a victory (§2.11.1, R10).

    >>> consequence_of_defeat(-1), consequence_of_defeat(-4), consequence_of_defeat(2)
    (<State.HURT: 'hurt'>, <State.DYING: 'dying'>, None)
    """
    level = _level(outcome)
    return CONSEQUENCE_OF_DEFEAT[DEGREES[-level - 1]] if level < 0 else None


def is_clearly_inferior(
    abilities_used: Ratings,
    opposition: Ratings,
) -> bool:
    """Did the PC face a clearly inferior opponent? True when the ability used exceeded
    the resistance by 6 or more (§2.11.2.1, R10). With several abilities on either side
    (a long contest), the PC's best is compared with the opposition's worst.

    >>> is_clearly_inferior(20, 14), is_clearly_inferior(19, 14)
    (True, False)
    >>> is_clearly_inferior([12, 20], [15, 14])  # best used 20, worst faced 14
    True
    """
    own = _ratings(abilities_used)
    theirs = _ratings(opposition)
    return max(own) - min(theirs) >= CLEARLY_INFERIOR_MARGIN


def _ratings(value: Ratings) -> list[int]:
    items = value if isinstance(value, list | tuple) else [value]
    if not items:
        raise RulesError("compare at least one rating on each side")
    return [Rating.parse(item).total for item in items]


def benefit_of_victory(
    outcome: Outcome | int,
    *,
    ability_used: Ratings | None = None,
    resistance: Ratings | None = None,
) -> State | None:
    """The state of fortune a victory brings; None for a tie, a defeat, or a victory
    over a clearly inferior opponent when both ratings are given (§2.11.2, R10).

    >>> benefit_of_victory(3), benefit_of_victory(3, ability_used=20, resistance=14)
    (<State.INVIGORATED: 'invigorated'>, None)
    """
    level = _level(outcome)
    if level <= 0:
        return None
    if (ability_used is None) != (resistance is None):
        raise RulesError("give both ability_used and resistance, or neither")
    if (
        ability_used is not None
        and resistance is not None
        and is_clearly_inferior(ability_used, resistance)
    ):
        return None
    return BENEFIT_OF_VICTORY[DEGREES[level - 1]]


def apply_consequence(states: Iterable[State | str], outcome: Outcome | int) -> States:
    """Record a defeat's consequence against one ability (§2.11.1, R10).

    The new state stacks with those already there. A defeat also ends freshness, which
    lasts "until you are defeated" (§2.11.2.1 Fresh). A tie or victory changes nothing.

    >>> apply_consequence(("fresh", "hurt"), -2)
    (<State.HURT: 'hurt'>, <State.IMPAIRED: 'impaired'>)
    """
    current = _states(states)
    consequence = consequence_of_defeat(outcome)
    if consequence is None:
        return current
    return (*(s for s in current if s is not State.FRESH), consequence)


def apply_benefit(
    states: Iterable[State | str],
    outcome: Outcome | int,
    *,
    ability_used: Ratings | None = None,
    resistance: Ratings | None = None,
) -> States:
    """Record a victory's benefit against one ability (§2.11.2, R10); nothing for a tie,
    a defeat or a clearly inferior opponent.

    >>> apply_benefit(("fresh",), 1)
    (<State.FRESH: 'fresh'>, <State.FRESH: 'fresh'>)
    """
    current = _states(states)
    benefit = benefit_of_victory(outcome, ability_used=ability_used, resistance=resistance)
    return current if benefit is None else (*current, benefit)


def apply_outcome(
    states: Iterable[State | str],
    outcome: Outcome | int,
    *,
    ability_used: Ratings | None = None,
    resistance: Ratings | None = None,
) -> States:
    """Apply a contest's consequence or benefit, whichever its level calls for (§2.11).

    >>> apply_outcome((), -3), apply_outcome((), 4)
    ((<State.INJURED: 'injured'>,), (<State.HEROIC: 'heroic'>,))
    """
    if _level(outcome) < 0:
        return apply_consequence(states, outcome)
    return apply_benefit(states, outcome, ability_used=ability_used, resistance=resistance)


def update_abilities(
    conditions: Mapping[str, Iterable[State | str]],
    abilities: Iterable[str],
    change: Callable[..., States],
    *args: Any,
    **kwargs: Any,
) -> Conditions:
    """Apply `change(states, *args, **kwargs)` to each named ability's states and return
    the new conditions (abilities left with no state are dropped). The GM picks which
    abilities a consequence or benefit touches (§2.11.1: "related abilities").

    >>> update_abilities({}, ["Sword", "Ride"], apply_consequence, -1)
    {'Sword': (<State.HURT: 'hurt'>,), 'Ride': (<State.HURT: 'hurt'>,)}
    """
    updated: Conditions = {name: _states(states) for name, states in conditions.items()}
    for ability in abilities:
        updated[ability] = change(updated.get(ability, ()), *args, **kwargs)
    return {name: states for name, states in updated.items() if states}


def can_act(states: Iterable[State | str]) -> bool:
    """False when a state forbids action: dying (short of a final action) or dead."""
    current = _states(states)
    return State.DYING not in current and State.DEAD not in current


def offset_benefit_and_consequence(benefit: State | str, consequence: State | str) -> State | None:
    """The optional rule that a benefit and a consequence on one ability net out
    (§2.11.5): the difference of their ranks on the two ladders, as a new state.

    >>> offset_benefit_and_consequence("invigorated", "hurt")  # the SRD's own example
    <State.PUMPED: 'pumped'>
    >>> offset_benefit_and_consequence("fresh", "hurt") is None
    True
    """
    benefit, consequence = parse_state(benefit), parse_state(consequence)
    if not benefit.is_fortune or not consequence.is_adversity:
        raise RulesError(
            f"offset a state of fortune against one of adversity, not {benefit} and {consequence}"
        )
    if consequence is State.DEAD:
        return State.DEAD
    difference = benefit.rank - consequence.rank
    if difference > 0:
        return FORTUNE[difference - 1]
    if difference < 0:
        return ADVERSITY[-difference - 1]
    return None


# --- Healing and waning (§2.11.3, §2.11.4) --------------------------------------------


def healing_resistance(state: State | str, base: int = DEFAULT_BASE_RESISTANCE) -> Rating:
    """The default resistance to healing a state of adversity (§2.11.3.2, R10).

    >>> [str(healing_resistance(s)) for s in ("hurt", "impaired", "injured", "dying")]
    ['8', '14', '20', '14M']
    """
    state = parse_state(state)
    if state not in HEALING_RESISTANCE_CLASS:
        raise RulesError(
            f"{state} cannot be healed: healing removes hurt, impaired, injured or dying"
        )
    return resistance(HEALING_RESISTANCE_CLASS[state], base)


def healed_state(state: State | str, outcome: Outcome | int) -> State | None:
    """What one state of adversity becomes after a healing attempt (§2.11.3.3, R10).

    A victory removes one step of adversity per degree (marginal 1 .. complete 4),
    None meaning healed; a major defeat worsens it one step, a complete defeat two
    (up to dead). Saving a dying character follows §2.11.1.5 (R18.7, over R10's steps):
    a successful intervention leaves them injured, a complete victory impaired; a failed
    one leaves them dying and doomed (a final action at most, R5.4).

    >>> healed_state("injured", 2), healed_state("hurt", 1), healed_state("impaired", -4)
    (<State.HURT: 'hurt'>, None, <State.DYING: 'dying'>)
    >>> healed_state("dying", 3), healed_state("dying", 4), healed_state("dying", 0)
    (<State.INJURED: 'injured'>, <State.IMPAIRED: 'impaired'>, <State.DYING: 'dying'>)
    """
    state, level = parse_state(state), _level(outcome)
    if state not in HEALING_RESISTANCE_CLASS:
        raise IllegalAction(f"{state} cannot be healed (§2.11.3): only hurt to dying can")
    if state is State.DYING:
        # §2.11.1.5, R18.7: "Successful intervention leaves the PC injured ... a complete
        # victory ... merely impaired"; "if intervention fails ... irrevocably doomed".
        if level == 4:
            return State.IMPAIRED
        return State.INJURED if level > 0 else State.DYING
    if level > 0:
        rank = state.rank - level
    elif level == -3:
        rank = state.rank + 1
    elif level == -4:
        rank = state.rank + 2
    else:
        rank = state.rank
    if rank <= 0:
        return None
    return ADVERSITY[min(rank, len(ADVERSITY)) - 1]


def heal(states: Iterable[State | str], state: State | str, outcome: Outcome | int) -> States:
    """Apply a healing attempt on one of the states recorded against an ability
    (§2.11.3.3, R10); the other states stay as they are.

    >>> heal(("hurt", "injured"), "injured", 2)
    (<State.HURT: 'hurt'>, <State.HURT: 'hurt'>)
    """
    current, target = _states(states), parse_state(state)
    if target not in current:
        held = ", ".join(current) or "no state"
        raise IllegalAction(f"there is no {target} to heal on this ability (it has {held})")
    index = current.index(target)
    after = healed_state(target, outcome)
    rest = current[:index] + current[index + 1 :]
    return rest if after is None else (*rest[:index], after, *rest[index:])


WaneAt = Literal["session_end", "storyline_end"]
WANE_AT: tuple[WaneAt, ...] = ("session_end", "storyline_end")


def read_wane_at(value: object) -> WaneAt:
    """`value` as the moment states wane at (text from a form or a caller)."""
    for at in WANE_AT:
        if value == at:
            return at
    raise RulesError(f"states wane at 'session_end' or 'storyline_end', not {value!r}")


def wane(states: Iterable[State | str], *, at: WaneAt = "session_end") -> States:
    """States that lapse with time (§2.11.1.2, §2.11.2.1 Fresh, §2.11.4).

    At the end of a session hurts and freshness vanish (unless the GM has a dramatic
    reason to keep them). At the end of a storyline, all benefits expire as well.

    >>> wane(("hurt", "impaired", "fresh", "pumped"))
    (<State.IMPAIRED: 'impaired'>, <State.PUMPED: 'pumped'>)
    >>> wane(("hurt", "impaired", "fresh", "pumped"), at="storyline_end")
    (<State.IMPAIRED: 'impaired'>,)
    """
    at = read_wane_at(at)
    current = _states(states)
    gone = {State.HURT, State.FRESH}
    if at == "storyline_end":
        gone |= set(FORTUNE)
    return tuple(s for s in current if s not in gone)


# --- A doomed character's final action (§2.11.1.5) --------------------------------------

WHEREWITHAL_RESISTANCE = "moderate"
"""§2.11.1.5: "A contest of wherewithal faces a moderate resistance"."""


@dataclass(frozen=True, slots=True)
class Wherewithal:
    """What a contest of wherewithal decides for a doomed character (§2.11.1.5):
    whether they rouse themselves to one final action, and whether it takes the bump
    down on related abilities (the GM may waive it after a major or complete victory)."""

    roused: bool
    bump_down: bool
    may_waive: bool

    @property
    def describe(self) -> str:
        if not self.roused:
            return "too weak to act: no final action"
        if self.bump_down:
            return "a final action, with a bump down on related abilities"
        return "a final action, the bump down waived"


def contest_of_wherewithal(outcome: Outcome | int, *, waive_bump: bool = False) -> Wherewithal:
    """A doomed character's contest of wherewithal, before a final action (§2.11.1.5):
    any victory rouses them to it, with "an automatic bump down penalty whenever you use
    any related ability"; "your GM may choose to ignore the bump down if you score a
    major or complete victory". A tie or any defeat: no final action.

    >>> contest_of_wherewithal(2).describe
    'a final action, with a bump down on related abilities'
    >>> contest_of_wherewithal(3, waive_bump=True).bump_down, contest_of_wherewithal(0).roused
    (False, False)
    """
    level = _level(outcome)
    if not isinstance(waive_bump, bool):
        raise RulesError(f"waive_bump must be true or false, not {waive_bump!r}")
    may_waive = level >= 3
    if waive_bump and not may_waive:
        raise RulesError(
            "the GM may waive the bump down only after a major or complete victory on the "
            "contest of wherewithal (§2.11.1.5)"
        )
    roused = level > 0
    return Wherewithal(roused=roused, bump_down=roused and not waive_bump, may_waive=may_waive)


# --- Advanced outcome rules -----------------------------------------------------------


def stretch_capped_level(outcome: Outcome | int) -> int:
    """With a stretch, a major or complete victory counts as a minor one (§2.10).

    >>> stretch_capped_level(4), stretch_capped_level(1), stretch_capped_level(-4)
    (2, 1, -4)
    """
    return min(_level(outcome), 2)


def pyrrhic_victory_consequence(outcome: Outcome | int) -> State:
    """The state of adversity at the end of a contest fought for a pyrrhic victory
    (§2.17, R11). The PC took `PYRRHIC_VICTORY_BUMPS` bump up for it during the contest.

    >>> pyrrhic_victory_consequence(4), pyrrhic_victory_consequence(2)
    (<State.IMPAIRED: 'impaired'>, <State.DYING: 'dying'>)
    """
    return PYRRHIC_VICTORY[_level(outcome)]


GOALS = ("primary", "secondary")


def graduated_goals(outcome: Outcome | int) -> tuple[str, ...]:
    """Which goals a PC with graduated goals achieves (§2.18): both on a major or
    complete victory, only the primary on a minor or marginal one, none otherwise.

    >>> graduated_goals(3), graduated_goals(1), graduated_goals(0)
    (('primary', 'secondary'), ('primary',), ())
    """
    level = _level(outcome)
    if level >= 3:
        return GOALS
    if level >= 1:
        return GOALS[:1]
    return ()


@dataclass(frozen=True, slots=True)
class CostlyVictory:
    """The result of a costly automatic victory: the obstacle is always overcome; a
    defeat on the roll costs a state of adversity (§2.19.2)."""

    level: int
    consequence: State | None

    @property
    def overcomes_obstacle(self) -> bool:
        return True

    @property
    def describe(self) -> str:
        rolled = describe_level(self.level)
        if self.consequence is None:
            return f"victory ({rolled} on the roll), at no cost"
        return f"victory despite a {rolled}, at the cost of being {self.consequence}"


def costly_automatic_victory(outcome: Outcome | int) -> CostlyVictory:
    """Read a costly automatic victory's roll (§2.19.2): even a defeat overcomes the
    story obstacle, but brings the consequence of defeat for its degree, recorded
    against the abilities used or (usually) another resource-related ability.

    >>> costly_automatic_victory(-2).describe
    'victory despite a minor defeat, at the cost of being impaired'
    """
    level = _level(outcome)
    return CostlyVictory(level, consequence_of_defeat(level))


ESCALATION_KINDS = ("scored", "chained")


def escalation_first_round(outcome: Outcome, *, into: str = "scored") -> dict[str, Any]:
    """The hook for an escalating contest (§2.8.2): a simple contest's outcome becomes
    the first round of a scored (or chained) contest. Returns a JSON-able record that
    the long contest's machine takes as its already-played first round.

    >>> from contests.core.rules.simple import simple_contest
    >>> first = escalation_first_round(simple_contest(14, 9, 14, 5))
    >>> first["into"], first["round"]["describe"]
    ('scored', 'marginal victory')
    """
    if into not in ESCALATION_KINDS:
        raise RulesError(
            f"a simple contest escalates into a scored or chained contest, not {into!r} (§2.8.2)"
        )
    if not isinstance(outcome, Outcome):
        raise RulesError(f"escalate the Outcome of a simple contest, not {outcome!r}")
    return {"into": into, "round": outcome.to_json()}
