"""Who takes part in a group scored contest, and the pairings they play in (§5.2, §5.2.4).

The roles of §5.2.4 and their thresholds, a `_Participant` (side, role, rating,
status, what they have spent) and a `_Pairing` (two members and the RP each scored).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ratings import Rating
from ..scored import Side, other_side

ROLES: tuple[str, ...] = ("contestant", "follower", "secondary", "supporter")
"""§5.2.4: a participant is a full contestant, or a follower taking part as a
contestant ("follower"), a secondary contestant ("secondary") or a supporter."""

PAIRED_ROLES = ("contestant", "follower")
"""Roles that roll in pairings and keep their side standing."""

FOLLOWER_THRESHOLD = 3
"""§5.2.4 (R12): a follower leaves the contest at 3 RP against them..."""

FOLLOWER_EXTRA = 2
"""...and then takes 2 more, for the consequences."""


@dataclass
class _Participant:
    name: str
    side: Side
    role: str
    rating: Rating
    owner: str | None
    player: bool | None
    status: str = "active"  # active | defeated | disengaged
    stretched: bool = False  # §2.10, R18.4: the ability it starts with is a stretch
    bumps: int = 0  # R18.5: lasting bumps on every roll it makes
    shifted_points: int = 0  # §5.2.4: RP a secondary contestant took over from the owner
    removed_by_shift: bool = False
    hero_points_spent: int = 0
    assists_received: int = 0
    acted_in_round: int = 0  # the group round of their last unrelated action
    # While a parting shot may still come: {"pairing", "round", "points"} (§5.1.4).
    knockout: dict[str, int] | None = None


@dataclass
class _Pairing:
    id: int
    kind: str  # "contest", or "removal" for a follower removed by a simple contest
    members: dict[Side, str]  # side -> participant name
    ratings: dict[Side, Rating]
    points: dict[Side, int] = field(default_factory=lambda: {"pc": 0, "opponent": 0})
    # §2.10 (R18.4): the members whose ability in this pairing is a stretch.
    stretched: dict[Side, bool] = field(default_factory=lambda: {"pc": False, "opponent": False})
    # §5.2.4: the 2 RP lodged on a removed follower, by the side that lodged them.
    extra: dict[Side, int] = field(default_factory=lambda: {"pc": 0, "opponent": 0})
    status: str = "active"  # active | won | disengaged | ended
    winner: Side | None = None
    played_round: int = 0
    decided_at: int = 0  # the order in which pairings were decided (won or disengaged)

    def side_of(self, name: str) -> Side | None:
        for side, member in self.members.items():
            if member == name:
                return side
        return None

    def member_side(self, name: str) -> Side:
        """The side of `name`, who is a member of this pairing."""
        side = self.side_of(name)
        assert side is not None, f"{name} is not in pairing {self.label}"
        return side

    def against(self, side: Side) -> int:
        """RP scored against the member on `side` in this pairing."""
        other = other_side(side)
        return self.points[other] + self.extra[other]

    @property
    def label(self) -> str:
        return f"#{self.id} ({self.members['pc']} vs {self.members['opponent']})"
