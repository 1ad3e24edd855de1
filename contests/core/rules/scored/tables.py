"""The tables of the scored contest as pure functions (§5.1, §5.2, R12).

Resolution points per degree, risky gambits and defensive responses (§5.1.1, §5.2.5,
§5.2.6, §5.1.5), the rising action and climax tables (§5.1.2, §5.1.3), the assist
table and its escalating resistances (§5.2.3), and parting shots (§5.1.4).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from ..errors import RulesError
from ..inputs import read_int
from ..ratings import RESISTANCE_LEVELS
from ..simple import DEGREES, Side

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
    if not isinstance(value, str) or value not in TACTICS:
        allowed = ", ".join(repr(t) for t in TACTICS)
        raise RulesError(f"{whose} tactic must be one of {allowed}, not {value!r}")
    return value


def read_stakes(value: Any) -> str:
    if not isinstance(value, str) or value not in STAKES:
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
