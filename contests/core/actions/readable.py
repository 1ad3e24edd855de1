"""A validation error as one sentence a person reads, naming the field by its label."""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from .fields import (
    SERVER_KEYS,
)
from .registry import ACTIONS

# -- readable refusals ----------------------------------------------------------------------

LABELS = {
    "contest": "Contest",
    "key": "Idempotency key",
    "seq": "Step",
    "ability": "Ability",
    "ability_id": "Ability",
    "amount": "Amount",
    "base_resistance": "Base resistance",
    "bid": "Bid",
    "bonus": "Bonus",
    "both_lose_half": "Both lose half",
    "bumps": "Bumps",
    "character_id": "Character",
    "characters": "Characters",
    "consequences": "Consequences",
    "daring": "How daring",
    "description": "Description",
    "draw_id": "Resource draw",
    "edit": "Consequences",
    "entered": "Your d20 roll",
    "follower": "Follower",
    "helper": "Helper",
    "helper_ability_id": "Helping ability",
    "how": "How",
    "index": "Modifier",
    "into": "Escalate into",
    "kind": "Kind",
    "label": "Label",
    "level": "Resistance class",
    "name": "Name",
    "narration": "Narration",
    "new_ability": "New ability",
    "npc_id": "Library NPC",
    "obstacle": "Obstacle",
    "opponent": "Opponent",
    "order": "Order of action",
    "owner": "Owner",
    "pairing": "Pairing",
    "participant": "Participant",
    "participants": "Participant row",
    "pc": "PC",
    "pc_side": "PCs' side",
    "points": "Points",
    "prize": "Prize",
    "proposal": "Proposal",
    "rating": "Rating",
    "reason": "Reason",
    "recipient": "Recipient",
    "resistance_level": "Resistance",
    "resistance_shift": "Resistance shift",
    "restore": "AP restored",
    "role": "Role",
    "round_tactic": "Next round's tactic",
    "rounding": "Rounding",
    "secondary_prize": "Secondary prize",
    "side": "Side",
    "stakes": "Stakes",
    "state": "State",
    "states": "States",
    "tactic": "Tactic",
    "target": "Target",
    "targets": "Targets",
    "value": "Modifier value",
    "variant": "Variant",
    "wait_for_hero_point": "Wait for a hero point",
    # What only the server fills in (`SERVER_KEYS`): named so in a refusal too.
    "pc_roll": "PC's roll",
    "opponent_roll": "Opponent's roll",
    "roll": "Roll",
    "resistance_roll": "Resistance's roll",
    "dice": "Dice",
    "sheet_penalties": "Sheet penalties",
}
ROWS = {"participants": "participant row", "consequences": "consequence", "characters": "character"}


def _shown(name: Any) -> str:
    text = str(name)
    return text if re.fullmatch(r"[a-z_]{1,40}", text) else ascii(text)[:40]


def label_for(loc: tuple[Any, ...]) -> str:
    """ "Bid", "Participant row 3, rating", "PC, character" from a field's location."""
    parts: list[str] = []
    for position, step in enumerate(loc):
        if isinstance(step, int):
            parent = loc[position - 1] if position else ""
            if parts and parts[-1] == LABELS.get(str(parent)):
                parts.pop()
            parts.append(f"{ROWS.get(str(parent), 'item')} {step + 1}")
        else:
            parts.append(LABELS.get(str(step), _shown(step)))
    # Later parts in lower case, but not an abbreviation ("PC").
    parts = [p if i == 0 or p[:2].isupper() else p[0].lower() + p[1:] for i, p in enumerate(parts)]
    text = ", ".join(parts) or "Data"
    return text[0].upper() + text[1:]


def readable(error: ValidationError, what: str = "") -> str:
    """One sentence for the person who sent it, never a pydantic dump."""
    lines: list[str] = []
    for problem in error.errors(include_url=False, include_input=False):
        loc = tuple(problem["loc"])
        if loc[:1] == (what,) or (loc and loc[0] in ACTIONS):
            loc = loc[1:]  # the union's tag
        if loc[:1] == ("data",):
            loc = loc[1:]
        kind = problem["type"]
        if kind == "extra_forbidden":
            name = loc[-1] if loc else "?"
            if name in SERVER_KEYS:
                shown = LABELS.get(name, _shown(name))
                line = f"{shown}: dice and penalties are the server's to fill in"
            else:
                # A field the action does not take: by its label when it is one the
                # table knows (another action's), else as it was sent.
                where = label_for(loc[:-1]) + ": " if loc[:-1] else ""
                shown = LABELS[name] if isinstance(name, str) and name in LABELS else _shown(name)
                line = f"{where}{shown} is not something this action takes"
        elif kind == "missing":
            line = f"{label_for(loc)}: is required"
        elif kind in ("model_type", "dict_type"):
            line = f"{label_for(loc)}: must be an object"
        elif kind == "list_type":
            line = f"{label_for(loc)}: must be a list"
        elif kind == "too_long":
            line = f"{label_for(loc)}: too many ({problem['msg']})"
        else:
            line = f"{label_for(loc)}: {problem['msg']}"
        if line not in lines:
            lines.append(line)
    shown = "; ".join(lines[:3])
    if len(lines) > 3:
        shown += f" (and {len(lines) - 3} more)"
    return shown
