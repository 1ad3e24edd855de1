"""The actions both the one-on-one and the group table take, on the side or participant
the flow's `_holder` reads from the action's data: modifier lines (§2.5), augments
(§2.4), physical dice, the reveal of a hidden GM roll, and narration."""

from __future__ import annotations

from typing import Any

from ..actions.models import CompletedAugment, EnterRoll, Modifier, Narrate, Nothing, RemoveModifier
from ..rules import (
    IllegalAction,
    Rating,
    RulesError,
    augment_bonus,
    quick_augment,
    resistance,
    rolled_augment,
)
from .base import (
    PLOT_AUGMENTS,
    RESISTANCE_ADJUSTMENTS,
    Actor,
    BaseFlow,
    Dice,
    required,
    text,
)


class SharedActions(BaseFlow):
    """`BaseFlow` with the actions every family shares (`SharedOffers` offers them)."""

    def _do_narrate(self, data: Narrate, actor: Actor, dice: Dice) -> dict[str, Any]:
        self._require_gm(actor, "narrate the outcome")
        self._require_phase("resolved", "finished")
        self.state["narration"] = required(data.narration, "narration")
        return {"summary": self.state["narration"]}

    def _do_modifier(self, data: Modifier, actor: Actor, dice: Dice) -> dict[str, Any]:
        """The GM adds a modifier line to a side or participant (§2.11-2.15, R9);
        a situational one lasts one round of a long contest."""
        self._require_gm(actor, "set modifiers")
        self._require_phase("preparing")
        key, record = self._holder(data)
        kind = data.kind or "other"
        value, bumps = data.value or 0, data.bumps or 0
        if value == 0 and bumps == 0:
            raise RulesError("a modifier must change the value or give a bump")
        label = text(data.label) or kind.replace("_", " ")
        line = {"label": label, "value": value, "bumps": bumps, "kind": kind}
        if kind not in RESISTANCE_ADJUSTMENTS:
            self._refuse_on_resistance(key, record, "a modifier")
        elif self.started and self.is_resistance(key, record):
            raise IllegalAction(
                f"{record.get('name') or key} is a resistance: its TN is set before the contest "
                "starts (R2, R18.3); a mob or ganging up is set before the first round"
            )
        self._check_modifier(key, record, line)
        record["modifiers"].append(line)
        return {
            "summary": f"{label} {value:+d} to {record['name']}"
            + (f", {bumps:+d} bump" if bumps else "")
        }

    def _do_remove_modifier(self, data: RemoveModifier, actor: Actor, dice: Dice) -> dict[str, Any]:
        self._require_gm(actor, "remove modifiers")
        self._require_phase("preparing")
        key, record = self._holder(data)
        index = data.index
        modifiers = record["modifiers"]
        if not 0 <= index < len(modifiers):
            raise RulesError("there is no such modifier")
        self._check_modifier(key, record, modifiers[index])
        removed = modifiers.pop(index)
        return {"summary": f"{removed['label']} removed from {record['name']}"}

    def _do_augment(self, data: CompletedAugment, actor: Actor, dice: Dice) -> dict[str, Any]:
        """An augment to a side or participant before the contest (§2.4, R8): rolled,
        quick or plot."""
        self._require_phase("preparing")
        if self.started:
            raise IllegalAction("augments come before the contest starts (§2.4)")
        key, info = self._holder(data)
        self._refuse_on_resistance(key, info, "an augment")
        kind = data.kind
        helper = text(data.helper) or info["name"]
        ability = text(data.ability)
        if kind == "plot":
            self._require_gm(actor, "give a plot augment")
            bonus = data.bonus
            if bonus not in PLOT_AUGMENTS:
                raise RulesError("a plot augment is +3, +6, +9 or +20 (§2.4.3)")
            entry = {"kind": "plot", "helper": "the GM", "ability": ability, "bonus": bonus}
        elif kind in ("rolled", "quick"):
            helper_id = data.helper_character_id
            own = helper_id is None or helper_id == info["character_id"]
            if own:
                self._require_control(actor, key, "augment their own ability")
            elif not (actor.is_gm or helper_id in actor.character_ids):
                raise IllegalAction("only the helper's player or the GM can offer that augment")
            if not ability:
                raise RulesError("name the augmenting ability")
            self._check_own_augment(info, helper, own)
            rating = Rating.parse(data.rating)
            if kind == "quick":
                # The campaign's rounding (R8), from the framing; the GM may name another.
                rounding = data.rounding or self.state.get("quick_augment_rounding")
                bonus = quick_augment(rating, rounding="up" if rounding == "up" else "down")
                entry = {
                    "kind": "quick",
                    "helper": helper,
                    "ability": ability,
                    "bonus": bonus,
                    "tn": str(rating),
                }
            else:
                entry = self._rolled_augment(data, dice, helper, ability, rating)
        else:
            raise RulesError("augment kind must be 'rolled', 'quick' or 'plot'")
        if kind != "plot" and data.helper_character_id is not None:
            entry["helper_character_id"] = data.helper_character_id  # who helped (offers)
        info["augments"].append(entry)
        payload: dict[str, Any] = {
            "summary": f"{entry['helper']} augments {info['name']}"
            + (f" with {ability}" if ability else "")
            + f": {entry['bonus']:+d}",
            "augments": [{"who": entry["helper"], "ability": ability, "bonus": entry["bonus"]}],
        }
        if kind == "rolled":
            payload["rolls"] = [
                {"who": helper, "ability": ability, "tn": entry["tn"], "roll": entry["roll"]},
                {
                    "who": "moderate resistance",
                    "tn": entry["resistance"],
                    "roll": entry["resistance_roll"],
                },
            ]
        return payload

    @staticmethod
    def _check_own_augment(info: dict[str, Any], helper: str, own: bool) -> None:
        """R8: one own augment per contest; after a failed attempt no other own attempt.
        A required use of a community resource allows one more own augment (§8.2.1)."""
        allowed = info.get("own_augments_allowed", 1) if own else 1
        earlier_tries = [
            a for a in info["augments"] if a["kind"] != "plot" and a["helper"] == helper
        ]
        failed_before = any(a["bonus"] <= 0 for a in earlier_tries)
        if earlier_tries and (len(earlier_tries) >= allowed or failed_before):
            raise IllegalAction(f"{helper} has already tried to augment this contest (§2.4)")

    def _rolled_augment(
        self, data: CompletedAugment, dice: Dice, helper: str, ability: str, rating: Rating
    ) -> dict[str, Any]:
        roll = dice.take("roll")
        resistance_roll = dice.take("resistance_roll")
        # The campaign's base resistance (§2.3.3), from the framing; the GM may name another.
        base = data.base_resistance or self.state.get("base_resistance")
        base = base or 14
        outcome = rolled_augment(
            rating, roll, resistance_roll, base=base, better_roll=self.state["better_roll"]
        )
        return {
            "kind": "rolled",
            "helper": helper,
            "ability": ability,
            "bonus": augment_bonus(outcome),
            "roll": roll,
            "resistance_roll": resistance_roll,
            "tn": str(rating),
            "resistance": str(resistance("moderate", base)),
            "describe": outcome.describe,
        }

    def _do_enter_roll(self, data: EnterRoll, actor: Actor, dice: Dice) -> dict[str, Any]:
        """With physical dice allowed, a player enters the d20 they rolled at home; the
        next roll for that side or participant uses it."""
        self._require_phase("preparing")
        if not self.state.get("physical_dice"):
            raise IllegalAction("this campaign rolls on the server; physical dice are off")
        key, record = self._holder(data)
        self._require_control(actor, key, "enter their roll")
        roll = data.entered
        record["entered_roll"] = roll
        text = f"{record['name']} rolled a physical d20: {roll}"
        if self._gm_rolls_for(key):
            return {"summary": f"The GM rolled for {record['name']} in secret", "gm_summary": text}
        return {"summary": text}

    @staticmethod
    def _use_entered_roll(record: dict[str, Any], dice: Dice, key: str) -> None:
        """A physical d20 entered for this side or participant is its next roll, stored
        under `key` like a server roll (a recorded roll, on replay, stays as it was)."""
        dice.enter(key, record.pop("entered_roll", None))

    def _do_reveal(self, data: Nothing, actor: Actor, dice: Dice) -> dict[str, Any]:
        """The GM shows a hidden roll (campaign option: GM rolls hidden until revealed)."""
        self._require_gm(actor, "reveal the GM's roll")
        self._require_phase("rolled")
        pending = self.state["pending"]
        if pending.get("revealed", True):
            raise IllegalAction("the GM's roll is already shown")
        pending["revealed"] = True
        return {"summary": self._reveal_text(pending)}
