"""One round of a scored contest, shared by the one-on-one and group machines (§5.1.1).

A simple contest with hero points on either side (`contest_outcome`), the RP it
scores after tactics (`score_round`), and the playing and logging of a round
(`play_contest`, `round_log`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..dice import Result
from ..errors import IllegalAction
from ..inputs import read_int, read_rating, read_roll
from ..ratings import Rating
from ..sides import SideInput
from ..simple import (
    SIDES,
    BetterRoll,
    Outcome,
    Side,
    bump_with_hero_point,
    cap_stretched,
    simple_contest,
)
from .tables import ASYMMETRICAL_TACTICS, read_tactic, round_points

# ---------------------------------------------------------------------------
# One round: a simple contest, hero points on either side, then RP
# ---------------------------------------------------------------------------


def contest_outcome(
    pc: Rating,
    pc_roll: int,
    opponent: Rating,
    opponent_roll: int,
    *,
    better_roll: BetterRoll = "high",
    pc_hero_point: bool = False,
    opponent_hero_point: bool = False,
    pc_bumps: int = 0,
    opponent_bumps: int = 0,
    pc_label: str = "the PC",
    opponent_label: str = "the opponent",
) -> Outcome:
    """`simple_contest` with the messages a live table needs (§2.3.5, R5, R6).

    Either side may spend a hero point (two PCs can contend, §5.1.1 step 3); one on a
    critical is an `IllegalAction` naming whose roll it was, and a bad roll is a
    `RulesError` naming the roller.

    >>> contest_outcome(Rating(14), 9, Rating(14), 3, opponent_hero_point=True).describe
    'minor defeat'
    """
    read_roll(pc_roll, f"{pc_label}'s roll")
    read_roll(opponent_roll, f"{opponent_label}'s roll")
    outcome = simple_contest(
        pc,
        pc_roll,
        opponent,
        opponent_roll,
        better_roll=better_roll,
        pc_bumps=pc_bumps,
        opponent_bumps=opponent_bumps,
    )
    spenders: tuple[tuple[Side, bool, str], ...] = (
        ("pc", pc_hero_point, pc_label),
        ("opponent", opponent_hero_point, opponent_label),
    )
    for side, spent, label in spenders:
        if not spent:
            continue
        own = outcome.pc_result if side == "pc" else outcome.opponent_result
        if own is Result.CRITICAL:
            # R5.3: offered only below critical; say whose roll it was.
            raise IllegalAction(
                f"a hero point cannot raise {label}'s critical: it is already the best result"
            )
        outcome = bump_with_hero_point(outcome, side=side)
    return outcome


@dataclass(frozen=True, slots=True)
class ScoredRound:
    """A resolved round: the simple contest's outcome and the RP it scores (§5.1.1)."""

    outcome: Outcome
    pc_tactic: str
    opponent_tactic: str
    points: int

    @property
    def winner(self) -> Side | None:
        return self.outcome.winner

    @property
    def scored_by(self) -> Side | None:
        """The side that lodges `points` RP, or None when the round scores nothing."""
        return self.outcome.winner if self.points else None

    @property
    def objective_achieved(self) -> Side | None:
        """The side that won an asymmetrical round (or a disengagement) and so
        succeeds at its other aim (§5.1.5)."""
        winner = self.outcome.winner
        if winner and self.tactic(winner) in ASYMMETRICAL_TACTICS:
            return winner
        return None

    @property
    def escaped(self) -> Side | None:
        """The side that disengaged by winning this round (§5.1.6)."""
        winner = self.outcome.winner
        return winner if winner and self.tactic(winner) == "disengage" else None

    def tactic(self, side: Side) -> str:
        return self.pc_tactic if side == "pc" else self.opponent_tactic


def score_round(
    outcome: Outcome, *, pc_tactic: str = "normal", opponent_tactic: str = "normal"
) -> ScoredRound:
    """The RP a round's outcome scores, given each side's tactic (R12).

    >>> outcome = simple_contest(Rating(14), 5, Rating(14), 17)
    >>> score_round(outcome, opponent_tactic="risky_gambit").points
    4
    """
    read_tactic(pc_tactic, "the PC's")
    read_tactic(opponent_tactic, "the opponent's")
    points = 0
    if outcome.winner is not None:
        assert outcome.degree is not None, "a contest with a winner has a degree"
        winner_tactic, loser_tactic = (
            (pc_tactic, opponent_tactic) if outcome.winner == "pc" else (opponent_tactic, pc_tactic)
        )
        points = round_points(
            outcome.degree, winner_tactic=winner_tactic, loser_tactic=loser_tactic
        )
    return ScoredRound(outcome, pc_tactic, opponent_tactic, points)


def outcome_entry(outcome: Outcome) -> dict[str, Any]:
    """The JSON-able part of a round log entry that describes a simple contest."""
    return {
        "pc_roll": outcome.pc_roll,
        "opponent_roll": outcome.opponent_roll,
        "pc_result": outcome.pc_result.label,
        "opponent_result": outcome.opponent_result.label,
        "winner": outcome.winner,
        "degree": outcome.degree,
        "outcome": outcome.describe,
        "capped_from": outcome.capped_from,
    }


# ---------------------------------------------------------------------------
# Playing a round, shared by the one-on-one and group machines: each reads the
# round's options in the same order (tactics, hero points, ratings, rolls, bumps)
# and logs the round with the same fields.
# ---------------------------------------------------------------------------


def read_tactics(names: dict[Side, str], pc_tactic: Any, opponent_tactic: Any) -> dict[Side, str]:
    """Both sides' tactics for a round (§5.2.5, §5.2.6, §5.1.5, §5.1.6), each refusal
    naming its side."""
    return {
        "pc": read_tactic(pc_tactic, f"{names['pc']}'s"),
        "opponent": read_tactic(opponent_tactic, f"{names['opponent']}'s"),
    }


def rating_in_use(rating: Rating, override: Any, modifier: Any, name: str) -> Rating:
    """The rating `name` rolls with: `rating`, or `override` when given (another
    ability, §5.1.5, §5.2.8), plus a situational `modifier` (R9)."""
    base = rating if override is None else read_rating(override, f"{name}'s rating")
    return base + read_int(modifier, f"{name}'s modifier")


class RoundPlay(NamedTuple):
    """A round's simple contest as played: each side's hero point and rating, and the
    outcome (§5.1.1 step 4)."""

    hero_points: dict[Side, bool]
    ratings: dict[Side, Rating]
    outcome: Outcome


def play_contest(
    names: dict[Side, str],
    ratings: Mapping[Side, Rating | SideInput],
    check_hero_point: Callable[[Side, Any], bool],
    *,
    better_roll: BetterRoll,
    rolls: dict[Side, Any],
    hero_points: dict[Side, Any],
    overrides: dict[Side, Any],
    modifiers: dict[Side, Any],
    bumps: dict[Side, Any],
    stretched: Any = (),
) -> RoundPlay:
    """Read both sides' options for a round and play its simple contest (§5.1.1 step 4).

    `ratings` are the abilities in use: a Rating, or a SideInput whose lasting bumps
    count on every roll and whose stretch caps its victories at minor (R18.4, R18.5);
    `overrides` name another ability for this round only (no stretch of the usual
    ability then) and `modifiers` are this round's situational modifiers (R9: they
    last one round); `stretched` names the sides whose ability in use is a stretch
    (given as Ratings). `check_hero_point(side, value)` reads a side's hero point and
    refuses one to the GM's side, in the machine's own words.
    """
    spent = {side: check_hero_point(side, hero_points[side]) for side in SIDES}
    lasting = {side: rating for side in SIDES if isinstance(rating := ratings[side], SideInput)}
    base = {
        side: rating.target.rating if isinstance(rating := ratings[side], SideInput) else rating
        for side in SIDES
    }
    used = {
        side: rating_in_use(base[side], overrides[side], modifiers[side], names[side])
        for side in SIDES
    }
    extra = {
        side: read_int(bumps[side], f"{side}_bumps")
        + (lasting[side].total_bumps if side in lasting else 0)
        for side in SIDES
    }
    outcome = contest_outcome(
        used["pc"],
        read_roll(rolls["pc"], f"{names['pc']}'s roll"),
        used["opponent"],
        read_roll(rolls["opponent"], f"{names['opponent']}'s roll"),
        better_roll=better_roll,
        pc_hero_point=spent["pc"],
        opponent_hero_point=spent["opponent"],
        pc_bumps=extra["pc"],
        opponent_bumps=extra["opponent"],
        pc_label=names["pc"],
        opponent_label=names["opponent"],
    )
    # §2.10 (R18.4): a round won with a stretched ability scores a minor victory's RP.
    capped = {s for s, side in lasting.items() if side.stretched and overrides[s] is None}
    capped |= {s for s in stretched if overrides[s] is None}
    if capped:
        outcome = cap_stretched(outcome, capped)
    return RoundPlay(spent, used, outcome)


def round_log(play: RoundPlay, scored: ScoredRound) -> dict[str, Any]:
    """The log fields of a played round, from the rolls to whether a side escaped."""
    return {
        **outcome_entry(play.outcome),
        "pc_rating": str(play.ratings["pc"]),
        "opponent_rating": str(play.ratings["opponent"]),
        "pc_tactic": scored.pc_tactic,
        "opponent_tactic": scored.opponent_tactic,
        "pc_hero_point": play.hero_points["pc"],
        "opponent_hero_point": play.hero_points["opponent"],
        "scored_by": scored.scored_by,
        "points": scored.points,
        "objective_achieved": scored.objective_achieved,
        "escaped": scored.escaped,
    }
