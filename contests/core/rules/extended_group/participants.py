"""The contestants of a group extended contest, read from its setup (§5.3.3, §5.3.1).

Each `_Participant` keeps its side, its current ability, its AP and what it has spent;
`_read_participant` reads one from the setup's `participants` list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import RulesError
from ..extended import pc_bid_limit, starting_ap
from ..inputs import read_flag
from ..ratings import Rating
from ..sides import group_side

_PARTICIPANT_KEYS = {
    "name",
    "side",
    "pc",
    "rating",
    "modifiers",
    "followers",
    "bumps",
    "states",
    "stretched",
}


@dataclass(slots=True)
class _Participant:
    name: str
    side: str
    pc: bool
    index: int
    rating: str
    modifier: int
    bumps: int
    starting_ap: int
    ap: int
    # §2.10 (R18.4): the ability in use is a stretch; its big wins count as one step.
    stretched: bool = False
    withdrawn: bool = False
    hero_points_spent: int = 0
    final_action_used: bool = False
    used: list[int] = field(default_factory=list)
    # Degrees of defeats a final action overcame: they still apply (§5.3.5).
    overcome_defeats: list[str] = field(default_factory=list)

    @property
    def tn(self) -> Rating:
        return Rating.parse(self.rating) + self.modifier

    @property
    def status(self) -> str:
        """ "in", "out" (at 0 AP or below) or "withdrawn" (disengaged, §5.3.9)."""
        if self.withdrawn:
            return "withdrawn"
        return "out" if self.ap <= 0 else "in"

    @property
    def is_in(self) -> bool:
        return self.status == "in"

    @property
    def bid_limit(self) -> int:
        """§5.3.6: a PC may stake up to their starting AP; a resistance what it has."""
        return pc_bid_limit(self.ap, self.starting_ap) if self.pc else max(self.ap, 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "side": self.side,
            "pc": self.pc,
            "rating": self.rating,
            "modifier": self.modifier,
            "bumps": self.bumps,
            "stretched": self.stretched,
            "tn": str(self.tn),
            "starting_ap": self.starting_ap,
            "ap": self.ap,
            "status": self.status,
            "hero_points_spent": self.hero_points_spent,
            "final_action_used": self.final_action_used,
        }


def _read_participant(index: int, raw: Any) -> _Participant:
    if not isinstance(raw, dict):
        raise RulesError(f"participant {index + 1} must be a mapping with a name, side and rating")
    unknown = set(raw) - _PARTICIPANT_KEYS
    if unknown:
        raise RulesError(f"unknown participant field(s): {', '.join(sorted(unknown))}")
    for key in ("name", "side", "rating"):
        if key not in raw:
            raise RulesError(f"participant {index + 1} needs a {key}")
    name, side = raw["name"], raw["side"]
    for what, value in (("name", name), ("side", side)):
        if not isinstance(value, str) or not value.strip():
            raise RulesError(f"participant {index + 1}'s {what} must be non-empty text")
    pc = read_flag(raw.get("pc", False), f"{name}'s pc flag")
    followers = raw.get("followers", [])
    if not isinstance(followers, list | tuple):
        raise RulesError(f"{name}'s followers must be a list of ratings")
    stretched = read_flag(raw.get("stretched", False), f"{name}'s stretched flag")
    if not pc and (raw.get("modifiers") or raw.get("states") or followers or stretched):
        raise RulesError(
            f"{name} is a resistance: modifiers, stretches and followers are for PCs "
            "(R2: the GM gives a resistance its rating instead)"
        )
    # The participant as every machine reads a side: its lines, states and bumps.
    lasting = group_side(raw, name, is_pc=pc)
    rating = lasting.rating
    modifier = lasting.target.rating.total - rating.total
    start = starting_ap(str(rating), modifier, followers)
    if start < 1:
        raise RulesError(
            f"{name} would start with {start} AP: a contestant needs at least 1 AP to enter "
            "an extended contest"
        )
    return _Participant(
        name=name,
        side=side,
        pc=pc,
        index=index,
        rating=str(rating),
        modifier=modifier,
        bumps=lasting.total_bumps,
        starting_ap=start,
        ap=start,
        stretched=stretched or lasting.stretched,
    )
