"""Every change to a character: `character_<action>(*, ...)` under transaction.atomic.

All rules come from the engine (contests.core.rules):

- Creation (`creation.py`; §3, §2.20, R16): a change is written, then the whole sheet is
  checked with `validate_character` (and `check_prose`); a change that brings a new
  problem is rolled back and the problems, each naming its rule and numbers, are raised.
- Hero points and advancement (`advancement.py`; §7, 1e §6, R15): the engine gets the
  sheet as its `Character`, returns the new one and its changes, and we write that back.
- Conditions (`conditions.py`; §2.11, R10): the engine says what recording, healing or
  waning a state does to the states an ability holds.
- Import (`transfer.py`): a JSON export, checked as a whole.
- Sidekicks in play (`followers.py`; §6.5.2): a sidekick lost, replaced without a hero
  point, or a retainer promoted, its abilities checked as at creation (§6.5.1).

Every change to a rating, hero points or XP is a `LedgerStep` with its entries
(`base.py`); the GM may undo the latest step of play or advancement. Refusals are
`django.core.exceptions.ValidationError`s with messages fit to show as they are.
"""

from ..selectors import EXPORT_FORMAT, EXPORT_VERSION, undoable_step
from .advancement import (
    character_advance_buy,
    character_catch_up_decline,
    character_catch_up_take,
    character_classic_new_ability,
    character_classic_raise,
    character_directed_improvement,
    character_directed_new_ability,
    character_hero_point_spend,
    character_hero_points_award,
    character_session_end,
    character_session_start,
    character_sidekick_raise,
    character_step_undo,
    hero_point_spend_locked,
)
from .base import error_lines, locked_character, sheet_changed
from .conditions import (
    character_condition_apply,
    character_condition_clear,
    character_condition_heal,
    character_conditions_wane,
    character_wherewithal,
)
from .creation import (
    DETAIL_FIELDS,
    character_ability_add,
    character_ability_remove,
    character_ability_update,
    character_campaign_join,
    character_concept_set,
    character_create,
    character_creation_finish,
    character_details_update,
    character_follower_add,
    character_follower_remove,
    character_prose_set,
    character_sidekick_set,
)
from .followers import (
    character_retainer_promote,
    character_sidekick_lose,
    character_sidekick_replace,
)
from .transfer import character_import

__all__ = [
    "DETAIL_FIELDS",
    "EXPORT_FORMAT",
    "EXPORT_VERSION",
    "character_ability_add",
    "character_ability_remove",
    "character_ability_update",
    "character_advance_buy",
    "character_campaign_join",
    "character_catch_up_decline",
    "character_catch_up_take",
    "character_classic_new_ability",
    "character_classic_raise",
    "character_concept_set",
    "character_condition_apply",
    "character_condition_clear",
    "character_condition_heal",
    "character_conditions_wane",
    "character_create",
    "character_creation_finish",
    "character_details_update",
    "character_directed_improvement",
    "character_directed_new_ability",
    "character_follower_add",
    "character_follower_remove",
    "character_hero_point_spend",
    "character_hero_points_award",
    "character_import",
    "character_prose_set",
    "character_retainer_promote",
    "character_session_end",
    "character_session_start",
    "character_sidekick_lose",
    "character_sidekick_raise",
    "character_sidekick_replace",
    "character_sidekick_set",
    "character_step_undo",
    "character_wherewithal",
    "error_lines",
    "hero_point_spend_locked",
    "locked_character",
    "sheet_changed",
    "undoable_step",
]
