"""A group simple contest (§4.2, §4.5, R7): every PC against the one resistance, the
GM rolling for each; outcome points are collated; a boost is bought before the roll
with hero points from any mix of players."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..actions.models import Boost, BothFumble, CompletedRoll, Resolve
from ..rules import (
    BENEFIT_OF_VICTORY,
    CONSEQUENCE_OF_DEFEAT,
    IllegalAction,
    Result,
    RulesError,
    boost_cost,
    bump_with_hero_point,
    group_simple_contest,
    is_clearly_inferior,
    simple_contest,
)
from ..rules.group_simple import both_fumble_defeat, both_fumbled
from .base import Actor, AvailableAction, Dice, required
from .group import GroupFlow, Roll


class GroupSimpleFlow(GroupFlow):
    KIND = "group_simple"

    def _check_framing(self) -> None:
        opposition = [p for p in self.participants if p["side"] == "opponent"]
        if len(opposition) != 1 or opposition[0]["character_id"] is not None:
            raise RulesError(
                "a group simple contest sets every PC against one resistance (§4.2): "
                "name exactly one opponent who is not a player character"
            )
        if len(self.participants) < 3:
            raise RulesError("a group simple contest needs two participants or more on the PC side")

    def _coming_rolls(self) -> list[tuple[Roll, Roll]]:
        """Each PC-side participant's roll against the resistance."""
        against = self.tn(self.resistance)
        if against is None:
            return []
        resistance = (self.resistance["name"], against.rating, against.bumps)
        return [
            ((participant["name"], tn.rating, tn.bumps), resistance)
            for participant in self._pc_side()
            if (tn := self.tn(participant)) is not None
        ]

    def _kind_offers(
        self, actor: Actor, mine: list[str], hero_points: Mapping[int, int]
    ) -> list[AvailableAction]:
        """Before the roll: hero points toward a boost (§4.5.3) and the GM's roll. Once
        decided: the GM's ruling on a pairing where both fumbled (§4.4.2, R18.10)."""
        if self.phase == "resolved" and actor.is_gm:
            fumbled = self._both_fumbled()
            if not fumbled:
                return []
            return [
                AvailableAction(
                    "both_fumble",
                    "Both fumbled: a marginal defeat for them (§4.4.2)",
                    (self._pick(fumbled),),
                    confirm=True,
                )
            ]
        if self.phase != "preparing":
            return []
        offers = []
        boost = self.boost
        payers = [
            n for n in mine if self._has_points(hero_points, self.participant(n)["character_id"])
        ]
        if payers and boost["paid"] < 2 * boost["cost"]:
            offers.append(
                AvailableAction(
                    "boost", "Put a hero point toward a boost", (self._pick(payers),), confirm=True
                )
            )
        if actor.is_gm and all(p["rating"] is not None for p in self.participants):
            offers.append(AvailableAction("roll", "Roll for everyone", primary=True))
        return offers

    def _hero_point_names(self, pending: dict[str, Any]) -> list[str]:
        return [
            p["participant"]
            for p in pending["pairings"]
            if not p["hero_point"] and p["outcome"]["pc_result"] != Result.CRITICAL.label
        ]

    def _reveal_text(self, pending: dict[str, Any]) -> str:
        return "The GM reveals the rolls: " + "; ".join(
            self._pairing_text(p) for p in pending["pairings"]
        )

    @property
    def heroes(self) -> list[dict[str, Any]]:
        """The PCs on the PCs' side: they roll, buy boosts and spend hero points."""
        return [p for p in self.participants if p["side"] == "pc" and p["character_id"] is not None]

    @property
    def resistance(self) -> dict[str, Any]:
        return next(p for p in self.participants if p["side"] == "opponent")

    @property
    def boost(self) -> dict[str, int]:
        """Hero points paid toward a boost, its cost and the boost bought (0, 1 or 2)."""
        paid = len(self.state["boost"]["paid"])
        cost = boost_cost(max(len(self.heroes), 1))
        return {"paid": paid, "cost": cost, "level": min(2, paid // cost)}

    def _do_boost(self, data: Boost, actor: Actor, dice: Dice) -> dict[str, Any]:
        """One hero point toward a boost, before the roll (§4.5.3, R7): a boost costs
        1 per 3 heroes or part of 3, a double boost twice that, any mix of players."""
        self._require_phase("preparing")
        name = required(data.participant, "participant")
        participant = self._require_participant(actor, name, "pay toward a boost")
        if participant["character_id"] is None:
            raise IllegalAction("only player characters spend hero points")
        boost = self.boost
        if boost["paid"] >= 2 * boost["cost"]:
            raise IllegalAction(f"a double boost ({2 * boost['cost']} hero points) is the most")
        self.state["boost"]["paid"].append(name)
        participant["hero_points_spent"] += 1
        self._refresh_sides()
        boost = self.boost
        bought = {0: "no boost yet", 1: "a boost", 2: "a double boost"}[boost["level"]]
        return {
            "summary": f"{name} puts a hero point toward a boost: {boost['paid']} paid, "
            f"{boost['cost']} for a boost, {2 * boost['cost']} for a double boost ({bought})",
            "hero_point": {"participant": name, "character_id": participant["character_id"]},
        }

    def _do_roll(self, data: CompletedRoll, actor: Actor, dice: Dice) -> dict[str, Any]:
        """The GM rolls for every PC and, separately, for the resistance against each
        (§4.2.1 step 4); hero points may then be spent before `resolve`. A physical d20
        entered for a participant is their roll (the resistance's, its first)."""
        self._require_gm(actor, "call for the roll")
        self._require_phase("preparing")
        for participant in self.participants:
            if participant["rating"] is None:
                raise IllegalAction(f"{participant['name']} has no ability or rating yet")
        by_participant = dice.under("dice")
        pairings = []
        resistance = self.resistance
        for participant in self._pc_side():
            rolled = by_participant.under(participant["name"])
            self._use_entered_roll(participant, rolled, "roll")
            self._use_entered_roll(resistance, rolled, "resistance_roll")
            roll = rolled.take("roll")
            resistance_roll = rolled.take("resistance_roll")
            pairing = {
                "participant": participant["name"],
                "roll": roll,
                "resistance_roll": resistance_roll,
                "hero_point": False,
                # The GM's dice in this pairing, hidden until revealed (campaign option).
                "hidden": [
                    key
                    for key, who in (("roll", participant), ("resistance_roll", resistance))
                    if self._gm_rolls_for(who["name"])
                ],
            }
            pairing["outcome"] = self._pairing_outcome(pairing).to_json()
            pairings.append(pairing)
        revealed = not any(p["hidden"] for p in pairings)
        self.state["pending"] = {
            "pairings": pairings,
            "boost": self.boost["level"],
            "revealed": revealed,
        }
        self.state["phase"] = "rolled"
        secret = "; ".join(
            f"{p['participant']} rolled in secret"
            if "roll" in p["hidden"]
            else f"{p['participant']} rolled {p['roll']} ({p['outcome']['pc_result']})"
            for p in pairings
        )
        if any("resistance_roll" in p["hidden"] for p in pairings):
            secret += f"; the GM rolled for {resistance['name']} in secret"
        return self._roll_payload(
            "; ".join(self._pairing_text(p) for p in pairings),
            self._simple_rolls(pairings, hiding=not revealed),
            secret,
        )

    def _pc_side(self) -> list[dict[str, Any]]:
        return [p for p in self.participants if p["side"] == "pc"]

    def _pairing_outcome(self, pairing: dict[str, Any]) -> Any:
        tn = self.rated_tn(self.participant(pairing["participant"]))
        outcome = simple_contest(
            tn.rating,
            pairing["roll"],
            self.rated_tn(self.resistance).rating,
            pairing["resistance_roll"],
            better_roll=self.state["better_roll"],
            pc_bumps=tn.bumps,
            opponent_bumps=self.rated_tn(self.resistance).bumps,
        )
        return bump_with_hero_point(outcome) if pairing["hero_point"] else outcome

    def _pairing_text(self, pairing: dict[str, Any]) -> str:
        outcome = pairing["outcome"]
        described: str = outcome["describe"]
        return (
            f"{pairing['participant']} rolled {pairing['roll']} ({outcome['pc_result']})"
            + (" + hero point" if pairing["hero_point"] else "")
            + f" against {pairing['resistance_roll']} ({outcome['opponent_result']}): "
            + described
        )

    def _simple_rolls(
        self, pairings: list[dict[str, Any]], *, hiding: bool = False
    ) -> list[dict[str, Any]]:
        """Each pairing's two rolls for the log; `hiding` marks the GM's hidden ones."""
        rows = []
        resistance = self.resistance
        for pairing in pairings:
            participant = self.participant(pairing["participant"])
            hidden = pairing.get("hidden", []) if hiding else []
            rows += [
                {
                    "who": participant["name"],
                    "ability": participant["ability"],
                    "tn": str(self.rated_tn(participant).rating),
                    "roll": pairing["roll"],
                    "result": pairing["outcome"]["pc_result"],
                    "bumps": self.rated_tn(participant).bumps,
                    "hero_point": pairing["hero_point"],
                    "hidden": "roll" in hidden,
                },
                {
                    "who": resistance["name"],
                    "ability": resistance["ability"],
                    "tn": str(self.rated_tn(resistance).rating),
                    "roll": pairing["resistance_roll"],
                    "result": pairing["outcome"]["opponent_result"],
                    "hidden": "resistance_roll" in hidden,
                },
            ]
        return rows

    def _raise_result(self, name: str, pending: dict[str, Any]) -> tuple[str, str]:
        """Raise `name`'s result in their pairing: the log line, and the line for the
        players while the GM's roll is hidden (their own result only)."""
        pairings = {p["participant"]: p for p in self.state["pending"]["pairings"]}
        pairing = pairings.get(name)
        if pairing is None:
            raise IllegalAction(f"{name} did not roll in this contest")
        if pairing["hero_point"]:
            raise IllegalAction("one hero point per roll (R5.3)")
        before = pairing["outcome"]
        bump_with_hero_point(self._pairing_outcome(pairing))  # refuses to raise a critical
        pairing["hero_point"] = True
        after = pairing["outcome"] = self._pairing_outcome(pairing).to_json()
        return (
            f"{name} spends a hero point: {before['describe']} becomes {after['describe']}",
            f"{name} spends a hero point: {before['pc_result']} becomes {after['pc_result']}",
        )

    def _both_fumbled(self) -> list[str]:
        """The player participants whose pairing both fumbled and who are not yet ruled
        to suffer a marginal defeat for it."""
        outcome = self.state.get("outcome") or {}
        ruled = set(outcome.get("both_fumbled", []))
        return [
            p["participant"]
            for p in outcome.get("pairings", [])
            if p["participant"] not in ruled
            and self.participant(p["participant"])["character_id"] is not None
            and both_fumbled(self._pairing_outcome(p))
        ]

    def _do_both_fumble(self, data: BothFumble, actor: Actor, dice: Dice) -> dict[str, Any]:
        """The GM declares that a participant who fumbled against a fumbling resistance
        suffers a marginal defeat (§4.4.2's footnote, R18.10): their own consequence in
        place of the group's; the points stand."""
        self._require_gm(actor, "rule on a double fumble")
        self._require_phase("resolved")
        name = required(data.participant, "participant")
        outcome = self.state["outcome"]
        pairing = next((p for p in outcome["pairings"] if p["participant"] == name), None)
        if pairing is None:
            raise IllegalAction(f"{name} did not roll in this contest")
        if name in outcome.get("both_fumbled", []):
            raise IllegalAction(f"{name}'s double fumble is already ruled a marginal defeat")
        state = both_fumble_defeat(self._pairing_outcome(pairing))
        if self.participant(name)["character_id"] is None:
            raise IllegalAction(f"{name} is the GM's: only a player's character takes the state")
        outcome.setdefault("both_fumbled", []).append(name)
        self.state["suggested"] = [
            s for s in self.state["suggested"] if s.get("participant") != name
        ]
        self._suggest(name, state.value)
        return {
            "summary": f"{name} and {self.resistance['name']} both fumbled: the GM rules a "
            f"marginal defeat for {name}, who is {state.value} (§4.4.2)"
        }

    def _settle(self, data: Resolve) -> dict[str, Any]:
        pending = self.state["pending"]
        group = group_simple_contest(
            [self._pairing_outcome(p) for p in pending["pairings"]], boost=pending["boost"]
        )
        self.state["outcome"] = {
            "winner": group.winner,
            "degree": group.degree,
            "level": group.level,
            "describe": group.describe,
            "pc_points": group.pc_points,
            "opponent_points": group.opponent_points,
            "boost": group.boost,
            "pairings": pending["pairings"],
        }
        self.state["pending"] = None
        self.state["phase"] = "resolved"
        # §4.5.2: by default the whole group shares the consequence or the benefit.
        self.state["suggested"] = []
        resistance = self.rated_tn(self.resistance).rating
        for participant in self.heroes:
            if group.level < 0:
                assert group.degree is not None, "a defeat has a degree"
                self._suggest(participant["name"], CONSEQUENCE_OF_DEFEAT[group.degree].value)
            elif group.level > 0 and not is_clearly_inferior(
                self.rated_tn(participant).rating, resistance
            ):
                assert group.degree is not None, "a victory has a degree"
                self._suggest(participant["name"], BENEFIT_OF_VICTORY[group.degree].value)
        names = self.state["sides"]
        boosted = f" (boosted {group.boost}x)" if group.boost else ""
        return {
            "summary": f"{names['pc']['name']} {group.pc_points} OP, {names['opponent']['name']} "
            f"{group.opponent_points} OP: {group.describe}{boosted}",
            "rolls": self._simple_rolls(pending["pairings"]),
            "totals": {
                names["pc"]["name"]: group.pc_points,
                names["opponent"]["name"]: group.opponent_points,
            },
            "totals_kind": "OP",
        }
