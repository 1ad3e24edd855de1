"""The actions both the one-on-one and the group table take, on the side or participant
the flow's `_holder` reads from the action's data: modifier lines (§2.5), augments
(§2.4), physical dice, the reveal of a hidden GM roll, and narration."""

from __future__ import annotations

from typing import Any

from ..rules import (
    IllegalAction,
    Rating,
    RulesError,
    augment_bonus,
    quick_augment,
    resistance,
    rolled_augment,
)
from ..rules.dice import check_roll
from .base import (
    MODIFIER_KINDS,
    PLOT_AUGMENTS,
    RESISTANCE_ADJUSTMENTS,
    Actor,
    BaseFlow,
    Roller,
    read_int,
    read_roll,
    read_text,
)


class SharedActions(BaseFlow):
    """`BaseFlow` with the actions every family shares (`SharedOffers` offers them)."""

    def _do_narrate(self, data: dict[str, Any], actor: Actor, roller: Roller) -> dict[str, Any]:
        self._require_gm(actor, "narrate the outcome")
        self._require_phase("resolved", "finished")
        self.state["narration"] = read_text(data, "narration", required=True)
        return {"summary": self.state["narration"]}

    def _do_modifier(self, data: dict[str, Any], actor: Actor, roller: Roller) -> dict[str, Any]:
        """The GM adds a modifier line to a side or participant (§2.11-2.15, R9);
        a situational one lasts one round of a long contest."""
        self._require_gm(actor, "set modifiers")
        self._require_phase("preparing")
        key, record = self._holder(data)
        kind = data.get("kind", "other")
        if kind not in MODIFIER_KINDS:
            raise RulesError(f"modifier kind must be one of {', '.join(MODIFIER_KINDS)}")
        value, bumps = read_int(data, "value", default=0), read_int(data, "bumps", default=0)
        if not -40 <= value <= 40 or not -3 <= bumps <= 3:
            raise RulesError("a modifier is at most ±40 and ±3 bumps")
        if value == 0 and bumps == 0:
            raise RulesError("a modifier must change the value or give a bump")
        label = read_text(data, "label", limit=80) or kind.replace("_", " ")
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

    def _do_remove_modifier(
        self, data: dict[str, Any], actor: Actor, roller: Roller
    ) -> dict[str, Any]:
        self._require_gm(actor, "remove modifiers")
        self._require_phase("preparing")
        key, record = self._holder(data)
        index = read_int(data, "index")
        modifiers = record["modifiers"]
        if not 0 <= index < len(modifiers):
            raise RulesError("there is no such modifier")
        self._check_modifier(key, record, modifiers[index])
        removed = modifiers.pop(index)
        return {"summary": f"{removed['label']} removed from {record['name']}"}

    def _do_augment(self, data: dict[str, Any], actor: Actor, roller: Roller) -> dict[str, Any]:
        """An augment to a side or participant before the contest (§2.4, R8): rolled,
        quick or plot."""
        self._require_phase("preparing")
        if self.started:
            raise IllegalAction("augments come before the contest starts (§2.4)")
        key, info = self._holder(data)
        self._refuse_on_resistance(key, info, "an augment")
        kind = data.get("kind")
        helper = read_text(data, "helper", limit=120) or info["name"]
        ability = read_text(data, "ability", limit=120)
        if kind == "plot":
            self._require_gm(actor, "give a plot augment")
            bonus = read_int(data, "bonus")
            if bonus not in PLOT_AUGMENTS:
                raise RulesError("a plot augment is +3, +6, +9 or +20 (§2.4.3)")
            entry = {"kind": "plot", "helper": "the GM", "ability": ability, "bonus": bonus}
        elif kind in ("rolled", "quick"):
            helper_id = data.get("helper_character_id")
            own = helper_id is None or helper_id == info["character_id"]
            if own:
                self._require_control(actor, key, "augment their own ability")
            elif not (actor.is_gm or helper_id in actor.character_ids):
                raise IllegalAction("only the helper's player or the GM can offer that augment")
            if not ability:
                raise RulesError("name the augmenting ability")
            self._check_own_augment(info, helper, own)
            rating = Rating.parse(data.get("rating"))
            if kind == "quick":
                # The campaign's rounding (R8), from the framing; the GM may name another.
                rounding = data.get("rounding") or self.state.get("quick_augment_rounding")
                bonus = quick_augment(rating, rounding=rounding or "down")
                entry = {
                    "kind": "quick",
                    "helper": helper,
                    "ability": ability,
                    "bonus": bonus,
                    "tn": str(rating),
                }
            else:
                entry = self._rolled_augment(data, roller, helper, ability, rating)
        else:
            raise RulesError("augment kind must be 'rolled', 'quick' or 'plot'")
        if kind != "plot" and data.get("helper_character_id") is not None:
            entry["helper_character_id"] = data["helper_character_id"]  # who helped (offers)
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
        self, data: dict[str, Any], roller: Roller, helper: str, ability: str, rating: Rating
    ) -> dict[str, Any]:
        roll = read_roll(data, "roll", roller)
        resistance_roll = read_roll(data, "resistance_roll", roller)
        # The campaign's base resistance (§2.3.3), from the framing; the GM may name another.
        base = read_int(data, "base_resistance", default=0) or self.state.get("base_resistance")
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

    def _do_enter_roll(self, data: dict[str, Any], actor: Actor, roller: Roller) -> dict[str, Any]:
        """With physical dice allowed, a player enters the d20 they rolled at home; the
        next roll for that side or participant uses it."""
        self._require_phase("preparing")
        if not self.state.get("physical_dice"):
            raise IllegalAction("this campaign rolls on the server; physical dice are off")
        key, record = self._holder(data)
        self._require_control(actor, key, "enter their roll")
        roll = data.get("entered")
        try:
            check_roll(roll)
        except ValueError as error:
            raise RulesError(str(error)) from None
        record["entered_roll"] = roll
        text = f"{record['name']} rolled a physical d20: {roll}"
        if self._gm_rolls_for(key):
            return {"summary": f"The GM rolled for {record['name']} in secret", "gm_summary": text}
        return {"summary": text}

    @staticmethod
    def _use_entered_roll(record: dict[str, Any], dice: dict[str, Any], key: str) -> None:
        """A physical d20 entered for this side or participant is its next roll, stored
        under `key` like a server roll (a recorded roll, on replay, stays as it was)."""
        entered = record.pop("entered_roll", None)
        if entered is not None:
            dice.setdefault(key, entered)

    def _do_reveal(self, data: dict[str, Any], actor: Actor, roller: Roller) -> dict[str, Any]:
        """The GM shows a hidden roll (campaign option: GM rolls hidden until revealed)."""
        self._require_gm(actor, "reveal the GM's roll")
        self._require_phase("rolled")
        pending = self.state["pending"]
        if pending.get("revealed", True):
            raise IllegalAction("the GM's roll is already shown")
        pending["revealed"] = True
        return {"summary": self._reveal_text(pending)}
