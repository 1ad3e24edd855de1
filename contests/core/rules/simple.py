"""Bumps and the simple contest.

§2.3.5 Outcome (better roll, bumps from masteries and hero points) and §4.4.2 Degree
of Victory; RULINGS.md R5 (bumps) and R6 (outcome).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from .dice import Result, check_roll, roll_result
from .errors import IllegalAction, RulesError
from .ratings import Rating

BetterRoll = Literal["high", "low"]
Side = Literal["pc", "opponent"]
SIDES: tuple[Side, Side] = ("pc", "opponent")
Winner = Side | None


def as_side(value: object) -> Side | None:
    """`value` as a Side ("pc" or "opponent"), or None when it names neither."""
    return "pc" if value == "pc" else "opponent" if value == "opponent" else None


DegreeName = Literal["marginal", "minor", "major", "complete"]
Degree = DegreeName | None

DEGREES: tuple[DegreeName, ...] = ("marginal", "minor", "major", "complete")
"""Degrees of victory or defeat, weakest first; `DEGREES[n - 1]` is level n."""


def mastery_bumps(pc: Rating, opponent: Rating) -> int:
    """Bumps the PC side takes from masteries, negative when the opponent takes them.

    §2.3.5.4, R5.1: masteries cancel; only the difference counts.
    """
    return pc.masteries - opponent.masteries


def net_bumps(pc_bumps: int, opponent_bumps: int) -> tuple[int, int]:
    """Cancel the bumps up both sides hold, as opposed masteries cancel (R5.1).

    A count is a side's own bumps, net: positive bumps up, negative bumps down on its
    own result (a stretch, a final action). Only one side can be left with bumps up,
    which makes the order of applying them irrelevant.

    >>> net_bumps(2, 1), net_bumps(1, -1), net_bumps(-1, -1)
    ((1, 0), (1, -1), (-1, -1))
    """
    cancelled = min(max(pc_bumps, 0), max(opponent_bumps, 0))
    return pc_bumps - cancelled, opponent_bumps - cancelled


def apply_bumps(own: Result, other: Result, bumps: int) -> tuple[Result, Result]:
    """Apply `bumps` to one side's result (R5.2, R5.4).

    Each bump up raises `own` one step; a bump that would raise a critical lowers
    `other` one step instead (a fumble cannot go lower). A negative count is a bump
    down on `own` (a stretch taken as a bump down, or an injured final action).
    """
    # §2.3.5.3
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
    """Both sides' results after every bump except hero points (R5.1-R5.4).

    The two sides' bumps up cancel first (`net_bumps`); then the side left with bumps
    up applies them, and each side applies its own bumps down. After cancelling, the
    order no longer changes the result.

    >>> bumped_results(Result.CRITICAL, Result.SUCCESS, pc_bumps=2, opponent_bumps=0)
    (<Result.CRITICAL: 3>, <Result.FUMBLE: 0>)
    """
    # §2.3.5.3-§2.3.5.4
    pc_bumps, opponent_bumps = net_bumps(pc_bumps, opponent_bumps)
    pc_result, opponent_result = apply_bumps(pc_result, opponent_result, pc_bumps)
    opponent_result, pc_result = apply_bumps(opponent_result, pc_result, opponent_bumps)
    return pc_result, opponent_result


@dataclass(frozen=True, slots=True)
class Outcome:
    """The outcome of a simple contest, seen from the PC's side.

    `level` is signed: +1..+4 a marginal..complete victory for the PC, 0 a tie,
    -1..-4 a marginal..complete defeat. The results are final (after bumps and any
    hero point); `better_roll` is remembered so a hero point can be spent later.
    """

    winner: Winner
    degree: Degree
    pc_result: Result
    opponent_result: Result
    pc_roll: int
    opponent_roll: int
    better_roll: BetterRoll = "high"
    pc_hero_point: bool = False
    opponent_hero_point: bool = False
    # §2.10 (R18.4): the sides rolling a stretched ability, and the degree a stretch
    # held to minor (None when it capped nothing).
    stretched: tuple[str, ...] = ()
    capped_from: Degree = None

    @property
    def level(self) -> int:
        if self.winner is None:
            return 0
        step = DEGREES.index(self.degree) + 1
        return step if self.winner == "pc" else -step

    @property
    def describe(self) -> str:
        """Plain words for the PC's side: 'minor victory', 'tie', 'complete defeat'."""
        return describe_level(self.level)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict of the outcome, for logs and the live table."""
        return {
            "winner": self.winner,
            "degree": self.degree,
            "level": self.level,
            "describe": self.describe,
            "pc_roll": self.pc_roll,
            "opponent_roll": self.opponent_roll,
            "pc_result": self.pc_result.label,
            "opponent_result": self.opponent_result.label,
            "better_roll": self.better_roll,
            "pc_hero_point": self.pc_hero_point,
            "opponent_hero_point": self.opponent_hero_point,
            "stretched": list(self.stretched),
            "capped_from": self.capped_from,
        }

    @property
    def cap_note(self) -> str:
        """Why the degree is lower than the dice say, or "" (§2.10)."""
        if not self.capped_from:
            return ""
        return f"a {self.capped_from} victory held to minor by the stretch (§2.10)"


def cap_stretched(outcome: Outcome, stretched: Any) -> Outcome:
    """The outcome with a stretch's cap: a major or complete victory won with a
    stretched ability counts as a minor one (§2.10, R18.4). `stretched` names the sides
    ("pc", "opponent") rolling a stretched ability; a defeat or lesser victory stands.

    >>> major = compare_results(Result.SUCCESS, Result.FUMBLE, 9, 20)
    >>> cap_stretched(major, ["pc"]).describe, cap_stretched(major, ["opponent"]).describe
    ('minor victory', 'major victory')
    """
    # §2.10: "If you are using a stretch, then major or complete victories you score
    # are instead treated as minor victories."
    sides = tuple(sorted({str(side) for side in stretched}))
    if any(side not in ("pc", "opponent") for side in sides):
        raise RulesError(f"stretched sides are 'pc' and 'opponent', not {list(sides)!r}")
    degree = outcome.capped_from or outcome.degree
    marked = replace(outcome, stretched=sides, degree=degree, capped_from=None)
    if outcome.winner in sides and degree in ("major", "complete"):
        return replace(marked, degree="minor", capped_from=degree)
    return marked


def describe_level(level: int) -> str:
    """Plain words for a signed level seen from the PC's side (§2.10).

    >>> describe_level(2), describe_level(0), describe_level(-4)
    ('minor victory', 'tie', 'complete defeat')
    """
    winner, degree = winner_and_degree(level)
    if winner is None:
        return "tie"
    return f"{degree} {'victory' if winner == 'pc' else 'defeat'}"


def winner_and_degree(level: int) -> tuple[Winner, Degree]:
    """The (winner, degree) pair of a signed level -4..+4 (§2.10).

    >>> winner_and_degree(-3)
    ('opponent', 'major')
    """
    if isinstance(level, bool) or not isinstance(level, int) or not -4 <= level <= 4:
        raise RulesError(f"a level runs from -4 (complete defeat) to +4, not {level!r}")
    if level == 0:
        return None, None
    return ("pc" if level > 0 else "opponent"), DEGREES[abs(level) - 1]


def better_roll_winner(pc_roll: int, opponent_roll: int, better_roll: BetterRoll) -> Winner:
    """Who has the better roll when results are the same (§2.3.5.1, R6)."""
    if better_roll not in ("high", "low"):
        raise RulesError(f"better_roll must be 'high' or 'low', not {better_roll!r}")
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
    """The outcome of two final results (§4.4.2 Simple Contest Table, R6).

    >>> compare_results(Result.SUCCESS, Result.FUMBLE, 9, 20).describe
    'major victory'
    >>> compare_results(Result.FUMBLE, Result.FUMBLE, 20, 20).describe
    'tie'
    """
    if better_roll not in ("high", "low"):
        raise RulesError(f"better_roll must be 'high' or 'low', not {better_roll!r}")
    difference = pc_result - opponent_result
    if difference:
        winner: Winner = "pc" if difference > 0 else "opponent"
        degree: Degree = DEGREES[abs(difference)]  # 1 minor .. 3 complete
    elif pc_result is Result.FUMBLE:
        winner, degree = None, None  # R6: both fumble is a tie
    else:
        winner = better_roll_winner(pc_roll, opponent_roll, better_roll)
        degree = "marginal" if winner else None
    return Outcome(winner, degree, pc_result, opponent_result, pc_roll, opponent_roll, better_roll)


def bump_with_hero_point(outcome: Outcome, *, side: Literal["pc", "opponent"] = "pc") -> Outcome:
    """The outcome after `side` spends a hero point to bump its own result up (§2.3.5.5).

    Spent after both results are known (masteries and other bumps included), one per
    roll, and refused on a critical, which no bump can raise (R5.3). `side` is
    "opponent" only when the opponent is a PC too.

    >>> minor_defeat = compare_results(Result.FAILURE, Result.SUCCESS, 12, 7)
    >>> bump_with_hero_point(minor_defeat).describe
    'marginal victory'
    """
    # §2.3.5.5
    if side not in ("pc", "opponent"):
        raise RulesError(f"side must be 'pc' or 'opponent', not {side!r}")
    spent = outcome.pc_hero_point if side == "pc" else outcome.opponent_hero_point
    if spent:
        raise IllegalAction("only one hero point may be spent per roll (§2.3.5.5)")
    own = outcome.pc_result if side == "pc" else outcome.opponent_result
    if own is Result.CRITICAL:
        raise IllegalAction("a hero point cannot raise a critical: the result is already the best")
    pc_result, opponent_result = outcome.pc_result, outcome.opponent_result
    if side == "pc":
        pc_result = pc_result.bumped(1)
    else:
        opponent_result = opponent_result.bumped(1)
    bumped = compare_results(
        pc_result,
        opponent_result,
        outcome.pc_roll,
        outcome.opponent_roll,
        better_roll=outcome.better_roll,
    )
    spent_outcome = replace(
        bumped,
        pc_hero_point=outcome.pc_hero_point or side == "pc",
        opponent_hero_point=outcome.opponent_hero_point or side == "opponent",
    )
    return cap_stretched(spent_outcome, outcome.stretched) if outcome.stretched else spent_outcome


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
    opponent_hero_point: bool = False,
) -> Outcome:
    """Resolve a simple contest from two d20 rolls (§4.4, R5, R6).

    `pc` and `opponent` are final target numbers (a Rating, an int total or text such
    as "7M"). `pc_bumps` / `opponent_bumps` are extra bumps besides masteries (heroic
    state, pyrrhic victory; a stretch or final action as a bump down: negative). A hero
    point raises the side's final result one step and is refused on a critical (R5.3);
    `opponent_hero_point` is for a PC opponent.

    >>> simple_contest(Rating(27), 5, Rating(14), 16).describe
    'major victory'
    >>> simple_contest(Rating(14), 12, Rating(14), 3).describe
    'marginal victory'
    """
    # §4.4.1 steps 4-5
    pc, opponent = Rating.parse(pc), Rating.parse(opponent)
    check_roll(pc_roll)
    check_roll(opponent_roll)
    for name, bumps in (("pc_bumps", pc_bumps), ("opponent_bumps", opponent_bumps)):
        if isinstance(bumps, bool) or not isinstance(bumps, int):
            raise RulesError(f"{name} must be a whole number, not {bumps!r}")
    masteries = mastery_bumps(pc, opponent)
    pc_result, opponent_result = bumped_results(
        roll_result(pc_roll, pc.target),
        roll_result(opponent_roll, opponent.target),
        pc_bumps=pc_bumps + max(masteries, 0),
        opponent_bumps=opponent_bumps + max(-masteries, 0),
    )
    outcome = compare_results(
        pc_result, opponent_result, pc_roll, opponent_roll, better_roll=better_roll
    )
    if pc_hero_point:
        outcome = bump_with_hero_point(outcome, side="pc")
    if opponent_hero_point:
        outcome = bump_with_hero_point(outcome, side="opponent")
    return outcome


# -- The GM's options at the table (R18.10) -----------------------------------------------

NO_RELEVANT_ABILITY = 6
"""§2.1.2.1: "you may still enter into conflict with the story obstacle using a minimum
base target number of 6"; modifiers apply to it as to a rating."""


def confusing_tie(outcome: Outcome, *, against_a_pc: bool = False) -> Outcome:
    """The GM rules a tie that is hard to picture a marginal victory for the PC
    (§2.3.5.2, §2.10: "If this is confusing, and you are not contending with another PC,
    your GM can rule that you gain a marginal victory"). Refused for any other outcome,
    and between two PCs.

    >>> tie = compare_results(Result.FUMBLE, Result.FUMBLE, 20, 20)
    >>> confusing_tie(tie).describe
    'marginal victory'
    """
    if outcome.winner is not None:
        raise IllegalAction(
            f"only a tie can be ruled a marginal victory (§2.3.5.2); this is a {outcome.describe}"
        )
    if against_a_pc:
        raise IllegalAction(
            "a tie between two player characters stands: the GM rules a confusing tie a "
            "marginal victory only against a resistance (§2.10)"
        )
    return replace(outcome, winner="pc", degree="marginal")
