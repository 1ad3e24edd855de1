"""A one-on-one contest's state as framed (§2.3.2): its options and its two sides."""

from __future__ import annotations

from typing import Any

from ..rules import Rating, RulesError
from ..terms import VARIANTS
from .base import SIDES, read_int, read_rounding, read_text


def framed_state(
    kind: str | None, data: dict[str, Any], variants: tuple[str, ...], resistance_ability: str
) -> dict[str, Any]:
    """A new contest's state from the GM's framing (validated, §2.3.2).

    `data`: kind, prize, obstacle, better_roll, pc {name, character_id, player_id,
    ability, rating, states}, opponent {name, rating, character_id?, player_id?,
    ability?, states?}, stakes (scored: rising_action/climax).
    """
    better_roll = data.get("better_roll", "high")
    if better_roll not in ("high", "low"):
        raise RulesError("better_roll must be 'high' or 'low'")
    variant = data.get("variant") or "normal"
    if variant not in variants:
        raise RulesError(f"variant must be one of {', '.join(VARIANTS)}, for a simple contest")
    stakes = data.get("stakes", "rising_action")
    if stakes not in ("rising_action", "climax"):
        raise RulesError("stakes must be 'rising_action' or 'climax'")
    sides = {side: read_side_framing(data.get(side), side) for side in SIDES}
    if sides["opponent"]["player_id"] is None and resistance_ability:
        sides["opponent"]["ability"] = sides["opponent"]["ability"] or resistance_ability
    return {
        "kind": kind,
        # Campaign options (issue 5): physical dice, hidden GM rolls, mechanical states.
        "physical_dice": bool(data.get("physical_dice", False)),
        "hide_gm_rolls": bool(data.get("hide_gm_rolls", False))
        and sides["opponent"]["character_id"] is None,
        "apply_consequences": bool(data.get("apply_consequences", True)),
        "variant": variant,
        "secondary_prize": read_text(data, "secondary_prize"),
        "prize": read_text(data, "prize"),
        "obstacle": read_text(data, "obstacle"),
        "better_roll": better_roll,
        # The campaign's rules options a player's augment is reckoned with (R2, R8).
        "base_resistance": read_int(data, "base_resistance", default=14),
        "quick_augment_rounding": read_rounding(data),
        "stakes": stakes,
        "phase": "preparing",
        "round": 1,
        "sides": sides,
        "pending": None,
        "rounds": [],
        "machine": None,
        "outcome": None,
        "suggested": [],
        "applied": [],
        "narration": "",
        # Who may help from outside the contest (AP gifts), as the service framed it:
        # the table renders from the state alone.
        "roster": list(data.get("roster") or []),
    }


def read_side_framing(raw: Any, side: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise RulesError(f"the {side} side is missing")
    name = read_text(raw, "name", required=True, limit=120)
    rating = raw.get("rating")
    if rating is not None:
        rating = Rating.parse(rating).total
    states = raw.get("states", [])
    if not isinstance(states, list) or not all(isinstance(s, str) for s in states):
        raise RulesError(f"the {side} side's states must be a list of state names")
    for key in ("character_id", "player_id"):
        value = raw.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise RulesError(f"{key} must be a whole number")
    return {
        "name": name,
        "character_id": raw.get("character_id"),
        "player_id": raw.get("player_id"),
        "ability": read_text(raw, "ability", limit=120),
        "rating": rating,
        "states": list(states),
        "tactic": "",
        "modifiers": [],
        # A community resource drawn on as an augment comes with the framing (§8.2).
        "augments": [dict(a) for a in raw.get("augments", []) if isinstance(a, dict)],
        "own_augments_allowed": 2 if raw.get("own_augments_allowed") == 2 else 1,
        "round_tactic": "normal",
        "hero_points_spent": 0,
    }
