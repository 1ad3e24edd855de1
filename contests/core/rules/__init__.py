"""The QuestWorlds rules engine: pure Python, no Django (see docs/rules.md).

Every rule the app uses lives here; section marks (`§5.3.1`) refer to
`questworlds-srd-2.2.txt`, and RULINGS.md settles its gaps (R1-R18). The names below
are the public API; each module also has its own helpers (`contests.core.rules.scored`, ...).
Hero points and advancement are one API of their own, `contests.core.rules.advancement`
(every name of it importable from there): its `spend_hero_point` pays a hero point from
a character, while `bump_with_hero_point` raises a rolled result with one (§2.3.5.5).
"""

from . import advancement
from .augments import (
    Augment,
    AugmentTracker,
    augment_bonus,
    plot_augment,
    quick_augment,
    rolled_augment,
    sum_augments,
)
from .chained import ChainedContest
from .community import STARTING_RATINGS, Community, Resource, ResourceChange
from .creation import Problem, check_prose, flaw_ratings, validate_character, validate_sidekick
from .dice import Result, Roller, d20, fixed_rolls, roll_result
from .errors import IllegalAction, RulesError
from .extended import DEFAULT_BID, ExtendedContest
from .extended_group import GroupExtendedContest
from .group_simple import GroupOutcome, boost_cost, group_simple_contest
from .machine import ContestMachine
from .modifiers import Modifier, TargetNumber, combined_rating, target_number
from .odds import OddsSummary, augment_odds, hero_point_effect, odds_summary, simple_odds
from .options import RulesOptions
from .outcomes import (
    apply_outcome,
    benefit_of_victory,
    consequence_of_defeat,
    costly_automatic_victory,
    graduated_goals,
    heal,
    is_clearly_inferior,
    pyrrhic_victory_consequence,
    wane,
)
from .ratings import RESISTANCE_LEVELS, Rating, resistance
from .results import ContestOutcome, simple_outcome
from .scored import ScoredContest
from .scored_group import GroupScoredContest
from .sides import SideInput
from .simple import DEGREES, Outcome, bump_with_hero_point, simple_contest
from .states import ADVERSITY, BENEFIT_OF_VICTORY, CONSEQUENCE_OF_DEFEAT, FORTUNE, State

__all__ = [
    "advancement",
    "ADVERSITY",
    "BENEFIT_OF_VICTORY",
    "CONSEQUENCE_OF_DEFEAT",
    "DEFAULT_BID",
    "DEGREES",
    "FORTUNE",
    "RESISTANCE_LEVELS",
    "STARTING_RATINGS",
    "Augment",
    "AugmentTracker",
    "ChainedContest",
    "Community",
    "ContestMachine",
    "ContestOutcome",
    "ExtendedContest",
    "GroupExtendedContest",
    "GroupOutcome",
    "GroupScoredContest",
    "IllegalAction",
    "Modifier",
    "OddsSummary",
    "Outcome",
    "Problem",
    "Rating",
    "Resource",
    "ResourceChange",
    "Result",
    "Roller",
    "RulesError",
    "RulesOptions",
    "ScoredContest",
    "SideInput",
    "State",
    "TargetNumber",
    "apply_outcome",
    "augment_bonus",
    "augment_odds",
    "benefit_of_victory",
    "boost_cost",
    "check_prose",
    "combined_rating",
    "consequence_of_defeat",
    "costly_automatic_victory",
    "d20",
    "fixed_rolls",
    "flaw_ratings",
    "graduated_goals",
    "group_simple_contest",
    "heal",
    "hero_point_effect",
    "is_clearly_inferior",
    "odds_summary",
    "plot_augment",
    "pyrrhic_victory_consequence",
    "quick_augment",
    "resistance",
    "roll_result",
    "rolled_augment",
    "simple_contest",
    "simple_outcome",
    "simple_odds",
    "bump_with_hero_point",
    "sum_augments",
    "target_number",
    "validate_character",
    "validate_sidekick",
    "wane",
]
