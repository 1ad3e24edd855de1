"""Campaign options: every rules difference RULINGS.md makes a per-campaign choice."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

from .errors import RulesError


@dataclass(frozen=True, slots=True)
class RulesOptions:
    """The campaign options of RULINGS.md, with their defaults.

    >>> RulesOptions().better_roll
    'high'
    >>> RulesOptions(better_roll="middle")
    Traceback (most recent call last):
    ...
    contests.core.rules.errors.RulesError: better_roll must be one of 'high', 'low', not 'middle'
    """

    base_resistance: int = 14  # R2
    better_roll: Literal["high", "low"] = "high"  # R6
    quick_augment_rounding: Literal["down", "up"] = "down"  # R8
    hero_point_economy: Literal["advances", "classic"] = "advances"  # R15
    keywords: Literal["umbrella", "packages"] = "umbrella"  # §3.3

    _CHOICES = {
        "better_roll": ("high", "low"),
        "quick_augment_rounding": ("down", "up"),
        "hero_point_economy": ("advances", "classic"),
        "keywords": ("umbrella", "packages"),
    }

    def __post_init__(self) -> None:
        if isinstance(self.base_resistance, bool) or not isinstance(self.base_resistance, int):
            raise RulesError(
                f"base_resistance must be a whole number, not {self.base_resistance!r}"
            )
        for name, choices in self._CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                allowed = ", ".join(repr(c) for c in choices)
                raise RulesError(f"{name} must be one of {allowed}, not {value!r}")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RulesOptions:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise RulesError(f"unknown rules option(s): {', '.join(sorted(unknown))}")
        return cls(**data)
