"""The one-on-one extended contest's state: its setup and what the table shows (§5.3).

`ExtendedContestBase` holds the two sides, the turn order, the end and the
consequences; `contest.py` adds the actions on top of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import IllegalAction, RulesError
from ..inputs import read_better_roll
from ..machine import ContestMachine
from ..outcomes import is_clearly_inferior
from ..ratings import Rating
from ..results import ContestOutcome
from ..sides import SideInput, read_sides
from ..simple import SIDES, Side, as_side
from ..states import BENEFIT_OF_VICTORY, CONSEQUENCE_OF_DEFEAT, State
from .rolls import SideRoll
from .tables import (
    check_bid,
    consequence_of,
    defeat_degree,
    pc_bid_limit,
    pc_bid_reason,
    starting_ap,
)

# ---------------------------------------------------------------------------
# The one-on-one extended contest
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Contestant:
    """One side of a one-on-one contest: its current ability and its AP."""

    rating: str
    modifier: int
    bumps: int
    starting_ap: int
    ap: int
    hero_points_spent: int = 0
    used: list[int] = field(default_factory=list)
    # A player's side (§2.3.1.2, R18.8): hero points, desperation stakes, parting shots.
    is_pc: bool = False
    # §2.10 (R18.4): the ability in use is a stretch.
    stretched: bool = False
    name: str = ""

    @property
    def tn(self) -> Rating:
        """The current ability with its lasting modifiers (§5.3.1 step 2)."""
        return Rating.parse(self.rating) + self.modifier

    def to_json(self) -> dict[str, Any]:
        return {
            "rating": self.rating,
            "modifier": self.modifier,
            "bumps": self.bumps,
            "tn": str(self.tn),
            "starting_ap": self.starting_ap,
            "ap": self.ap,
            "hero_points_spent": self.hero_points_spent,
            "is_pc": self.is_pc,
            "stretched": self.stretched,
        }


def _other(side: str) -> Side:
    return "opponent" if side == "pc" else "pc"


class ExtendedContestBase(ContestMachine):
    """The setup and the state of a one-on-one extended contest, without its actions:
    the base of `ExtendedContest`, which documents the setup."""

    def _start(
        self,
        *,
        pc: SideInput | dict[str, Any] | int | str,
        opponent: SideInput | dict[str, Any] | int | str,
        pc_followers: list[int | str] | tuple[int | str, ...] = (),
        better_roll: str = "high",
        first: str = "pc",
    ) -> None:
        if first not in SIDES:
            raise RulesError(f"first must be 'pc' or 'opponent', not {first!r}")
        if not isinstance(pc_followers, list | tuple):
            raise RulesError(f"pc_followers must be a list of ratings, not {pc_followers!r}")
        self.better_roll = read_better_roll(better_roll)
        self.first: Side = first
        inputs = read_sides(pc, opponent)
        self.sides: dict[str, _Contestant] = {}
        for side, given in inputs.items():
            # §5.3.1 step 2: the starting AP are the TN with its lasting modifiers, and
            # a PC's followers' ratings (§5.3.1, the PC's side only).
            modifier = given.target.rating.total - given.rating.total
            followers = pc_followers if side == "pc" else ()
            start = starting_ap(given.rating.total, modifier, followers)
            self.sides[side] = _Contestant(
                str(given.rating),
                modifier,
                given.total_bumps,
                start,
                start,
                is_pc=given.is_pc,
                stretched=given.stretched,
                name=given.name,
            )
        for contestant in self.sides.values():
            if contestant.starting_ap < 1:
                raise RulesError(
                    f"{contestant.name} would start with {contestant.starting_ap} AP: a side "
                    "needs at least 1 AP to enter an extended contest (settle it with a simple "
                    "contest)"
                )
            contestant.used.append(contestant.tn.total)
        self.turns_taken = 0
        # A rolled action held for hero points (§2.2, R5.3): its name and arguments.
        self.held: dict[str, Any] | None = None
        self.exchanges: list[dict[str, Any]] = []
        self.defeats: list[dict[str, Any]] = []
        self.disengaged: Side | None = None

    # -- what the table shows -------------------------------------------------

    @property
    def pc_ap(self) -> int:
        return self.sides["pc"].ap

    @property
    def opponent_ap(self) -> int:
        return self.sides["opponent"].ap

    @property
    def round(self) -> int:
        """The current round, two exchanges each: an action and its response (§5.3.1).

        Once the contest is over, the round it ended in.
        """
        played = self.turns_taken - 1 if self.is_over and self.turns_taken else self.turns_taken
        return played // 2 + 1

    @property
    def turn(self) -> Side | None:
        """Whose action it is, or None once the contest is over."""
        if self.is_over:
            return None
        return self.first if self.turns_taken % 2 == 0 else _other(self.first)

    @property
    def defeated(self) -> list[Side]:
        """The sides at 0 AP or below (§5.3.1 step 4.6)."""
        return [side for side in SIDES if self.sides[side].ap <= 0]

    @property
    def is_over(self) -> bool:
        return bool(self.defeated) or self.disengaged is not None

    @property
    def ended_by(self) -> str | None:
        """None while running, else "defeat", "both_defeated" or "disengaged"."""
        if self.disengaged is not None:
            return "disengaged"
        defeated = self.defeated
        if not defeated:
            return None
        return "defeat" if len(defeated) == 1 else "both_defeated"

    @property
    def winner(self) -> Side | None:
        """The side still above 0 AP when the other is defeated (§5.3.1 step 4.6)."""
        if self.ended_by != "defeat":
            return None
        return _other(self.defeated[0])

    @property
    def degree(self) -> str | None:
        """The level of victory, from the loser's final AP (§5.3.2.4)."""
        if self.ended_by != "defeat":
            return None
        return defeat_degree(self.sides[self.defeated[0]].ap)

    @property
    def consequences(self) -> dict[str, State | None] | None:
        """The suggested state for each side once the contest is over (§5.3.2.4).

        The loser's consequence of defeat and the winner's benefit of victory, both
        from the loser's final AP; no benefit against a clearly inferior opponent
        (§2.11.2.1: the winner's best ability beat the loser's worst by 6 or more).
        After both sides fall in a parting shot, each takes the consequence of its
        own AP. A disengagement suggests nothing.
        """
        ended = self.ended_by
        if ended is None:
            return None
        if ended == "disengaged":
            return {"pc": None, "opponent": None}
        if ended == "both_defeated":
            return {side: consequence_of(self.sides[side].ap) for side in SIDES}
        loser = self.defeated[0]
        winner = _other(loser)
        degree = defeat_degree(self.sides[loser].ap)
        inferior = is_clearly_inferior(max(self.sides[winner].used), min(self.sides[loser].used))
        return {
            loser: CONSEQUENCE_OF_DEFEAT[degree],
            winner: None if inferior else BENEFIT_OF_VICTORY[degree],
        }

    @property
    def parting_shot_by(self) -> Side | None:
        """Who may take a parting shot now (§5.3.4): the winner, right after the
        exchange that defeated the other side."""
        if self.ended_by != "defeat" or not self.exchanges:
            return None
        # Only an exchange can be the last entry of a contest ended by a defeat if that
        # exchange caused it: nothing else is played once a side is down.
        if self.exchanges[-1]["kind"] != "exchange":
            return None
        winner = self.winner
        assert winner is not None, "a contest ended by a defeat has a winner"
        if not self.sides[winner].is_pc:
            return None  # R18.2: the resistance takes no parting shot
        return winner

    @property
    def outcome(self) -> ContestOutcome | None:
        """The result once over (None before), in the shape every machine gives: the
        loser's consequence and the winner's benefit from the loser's final AP, the
        benefit for a player's side only (§5.3.2.4, §2.11.2, R10)."""
        suggested = self.consequences
        if suggested is None:
            return None
        consequences = {
            side: state if state is not None and state.is_adversity else None
            for side, state in suggested.items()
        }
        benefits = {
            side: state
            if state is not None and state.is_fortune and self.sides[side].is_pc
            else None
            for side, state in suggested.items()
        }
        return ContestOutcome(
            winner=self.winner,
            degree=self.degree,
            consequences=consequences,
            benefits=benefits,
            ended_by=self.ended_by,
        )

    def bid_limit(self, side: str) -> int:
        """The largest bid `side` may make now (§5.3.2.1, §5.3.6, R13)."""
        contestant = self.sides[self._check_side(side)]
        if contestant.is_pc:
            # §5.3.6: a player (either PC of two, R18.8) may stake up to its starting AP.
            return pc_bid_limit(contestant.ap, contestant.starting_ap)
        return max(contestant.ap, 0)

    def state(self) -> dict[str, Any]:
        consequences = self.consequences
        return {
            "kind": self.kind,
            "better_roll": self.better_roll,
            "first": self.first,
            "round": self.round,
            "turn": self.turn,
            "pc": self.sides["pc"].to_json(),
            "opponent": self.sides["opponent"].to_json(),
            "pc_ap": self.pc_ap,
            "opponent_ap": self.opponent_ap,
            "exchanges": [dict(entry) for entry in self.exchanges],
            "defeats": [dict(entry) for entry in self.defeats],
            "is_over": self.is_over,
            "ended_by": self.ended_by,
            "winner": self.winner,
            "degree": self.degree,
            "disengaged": self.disengaged,
            "parting_shot_by": self.parting_shot_by,
            "consequences": (
                None
                if consequences is None
                else {side: None if s is None else str(s) for side, s in consequences.items()}
            ),
        }

    # -- checks ---------------------------------------------------------------

    def _check_side(self, side: Any, what: str = "participant") -> Side:
        checked = as_side(side)
        if checked is None:
            raise IllegalAction(f"unknown {what} {side!r}: choose 'pc' or 'opponent'")
        return checked

    def _check_turn(self, side: Side) -> None:
        if side != self.turn:
            raise IllegalAction(
                f"it is the {self.turn}'s turn in round {self.round}, not the {side}'s"
            )

    def _side_roll(
        self,
        side: Side,
        ability: Rating,
        roll: int,
        hero_point: bool,
        bumps: int | None = None,
        *,
        own_ability: bool = True,
    ) -> SideRoll:
        """`side`'s roll with `ability`: `hero_point` is that side's own (refused for
        the GM's side), `bumps` default to its lasting bumps, and a stretch caps its big
        wins when it rolls its own ability (§2.10, R18.4)."""
        contestant = self.sides[side]
        if hero_point and not contestant.is_pc:
            raise IllegalAction(
                f"{self._label(side)} is the GM's: only player characters spend hero points"
            )
        return SideRoll(
            self._label(side),
            ability,
            roll,
            hero_point,
            contestant.bumps if bumps is None else bumps,
            contestant.stretched and own_ability,
        )

    def _label(self, side: Side) -> str:
        return self.sides[side].name or f"the {side}"

    @property
    def opponent_is_pc(self) -> bool:
        """Two PCs contend (§2.3.1.2, R18.8)."""
        return self.sides["opponent"].is_pc

    def _check_bid(self, side: Side, bid: Any) -> int:
        contestant = self.sides[side]
        if contestant.is_pc:
            reason = pc_bid_reason(contestant.ap, contestant.starting_ap)
            return check_bid(bid, self.bid_limit(side), "your", reason)
        return check_bid(
            bid, self.bid_limit(side), "the opponent's", "a resistance never bids more than it has"
        )
