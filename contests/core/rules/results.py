"""What every contest machine reports when it is over: `ContestOutcome` (issue 13).

One shape for the scored, chained and extended contests (and a simple contest's
`Outcome`, through `simple_outcome`): the winner, the degree and the signed level
seen from the PC's side, and for each side the consequence of defeat it takes and the
benefit of victory it gains, each a `State` or None (§2.10, §2.11, R10, R18.6).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import RulesError
from .outcomes import is_clearly_inferior
from .sides import SideInput
from .simple import DEGREES, SIDES, Outcome, Side
from .states import BENEFIT_OF_VICTORY, CONSEQUENCE_OF_DEFEAT, State


@dataclass(frozen=True, slots=True)
class ContestOutcome:
    """A decided contest.

    - `winner`: "pc", "opponent", or None (a tie, or nobody after a disengagement).
    - `degree`: "marginal" .. "complete", or None.
    - `level`: signed from the PC's side, +4 a complete victory .. -4 a complete defeat.
    - `consequences`: each side's state of adversity from the contest, or None.
    - `benefits`: each side's state of fortune from its victory, or None (R10: none
      against a clearly inferior opponent, none for the GM's side).
    - `words`: each side's result in the contest's own table words ("dazed",
      "unharmed"), where they say more than the State.
    - `ended_by`: how it ended ("knockout", "defeat", "dying", "disengagement", ...).

    >>> from .simple import simple_contest
    >>> result = simple_outcome(simple_contest(17, 4, 14, 20), pc=17, opponent=14)
    >>> result.winner, result.degree, result.level, result.benefits["pc"]
    ('pc', 'major', 3, <State.INVIGORATED: 'invigorated'>)
    >>> result.consequences["opponent"]
    <State.INJURED: 'injured'>
    """

    winner: str | None
    degree: str | None
    consequences: dict[str, State | None]
    benefits: dict[str, State | None]
    ended_by: str | None = None
    words: dict[str, str] = field(default_factory=dict)
    # The side whose view `level` takes (a group extended contest names its sides).
    pc_side: str = "pc"
    # Group contests: defeats a final action overcame, which still apply (§5.3.5).
    earlier: dict[str, tuple[State, ...]] = field(default_factory=dict)

    @property
    def level(self) -> int:
        if self.winner is None or self.degree is None:
            return 0
        step = DEGREES.index(self.degree) + 1
        return step if self.winner == self.pc_side else -step

    @property
    def loser(self) -> str | None:
        """The losing side of a one-on-one contest."""
        if self.winner is None or self.winner not in SIDES:
            return None
        return "opponent" if self.winner == "pc" else "pc"

    def to_json(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "degree": self.degree,
            "level": self.level,
            "ended_by": self.ended_by,
            "consequences": {k: v.value if v else None for k, v in self.consequences.items()},
            "benefits": {k: v.value if v else None for k, v in self.benefits.items()},
            "words": dict(self.words),
            "earlier": {k: [state.value for state in v] for k, v in self.earlier.items()},
        }


def state_of(word: str | State | None) -> State | None:
    """A table's word as a State; "unharmed", "dazed" and None carry no state."""
    if word is None or isinstance(word, State):
        return word
    try:
        return State(word)
    except ValueError:
        return None


def benefit_for(
    winner: Side | None, degree: str | None, sides: Mapping[Side, SideInput]
) -> State | None:
    """The benefit of victory the winner gains (§5.1.1 step 6, §2.11.2, R10, R18.6):
    the victory level's state of fortune, for a player's side only, and none when its
    ability beat the loser's by 6 or more (a clearly inferior opponent)."""
    if winner is None or degree is None:
        return None
    if degree not in DEGREES:
        raise RulesError(f"a degree is one of {', '.join(DEGREES)}, not {degree!r}")
    loser: Side = "opponent" if winner == "pc" else "pc"
    if not sides[winner].is_pc:
        return None
    if is_clearly_inferior(sides[winner].rating, sides[loser].rating):
        return None
    return BENEFIT_OF_VICTORY[degree]


def long_outcome(
    *,
    winner: Side | None,
    degree: str | None,
    consequences: Mapping[str, str | State | None],
    sides: Mapping[Side, SideInput],
    ended_by: str | None,
) -> ContestOutcome:
    """A long contest's ContestOutcome from its own consequences (its table's words)
    and the winner's benefit of victory (R18.6)."""
    benefit = benefit_for(winner, degree, sides)
    return ContestOutcome(
        winner=winner,
        degree=degree,
        consequences={side: state_of(consequences.get(side)) for side in SIDES},
        benefits={side: benefit if side == winner else None for side in SIDES},
        ended_by=ended_by,
        words={side: str(word) for side, word in consequences.items() if word is not None},
    )


def simple_outcome(
    outcome: Outcome,
    *,
    pc: SideInput | int | str,
    opponent: SideInput | int | str,
) -> ContestOutcome:
    """A simple contest's Outcome in the same shape as the machines' (§2.11, R10):
    the loser's consequence of defeat and the winner's benefit for the degree."""
    sides: dict[Side, SideInput] = {
        "pc": SideInput.read(pc, name="the PC"),
        "opponent": SideInput.read(opponent, name="the opponent", is_pc=False),
    }
    winner, degree = outcome.winner, outcome.degree
    consequences: dict[str, State | None] = {side: None for side in SIDES}
    if winner is not None and degree is not None:
        consequences["opponent" if winner == "pc" else "pc"] = CONSEQUENCE_OF_DEFEAT[degree]
    benefit = benefit_for(winner, degree, sides)
    return ContestOutcome(
        winner=winner,
        degree=degree,
        consequences=consequences,
        benefits={side: benefit if side == winner else None for side in SIDES},
        ended_by="roll",
    )
