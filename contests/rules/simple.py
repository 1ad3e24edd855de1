"""Bumps and the simple contest.

§2.3.5 Outcome (better roll, bumps from masteries and hero points) and §4.4.2 Degree
of Victory; RULINGS.md R5 (bumps) and R6 (outcome).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .dice import Result, check_roll, roll_result
from .ratings import Rating

BetterRoll = Literal["high", "low"]
Winner = Literal["pc", "opponent"] | None
Degree = Literal["marginal", "minor", "major", "complete"] | None

DEGREES: tuple[str, ...] = ("marginal", "minor", "major", "complete")
"""Degrees of victory or defeat, weakest first; `DEGREES[n - 1]` is level n."""


def mastery_bumps(pc: Rating, opponent: Rating) -> int:
    """Bumps the PC side takes from masteries, negative when the opponent takes them.

    §2.3.5.4, R5.1: masteries cancel; only the difference counts.
    """
    return pc.masteries - opponent.masteries


def apply_bumps(own: Result, other: Result, bumps: int) -> tuple[Result, Result]:
    """Apply `bumps` to one side's result (R5.2, R5.4).

    Each bump up raises `own` one step; a bump that would raise a critical lowers
    `other` one step instead (a fumble cannot go lower). A negative count is a bump
    down on `own` (a stretch taken as a bump down, or an injured final action).
    """
    for _ in range(abs(bumps)):
        if bumps < 0:
            own = own.bumped(-1)
        elif own is Result.CRITICAL:
            other = other.bumped(-1)
        else:
            own = own.bumped(1)
    return own, other


def bumped_results(
    pc_result: Result, opponent_result: Result, *, pc_bumps: int, opponent_bumps: int
) -> tuple[Result, Result]:
    """Both sides' results after every bump except hero points (R5.2-R5.4).

    Bumps up are applied first (the PC's, then the opponent's), then bumps down.
    """
    pc_up, pc_down = max(pc_bumps, 0), min(pc_bumps, 0)
    opp_up, opp_down = max(opponent_bumps, 0), min(opponent_bumps, 0)
    pc_result, opponent_result = apply_bumps(pc_result, opponent_result, pc_up)
    opponent_result, pc_result = apply_bumps(opponent_result, pc_result, opp_up)
    pc_result, opponent_result = apply_bumps(pc_result, opponent_result, pc_down)
    opponent_result, pc_result = apply_bumps(opponent_result, pc_result, opp_down)
    return pc_result, opponent_result


@dataclass(frozen=True, slots=True)
class Outcome:
    """The outcome of a simple contest, seen from the PC's side.

    `level` is signed: +1..+4 a marginal..complete victory for the PC, 0 a tie,
    -1..-4 a marginal..complete defeat.
    """

    winner: Winner
    degree: Degree
    pc_result: Result
    opponent_result: Result
    pc_roll: int
    opponent_roll: int

    @property
    def level(self) -> int:
        if self.winner is None:
            return 0
        step = DEGREES.index(self.degree) + 1
        return step if self.winner == "pc" else -step

    @property
    def describe(self) -> str:
        """Plain words for the PC's side: 'minor victory', 'tie', 'complete defeat'."""
        if self.winner is None:
            return "tie"
        return f"{self.degree} {'victory' if self.winner == 'pc' else 'defeat'}"


def better_roll_winner(pc_roll: int, opponent_roll: int, better_roll: BetterRoll) -> Winner:
    """Who has the better roll when results are the same (§2.3.5.1, R6)."""
    if better_roll not in ("high", "low"):
        raise ValueError(f"better_roll must be 'high' or 'low', not {better_roll!r}")
    if pc_roll == opponent_roll:
        return None
    pc_better = pc_roll > opponent_roll if better_roll == "high" else pc_roll < opponent_roll
    return "pc" if pc_better else "opponent"


def compare_results(
    pc_result: Result,
    opponent_result: Result,
    pc_roll: int,
    opponent_roll: int,
    *,
    better_roll: BetterRoll = "high",
) -> Outcome:
    """The outcome of two final results (§4.4.2, R6)."""
    difference = pc_result - opponent_result
    if difference:
        winner: Winner = "pc" if difference > 0 else "opponent"
        degree: Degree = DEGREES[abs(difference)]  # 1 minor, 2 major, 3 complete
    elif pc_result is Result.FUMBLE:
        winner, degree = None, None  # R6: both fumble is a tie
    else:
        winner = better_roll_winner(pc_roll, opponent_roll, better_roll)
        degree = "marginal" if winner else None
    return Outcome(winner, degree, pc_result, opponent_result, pc_roll, opponent_roll)


def simple_contest(
    pc: Rating,
    pc_roll: int,
    opponent: Rating,
    opponent_roll: int,
    *,
    pc_hero_point: bool = False,
    better_roll: BetterRoll = "high",
    pc_bumps: int = 0,
    opponent_bumps: int = 0,
) -> Outcome:
    """Resolve a simple contest from two d20 rolls (§4.4, R5, R6).

    `pc_bumps` / `opponent_bumps` are extra bumps besides masteries (heroic state,
    pyrrhic victory, stretch as a bump down: negative). A hero point raises the PC's
    final result one step and is refused on a critical (R5.3).

    >>> simple_contest(Rating(27), 5, Rating(14), 16).describe
    'major victory'
    >>> simple_contest(Rating(14), 12, Rating(14), 3).describe
    'marginal victory'
    """
    pc, opponent = Rating.parse(pc), Rating.parse(opponent)
    check_roll(pc_roll)
    check_roll(opponent_roll)
    masteries = mastery_bumps(pc, opponent)
    pc_result, opponent_result = bumped_results(
        roll_result(pc_roll, pc.target),
        roll_result(opponent_roll, opponent.target),
        pc_bumps=pc_bumps + max(masteries, 0),
        opponent_bumps=opponent_bumps + max(-masteries, 0),
    )
    if pc_hero_point:
        if pc_result is Result.CRITICAL:
            raise ValueError("a hero point cannot raise a critical: the result is already the best")
        pc_result = pc_result.bumped(1)
    return compare_results(
        pc_result, opponent_result, pc_roll, opponent_roll, better_roll=better_roll
    )
