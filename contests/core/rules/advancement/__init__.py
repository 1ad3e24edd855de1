"""Hero points, experience and improving a character (§7, 1e §6, RULINGS.md R15).

Two economies, chosen per campaign (`RulesOptions.hero_point_economy`):

- `advances` (§7.1, the default): 1 HP at each session start, the GM awards up to 5 more
  a session, unspent HP become XP at the session's end, and 10 XP buy an advance made
  of two different options from the §7.1 list.
- `classic` (1e §6): 3 HP at each session start, unspent HP are lost at the end, and HP
  buy improvements directly (1 HP: +1 to an ability or breakout, once per ability a
  session; 2 HP: +1 to a keyword; 1 HP: a new ability at 13 or a new breakout at +1).

A new character has 3 HP in either economy. Catch-ups (§7.1.1) and directed
improvements (§7.1.2) exist in both.

Everything here is a pure function over an immutable `Character`: each returns the
new character and the list of `Change`s it made, so the app can write a ledger.

The modules, each importing only from those above it:

- `character.py`: `Ability`, `CatchUp`, `Character`, `Change`, the numbers of §7;
- `sessions.py`: starting and ending sessions, awarding and spending hero points;
- `improvements.py`: advances, catch-ups, directed improvements and classic purchases.

Every public name is importable from `contests.core.rules.advancement` itself.
"""

from .character import (
    ABILITY_KINDS,
    ADVANCE_COST,
    CATCH_UP_ABILITIES,
    CATCH_UP_BONUS,
    CATCH_UP_GAP,
    CLASSIC_NEW_ABILITY_COST,
    CLASSIC_RAISE_COST,
    DIRECTED_AMOUNTS,
    ECONOMIES,
    MAX_AWARDS_PER_SESSION,
    NEW_ABILITY_RATING,
    NEW_BREAKOUT_BONUS,
    SESSION_HERO_POINTS,
    STARTING_HERO_POINTS,
    Ability,
    AbilityKind,
    CatchUp,
    Change,
    Character,
    Economy,
    Step,
    new_character,
)
from .improvements import (
    ADVANCE_OPTIONS,
    AdvanceChoice,
    buy_advance,
    catch_up_candidates,
    classic_new_ability,
    classic_raise,
    decline_catch_up,
    directed_improvement,
    directed_new_ability,
    sidekick_raise,
    sidekick_raise_cost,
    take_catch_up,
)
from .sessions import award_hero_points, end_session, spend_hero_point, start_session

__all__ = [
    "ABILITY_KINDS",
    "ADVANCE_COST",
    "ADVANCE_OPTIONS",
    "CATCH_UP_ABILITIES",
    "CATCH_UP_BONUS",
    "CATCH_UP_GAP",
    "CLASSIC_NEW_ABILITY_COST",
    "CLASSIC_RAISE_COST",
    "DIRECTED_AMOUNTS",
    "ECONOMIES",
    "MAX_AWARDS_PER_SESSION",
    "NEW_ABILITY_RATING",
    "NEW_BREAKOUT_BONUS",
    "SESSION_HERO_POINTS",
    "STARTING_HERO_POINTS",
    "Ability",
    "AbilityKind",
    "AdvanceChoice",
    "CatchUp",
    "Change",
    "Character",
    "Economy",
    "Step",
    "award_hero_points",
    "buy_advance",
    "catch_up_candidates",
    "classic_new_ability",
    "classic_raise",
    "decline_catch_up",
    "directed_improvement",
    "directed_new_ability",
    "end_session",
    "new_character",
    "spend_hero_point",
    "sidekick_raise",
    "sidekick_raise_cost",
    "start_session",
    "take_catch_up",
]
