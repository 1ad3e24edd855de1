"""How a contest is played at the live table, from framing to consequences (issue 6).

One flow class per kind of contest, over a small shared base (base.py) and the shared
behaviour of each family (one_on_one.py and long.py; group.py and group_long.py); the
registry (registry.py) imports them all and finds the class of a stored contest.
"""

from ..terms import GROUP_KINDS, KINDS
from .base import SIDES, ActionInput, Actor, AvailableAction, BaseFlow, Choice, Roller
from .group import GroupFlow
from .one_on_one import TableFlow
from .registry import FLOW_CLASSES, flow_class, known_actions, load_flow

__all__ = [
    "FLOW_CLASSES",
    "GROUP_KINDS",
    "KINDS",
    "SIDES",
    "ActionInput",
    "Actor",
    "AvailableAction",
    "BaseFlow",
    "Choice",
    "GroupFlow",
    "Roller",
    "TableFlow",
    "flow_class",
    "known_actions",
    "load_flow",
]
