"""The chained contest: consequences land after every round (§5.4, RULINGS.md R14).

Each round is a simple contest read through the Chained Contest Table. The loser of a
round is hurt, injured or dying at once, and the state's penalty lowers their target
number for every later round (the "death spiral" the text warns of). The contest ends
when a side is dying, when a side wins a round it declared as a disengagement, or when
both sides declare they leave. §2.8.2 lets a finished simple contest become round one
(`ChainedContest.escalate`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from .dice import Result, Roller, check_roll, d20, roll_result
from .errors import IllegalAction, RulesError
from .machine import ContestMachine, HoldsRolls, action
from .modifiers import refuse_resistance_modifier
from .ratings import Rating
from .results import ContestOutcome, long_outcome
from .sides import SideInput, check_update, read_sides
from .simple import SIDES, Outcome, Side, bumped_results, compare_results, mastery_bumps
from .states import State

# What a round can inflict: the table's three wounds, mildest first.
Infliction = Literal["hurt", "injured", "dying"]

# §5.4 Chained Contest Table. Rows are the PC's result, columns the opponent's.
# Each cell says who suffers ("pc", "opponent", "worse_roll") and what, or None for
# "no effect" (both fumble: "Both make a mistake").
# Who suffers: a side, or the worse roll when both results are equal (R6 decides it).
Victim = Side | Literal["worse_roll"]

CHAINED_CONTEST_TABLE: dict[tuple[Result, Result], tuple[Victim, Infliction] | None] = {
    (Result.CRITICAL, Result.CRITICAL): ("worse_roll", "hurt"),
    (Result.CRITICAL, Result.SUCCESS): ("opponent", "hurt"),
    (Result.CRITICAL, Result.FAILURE): ("opponent", "injured"),
    (Result.CRITICAL, Result.FUMBLE): ("opponent", "dying"),
    (Result.SUCCESS, Result.CRITICAL): ("pc", "hurt"),
    (Result.SUCCESS, Result.SUCCESS): ("worse_roll", "hurt"),
    (Result.SUCCESS, Result.FAILURE): ("opponent", "hurt"),
    (Result.SUCCESS, Result.FUMBLE): ("opponent", "injured"),
    (Result.FAILURE, Result.CRITICAL): ("pc", "injured"),
    (Result.FAILURE, Result.SUCCESS): ("pc", "hurt"),
    (Result.FAILURE, Result.FAILURE): ("worse_roll", "hurt"),
    (Result.FAILURE, Result.FUMBLE): ("opponent", "hurt"),
    (Result.FUMBLE, Result.CRITICAL): ("pc", "dying"),
    (Result.FUMBLE, Result.SUCCESS): ("pc", "injured"),
    (Result.FUMBLE, Result.FAILURE): ("pc", "hurt"),
    (Result.FUMBLE, Result.FUMBLE): None,
}


def chained_round_effect(
    pc_result: Result,
    opponent_result: Result,
    pc_roll: int,
    opponent_roll: int,
    *,
    better_roll: Literal["high", "low"] = "high",
) -> tuple[Side, Infliction] | None:
    """Who the Chained Contest Table wounds this round, and how (§5.4, R14).

    "Worse roll is hurt. If tied, no effect": on the same result the side with the
    worse roll is hurt; equal rolls (and two fumbles) change nothing.

    >>> chained_round_effect(Result.SUCCESS, Result.FUMBLE, 5, 20)
    ('opponent', 'injured')
    >>> chained_round_effect(Result.FAILURE, Result.FAILURE, 15, 12)
    ('opponent', 'hurt')
    >>> chained_round_effect(Result.SUCCESS, Result.SUCCESS, 7, 7) is None
    True
    """
    cell = CHAINED_CONTEST_TABLE[(Result(pc_result), Result(opponent_result))]
    if cell is None:
        return None
    victim, infliction = cell
    if victim == "worse_roll":
        # The better roll wins the round (R6); the other side is the worse roll.
        winner = compare_results(
            pc_result, opponent_result, pc_roll, opponent_roll, better_roll=better_roll
        ).winner
        if winner is None:
            return None
        return ("opponent" if winner == "pc" else "pc"), infliction
    return victim, infliction


def worsen(current: State | None, infliction: Infliction) -> State:
    """A side's state after the table inflicts `infliction` on it (§5.4, R14).

    The table's ladder within one contest is hurt -> injured -> dying: "hurt; if
    already hurt in this contest, injured; if already injured, dying", and "injured;
    if already injured in this contest, dying". Impaired is never used.

    >>> worsen(None, "hurt"), worsen(State.HURT, "hurt"), worsen(State.INJURED, "hurt")
    (<State.HURT: 'hurt'>, <State.INJURED: 'injured'>, <State.DYING: 'dying'>)
    >>> worsen(State.HURT, "injured"), worsen(State.INJURED, "injured")
    (<State.INJURED: 'injured'>, <State.DYING: 'dying'>)
    """
    if infliction == "dying" or current in (State.INJURED, State.DYING):
        return State.DYING
    if infliction == "injured" or current is State.HURT:
        return State.INJURED
    return State.HURT


def _side_label(side: str) -> str:
    return "the PC" if side == "pc" else "the opponent"


class ChainedContest(HoldsRolls, ContestMachine):
    """A one-on-one chained contest (§5.4, R14).

    Setup (JSON-able): `pc` and `opponent`, each a `SideInput` (rating, lasting
    modifiers and augments, states, lasting bumps, whether a player controls it) or
    a bare rating ("7M"; a bare opponent is the GM's resistance), and `better_roll`
    ("high" or "low", R6). Only a player's side spends hero points. Lasting bumps
    count on every round (R18.5); a round won with a stretched ability inflicts at
    most what a minor victory does, hurt (§2.10, R18.4).

    >>> contest = ChainedContest(pc="15", opponent="14")
    >>> contest.play_round(pc_roll=4, opponent_roll=17)["effect"]
    {'side': 'opponent', 'before': None, 'after': 'hurt'}
    >>> contest.state()["opponent_tn"]
    11
    """

    kind = "chained"

    def _start(
        self,
        *,
        pc: SideInput | dict[str, Any] | int | str,
        opponent: SideInput | dict[str, Any] | int | str,
        better_roll: Literal["high", "low"] = "high",
    ) -> None:
        self.sides = read_sides(pc, opponent)
        if better_roll not in ("high", "low"):
            raise RulesError(f"better_roll must be 'high' or 'low', not {better_roll!r}")
        self.better_roll = better_roll
        self.states: dict[str, State | None] = {"pc": None, "opponent": None}
        self.rounds: list[dict[str, Any]] = []
        self.end: str | None = None
        # A rolled round held for hero points (§2.2, R5.3): its arguments.
        self.held: dict[str, Any] | None = None

    @property
    def ratings(self) -> dict[str, Rating]:
        """Each side's TN before this contest's wounds: its rating and lasting lines."""
        return {side: self.sides[side].target.rating for side in SIDES}

    @property
    def opponent_is_pc(self) -> bool:
        return self.sides["opponent"].is_pc

    # ----------------------------------------------------------------- reading

    @property
    def is_over(self) -> bool:
        return self.end is not None

    @property
    def winner(self) -> Side | None:
        """The side that left the other dying; None while running or after a
        disengagement (nobody takes the prize by leaving)."""
        for side in SIDES:
            if self.states[side] is State.DYING:
                return "opponent" if side == "pc" else "pc"
        return None

    @property
    def degree(self) -> str | None:
        """`complete` when a side is dying (§5.4: "reduced to a complete defeat")."""
        return "complete" if self.winner else None

    def target(self, side: Side) -> int:
        """A side's TN total now: its rating plus the penalty of its state (§5.4:
        consequences take immediate effect)."""
        state = self.states[side]
        return self.ratings[side].total + (state.modifier if state else 0)

    def consequences(self) -> dict[str, str | None]:
        """Each side's state of adversity from this contest (None: unharmed)."""
        return {side: (state.value if state else None) for side, state in self.states.items()}

    @property
    def outcome(self) -> ContestOutcome | None:
        """The result once over (None while running): the winner, its degree, each
        side's wound from this contest and the winner's benefit of victory (§5.4,
        §2.11.2, R18.6). A winner wounded on the way keeps its wound as well: the GM
        may net the two out (§2.11.5)."""
        if not self.is_over:
            return None
        return long_outcome(
            winner=self.winner,
            degree=self.degree,
            consequences=self.consequences(),
            sides=self.sides,
            ended_by=self.end,
        )

    def state(self) -> dict[str, Any]:
        pending = self.pending
        return {
            "kind": self.kind,
            "pc_rating": self.ratings["pc"].total,
            "opponent_rating": self.ratings["opponent"].total,
            "pc_tn": self.target("pc"),
            "opponent_tn": self.target("opponent"),
            "pc_state": self.consequences()["pc"],
            "opponent_state": self.consequences()["opponent"],
            "better_roll": self.better_roll,
            "opponent_is_pc": self.opponent_is_pc,
            "rounds": [dict(entry) for entry in self.rounds],
            "pending": None if pending is None else pending.to_json(),
            "is_over": self.is_over,
            "end": self.end,
            "winner": self.winner,
            "degree": self.degree,
            "consequences": self.consequences(),
        }

    # ----------------------------------------------------------------- actions

    @action
    def play_round(
        self,
        *,
        pc_roll: int,
        opponent_roll: int,
        pc_hero_point: bool = False,
        opponent_hero_point: bool = False,
        pc_modifier: int = 0,
        opponent_modifier: int = 0,
        pc_disengages: bool = False,
        opponent_disengages: bool = False,
    ) -> dict[str, Any]:
        """Roll one round and apply the Chained Contest Table at once (§5.4).

        `*_modifier` are situational modifiers for this round only (R9). A side that
        declared `*_disengages` and wins the round leaves the contest without
        wounding the other side; if it loses, the table applies as usual. A hero point
        raises that side's result one step and is refused on a critical (R5.3).
        Returns the round's log entry.
        """
        self._refuse_held("play another round")
        return self._round(
            pc_roll=pc_roll,
            opponent_roll=opponent_roll,
            pc_hero_point=pc_hero_point,
            opponent_hero_point=opponent_hero_point,
            pc_modifier=pc_modifier,
            opponent_modifier=opponent_modifier,
            pc_disengages=pc_disengages,
            opponent_disengages=opponent_disengages,
        )

    # -- a round in three steps: roll, hero points, settle (§2.2, R5.3) ---------------

    @action
    def roll(
        self,
        *,
        pc_roll: int,
        opponent_roll: int,
        pc_modifier: int = 0,
        opponent_modifier: int = 0,
        pc_disengages: bool = False,
        opponent_disengages: bool = False,
    ) -> Outcome:
        """Roll a round (the arguments of `play_round` but the hero points) and let it
        wait: both results are known (§2.2), a player may spend a `hero_point`, and
        `settle` applies the table (`HoldsRolls`). Returns the outcome so far."""
        return self._hold(
            {
                "pc_roll": pc_roll,
                "opponent_roll": opponent_roll,
                "pc_modifier": pc_modifier,
                "opponent_modifier": opponent_modifier,
                "pc_disengages": pc_disengages,
                "opponent_disengages": opponent_disengages,
            }
        )

    def _play_held(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return self._round(**arguments)

    def _held_outcome(self, entry: dict[str, Any], arguments: dict[str, Any]) -> Outcome:
        """The held round's results read as a simple contest, from the PC's side."""
        outcome = compare_results(
            Result[entry["pc_result"].upper()],
            Result[entry["opponent_result"].upper()],
            entry["pc_roll"],
            entry["opponent_roll"],
            better_roll=self.better_roll,
        )
        return replace(
            outcome,
            pc_hero_point=entry["hero_points"]["pc"],
            opponent_hero_point=entry["hero_points"]["opponent"],
        )

    def _side_name(self, side: Side) -> str:
        return self.sides[side].label

    def _round(
        self,
        *,
        pc_roll: Any,
        opponent_roll: Any,
        pc_hero_point: Any,
        opponent_hero_point: Any,
        pc_modifier: Any,
        opponent_modifier: Any,
        pc_disengages: Any,
        opponent_disengages: Any,
    ) -> dict[str, Any]:
        if pc_disengages and opponent_disengages:
            raise IllegalAction(
                "both sides wish to leave: call mutual_disengage(); no round is rolled (§5.4)"
            )
        for name, value in (("pc_modifier", pc_modifier), ("opponent_modifier", opponent_modifier)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise RulesError(f"{name} must be a whole number, not {value!r}")
        refuse_resistance_modifier(opponent_modifier, {"opponent": self.opponent_is_pc})
        if opponent_hero_point and not self.opponent_is_pc:
            raise IllegalAction(
                "only a player spends hero points (§2.3.5.5): the opponent is not a PC"
            )
        rolls = {"pc": pc_roll, "opponent": opponent_roll}
        for side, roll in rolls.items():
            try:
                check_roll(roll)
            except ValueError as exc:
                raise RulesError(f"{side}_roll: {exc}") from exc
        tns = {
            "pc": self.target("pc") + pc_modifier,
            "opponent": self.target("opponent") + opponent_modifier,
        }
        pc_rating, opponent_rating = Rating(tns["pc"]), Rating(tns["opponent"])
        masteries = mastery_bumps(pc_rating, opponent_rating)
        # R5.4, R18.5: lasting bumps (heroic, pyrrhic, a stretch or final action as a
        # bump down) count with the masteries on every round.
        pc_result, opponent_result = bumped_results(
            roll_result(pc_roll, pc_rating.target),
            roll_result(opponent_roll, opponent_rating.target),
            pc_bumps=max(masteries, 0) + self.sides["pc"].total_bumps,
            opponent_bumps=max(-masteries, 0) + self.sides["opponent"].total_bumps,
        )
        # R5.3: hero points come last, after both results are known.
        if pc_hero_point:
            pc_result = self._hero_point("pc", pc_result)
        if opponent_hero_point:
            opponent_result = self._hero_point("opponent", opponent_result)
        return self._resolve(
            pc_result,
            opponent_result,
            pc_roll,
            opponent_roll,
            tns=tns,
            disengaging={"pc": bool(pc_disengages), "opponent": bool(opponent_disengages)},
            hero_points={"pc": bool(pc_hero_point), "opponent": bool(opponent_hero_point)},
        )

    @action
    def first_round_from_simple(
        self, *, pc_result: str, opponent_result: str, pc_roll: int, opponent_roll: int
    ) -> dict[str, Any]:
        """Escalation (§2.8.2): read a finished simple contest's final results as
        round one. Only allowed before any round has been played."""
        if self.rounds:
            raise IllegalAction(
                "escalation turns a simple contest into round one; "
                f"this contest has already played {len(self.rounds)} round(s)"
            )
        results = []
        for name, value in (("pc_result", pc_result), ("opponent_result", opponent_result)):
            try:
                results.append(Result[str(value).upper()])
            except KeyError:
                raise RulesError(
                    f"{name} must be critical, success, failure or fumble, not {value!r}"
                ) from None
        for name, roll in (("pc_roll", pc_roll), ("opponent_roll", opponent_roll)):
            try:
                check_roll(roll)
            except ValueError as exc:
                raise RulesError(f"{name}: {exc}") from exc
        return self._resolve(
            results[0],
            results[1],
            pc_roll,
            opponent_roll,
            tns={"pc": self.target("pc"), "opponent": self.target("opponent")},
            disengaging={"pc": False, "opponent": False},
            hero_points={"pc": False, "opponent": False},
            escalated=True,
        )

    @action
    def mutual_disengage(self) -> None:
        """Both sides declared they leave: the contest ends with no roll (§5.4)."""
        self.end = "both_disengaged"

    @action
    def update_side(self, *, side: str, input: SideInput | dict[str, Any]) -> None:
        """Change what lasts for `side` between rounds (R18.5): its rating, lasting
        modifiers, states from other contests and bumps. This contest's own wounds are
        the machine's and stay."""
        if side not in SIDES:
            raise RulesError(f"side must be 'pc' or 'opponent', not {side!r}")
        self._refuse_held("change a side")
        self.sides[side] = check_update(self.sides[side], input)

    # ----------------------------------------------------------------- helpers

    def roll_round(self, roller: Roller = d20, **choices: Any) -> dict[str, Any]:
        """Convenience: roll both dice with `roller` and play the round."""
        return self.play_round(pc_roll=roller(), opponent_roll=roller(), **choices)

    @classmethod
    def escalate(
        cls,
        outcome: Outcome | None = None,
        *,
        pc: SideInput | dict[str, Any] | int | str,
        opponent: SideInput | dict[str, Any] | int | str,
        pc_roll: int | None = None,
        opponent_roll: int | None = None,
        pc_hero_point: bool = False,
        better_roll: Literal["high", "low"] = "high",
    ) -> ChainedContest:
        """Turn a finished simple contest into round one of a chained contest (§2.8.2).

        Give either the simple contest's `Outcome` (its final results are read through
        the table as they stand, augments and bumps included) or its two rolls (the
        round is replayed at the chained contest's ratings).

        >>> from contests.core.rules.simple import simple_contest
        >>> outcome = simple_contest(Rating(15), 4, Rating(14), 17)
        >>> contest = ChainedContest.escalate(outcome, pc="15", opponent="14")
        >>> contest.state()["opponent_state"], len(contest.rounds)
        ('hurt', 1)
        """
        contest = cls(pc=pc, opponent=opponent, better_roll=better_roll)
        if outcome is not None:
            if pc_roll is not None or opponent_roll is not None or pc_hero_point:
                raise RulesError(
                    "escalate from an Outcome (its hero point already counted) or from rolls, "
                    "not both"
                )
            contest.first_round_from_simple(
                pc_result=outcome.pc_result.label,
                opponent_result=outcome.opponent_result.label,
                pc_roll=outcome.pc_roll,
                opponent_roll=outcome.opponent_roll,
            )
        elif pc_roll is not None and opponent_roll is not None:
            contest.play_round(
                pc_roll=pc_roll, opponent_roll=opponent_roll, pc_hero_point=pc_hero_point
            )
        else:
            raise RulesError("escalate needs the simple contest's Outcome or both of its rolls")
        return contest

    def _hero_point(self, side: Side, result: Result) -> Result:
        if result is Result.CRITICAL:
            raise IllegalAction(
                f"a hero point cannot raise {_side_label(side)}'s critical: "
                "the result is already the best (§2.3.5.5)"
            )
        return result.bumped(1)

    def _resolve(
        self,
        pc_result: Result,
        opponent_result: Result,
        pc_roll: int,
        opponent_roll: int,
        *,
        tns: dict[str, int],
        disengaging: dict[str, bool],
        hero_points: dict[str, bool],
        escalated: bool = False,
    ) -> dict[str, Any]:
        round_winner = compare_results(
            pc_result, opponent_result, pc_roll, opponent_roll, better_roll=self.better_roll
        ).winner
        effect = chained_round_effect(
            pc_result, opponent_result, pc_roll, opponent_roll, better_roll=self.better_roll
        )
        entry: dict[str, Any] = {
            "round": len(self.rounds) + 1,
            "escalated": escalated,
            "pc_roll": pc_roll,
            "opponent_roll": opponent_roll,
            "pc_tn": tns["pc"],
            "opponent_tn": tns["opponent"],
            "pc_result": pc_result.label,
            "opponent_result": opponent_result.label,
            "hero_points": dict(hero_points),
            "disengaging": dict(disengaging),
            "winner": round_winner,
            "effect": None,
            "disengaged": None,
        }
        if round_winner is not None and disengaging[round_winner]:
            # §5.4: "on any victory you leave the contest, without inflicting
            # consequences on the opposition".
            entry["disengaged"] = round_winner
            self.end = f"{round_winner}_disengaged"
        elif effect is not None:
            victim, infliction = effect
            if round_winner not in (None, victim) and self.sides[round_winner].stretched:
                # §2.10 (R18.4): a stretched ability's victory counts as minor, and a
                # minor victory's round inflicts hurt (crit or success v the next step).
                if infliction != "hurt":
                    entry["capped_from"] = infliction
                infliction = "hurt"
            before = self.states[victim]
            after = worsen(before, infliction)
            self.states[victim] = after
            entry["effect"] = {
                "side": victim,
                "before": before.value if before else None,
                "after": after.value,
            }
            if after is State.DYING:
                self.end = "dying"
        self.rounds.append(entry)
        return dict(entry)
