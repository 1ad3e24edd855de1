"""Community pages (§8): the notation table, chart and interval controls (`page.py`);
setup (`setup.py`) and the questionnaire (`questionnaire.py`); drawing on resources by
hand (`draws.py`); lobbying at the live table (`table.py`). Thin views: check access,
read a form, call a service, redirect with a message (or render a fragment for htmx);
`base.py` holds what they share."""

from .draws import bolster, concede, draw_settle, draw_start, draws, penalty
from .page import (
    background_events,
    cement,
    community_create,
    community_edit,
    community_page,
    crisis_narrate,
    crisis_tests,
    interval_end,
    notation,
    plot_event,
)
from .questionnaire import (
    answer,
    question_add,
    question_remove,
    questionnaire,
    questionnaire_assign,
)
from .setup import (
    found,
    required_add,
    required_remove,
    resource_add,
    resource_edit,
    resource_remove,
    setup,
    spread,
)
from .table import table_lobby, table_panel

__all__ = [
    "answer",
    "background_events",
    "bolster",
    "cement",
    "community_create",
    "community_edit",
    "community_page",
    "concede",
    "crisis_narrate",
    "crisis_tests",
    "draw_settle",
    "draw_start",
    "draws",
    "found",
    "interval_end",
    "notation",
    "penalty",
    "plot_event",
    "question_add",
    "question_remove",
    "questionnaire",
    "questionnaire_assign",
    "required_add",
    "required_remove",
    "resource_add",
    "resource_edit",
    "resource_remove",
    "setup",
    "spread",
    "table_lobby",
    "table_panel",
]
