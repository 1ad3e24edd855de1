"""The table's words that the action declarations (actions/) and the flows that play
them (table/) both use: the kinds of contest, the variants, the modifier kinds and the
lengths of text. Here, under both, so that the flows can read an action's typed data
(the flows import the declarations; the declarations import nothing of the flows)."""

from __future__ import annotations

KINDS = ("simple", "automatic", "scored", "extended", "chained")
GROUP_KINDS = ("group_simple", "group_scored", "group_extended")
# The kinds a player may suggest in a proposal (issue 30): a simple contest or a long
# one, one PC against the resistance the GM sets.
PROPOSED_KINDS = ("simple", "extended", "scored", "chained")
# Ways to frame a simple contest: §2.19.2 costly automatic victory, §2.18 graduated goals.
VARIANTS = ("normal", "costly", "graduated")
MODIFIER_KINDS = ("stretch", "situational", "flaw", "mob", "ganging_up", "other")
MAX_TEXT = 300
MAX_NAME = 120
MAX_SIDE = 40
