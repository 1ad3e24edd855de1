"""Whose move it is: the "your move" bar's lines from the controls, and whom the
table waits on, in words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.actions import DECLARED_BY_NAME, Pick
from ..core.rules import RulesError
from ..core.table import BaseFlow
from .controls import Control


@dataclass(frozen=True)
class Move:
    """One line of the "your move" bar: what `for_user` (None: the GM) is to do now,
    in words ("choose an ability for Ysolde"); `needed`: the table waits on it."""

    for_user: int | None
    text: str
    needed: bool
    who: str = ""  # whom the table waits on, for those who wait ("Ysolde's player")


def _needs(flow: BaseFlow, control: Control) -> bool:
    """Whether the table waits on this form: what the flow marks `primary` (the GM's
    roll, resolve and confirm; the bid of the side whose turn it is and a group extended
    declaration, each until made), or choosing an ability for a side or participant
    that has neither an ability nor a rating (an NPC framed with a rating is ready)."""
    if control.action.primary:
        return True
    if DECLARED_BY_NAME[control.name].pick is not Pick.ABILITY:
        return False
    record = _holder_record(flow, control)
    return record is not None and not record.get("ability") and record.get("rating") is None


def _players_own(flow: BaseFlow, control: Control) -> bool:
    record = _holder_record(flow, control)
    return record is not None and bool(record.get("character_id"))


def _holder_record(flow: BaseFlow, control: Control) -> dict[str, Any] | None:
    """The side or participant a form acts for (fixed, or the only choice), if one."""
    held = control.hidden.get(flow.KEY, control.side)
    if held is None:
        picked = control.action.input(flow.KEY)
        if picked is None or len(picked.choices) != 1:
            return None
        held = picked.choices[0].value
    try:
        return flow.holder(held)
    except RulesError:
        return None


def _named(flow: BaseFlow, control: Control) -> str:
    """Who a form acts for, by name ("Ysolde"), or "" when it names no one."""
    held = control.hidden.get(flow.KEY, control.side)
    if held is None:
        picked = control.action.input(flow.KEY)
        if picked is None or not picked.choices:
            return ""
        return ", ".join(c.label for c in picked.choices)
    if flow.KEY == "side":
        return flow.side(held)["name"]
    return str(held)


def _move_text(flow: BaseFlow, control: Control) -> str:
    label = control.text or control.action.label
    named = _named(flow, control)
    if named and label.startswith(named):
        return label  # "Chief declares": a name keeps its capital
    text = label[:1].lower() + label[1:]
    if named and named not in label:
        text += f" for {named}"
    return text


def moves(flow: BaseFlow, controls: list[Control]) -> list[Move]:
    """The "your move" lines from this audience's forms, marking the forms that belong in
    the bar. One line per form the table waits on, plus the hero point offers."""
    out: list[Move] = []
    for control in controls:
        if control.for_user is None and _players_own(flow, control):
            continue  # the GM may act for a player's character; the move is the player's
        needed = _needs(flow, control)
        # Choices that do not hold the table up but are gone once the GM goes on (a hero
        # point on a roll) are in the bar too.
        if not needed and not DECLARED_BY_NAME[control.name].in_bar:
            continue
        control.needed, control.in_bar = needed, True
        named = _named(flow, control)
        who = (
            "the GM" if control.for_user is None else (f"{named}'s player" if named else "a player")
        )
        out.append(Move(control.for_user, _move_text(flow, control), needed, who))
    return out


def waiting_on(all_moves: list[Move], *, besides: Any = "nobody") -> list[str]:
    """Whom the table waits on, in words, leaving out the moves of `besides` (a user id,
    or None for the GM), who sees them as their own: "the GM (roll)", "Ysolde's player
    (choose an ability for Ysolde)"."""
    seen: dict[str, list[str]] = {}
    for move in all_moves:
        if move.needed and move.for_user != besides:
            texts = seen.setdefault(move.who, [])
            if move.text not in texts:
                texts.append(move.text)
    return [f"{who} ({'; '.join(texts)})" for who, texts in seen.items()]
