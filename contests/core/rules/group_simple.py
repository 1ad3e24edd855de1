"""The group simple contest: one simple contest per participant, scored together.

§4.2 Group Simple Contest (outcome points), §4.5 Advanced Group Simple Contest (degree
of victory from the difference, boosts); RULINGS.md R7.

Each participant's pairing is an ordinary simple contest (`simple_contest`, the GM
rolling separately for each); this module scores the pairings and collates them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .dice import Result
from .errors import IllegalAction, RulesError
from .simple import DEGREES, Degree, DegreeName, Outcome, Winner, describe_level, winner_and_degree
from .states import CONSEQUENCE_OF_DEFEAT, State

# §4.2.2 Group Simple Contest Table: outcome points by how many steps apart the two
# results are. Same result: 1 to the better roll (R7: equal rolls score nothing).
OUTCOME_POINTS_BY_STEPS: dict[int, int] = {0: 1, 1: 2, 2: 3, 3: 5}

# §4.5.1 Degree of Victory Table: (smallest OP difference, degree), largest first.
_DEGREE_BY_DIFFERENCE: tuple[tuple[int, DegreeName], ...] = (
    (5, "complete"),
    (3, "major"),
    (2, "minor"),
    (1, "marginal"),
)

BOOSTS: tuple[int, ...] = (0, 1, 2)
"""No boost, a boost, a double boost (§4.5.3)."""


def outcome_points(pc_result: Result, opponent_result: Result) -> int:
    """Outcome points the winner of one pairing scores (§4.2.2 table, R7).

    The table is symmetric: it depends only on how far apart the results are, except
    that two fumbles score nothing. Who scores is the pairing's winner; with the same
    result that is the better roll, and equal rolls score nothing (`score_pairing`).

    >>> outcome_points(Result.CRITICAL, Result.FUMBLE)
    5
    >>> outcome_points(Result.FUMBLE, Result.FUMBLE)
    0
    """
    if pc_result is Result.FUMBLE and opponent_result is Result.FUMBLE:
        return 0
    return OUTCOME_POINTS_BY_STEPS[abs(pc_result - opponent_result)]


@dataclass(frozen=True, slots=True)
class PairingScore:
    """Who scored in one pairing of a group simple contest, and how many points."""

    outcome: Outcome
    winner: Winner
    points: int

    def to_json(self) -> dict[str, Any]:
        return {"outcome": self.outcome.to_json(), "winner": self.winner, "points": self.points}


def score_pairing(outcome: Outcome) -> PairingScore:
    """Score one pairing's simple contest outcome (§4.2.1, R7).

    >>> from contests.core.rules.simple import simple_contest
    >>> score = score_pairing(simple_contest(14, 3, 14, 17))
    >>> score.winner, score.points
    ('pc', 2)
    """
    if outcome.winner is None:
        return PairingScore(outcome, None, 0)  # equal rolls, or both fumble
    return PairingScore(
        outcome, outcome.winner, outcome_points(outcome.pc_result, outcome.opponent_result)
    )


def degree_from_difference(difference: int) -> Degree:
    """The winning side's degree from the difference in outcome points (§4.5.1, R7).

    >>> [degree_from_difference(d) for d in (0, 1, 2, 3, 4, 5, 9)]
    [None, 'marginal', 'minor', 'major', 'major', 'complete', 'complete']
    """
    if isinstance(difference, bool) or not isinstance(difference, int) or difference < 0:
        raise RulesError(f"a difference in outcome points is 0 or more, not {difference!r}")
    for smallest, degree in _DEGREE_BY_DIFFERENCE:
        if difference >= smallest:
            return degree
    return None


def boost_cost(heroes: int, boost: int = 1) -> int:
    """Hero points a boost costs: 1 per 3 heroes or part of 3, doubled for a double
    boost (§4.5.3, R7). Any mix of players may pay; the points stay spent.

    >>> [boost_cost(n) for n in (1, 3, 4, 6, 7)], boost_cost(4, boost=2)
    ([1, 1, 2, 2, 3], 4)
    """
    if isinstance(heroes, bool) or not isinstance(heroes, int) or heroes < 1:
        raise RulesError(f"a group simple contest needs at least 1 hero, not {heroes!r}")
    if boost not in BOOSTS or isinstance(boost, bool):
        raise RulesError(f"boost is 0, 1 (a boost) or 2 (a double boost), not {boost!r}")
    return math.ceil(heroes / 3) * boost


def boosted_level(level: int, boost: int) -> int:
    """The PC side's signed level after a boost (§4.5.3, R7).

    On a tie or a victory the level rises one step per boost, a tie becoming a marginal
    victory, up to complete (+4). A defeat is not changed.

    >>> boosted_level(0, 1), boosted_level(3, 2), boosted_level(-2, 2)
    (1, 4, -2)
    """
    if boost not in BOOSTS or isinstance(boost, bool):
        raise RulesError(f"boost is 0, 1 (a boost) or 2 (a double boost), not {boost!r}")
    if level < 0:
        return level
    return min(4, level + boost)


@dataclass(frozen=True, slots=True)
class GroupOutcome:
    """The collated outcome of a group simple contest, seen from the PC side.

    `level` is signed like `Outcome.level` and includes the boost; `unboosted_level` is
    what the outcome points alone gave.
    """

    pairings: tuple[PairingScore, ...]
    pc_points: int
    opponent_points: int
    boost: int
    unboosted_level: int
    level: int

    @property
    def winner(self) -> Winner:
        return winner_and_degree(self.level)[0]

    @property
    def degree(self) -> Degree:
        return winner_and_degree(self.level)[1]

    @property
    def describe(self) -> str:
        return describe_level(self.level)

    def to_json(self) -> dict[str, Any]:
        return {
            "pairings": [p.to_json() for p in self.pairings],
            "pc_points": self.pc_points,
            "opponent_points": self.opponent_points,
            "boost": self.boost,
            "unboosted_level": self.unboosted_level,
            "level": self.level,
            "winner": self.winner,
            "degree": self.degree,
            "describe": self.describe,
        }


def group_simple_contest(outcomes: Iterable[Outcome], *, boost: int = 0) -> GroupOutcome:
    """Collate the pairings of a group simple contest (§4.2.1, §4.5.1, R7).

    `outcomes` are the simple contests of each participant (PC side first in each).
    The side with more outcome points wins; equal totals tie; the degree comes from the
    difference. `boost` is what the PCs bought before rolling (0, 1 or 2).

    >>> from contests.core.rules.simple import simple_contest
    >>> pairings = [
    ...     simple_contest(14, 3, 14, 17),  # success v failure: PC scores 2
    ...     simple_contest(12, 15, 14, 4),  # failure v success: opponent scores 2
    ...     simple_contest(17, 1, 14, 16),  # critical v failure: PC scores 3
    ... ]
    >>> group = group_simple_contest(pairings, boost=1)
    >>> group.pc_points, group.opponent_points, group.unboosted_level, group.describe
    (5, 2, 3, 'complete victory')
    """
    pairings = tuple(score_pairing(outcome) for outcome in outcomes)
    if not pairings:
        raise RulesError("a group simple contest needs at least one pairing")
    if boost not in BOOSTS or isinstance(boost, bool):
        raise RulesError(f"boost is 0, 1 (a boost) or 2 (a double boost), not {boost!r}")
    pc_points = sum(p.points for p in pairings if p.winner == "pc")
    opponent_points = sum(p.points for p in pairings if p.winner == "opponent")
    degree = degree_from_difference(abs(pc_points - opponent_points))
    step = 0 if degree is None else DEGREES.index(degree) + 1
    unboosted = step if pc_points >= opponent_points else -step
    return GroupOutcome(
        pairings=pairings,
        pc_points=pc_points,
        opponent_points=opponent_points,
        boost=boost,
        unboosted_level=unboosted,
        level=boosted_level(unboosted, boost),
    )


def both_fumbled(outcome: Outcome) -> bool:
    """Did a pairing's two contestants both fumble (§4.4.2: the table's "Tie*")?"""
    return outcome.pc_result is Result.FUMBLE and outcome.opponent_result is Result.FUMBLE


def both_fumble_defeat(outcome: Outcome) -> State:
    """The GM's option of §4.4.2's footnote in a group simple contest: "your GM may
    declare that both contestants suffer a marginal defeat to indicate that, although
    their results cancel out with respect to each other, their situation worsens
    compared to other contestants". The contestant's consequence of that defeat (R10);
    refused unless both fumbled. The pairing's points are unchanged.

    >>> from .simple import compare_results
    >>> both_fumble_defeat(compare_results(Result.FUMBLE, Result.FUMBLE, 20, 20))
    <State.HURT: 'hurt'>
    """
    if not both_fumbled(outcome):
        raise IllegalAction(
            "only a pairing where both contestants fumbled can be ruled a marginal defeat "
            f"for both (§4.4.2); this one was {outcome.pc_result.label} against "
            f"{outcome.opponent_result.label}"
        )
    return CONSEQUENCE_OF_DEFEAT["marginal"]
