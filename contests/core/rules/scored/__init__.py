"""The scored contest: rounds of simple contests scoring resolution points (§5.1, R12).

This package holds the tables of §5.1 and §5.2 as pure functions (resolution points per
degree, risky gambits and defensive responses, the rising action and climax tables,
the assist table and its escalating resistances, parting shots), the playing and
logging of one round (`play_contest`, `round_log`) and the one-on-one `ScoredContest`
state machine. The group contest (§5.2) builds on the same functions in
the `scored_group` package.

Consequences are plain strings, worst last in `CONSEQUENCES`: "unharmed" and "dazed"
(the climax table's lightest rows, which carry no rating modifier) and the states of
adversity "hurt" .. "dead", whose strings equal the `State` values of `states.py`.

The modules, each importing only from those above it:

- `tables.py`: the tables of §5.1 and §5.2;
- `rounds.py`: one round, shared with the group contest;
- `contest.py`: `ScoredContest`.

Every public name is importable from `contests.core.rules.scored` itself.
"""

from ..simple import SIDES, Side
from .contest import ScoredContest
from .rounds import (
    RoundPlay,
    ScoredRound,
    contest_outcome,
    outcome_entry,
    play_contest,
    rating_in_use,
    read_tactics,
    round_log,
    score_round,
)
from .tables import (
    ASSIST_SCORE_CHANGE,
    ASYMMETRICAL_TACTICS,
    CLIMAX_TABLE,
    CLIMAX_VICTORY_LEVEL,
    CONSEQUENCES,
    RESOLUTION_POINTS,
    RISING_ACTION_TABLE,
    STAKES,
    TACTICS,
    WINNING_SCORE,
    RisingActionRow,
    assist_resistance,
    assist_score_change,
    assisted_score,
    climax_consequence,
    consequence_rank,
    group_victory_level,
    other_side,
    parting_shot_score,
    read_stakes,
    read_tactic,
    resolution_points,
    rising_action,
    round_points,
    victory_level,
)

__all__ = [
    "ASSIST_SCORE_CHANGE",
    "ASYMMETRICAL_TACTICS",
    "CLIMAX_TABLE",
    "CLIMAX_VICTORY_LEVEL",
    "CONSEQUENCES",
    "RESOLUTION_POINTS",
    "RISING_ACTION_TABLE",
    "SIDES",
    "STAKES",
    "TACTICS",
    "WINNING_SCORE",
    "RisingActionRow",
    "RoundPlay",
    "ScoredContest",
    "ScoredRound",
    "Side",
    "assist_resistance",
    "assist_score_change",
    "assisted_score",
    "climax_consequence",
    "consequence_rank",
    "contest_outcome",
    "group_victory_level",
    "other_side",
    "outcome_entry",
    "parting_shot_score",
    "play_contest",
    "rating_in_use",
    "read_stakes",
    "read_tactic",
    "read_tactics",
    "resolution_points",
    "rising_action",
    "round_log",
    "round_points",
    "score_round",
    "victory_level",
]
