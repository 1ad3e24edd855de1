"""Which flow plays which kind of contest: every kind's class, imported here.

Everything else (services, rendering, replay) asks `flow_class` or `load_flow`;
`state["kind"]` of a stored contest selects its class.
"""

from __future__ import annotations

from typing import Any

from ..rules import RulesError
from .automatic import AutomaticFlow
from .base import BaseFlow
from .chained import ChainedFlow
from .extended import ExtendedFlow
from .group_extended import GroupExtendedFlow
from .group_scored import GroupScoredFlow
from .group_simple import GroupSimpleFlow
from .scored import ScoredFlow
from .simple import SimpleFlow

FLOW_CLASSES: dict[str, type[BaseFlow]] = {
    cls.KIND: cls
    for cls in (
        SimpleFlow,
        AutomaticFlow,
        ScoredFlow,
        ExtendedFlow,
        ChainedFlow,
        GroupSimpleFlow,
        GroupScoredFlow,
        GroupExtendedFlow,
    )
}


def flow_class(kind: str) -> type[BaseFlow]:
    try:
        return FLOW_CLASSES[kind]
    except (KeyError, TypeError):
        raise RulesError(
            f"unknown contest type {kind!r}; choose one of {', '.join(FLOW_CLASSES)}"
        ) from None


def load_flow(state: dict[str, Any], *, handed_over: bool = False) -> BaseFlow:
    """The flow of a stored contest state, whatever its kind: over a copy, or with
    `handed_over` over the state itself (see `BaseFlow.over`)."""
    cls = flow_class(state["kind"])
    return cls.over(state) if handed_over else cls.from_json(state)


def known_actions() -> frozenset[str]:
    """Every action any flow accepts (for refusing unknown ones early)."""
    return frozenset(
        name[4:]
        for cls in FLOW_CLASSES.values()
        for name in dir(cls)
        if name.startswith("_do_") and callable(getattr(cls, name))
    )
