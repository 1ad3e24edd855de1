"""The scored contest: rounds of simple contests scoring resolution points (§5.1, R12).

This module holds the tables of §5.1 and §5.2 as pure functions (resolution points per
degree, risky gambits and defensive responses, the rising action and climax tables,
the assist table and its escalating resistances, parting shots), the playing and
logging of one round (`play_contest`, `round_log`) and the one-on-one `ScoredContest`
state machine. The group contest (§5.2) builds on the same functions in
`scored_group.py`.

Consequences are plain strings, worst last in `CONSEQUENCES`: "unharmed" and "dazed"
(the climax table's lightest rows, which carry no rating modifier) and the states of
adversity "hurt" .. "dead", whose strings equal the `State` values of `states.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from .dice import Result, Roller, d20
from .errors import IllegalAction, RulesError
from .inputs import read_better_roll, read_flag, read_int, read_rating, read_roll
from .machine import ContestMachine, action, after_end
from .ratings import RESISTANCE_LEVELS, Rating
from .simple import DEGREES, Outcome, simple_contest, spend_hero_point

Side = Literal["pc", "opponent"]
SIDES: tuple[Side, Side] = ("pc", "opponent")

WINNING_SCORE = 5
"""§5.1.1 step 4.5: the first to 5 resolution points wins."""

RESOLUTION_POINTS: dict[str, int] = {"marginal": 1, "minor": 2, "major": 3, "complete": 5}
"""§5.1.1 step 4.4 (and the Resource Point Table): RP the winner of a round scores."""

TACTICS: tuple[str, ...] = ("normal", "risky_gambit", "defensive", "asymmetrical", "disengage")
"""What a side does in a round: §5.2.5 risky gambit, §5.2.6 defensive response,
§5.1.5 asymmetrical round (trying something else), §5.1.6 disengaging (an
asymmetrical round whose other aim is to escape)."""

ASYMMETRICAL_TACTICS = ("asymmetrical", "disengage")

STAKES: tuple[str, ...] = ("rising_action", "climax")
"""How the contest is framed: §5.1.2 rising action or §5.1.3 climax."""

CONSEQUENCES: tuple[str, ...] = (
    "unharmed",
    "dazed",
    "hurt",
    "impaired",
    "injured",
    "dying",
    "dead",
)
"""Every consequence a scored contest can leave, least punishing first."""


# ---------------------------------------------------------------------------
# Reading arguments: every message names who or what was wrong
# ---------------------------------------------------------------------------


def read_tactic(value: Any, whose: str) -> str:
    if value not in TACTICS:
        allowed = ", ".join(repr(t) for t in TACTICS)
        raise RulesError(f"{whose} tactic must be one of {allowed}, not {value!r}")
    return value


def read_stakes(value: Any) -> str:
    if value not in STAKES:
        raise RulesError(f"stakes must be 'rising_action' or 'climax', not {value!r}")
    return value


def other_side(side: Side) -> Side:
    return "opponent" if side == "pc" else "pc"


# ---------------------------------------------------------------------------
# Resolution points (§5.1.1, §5.2.5, §5.2.6, §5.1.5; R12)
# ---------------------------------------------------------------------------


def resolution_points(degree: str) -> int:
    """RP scored for a round won at `degree` (§5.1.1 step 4.4).

    >>> [resolution_points(degree) for degree in DEGREES]
    [1, 2, 3, 5]
    """
    if degree not in RESOLUTION_POINTS:
        raise RulesError(f"degree must be one of {', '.join(DEGREES)}, not {degree!r}")
    return RESOLUTION_POINTS[degree]


def round_points(
    degree: str, *, winner_tactic: str = "normal", loser_tactic: str = "normal"
) -> int:
    """RP the winner of a round lodges against the loser, after tactics (R12).

    §5.2.5 risky gambit: the gambler's win scores +1, the gambler's loss gives the
    winner +2, and when both gamble the winner scores +2. §5.2.6 defensive response:
    the defender's win scores 1 less, the defender's loss concedes 2 less. The
    adjustments add up and a round never scores below 0. §5.1.5: a side that wins an
    asymmetrical round (or a disengagement) scores nothing.

    >>> round_points("minor", winner_tactic="risky_gambit", loser_tactic="defensive")
    1
    >>> round_points("complete", winner_tactic="asymmetrical")
    0
    """
    read_tactic(winner_tactic, "the winner's")
    read_tactic(loser_tactic, "the loser's")
    if winner_tactic in ASYMMETRICAL_TACTICS:
        return 0
    points = resolution_points(degree)
    if winner_tactic == "risky_gambit" and loser_tactic == "risky_gambit":
        points += 2
    elif winner_tactic == "risky_gambit":
        points += 1
    elif loser_tactic == "risky_gambit":
        points += 2
    if winner_tactic == "defensive":
        points -= 1
    if loser_tactic == "defensive":
        points -= 2
    return max(points, 0)


# ---------------------------------------------------------------------------
# Consequences: rising action (§5.1.2) and climax (§5.1.3)
# ---------------------------------------------------------------------------


class RisingActionRow(NamedTuple):
    """One row of the Rising Action Contest Table (§5.1.2)."""

    loser: str
    winner: str
    degree: str


RISING_ACTION_TABLE: dict[int, RisingActionRow] = {
    1: RisingActionRow("hurt", "hurt", "marginal"),
    2: RisingActionRow("hurt", "unharmed", "marginal"),
    3: RisingActionRow("impaired", "unharmed", "minor"),
    4: RisingActionRow("impaired", "unharmed", "minor"),
    5: RisingActionRow("injured", "unharmed", "major"),
    6: RisingActionRow("injured", "unharmed", "major"),
    7: RisingActionRow("dying", "unharmed", "complete"),
    8: RisingActionRow("dead", "unharmed", "complete"),
    9: RisingActionRow("dead", "unharmed", "complete"),
}
"""§5.1.2, keyed by the RP difference at the end (differences above 9 read row 9)."""


def rising_action(difference: int) -> RisingActionRow:
    """The rising action row for the winner's RP lead at the end (§5.1.2, R12).

    >>> rising_action(4)
    RisingActionRow(loser='impaired', winner='unharmed', degree='minor')
    >>> rising_action(12).loser
    'dead'
    """
    read_int(difference, "the RP difference")
    if difference < 1:
        raise RulesError(
            f"a finished scored contest has a winner ahead by 1 RP or more, not {difference}"
        )
    return RISING_ACTION_TABLE[min(difference, 9)]


CLIMAX_TABLE: tuple[str, ...] = (
    "unharmed",  # 0
    "dazed",  # 1
    "hurt",  # 2
    "hurt",  # 3
    "impaired",  # 4
    "impaired",  # 5
    "injured",  # 6
    "injured",  # 7
    "dying",  # 8
    "dead",  # 9 or more
)
"""§5.1.3 Climactic State of Adversity Table, indexed by RP scored against the PC."""

CLIMAX_VICTORY_LEVEL: dict[str, str] = {
    "hurt": "marginal",
    "impaired": "minor",
    "injured": "major",
    "dying": "complete",
    "dead": "complete",
}
"""§5.1.3 Climactic Outcome Table: the loser's consequence gives the winner's degree
(R12: the table's "Hurt" for dying or dead is a typo for complete)."""


def climax_consequence(points_against: int, *, lost: bool) -> str:
    """A side's consequence at a climax (§5.1.3, R12).

    `points_against` is every RP scored against the side by all its opponents; a side
    that lost adds 1.

    >>> climax_consequence(3, lost=False), climax_consequence(7, lost=True)
    ('hurt', 'dying')
    """
    read_int(points_against, "the RP scored against")
    if points_against < 0:
        raise RulesError(f"RP scored against a side cannot be negative ({points_against})")
    total = points_against + (1 if lost else 0)
    return CLIMAX_TABLE[min(total, len(CLIMAX_TABLE) - 1)]


def victory_level(consequence: str) -> str:
    """The winner's degree of victory read from the loser's consequence (§5.1.3, §5.2).

    >>> victory_level("injured")
    'major'
    """
    if consequence not in CLIMAX_VICTORY_LEVEL:
        raise RulesError(
            f"{consequence!r} is not a consequence of defeat: a defeated side is at least hurt"
        )
    return CLIMAX_VICTORY_LEVEL[consequence]


def consequence_rank(consequence: str) -> int:
    """0 for unharmed up to 6 for dead, to compare consequences."""
    if consequence not in CONSEQUENCES:
        raise RulesError(f"unknown consequence {consequence!r}")
    return CONSEQUENCES.index(consequence)


def group_victory_level(defeated_consequences: Iterable[str]) -> str | None:
    """The winning side's degree in a group contest (§5.2, R12).

    With one defeated opponent, their consequence sets it; with more, the
    second-worst consequence among them does. None when nobody was defeated (every
    opponent disengaged).

    >>> group_victory_level(["dead", "hurt", "injured"])
    'major'
    >>> group_victory_level(["impaired"])
    'minor'
    """
    ranked = sorted(defeated_consequences, key=consequence_rank, reverse=True)
    if not ranked:
        return None
    return victory_level(ranked[0] if len(ranked) == 1 else ranked[1])


# ---------------------------------------------------------------------------
# Assists (§5.2.3) and parting shots (§5.1.4)
# ---------------------------------------------------------------------------

ASSIST_SCORE_CHANGE: dict[int, int] = {4: -4, 3: -3, 2: -2, 1: -1, 0: 0, -1: 0, -2: 1, -3: 2, -4: 3}
"""§5.2.3 Assist Table, keyed by the helper's signed outcome level (+4 complete
victory .. -4 complete defeat); a tie changes nothing."""

_ASSIST_LADDER = tuple(reversed(RESISTANCE_LEVELS))  # very_low .. nearly_impossible


def assist_resistance(previous_assists: int, shift: int = 0) -> str:
    """The resistance class an assist faces (§5.2.3, R12).

    The first assist to a recipient faces moderate; each later one to the same
    recipient steps up: high, very high, then nearly impossible (it stays there).
    `shift` is the GM's one-step adjustment (-1, 0 or +1) of the starting class.

    >>> [assist_resistance(n) for n in range(5)]
    ['moderate', 'high', 'very_high', 'nearly_impossible', 'nearly_impossible']
    >>> assist_resistance(0, shift=-1)
    'low'
    """
    read_int(previous_assists, "the number of earlier assists")
    if previous_assists < 0:
        raise RulesError(f"the number of earlier assists cannot be negative ({previous_assists})")
    if read_int(shift, "the resistance shift") not in (-1, 0, 1):
        raise RulesError(f"the GM adjusts an assist's resistance by one step at most, not {shift}")
    step = _ASSIST_LADDER.index("moderate") + shift + previous_assists
    return _ASSIST_LADDER[min(step, len(_ASSIST_LADDER) - 1)]


def assist_score_change(level: int) -> int:
    """Change to the score against the recipient for the helper's outcome (§5.2.3).

    `level` is the helper's signed outcome level (`Outcome.level`).

    >>> assist_score_change(3), assist_score_change(-4)
    (-3, 3)
    """
    if read_int(level, "the outcome level") not in ASSIST_SCORE_CHANGE:
        raise RulesError(f"an outcome level runs from -4 to 4, not {level}")
    return ASSIST_SCORE_CHANGE[level]


def assisted_score(score: int, level: int) -> int:
    """The score against the recipient after an assist; never below 0 (§5.2.3).

    >>> assisted_score(3, 4), assisted_score(3, -2)
    (0, 4)
    """
    return max(read_int(score, "the score") + assist_score_change(level), 0)


def parting_shot_score(score: int, knockout_points: int, shooter_level: int) -> int:
    """The score against a knocked-out side after a parting shot (§5.1.4).

    If the shooter wins, the RP of their result are added. If the target wins, the RP
    they would have scored come off the RP of the round that removed them (never
    below 0 for that round, R12: no negative RP); a total now under 5 brings them back.

    >>> parting_shot_score(6, 3, 2)   # a minor victory for the shooter adds 2
    8
    >>> parting_shot_score(6, 3, -2)  # a minor defeat takes 2 off the knock-out round
    4
    >>> parting_shot_score(5, 1, -4)  # only the knock-out round's 1 RP can come off
    4
    """
    read_int(score, "the score")
    read_int(knockout_points, "the knock-out round's RP")
    if read_int(shooter_level, "the outcome level") > 0:
        return score + resolution_points(DEGREES[shooter_level - 1])
    if shooter_level < 0:
        return score - min(resolution_points(DEGREES[-shooter_level - 1]), knockout_points)
    return score


# ---------------------------------------------------------------------------
# One round: a simple contest, hero points on either side, then RP
# ---------------------------------------------------------------------------


def contest_outcome(
    pc: Rating,
    pc_roll: int,
    opponent: Rating,
    opponent_roll: int,
    *,
    better_roll: str = "high",
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
    for side, spent, label in (
        ("pc", pc_hero_point, pc_label),
        ("opponent", opponent_hero_point, opponent_label),
    ):
        if not spent:
            continue
        own = outcome.pc_result if side == "pc" else outcome.opponent_result
        if own is Result.CRITICAL:
            # R5.3: offered only below critical; say whose roll it was.
            raise IllegalAction(
                f"a hero point cannot raise {label}'s critical: it is already the best result"
            )
        outcome = spend_hero_point(outcome, side=side)
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
    if outcome.winner == "pc":
        points = round_points(outcome.degree, winner_tactic=pc_tactic, loser_tactic=opponent_tactic)
    elif outcome.winner == "opponent":
        points = round_points(outcome.degree, winner_tactic=opponent_tactic, loser_tactic=pc_tactic)
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
    ratings: dict[Side, Rating],
    check_hero_point: Callable[[Side, Any], bool],
    *,
    better_roll: str,
    rolls: dict[Side, Any],
    hero_points: dict[Side, Any],
    overrides: dict[Side, Any],
    modifiers: dict[Side, Any],
    bumps: dict[Side, Any],
) -> RoundPlay:
    """Read both sides' options for a round and play its simple contest (§5.1.1 step 4).

    `ratings` are the abilities in use; `overrides` name another ability for this
    round only and `modifiers` are this round's situational modifiers (R9: they last
    one round). `check_hero_point(side, value)` reads a side's hero point and refuses
    one to the GM's side, in the machine's own words.
    """
    spent = {side: check_hero_point(side, hero_points[side]) for side in SIDES}
    used = {
        side: rating_in_use(ratings[side], overrides[side], modifiers[side], names[side])
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
        pc_bumps=read_int(bumps["pc"], "pc_bumps"),
        opponent_bumps=read_int(bumps["opponent"], "opponent_bumps"),
        pc_label=names["pc"],
        opponent_label=names["opponent"],
    )
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


# ---------------------------------------------------------------------------
# The one-on-one scored contest
# ---------------------------------------------------------------------------


class ScoredContest(ContestMachine):
    """A PC against one opponent, first to 5 resolution points (§5.1, R12).

    Setup (all JSON-able keyword arguments):

    - `pc`, `opponent`: ratings as int totals or notation strings ("14", "7M").
      The opponent's rating is the resistance (or a second PC's ability).
    - `pc_name`, `opponent_name`: labels for messages and the log.
    - `better_roll`: "high" (default) or "low", the campaign option of R6.
    - `stakes`: "rising_action" (default, §5.1.2) or "climax" (§5.1.3).
    - `opponent_is_pc`: True when two PCs contend (§5.1.1 step 3): the opponent may
      then spend hero points and make a parting shot.
    - `first_round`: round one taken from a finished simple contest (§2.8.2
      escalating contests); build it with `ScoredContest.escalate`.

    Actions: `play_round`, `parting_shot`, `switch_ability`. Read the score from
    `pc_points` (RP the PC has scored against the opponent) and `opponent_points`
    (RP scored against the PC), the end from `is_over`, `winner`, `degree`,
    `ended_by`, and the consequences from `consequences()`.

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
        pc: int | str,
        opponent: int | str,
        pc_name: str = "PC",
        opponent_name: str = "Opponent",
        better_roll: str = "high",
        stakes: str = "rising_action",
        opponent_is_pc: bool = False,
        first_round: dict[str, Any] | None = None,
    ) -> None:
        self._names = {"pc": str(pc_name), "opponent": str(opponent_name)}
        self._ratings = {
            "pc": read_rating(pc, f"{self._names['pc']}'s rating"),
            "opponent": read_rating(opponent, f"{self._names['opponent']}'s rating"),
        }
        self._better_roll = read_better_roll(better_roll)
        self._stakes = read_stakes(stakes)
        self._players = {"pc": True, "opponent": read_flag(opponent_is_pc, "opponent_is_pc")}
        self._points: dict[str, int] = {"pc": 0, "opponent": 0}
        self._rounds: list[dict[str, Any]] = []
        self._winner: Side | None = None
        self._ended_by: str | None = None
        self._knockout_points = 0
        self._parting_shot_open = False
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
            pc = read_rating(setup.get("pc"), "the PC's rating")
            opponent = read_rating(setup.get("opponent"), "the opponent's rating")
            outcome = contest_outcome(
                pc,
                read_roll(pc_roll, "the PC's roll"),
                opponent,
                read_roll(opponent_roll, "the opponent's roll"),
                better_roll=read_better_roll(setup.get("better_roll", "high")),
                pc_hero_point=read_flag(pc_hero_point, "pc_hero_point"),
            )
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
        points = resolution_points(degree) if winner else 0
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
    def points(self) -> dict[str, int]:
        """Both tallies: `{"pc": ..., "opponent": ...}`, each the RP that side scored."""
        return dict(self._points)

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

    @property
    def degree(self) -> str | None:
        """The winner's degree of victory (= the loser's degree of defeat).

        Rising action: from the RP difference (§5.1.2). Climax: from the loser's
        climactic consequence (§5.1.3). None while playing and after a
        disengagement, which the SRD gives no degree.
        """
        if self._ended_by != "knockout":
            return None
        winner, loser = self._winner, self.loser
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
        row = rising_action(self._points[self._winner] - self._points[self.loser])
        return {side: row.loser if lost[side] else row.winner for side in SIDES}

    def state(self) -> dict[str, Any]:
        over = self.is_over
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
            "consequences": self.consequences() if over else None,
        }

    # -- actions --------------------------------------------------------------------

    def _check_player(self, side: Side, hero_point: Any) -> bool:
        if read_flag(hero_point, f"{side}_hero_point") and not self._players[side]:
            raise IllegalAction(
                f"{self._names[side]} is the GM's: only player characters spend hero points"
            )
        return hero_point

    def _play_contest(self, **options: dict[Side, Any]) -> RoundPlay:
        """`play_contest` between this contest's two sides, with their current ratings."""
        return play_contest(
            self._names,
            self._ratings,
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
            if self._ended_by == "knockout" and not self._players[self._winner]:
                raise IllegalAction("the GM does not make parting shots (§5.1.4)")
            raise IllegalAction(
                "a parting shot comes only in the round right after a knock-out (§5.1.4)"
            )
        shooter = self._winner
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
    def switch_ability(
        self, *, side: str, rating: int | str, resistance: int | str | None = None
    ) -> None:
        """Use another ability from now on (§5.2.8).

        `side` switches to `rating`; `resistance`, when given, is the GM's new rating
        for the other side (a tactic that exploits a weakness may face less).
        """
        if side not in SIDES:
            raise RulesError(f"side must be 'pc' or 'opponent', not {side!r}")
        new = read_rating(rating, f"{self._names[side]}'s new rating")
        if resistance is not None:
            other = other_side(side)
            self._ratings[other] = read_rating(resistance, f"{self._names[other]}'s new rating")
        self._ratings[side] = new
