"""What the one-on-one contests share at the live table: two sides, "pc" and "opponent".

Phases: preparing (abilities, tactics, modifiers, augments) -> rolled (results shown,
hero points may be spent) -> in a long contest back to preparing for the next round,
until the engine says the contest is over -> resolved (consequences suggested) ->
finished (the GM confirmed consequences and narration).

`TableFlow` is the family's base, over `TwoSides` (two_sides.py: the sides read and
the rolls decided), with the offers and the actions: `TableFlow.frame(framing)` builds
the class of the framing's kind (simple.py, automatic.py, scored.py, extended.py,
chained.py). A kind changes what differs by overriding the hooks named `_...` below or
a class attribute.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..actions.models import (
    ApplyConsequences,
    CompletedChooseAbility,
    CompletedRoll,
    HeroPoint,
    NoRelevantAbility,
    Nothing,
    Resolve,
    SetTactic,
)
from ..rules import (
    ADVERSITY,
    FORTUNE,
    IllegalAction,
    Rating,
    Result,
    RulesError,
)
from ..rules.simple import NO_RELEVANT_ABILITY
from .base import (
    SIDES,
    Actor,
    AvailableAction,
    Dice,
    choice,
    required,
    side_of,
    text,
    words,
)
from .two_sides import (
    CONFIRMABLE,
    RATING,
    TACTIC_LABELS,
    TwoSides,
    outcome_json,
)


class TableFlow(TwoSides):
    """One one-on-one contest at the table. Build it with `frame(...)`, change it with
    `apply`."""

    # -- building ---------------------------------------------------------------

    # -- reading ------------------------------------------------------------------

    # -- what BaseFlow's shared actions need: the side an action names ------------------

    # -- what an actor may do now -------------------------------------------------

    def _available(self, actor: Actor, hero_points: Mapping[int, int]) -> list[AvailableAction]:
        mine = [(side, self.side(side)["name"]) for side in SIDES if self.controls(actor, side)]
        offers: list[AvailableAction] = []
        if self.phase == "preparing":
            if mine and not self.started:
                rated = (words("ability", "Ability", limit=120, required=True), RATING)
                offers.append(
                    AvailableAction(
                        "choose_ability", "Choose an ability", (self._key(mine), *rated)
                    )
                )
            if mine:
                tactics = choice(
                    "round_tactic",
                    "This round",
                    ((t, TACTIC_LABELS[t]) for t in self.ROUND_TACTICS),
                    required=False,
                    default="normal",
                )
                tactic = words("tactic", "Tactic", required=True)
                offers.append(
                    AvailableAction(
                        "set_tactic", "Describe your tactic", (self._key(mine), tactic, tactics)
                    )
                )
            players = [(side, name) for side, name in mine if self.is_player_side(side)]
            if actor.is_gm and players and not self.started:
                # §2.1.2.1, R18.10: the GM's ruling that nothing on the sheet applies.
                offers.append(
                    AvailableAction(
                        "no_relevant_ability",
                        "No relevant ability: TN 6",
                        (self._key(players),),
                    )
                )
            if self.controls(actor, "pc") and not self.state.get("pyrrhic") and not self.started:
                offers.append(
                    AvailableAction(
                        "pyrrhic", "Fight for a pyrrhic victory", confirm=True, under="pc"
                    )
                )
            offers += self._turn_offers(actor)
        elif self.phase == "rolled":
            pending = self.state["pending"]
            outcome = self._pending_outcome(pending)
            results = {"pc": outcome.pc_result, "opponent": outcome.opponent_result}
            raising = [
                (side, name)
                for side, name in mine
                if self._has_points(hero_points, self.side(side)["character_id"])
                and not pending[f"{side}_hero_point"]
                and results[side] is not Result.CRITICAL
            ]
            if raising:
                offers.append(
                    AvailableAction(
                        "hero_point", "Spend a hero point", (self._key(raising),), confirm=True
                    )
                )
            # The engine may still refuse a round the flow let a hero point into.
            if actor.is_gm and self._accepts("resolve", actor):
                offers.append(AvailableAction("resolve", self.RESOLVE_LABEL, primary=True))
        elif self.phase == "resolved":
            if actor.is_gm:
                narration = words("narration", "Narration")
                offers.append(
                    AvailableAction(
                        "apply_consequences",
                        "Confirm the consequences",
                        (narration,),
                        confirm=True,
                        primary=True,
                    )
                )
            offers += self._decided_offers(actor)
        return offers

    RESOLVE_LABEL: ClassVar[str] = "Resolve"

    def _turn_offers(self, actor: Actor) -> list[AvailableAction]:
        """What the kind offers before its roll: the GM's call for the roll here."""
        if not actor.is_gm or any(self.side(s)["rating"] is None for s in SIDES):
            return []
        return [AvailableAction("roll", "Roll", primary=True)]

    def _decided_offers(self, actor: Actor) -> list[AvailableAction]:
        """What the kind offers once decided, before the consequences (escalation...)."""
        return []

    # -- acting -------------------------------------------------------------------

    def _do_choose_ability(
        self, data: CompletedChooseAbility, actor: Actor, dice: Dice
    ) -> dict[str, Any]:
        """A player picks the ability (and its rating and states, from the sheet)."""
        self._require_phase("preparing")
        side = side_of(data.side)
        self._require_control(actor, side, "choose their ability")
        if self.started:
            raise IllegalAction("the contest has started; switch abilities with the GM's agreement")
        info = self.side(side)
        info["ability"] = required(data.ability, "ability")
        info["rating"] = Rating.parse(data.rating).total
        info["states"] = list(data.states or [])
        # Penalties the service read from the community for this ability (§8.2): they
        # follow the ability, so choosing another one drops them.
        info["modifiers"] = [m for m in info["modifiers"] if m["kind"] != "community"] + [
            {"label": p.label[:80], "value": p.value, "bumps": 0, "kind": "community"}
            for p in data.sheet_penalties or []
        ]
        rating, tn = Rating(info["rating"]), self.rated_target(side).rating
        return {"summary": f"{info['name']} uses {info['ability']} ({rating}); TN {tn}"}

    def _do_no_relevant_ability(
        self, data: NoRelevantAbility, actor: Actor, dice: Dice
    ) -> dict[str, Any]:
        """The GM rules that no ability on the sheet applies: the side rolls against a
        base TN of 6, modifiers still applying (§2.1.2.1, R18.10)."""
        self._require_gm(actor, "rule that no ability applies")
        self._require_phase("preparing")
        side = side_of(data.side)
        if not self.is_player_side(side):
            raise IllegalAction(
                f"{self.side(side)['name']} is a resistance: give it a class or a rating"
            )
        if self.started:
            raise IllegalAction("the contest has started: its abilities are chosen")
        info = self.side(side)
        info.update(ability="No relevant ability", rating=NO_RELEVANT_ABILITY, states=[])
        info["modifiers"] = [m for m in info["modifiers"] if m["kind"] != "community"]
        return {
            "summary": f"{info['name']} has no relevant ability: a base TN of "
            f"{NO_RELEVANT_ABILITY} (§2.1.2.1); TN {self.rated_target(side).rating}"
        }

    def _do_set_tactic(self, data: SetTactic, actor: Actor, dice: Dice) -> dict[str, Any]:
        self._require_phase("preparing")
        side = side_of(data.side)
        self._require_control(actor, side, "describe their tactic")
        info = self.side(side)
        info["tactic"] = required(data.tactic, "tactic")
        round_tactic = data.round_tactic or "normal"
        allowed = self.ROUND_TACTICS
        if round_tactic not in allowed:
            raise RulesError(
                f"round_tactic must be one of {', '.join(allowed)} in a {self.kind} contest"
            )
        info["round_tactic"] = round_tactic
        return {"summary": f"{info['name']}: {info['tactic']}"}

    def _do_roll(self, data: CompletedRoll, actor: Actor, dice: Dice) -> dict[str, Any]:
        """The GM calls for the roll: both sides roll d20 (§4.1.1 step 4)."""
        self._require_gm(actor, "call for the roll")
        self._require_phase("preparing")
        self._require_ratings()
        self._before_roll()
        for side in SIDES:
            self._use_entered_roll(self.side(side), dice, f"{side}_roll")
        return self._pend(dice, bid=self._roll_bid())

    def _require_ratings(self) -> None:
        for side in SIDES:
            if self.side(side)["rating"] is None:
                raise IllegalAction(f"{self.side(side)['name']} has no ability or rating yet")

    def _before_roll(self) -> None:
        """What a kind does as the GM calls for a roll (a long contest starts its engine)."""

    def _roll_bid(self) -> int | None:
        """What the roll is for, kept with the pending roll (an extended contest's bid)."""
        return None

    def _pend(self, dice: Dice, **extra: Any) -> dict[str, Any]:
        """Both sides roll; the results wait in `pending` for hero points and `resolve`.
        `extra` names what is rolled for (an extended contest's bid, a parting shot...)."""
        pc_roll = dice.take("pc_roll")
        opponent_roll = dice.take("opponent_roll")
        outcome = self._roll_outcome(pc_roll, opponent_roll, extra)
        self.state["pending"] = {
            **extra,
            "pc_roll": pc_roll,
            "opponent_roll": opponent_roll,
            "pc_hero_point": False,
            "opponent_hero_point": False,
            "outcome": outcome_json(outcome),
            "revealed": not self.state["hide_gm_rolls"],
        }
        self.state["phase"] = "rolled"
        pc_name, opponent_name = self.side("pc")["name"], self.side("opponent")["name"]
        full = (
            f"{pc_name} rolled {pc_roll} ({outcome.pc_result.label}); "
            f"{opponent_name} rolled {opponent_roll} ({outcome.opponent_result.label}): "
            f"{outcome.describe} for {pc_name} so far"
        )
        rolls = self._rolls_json(outcome)
        if self.state["hide_gm_rolls"]:
            rolls[1]["hidden"] = True
        return self._roll_payload(
            full,
            rolls,
            f"{pc_name} rolled {pc_roll} ({outcome.pc_result.label}); "
            f"the GM rolled for {opponent_name} in secret",
        )

    def _do_hero_point(self, data: HeroPoint, actor: Actor, dice: Dice) -> dict[str, Any]:
        """Spend a hero point to raise one's own result a step (§2.3.5.5, R5.3)."""
        self._require_phase("rolled")
        side = side_of(data.side)
        self._require_control(actor, side, "spend their hero point")
        if self.side(side)["character_id"] is None:
            raise IllegalAction("only player characters spend hero points")
        pending = self.state["pending"]
        key = f"{side}_hero_point"
        if pending[key]:
            raise IllegalAction("one hero point per roll (R5.3)")
        before = self._pending_outcome(pending)
        result = before.pc_result if side == "pc" else before.opponent_result
        if result is Result.CRITICAL:
            raise IllegalAction(
                "a hero point cannot raise a critical: the result is already the best"
            )
        pending[key] = True
        after = self._spend_on_roll(side, pending)
        pending["outcome"] = outcome_json(after)
        self.side(side)["hero_points_spent"] += 1
        name = self.side(side)["name"]
        rolls = self._rolls_json(after)
        if not pending.get("revealed", True):
            rolls[1]["hidden"] = True  # the players learn the GM's roll when it is revealed
        return {
            **self._roll_payload(
                f"{name} spends a hero point: {before.describe} becomes {after.describe}",
                rolls,
                f"{name} spends a hero point; the GM's roll stays secret",
            ),
            "hero_point": {"side": side, "character_id": self.side(side)["character_id"]},
        }

    def _do_pyrrhic(self, data: Nothing, actor: Actor, dice: Dice) -> dict[str, Any]:
        """The PC fights for a pyrrhic victory (§2.17, R11): a bump up now, a state of
        adversity at the end whatever happens."""
        self._require_phase("preparing")
        self._require_control(actor, "pc", "choose a pyrrhic victory")
        if self.state.get("pyrrhic"):
            raise IllegalAction("this contest is already fought for a pyrrhic victory")
        if self.started:
            raise IllegalAction("a pyrrhic victory is chosen before the contest starts (§2.17)")
        self.state["pyrrhic"] = True
        self.side("pc")["modifiers"].append(
            {"label": "pyrrhic victory", "value": 0, "bumps": 1, "kind": "other"}
        )
        return {"summary": f"{self.side('pc')['name']} fights for a pyrrhic victory: a bump up"}

    def _do_resolve(self, data: Resolve, actor: Actor, dice: Dice) -> dict[str, Any]:
        """The GM settles the roll: a simple contest is decided; a long contest plays
        the round through the engine and goes on until the engine says it is over."""
        self._require_gm(actor, "resolve the roll")
        self._require_phase("rolled")
        pending = self.state["pending"]
        pending["revealed"] = True
        return self._settle(pending)

    def _settle(self, pending: dict[str, Any]) -> dict[str, Any]:
        """The pending roll decides the contest (a long contest plays it as a round)."""
        outcome = self._simple_outcome(
            pending["pc_roll"], pending["opponent_roll"], pending=pending
        )
        self.state["outcome"] = outcome_json(outcome)
        # The rolls' rows say who spent a hero point: read them while it is pending.
        rolls = self._rolls_json(outcome)
        self.state["rounds"].append(pending)
        self.state["pending"] = None
        self._decide(outcome.winner, outcome.degree)
        self._apply_variant(outcome.level)
        line = self.explain_roll(pending["outcome"])
        self.state["last_line"] = line
        return {"summary": line, "rolls": rolls}

    def _do_apply_consequences(
        self, data: ApplyConsequences, actor: Actor, dice: Dice
    ) -> dict[str, Any]:
        """The GM confirms (or edits) the suggested consequences and benefits (§2.11)."""
        self._require_gm(actor, "confirm consequences")
        self._require_phase("resolved")
        chosen: list[dict[str, Any]] | None = None
        if data.consequences is not None:
            chosen = [c.model_dump(exclude_unset=True) for c in data.consequences]
        edited = None if data.edit is None else data.edit.model_dump(exclude_unset=True)
        if edited is not None:
            # The GM's edit from the form: {"pc": "hurt", "pc_benefit": "heroic",
            # "opponent": ""} ("" is none): per side a state of adversity and one of
            # fortune (a wounded winner takes both, R18.6).
            chosen = []
            for side in SIDES:
                if self.side(side)["character_id"] is None:
                    continue
                for key, ladder in ((side, ADVERSITY), (f"{side}_benefit", FORTUNE)):
                    state = edited.get(key)
                    if not state:
                        continue
                    if state not in {s.value for s in ladder}:
                        kind = "state of fortune" if ladder is FORTUNE else "state of adversity"
                        raise RulesError(f"{state!r} is not a {kind} for {self.side(side)['name']}")
                    chosen.append({"side": side, "state": state})
        if chosen is None:
            chosen = self.state["suggested"]
        applied = []
        for item in chosen:
            if item.get("side") not in SIDES:
                raise RulesError("each consequence names a side")
            state = item.get("state")
            if state not in CONFIRMABLE:
                raise RulesError(f"{state!r} is not a state of adversity or fortune")
            applied.append(
                {
                    "side": item["side"],
                    "state": state,
                    "character_id": self.side(item["side"])["character_id"],
                    "ability": self.side(item["side"])["ability"],
                }
            )
        self.state["applied"] = applied
        self.state["phase"] = "finished"
        narration = text(data.narration)
        if narration:
            self.state["narration"] = narration
        listed = (
            "; ".join(f"{self.side(a['side'])['name']} {a['state']}" for a in applied) or "none"
        )
        return {"summary": f"Consequences: {listed}", "applied": applied}

    # -- helpers ------------------------------------------------------------------
