"""The one-on-one scored contest: `ScoredContest` (§5.1, §2.8.2, R12)."""

from __future__ import annotations

from typing import Any

from ..dice import Roller, d20
from ..errors import IllegalAction, RulesError
from ..inputs import read_better_roll, read_flag, read_rating, read_roll
from ..machine import ContestMachine, HoldsRolls, action, after_end
from ..modifiers import refuse_resistance_modifier
from ..results import ContestOutcome, long_outcome
from ..sides import SideInput, check_update, read_sides
from ..simple import DEGREES, SIDES, Outcome, Side, cap_stretched
from .rounds import (
    RoundPlay,
    ScoredRound,
    contest_outcome,
    outcome_entry,
    play_contest,
    read_tactics,
    round_log,
    score_round,
)
from .tables import (
    WINNING_SCORE,
    climax_consequence,
    other_side,
    parting_shot_score,
    read_stakes,
    resolution_points,
    rising_action,
    victory_level,
)

# ---------------------------------------------------------------------------
# The one-on-one scored contest
# ---------------------------------------------------------------------------


class ScoredContest(HoldsRolls, ContestMachine):
    """A PC against one opponent, first to 5 resolution points (§5.1, R12).

    Setup (all JSON-able keyword arguments):

    - `pc`, `opponent`: each side as a `SideInput` (rating, name, lasting modifiers,
      states and bumps, whether a player controls it) or a bare rating ("14", "7M").
      A bare opponent is the GM's resistance; a PC opponent (two PCs contend, §5.1.1
      step 3) may spend hero points and make a parting shot. Lasting bumps count on
      every round and a stretch caps each round's victory at minor (R18.4, R18.5).
    - `better_roll`: "high" (default) or "low", the campaign option of R6.
    - `stakes`: "rising_action" (default, §5.1.2) or "climax" (§5.1.3).
    - `first_round`: round one taken from a finished simple contest (§2.8.2
      escalating contests); build it with `ScoredContest.escalate`.

    Actions: `play_round` (or the same round in three steps, hero points decided
    after the results: `roll`, `hero_point`, `settle`), `parting_shot`,
    `switch_ability`, `update_side`. Read the
    score from `pc_points` (RP the PC has scored against the opponent) and
    `opponent_points` (RP scored against the PC), the end from `is_over`, `winner`,
    `degree`, `ended_by`, and the whole result from `outcome` (the consequences and
    the winner's benefit of victory, §5.1.1 step 6, R18.6).

    >>> contest = ScoredContest(pc="15", opponent="14")
    >>> contest.play_round(pc_roll=3, opponent_roll=20).points  # success v fumble: major
    3
    >>> contest.play_round(pc_roll=12, opponent_roll=4, pc_tactic="risky_gambit").points
    2
    >>> contest.winner, contest.degree, contest.consequences()
    ('pc', 'major', {'pc': 'unharmed', 'opponent': 'injured'})
    """

    kind = "scored"

    def _start(
        self,
        *,
        pc: SideInput | dict[str, Any] | int | str,
        opponent: SideInput | dict[str, Any] | int | str,
        better_roll: str = "high",
        stakes: str = "rising_action",
        first_round: dict[str, Any] | None = None,
    ) -> None:
        self._sides = read_sides(pc, opponent, names=("PC", "Opponent"))
        self._names = {side: self._sides[side].label for side in SIDES}
        self._ratings = {side: self._sides[side].target.rating for side in SIDES}
        self._better_roll = read_better_roll(better_roll)
        self._stakes = read_stakes(stakes)
        self._players = {side: self._sides[side].is_pc for side in SIDES}
        self._points: dict[Side, int] = {"pc": 0, "opponent": 0}
        self._rounds: list[dict[str, Any]] = []
        self._winner: Side | None = None
        self._ended_by: str | None = None
        self._knockout_points = 0
        self._parting_shot_open = False
        # A rolled round held for hero points (§2.2, R5.3): its arguments.
        self.held: dict[str, Any] | None = None
        if first_round is not None:
            self._score_escalated_round(first_round)

    # -- escalating contests (§2.8.2) -------------------------------------------

    @classmethod
    def escalate(
        cls,
        outcome: Outcome | None = None,
        *,
        pc_roll: int | None = None,
        opponent_roll: int | None = None,
        pc_hero_point: bool = False,
        **setup: Any,
    ) -> ScoredContest:
        """Continue a finished simple contest as round one of a scored contest (§2.8.2).

        Pass the simple contest's `Outcome`, or its rolls (and hero point), which are
        then resolved with the setup's ratings. The outcome scores its RP as round
        one; play continues with round two.

        >>> contest = ScoredContest.escalate(pc="14", opponent="14", pc_roll=9, opponent_roll=4)
        >>> contest.pc_points, contest.rounds[0]["kind"]
        (1, 'escalated')
        """
        if outcome is None:
            if pc_roll is None or opponent_roll is None:
                raise RulesError("escalate needs the simple contest's Outcome or both rolls")
            sides = read_sides(setup.get("pc"), setup.get("opponent"))
            outcome = contest_outcome(
                sides["pc"].target.rating,
                read_roll(pc_roll, "the PC's roll"),
                sides["opponent"].target.rating,
                read_roll(opponent_roll, "the opponent's roll"),
                better_roll=read_better_roll(setup.get("better_roll", "high")),
                pc_hero_point=read_flag(pc_hero_point, "pc_hero_point"),
                pc_bumps=sides["pc"].total_bumps,
                opponent_bumps=sides["opponent"].total_bumps,
            )
            outcome = cap_stretched(outcome, [side for side in SIDES if sides[side].stretched])
        elif not isinstance(outcome, Outcome):
            raise RulesError(f"escalate takes a simple contest Outcome, not {outcome!r}")
        first_round = {
            "winner": outcome.winner,
            "degree": outcome.degree,
            "pc_roll": outcome.pc_roll,
            "opponent_roll": outcome.opponent_roll,
            "pc_result": outcome.pc_result.label,
            "opponent_result": outcome.opponent_result.label,
        }
        return cls(**setup, first_round=first_round)

    def _score_escalated_round(self, first_round: dict[str, Any]) -> None:
        if not isinstance(first_round, dict):
            raise RulesError(f"first_round must be a dict, not {first_round!r}")
        winner, degree = first_round.get("winner"), first_round.get("degree")
        if winner not in (*SIDES, None):
            raise RulesError(f"first_round winner must be 'pc', 'opponent' or None, not {winner!r}")
        if (winner is None) != (degree is None) or (degree is not None and degree not in DEGREES):
            raise RulesError(
                f"first_round needs a degree ({', '.join(DEGREES)}) with a winner and none "
                f"with a tie, not winner={winner!r}, degree={degree!r}"
            )
        points = 0 if degree is None else resolution_points(degree)
        if winner:
            self._points[winner] += points
        entry = {
            "number": 1,
            "kind": "escalated",
            "pc_roll": first_round.get("pc_roll"),
            "opponent_roll": first_round.get("opponent_roll"),
            "pc_result": first_round.get("pc_result"),
            "opponent_result": first_round.get("opponent_result"),
            "winner": winner,
            "degree": degree,
            "outcome": f"{degree} {'victory' if winner == 'pc' else 'defeat'}" if winner else "tie",
            "pc_tactic": "normal",
            "opponent_tactic": "normal",
            "pc_hero_point": False,
            "opponent_hero_point": False,
            "scored_by": winner if points else None,
            "points": points,
            "pc_points": self._points["pc"],
            "opponent_points": self._points["opponent"],
        }
        self._rounds.append(entry)
        self._check_knockout(winner, points)

    # -- reading the contest ------------------------------------------------------

    @property
    def pc_points(self) -> int:
        """RP the PC has scored against the opponent."""
        return self._points["pc"]

    @property
    def opponent_points(self) -> int:
        """RP the opponent has scored against the PC."""
        return self._points["opponent"]

    @property
    def points(self) -> dict[Side, int]:
        """Both tallies: `{"pc": ..., "opponent": ...}`, each the RP that side scored."""
        return dict(self._points)

    @property
    def sides(self) -> dict[Side, SideInput]:
        """Each side as the machine holds it now: rating and lasting effects (R18.5)."""
        return dict(self._sides)

    @property
    def ratings(self) -> dict[str, str]:
        return {side: str(rating) for side, rating in self._ratings.items()}

    @property
    def stakes(self) -> str:
        return self._stakes

    @property
    def rounds(self) -> list[dict[str, Any]]:
        """The round log, oldest first (copies: editing them changes nothing)."""
        return [dict(entry) for entry in self._rounds]

    @property
    def is_over(self) -> bool:
        return self._winner is not None

    @property
    def winner(self) -> Side | None:
        """ "pc" or "opponent" once the contest is over, else None.

        After a disengagement the side that stayed is the winner: the one who
        escaped fails at the story obstacle (§5.1.6)."""
        return self._winner

    @property
    def ended_by(self) -> str | None:
        """ "knockout" (a side reached 5 RP), "disengagement" or None while playing."""
        return self._ended_by

    @property
    def loser(self) -> Side | None:
        return other_side(self._winner) if self._winner else None

    def _decided(self) -> tuple[Side, Side]:
        """The winner and the loser of a contest that is over."""
        winner = self._winner
        assert winner is not None, "only a finished contest has a winner"
        return winner, other_side(winner)

    @property
    def degree(self) -> str | None:
        """The winner's degree of victory (= the loser's degree of defeat).

        Rising action: from the RP difference (§5.1.2). Climax: from the loser's
        climactic consequence (§5.1.3). None while playing and after a
        disengagement, which the SRD gives no degree.
        """
        if self._ended_by != "knockout":
            return None
        winner, loser = self._decided()
        if self._stakes == "rising_action":
            return rising_action(self._points[winner] - self._points[loser]).degree
        return victory_level(climax_consequence(self._points[winner], lost=True))

    @property
    def parting_shot_available(self) -> bool:
        """True right after a knock-out by a side that may make a parting shot."""
        return self._parting_shot_open

    def consequences(self) -> dict[str, str]:
        """Each side's consequence once the contest is over: `{"pc": ..., "opponent": ...}`.

        Rising action (§5.1.2): the table row of the RP difference gives the loser's
        and the winner's consequence; after a disengagement both are unharmed.
        Climax (§5.1.3): each side reads the climax table with the RP scored against
        it, plus 1 if it lost (a side that disengaged did not lose).
        """
        if not self.is_over:
            raise IllegalAction(
                "no consequence is certain until the scored contest is over (§5.1.1)"
            )
        lost = {side: self._ended_by == "knockout" and side == self.loser for side in SIDES}
        if self._stakes == "climax":
            return {
                side: climax_consequence(self._points[other_side(side)], lost=lost[side])
                for side in SIDES
            }
        if self._ended_by == "disengagement":
            return {"pc": "unharmed", "opponent": "unharmed"}
        winner, loser = self._decided()
        row = rising_action(self._points[winner] - self._points[loser])
        return {side: row.loser if lost[side] else row.winner for side in SIDES}

    def state(self) -> dict[str, Any]:
        over = self.is_over
        pending = self.pending
        return {
            "kind": self.kind,
            "stakes": self._stakes,
            "better_roll": self._better_roll,
            "pc": {
                "name": self._names["pc"],
                "rating": str(self._ratings["pc"]),
                "points": self._points["pc"],
            },
            "opponent": {
                "name": self._names["opponent"],
                "rating": str(self._ratings["opponent"]),
                "points": self._points["opponent"],
                "is_pc": self._players["opponent"],
            },
            "rounds": self.rounds,
            "is_over": over,
            "winner": self._winner,
            "ended_by": self._ended_by,
            "degree": self.degree,
            "parting_shot_available": self._parting_shot_open,
            "pending": None if pending is None else pending.to_json(),
            "consequences": self.consequences() if over else None,
        }

    # -- actions --------------------------------------------------------------------

    def _check_player(self, side: Side, hero_point: Any) -> bool:
        spent = read_flag(hero_point, f"{side}_hero_point")
        if spent and not self._players[side]:
            raise IllegalAction(
                f"{self._names[side]} is the GM's: only player characters spend hero points"
            )
        return spent

    def _play_contest(self, **options: dict[Side, Any]) -> RoundPlay:
        """`play_contest` between this contest's two sides, with their current ratings."""
        refuse_resistance_modifier(options.get("modifiers", {}).get("opponent"), self._players)
        return play_contest(
            self._names,
            self._sides,
            self._check_player,
            better_roll=self._better_roll,
            **options,
        )

    @action
    def play_round(
        self,
        *,
        pc_roll: int,
        opponent_roll: int,
        pc_tactic: str = "normal",
        opponent_tactic: str = "normal",
        pc_hero_point: bool = False,
        opponent_hero_point: bool = False,
        pc_modifier: int = 0,
        opponent_modifier: int = 0,
        pc_bumps: int = 0,
        opponent_bumps: int = 0,
        pc_rating: int | str | None = None,
        opponent_rating: int | str | None = None,
    ) -> ScoredRound:
        """Play one round with the given d20 rolls (§5.1.1 step 4).

        Tactics (each side): "normal", "risky_gambit" (§5.2.5), "defensive"
        (§5.2.6), "asymmetrical" (§5.1.5: a win scores nothing but achieves another
        aim) or "disengage" (§5.1.6: a win escapes and ends the contest).
        `*_modifier` are this round's situational modifiers (R9: they last one
        round), `*_bumps` extra bumps (negative for a bump down), `*_rating` another
        ability for this round only (an asymmetrical round often uses one). A hero
        point raises that side's result one step after bumps; it is refused on a
        critical and for the GM's opponent. Returns the `ScoredRound`.
        """
        self._refuse_held("play another round")
        return self._round(
            pc_roll=pc_roll,
            opponent_roll=opponent_roll,
            pc_tactic=pc_tactic,
            opponent_tactic=opponent_tactic,
            pc_hero_point=pc_hero_point,
            opponent_hero_point=opponent_hero_point,
            pc_modifier=pc_modifier,
            opponent_modifier=opponent_modifier,
            pc_bumps=pc_bumps,
            opponent_bumps=opponent_bumps,
            pc_rating=pc_rating,
            opponent_rating=opponent_rating,
        )

    # -- a round in three steps: roll, hero points, settle (§2.2, R5.3) ---------------

    @action
    def roll(
        self,
        *,
        pc_roll: int,
        opponent_roll: int,
        pc_tactic: str = "normal",
        opponent_tactic: str = "normal",
        pc_modifier: int = 0,
        opponent_modifier: int = 0,
        pc_bumps: int = 0,
        opponent_bumps: int = 0,
        pc_rating: int | str | None = None,
        opponent_rating: int | str | None = None,
    ) -> Outcome:
        """Roll a round (the arguments of `play_round` but the hero points) and let it
        wait: both results are known (§2.2: "after the die roll results are
        calculated"), a player may then spend a `hero_point`, and `settle` scores it
        (`HoldsRolls`). Returns the outcome so far."""
        return self._hold(
            {
                "pc_roll": pc_roll,
                "opponent_roll": opponent_roll,
                "pc_tactic": pc_tactic,
                "opponent_tactic": opponent_tactic,
                "pc_modifier": pc_modifier,
                "opponent_modifier": opponent_modifier,
                "pc_bumps": pc_bumps,
                "opponent_bumps": opponent_bumps,
                "pc_rating": pc_rating,
                "opponent_rating": opponent_rating,
            }
        )

    def _play_held(self, arguments: dict[str, Any]) -> ScoredRound:
        return self._round(**arguments)

    def _held_outcome(self, result: ScoredRound, arguments: dict[str, Any]) -> Outcome:
        return result.outcome

    def _side_name(self, side: Side) -> str:
        return self._names[side]

    def _round(
        self,
        *,
        pc_roll: Any,
        opponent_roll: Any,
        pc_tactic: Any,
        opponent_tactic: Any,
        pc_hero_point: Any,
        opponent_hero_point: Any,
        pc_modifier: Any,
        opponent_modifier: Any,
        pc_bumps: Any,
        opponent_bumps: Any,
        pc_rating: Any,
        opponent_rating: Any,
    ) -> ScoredRound:
        tactics = read_tactics(self._names, pc_tactic, opponent_tactic)
        play = self._play_contest(
            rolls={"pc": pc_roll, "opponent": opponent_roll},
            hero_points={"pc": pc_hero_point, "opponent": opponent_hero_point},
            overrides={"pc": pc_rating, "opponent": opponent_rating},
            modifiers={"pc": pc_modifier, "opponent": opponent_modifier},
            bumps={"pc": pc_bumps, "opponent": opponent_bumps},
        )
        scored = score_round(
            play.outcome, pc_tactic=tactics["pc"], opponent_tactic=tactics["opponent"]
        )
        if scored.scored_by:
            self._points[scored.scored_by] += scored.points
        self._rounds.append(
            {
                "number": len(self._rounds) + 1,
                "kind": "round",
                **round_log(play, scored),
                "pc_points": self._points["pc"],
                "opponent_points": self._points["opponent"],
            }
        )
        if scored.escaped:
            # §5.1.6: the escaping side fails at the story obstacle; the other stays.
            self._winner = other_side(scored.escaped)
            self._ended_by = "disengagement"
        else:
            self._check_knockout(scored.scored_by, scored.points)
        return scored

    def _check_knockout(self, scorer: Side | None, points: int) -> None:
        if scorer and self._points[scorer] >= WINNING_SCORE:
            self._winner = scorer
            self._ended_by = "knockout"
            self._knockout_points = points
            # §5.1.4: "Your GM should not use a parting shot."
            self._parting_shot_open = self._players[scorer]

    def roll_round(self, *, roller: Roller = d20, **options: Any) -> ScoredRound:
        """Roll both dice with `roller` and play the round (not itself an action:
        the recorded action is `play_round` with the rolled numbers)."""
        return self.play_round(pc_roll=roller(), opponent_roll=roller(), **options)

    @action
    @after_end
    def parting_shot(
        self,
        *,
        pc_roll: int,
        opponent_roll: int,
        pc_rating: int | str | None = None,
        opponent_rating: int | str | None = None,
        pc_modifier: int = 0,
        opponent_modifier: int = 0,
        pc_hero_point: bool = False,
        opponent_hero_point: bool = False,
        pc_bumps: int = 0,
        opponent_bumps: int = 0,
    ) -> Outcome:
        """The winner kicks the loser while down, right after the knock-out (§5.1.4).

        A simple contest, often with other abilities (`*_rating`). If the winner
        wins, the RP of that result add to the score against the loser; if the loser
        wins, the RP they would score come off the knock-out round's RP, and a score
        now under 5 brings them back: the contest goes on. One parting shot per
        knock-out; the GM makes none.
        """
        if not self._parting_shot_open:
            if self._ended_by == "knockout" and not self._players[self._decided()[0]]:
                raise IllegalAction("the GM does not make parting shots (§5.1.4)")
            raise IllegalAction(
                "a parting shot comes only in the round right after a knock-out (§5.1.4)"
            )
        shooter = self._decided()[0]
        play = self._play_contest(
            rolls={"pc": pc_roll, "opponent": opponent_roll},
            hero_points={"pc": pc_hero_point, "opponent": opponent_hero_point},
            overrides={"pc": pc_rating, "opponent": opponent_rating},
            modifiers={"pc": pc_modifier, "opponent": opponent_modifier},
            bumps={"pc": pc_bumps, "opponent": opponent_bumps},
        )
        outcome = play.outcome
        shooter_level = outcome.level if shooter == "pc" else -outcome.level
        before = self._points[shooter]
        self._points[shooter] = parting_shot_score(before, self._knockout_points, shooter_level)
        self._parting_shot_open = False
        revived = self._points[shooter] < WINNING_SCORE
        self._rounds.append(
            {
                "number": len(self._rounds) + 1,
                "kind": "parting_shot",
                **outcome_entry(outcome),
                "pc_rating": str(play.ratings["pc"]),
                "opponent_rating": str(play.ratings["opponent"]),
                "shooter": shooter,
                "pc_hero_point": play.hero_points["pc"],
                "opponent_hero_point": play.hero_points["opponent"],
                "change": self._points[shooter] - before,
                "revived": revived,
                "pc_points": self._points["pc"],
                "opponent_points": self._points["opponent"],
            }
        )
        if revived:
            # §5.1.4: a dramatic turnaround; the provisional consequences go away.
            self._winner = None
            self._ended_by = None
            self._knockout_points = 0
        return outcome

    @action
    def switch_ability(self, *, side: str, rating: int | str) -> None:
        """`side` uses another ability, rated `rating`, from now on (§5.2.8); its lasting
        modifiers, states and bumps stay. A tactic that exploits a weakness may face
        less: the GM then switches the other side too."""
        if side not in SIDES:
            raise RulesError(f"side must be 'pc' or 'opponent', not {side!r}")
        self._refuse_held("switch abilities")
        read_rating(rating, f"{self._names[side]}'s new rating")
        self._set_side(side, self._sides[side].with_rating(rating))

    @action
    def update_side(self, *, side: str, input: SideInput | dict[str, Any]) -> None:
        """Change what lasts for `side` between rounds (R18.5): its lasting modifiers,
        states and bumps (a state of adversity taken, heroic lost). Its name and who
        controls it stay."""
        if side not in SIDES:
            raise RulesError(f"side must be 'pc' or 'opponent', not {side!r}")
        self._refuse_held("change a side")
        self._set_side(side, check_update(self._sides[side], input))

    def _set_side(self, side: Side, new: SideInput) -> None:
        self._sides[side] = new
        self._ratings[side] = new.target.rating

    @property
    def outcome(self) -> ContestOutcome | None:
        """The contest's result once it is over (None while playing): winner, degree,
        signed level, and each side's consequence of defeat or benefit of victory
        (§5.1.2, §5.1.3, §5.1.1 step 6, R18.6)."""
        if not self.is_over:
            return None
        return long_outcome(
            winner=self._winner,
            degree=self.degree,
            consequences=self.consequences(),
            sides=self._sides,
            ended_by=self._ended_by,
        )
