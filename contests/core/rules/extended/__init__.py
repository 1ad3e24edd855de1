"""The extended contest: advantage points, bids and exchanges (§5.3, RULINGS.md R13).

This package holds the tables of §5.3 as pure functions (the exchange table, the
outcome bands, final action, failed disengagement, AP lending and AP gifting), the
rolls played on them (`roll_exchange`, `roll_disengagement`, `roll_gift`, ...) and the
one-on-one `ExtendedContest` state machine. The group contest (§5.3.3) builds on the
same functions in the `extended_group` package.

Every fraction of AP rounds up: R13 settles "round half points up" for halves, and the
eighths and quarters of the later tables follow the same rule (see
docs/rules-extended.md, "Rulings we made").

The modules, each importing only from those above it:

- `tables.py`: starting AP, bids and the §5.3 tables, as pure functions;
- `rolls.py`: opposed rolls and the rolls of an exchange, a disengagement, a final
  action, a loan and a gift, shared with the group contest;
- `state.py`: `ExtendedContestBase`, the one-on-one contest's setup and state;
- `contest.py`: `ExtendedContest`, its actions.

Every public name is importable from `contests.core.rules.extended` itself.
"""

from ..simple import SIDES, Side
from .contest import ExtendedContest
from .rolls import (
    Disengagement,
    Exchange,
    Gift,
    SideRoll,
    ability_in_use,
    hero_point_bump,
    opposed_results,
    roll_against_resistance,
    roll_disengagement,
    roll_exchange,
    roll_gift,
    simple_outcome,
    unrelated_action_log,
)
from .tables import (
    DEFAULT_BID,
    ExchangeEffect,
    benefit_for,
    better_side,
    check_bid,
    check_level,
    consequence_of,
    defeat_degree,
    disengagement_transfer,
    exchange_effect,
    final_action_ap,
    final_action_resistance,
    fraction_up,
    gifting_effect,
    gifting_resistance,
    lending_effect,
    lending_resistance,
    outcome_words,
    pc_bid_limit,
    pc_bid_reason,
    starting_ap,
    total_modifier,
)

__all__ = [
    "DEFAULT_BID",
    "SIDES",
    "Disengagement",
    "Exchange",
    "ExchangeEffect",
    "ExtendedContest",
    "Gift",
    "Side",
    "SideRoll",
    "ability_in_use",
    "benefit_for",
    "better_side",
    "check_bid",
    "check_level",
    "consequence_of",
    "defeat_degree",
    "disengagement_transfer",
    "exchange_effect",
    "final_action_ap",
    "final_action_resistance",
    "fraction_up",
    "gifting_effect",
    "gifting_resistance",
    "hero_point_bump",
    "lending_effect",
    "lending_resistance",
    "opposed_results",
    "outcome_words",
    "pc_bid_limit",
    "pc_bid_reason",
    "roll_against_resistance",
    "roll_disengagement",
    "roll_exchange",
    "roll_gift",
    "simple_outcome",
    "starting_ap",
    "total_modifier",
    "unrelated_action_log",
]
