"""Every change to a community and its resources (§8).

Each service checks who acts (views check first; this is the last line), runs the rule
through the rules engine's `Community` (contests.core.rules.community: depletion,
fluctuation, crisis tests, bolstering, cementing, the interval's end, plot events),
stores what the engine changed as `ResourceChange` rows under one `CommunityStep`
(`base.py`), and broadcasts the re-rendered notation table to the campaign's table once
the transaction commits (`community.live`). Bad input raises `ValidationError` with a
message for the person who tried, and changes nothing. Reads (the page, whether play
has begun, the questionnaire's scores) are `community.selectors`.

- Setup (`setup.py`; §8.1): the community, its resources, the §8.1.3 spread, the
  actions that require a resource (§8.2.1).
- The questionnaire (`questionnaire.py`; §8.1.3).
- Drawing on a resource (`draws.py`; §8.2): `community_draw_start(...)`, the lobbying
  contest, and `community_draw_settle(...)`, the depletion once the contest that used
  the resource is decided. The live table (contests.services) calls the community
  through `community_draw_settle` alone.
- After other contests (`resources.py`; §8.2.2-§8.2.6, §8.4): penalties, withdrawal,
  bolstering, cementing, plot events.
- The interval cycle (`interval.py`; §8.2.4, §8.2.5, §8.3): background events, crisis
  tests (`community_session_start` runs them as a session starts), the interval's end.

Dice: every rolling service takes `roller` (default `contests.core.rules.d20`); tests pass
`contests.core.rules.fixed_rolls(...)`. Rolls are drawn in resource order, each resource's
own roll first and then its resistance's.
"""

from .draws import SettledDraw, community_draw_settle, community_draw_start
from .interval import (
    community_background_events,
    community_crisis_narrate,
    community_crisis_tests,
    community_interval_end,
    community_session_start,
)
from .questionnaire import (
    MAX_CHOICES,
    community_spread_from_questionnaire,
    question_add,
    question_remove,
    questionnaire_answer,
)
from .resources import (
    community_bolster,
    community_cement,
    community_concede,
    community_penalty_from_defeat,
    community_plot_event,
)
from .setup import (
    community_create,
    community_found,
    community_spread_assign,
    community_update,
    required_use_add,
    required_use_remove,
    resource_add,
    resource_remove,
    resource_update,
)

__all__ = [
    "MAX_CHOICES",
    "SettledDraw",
    "community_background_events",
    "community_bolster",
    "community_cement",
    "community_concede",
    "community_create",
    "community_crisis_narrate",
    "community_crisis_tests",
    "community_draw_settle",
    "community_draw_start",
    "community_found",
    "community_interval_end",
    "community_penalty_from_defeat",
    "community_plot_event",
    "community_session_start",
    "community_spread_assign",
    "community_spread_from_questionnaire",
    "community_update",
    "question_add",
    "question_remove",
    "questionnaire_answer",
    "required_use_add",
    "required_use_remove",
    "resource_add",
    "resource_remove",
    "resource_update",
]
