"""Thin views: check access (characters.access), read a form, call a service, render.

htmx requests get the page's fragment back (`sheet.html#sheet`, `wizard.html#creation`,
`sheet.html#field`); other requests are redirected to the page, with messages. A
refused action (a form's errors, a rule broken) answers 400 with its errors.

By page: `pages.py` (the list, the sheet, the wizard, the roster, export and import),
`editing.py` (the player's edits of the sheet), `followers.py`, `advancement.py`, `gm.py`
(the GM's actions); `respond.py` holds what they share (the forms by name, `submit`).
"""

from .advancement import (
    advance_buy,
    catch_up,
    classic_new,
    classic_raise,
    hero_point_spend,
    sidekick_raise,
)
from .editing import (
    ability_add,
    ability_edit,
    ability_remove,
    character_campaign,
    character_field,
    concept_set,
    creation_finish,
    prose_set,
)
from .followers import follower_remove, retainer_add, sidekick_lose, sidekick_new, sidekick_set
from .gm import (
    condition_apply,
    condition_clear,
    condition_heal,
    condition_wherewithal,
    conditions_wane,
    directed_improvement,
    directed_new_ability,
    hero_points_award,
    step_undo,
)
from .pages import (
    character_create,
    character_export_json,
    character_import,
    character_list,
    character_roster,
    character_sheet,
    character_wizard,
)

__all__ = [
    "ability_add",
    "ability_edit",
    "ability_remove",
    "advance_buy",
    "catch_up",
    "character_campaign",
    "character_create",
    "character_export_json",
    "character_field",
    "character_import",
    "character_list",
    "character_roster",
    "character_sheet",
    "character_wizard",
    "classic_new",
    "classic_raise",
    "sidekick_raise",
    "concept_set",
    "condition_apply",
    "condition_clear",
    "condition_heal",
    "condition_wherewithal",
    "conditions_wane",
    "creation_finish",
    "directed_improvement",
    "directed_new_ability",
    "follower_remove",
    "hero_point_spend",
    "hero_points_award",
    "prose_set",
    "retainer_add",
    "sidekick_lose",
    "sidekick_new",
    "sidekick_set",
    "step_undo",
]
