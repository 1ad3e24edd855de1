"""What the one-on-one contests share at the live table: two sides, "pc" and "opponent".

Phases: preparing (abilities, tactics, modifiers, augments) -> rolled (results shown,
hero points may be spent) -> in a long contest back to preparing for the next round,
until the engine says the contest is over -> resolved (consequences suggested) ->
finished (the GM confirmed consequences and narration).

`TableFlow` is the family's base: `TableFlow.frame(framing)` builds the class of the
framing's kind (simple.py, automatic.py, scored.py, extended.py, chained.py). A kind
changes what differs by overriding the hooks named `_...` below or a class attribute.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..rules import (
    ADVERSITY,
    BENEFIT_OF_VICTORY,
    CONSEQUENCE_OF_DEFEAT,
    FORTUNE,
    IllegalAction,
    Rating,
    Result,
    RulesError,
    SideInput,
    TargetNumber,
    bump_with_hero_point,
    hero_point_effect,
    is_clearly_inferior,
    pyrrhic_victory_consequence,
    simple_contest,
    simple_odds,
)
from ..rules.odds import odds_summary
from ..rules.simple import NO_RELEVANT_ABILITY, cap_stretched
from .base import (
    SIDES,
    ActionInput,
    Actor,
    AvailableAction,
    Roller,
    choice,
    read_roll,
    read_side,
    read_text,
    words,
)
from .offers import SharedOffers
from .sides import framed_state

KINDS = ("simple", "automatic", "scored", "extended", "chained")
TACTIC_LABELS = {
    "normal": "normal",
    "risky_gambit": "risky gambit",
    "defensive": "defensive",
    "asymmetrical": "asymmetrical",
    "disengage": "disengage",
}
RATING = ActionInput("rating", "rating", "Rating")
# Actions of one one-on-one kind that the others refuse, and why.
REFUSALS = {
    "bid": "bids belong to extended contests",
    "unrelated_action": "take an unrelated action belongs to extended contests",
    "disengage": "disengage belongs to extended contests",
    "parting_shot": "a parting shot is for the winner of an extended contest, right after "
    "the exchange that decided it (§5.3.4)",
    "gift": "AP gifts go to a side of an extended contest under way",
    "automatic_victory": "frame an automatic victory to grant one",
    "escalate": "only a plain simple contest escalates (§2.8.2)",
    "confusing_tie": "only a simple contest's tie can be ruled a marginal victory (§2.3.5.2)",
    "both_fumble": "two contestants who both fumbled are paired only in a group simple "
    "contest (§4.4.2)",
}


class TableFlow(SharedOffers):
    """One one-on-one contest at the table. Build it with `frame(...)`, change it with
    `apply`."""

    KINDS = KINDS
    VARIANTS: ClassVar[tuple[str, ...]] = ("normal",)  # the framings this kind takes
    ROUND_TACTICS: ClassVar[tuple[str, ...]] = ("normal",)  # a round's tactics (§5.1.5)
    RESISTANCE_ABILITY: ClassVar[str] = ""  # what a resistance's ability is called

    # -- building ---------------------------------------------------------------

    @classmethod
    def _build(cls, data: dict[str, Any]) -> dict[str, Any]:
        return framed_state(cls.KIND, data, cls.VARIANTS, cls.RESISTANCE_ABILITY)

    # -- reading ------------------------------------------------------------------

    def side(self, side: str) -> dict[str, Any]:
        record: dict[str, Any] = self.state["sides"][side]
        return record

    def participant_rows(self) -> list[dict[str, Any]]:
        """Who takes part, for the contest's participant records (and archive filters)."""
        return [
            {key: self.side(side)[key] for key in ("character_id", "name", "ability", "rating")}
            | {"side": side}
            for side in SIDES
        ]

    def controls(self, actor: Actor, side: str) -> bool:
        """The GM controls every side; a player the side of a character they play."""
        if actor.is_gm:
            return True
        character_id = self.side(side)["character_id"]
        return (
            actor.role == "player"
            and character_id is not None
            and character_id in actor.character_ids
        )

    def target(self, side: str) -> TargetNumber | None:
        """The side's target number now (§2.11, R9): rating, modifiers, augments, states."""
        return self._target_of(self.side(side))

    def rated_target(self, side: str) -> TargetNumber:
        """The side's target number where it must have a rating (to roll, to start)."""
        tn = self.target(side)
        if tn is None:
            raise IllegalAction(f"{self.side(side)['name']} has no ability or rating yet")
        return tn

    def _engine_target(self, side: str) -> Any:
        """The TN the engine is given: what `target` shows less what the engine applies
        itself (a chained contest's wounds)."""
        return self.target(side)

    def is_player_side(self, side: str) -> bool:
        """The PC's side, or an opponent framed from a player's character (§2.3.1.2)."""
        return side == "pc" or self.side(side)["character_id"] is not None

    def side_input(self, side: str) -> SideInput:
        """The side as the engine's machines take it (R18.5): a player's side is its
        rating with every lasting line (augments, states, a stretch, heroic or pyrrhic
        bumps), not this round's situational ones; a resistance is its TN (R18.3)."""
        tn, info = self._engine_target(side), self.side(side)
        if not self.is_player_side(side):
            return SideInput(tn.rating.total, name=info["name"], is_pc=False, bumps=tn.bumps)
        lasting = tuple(line for line in tn.lines if line.kind != "situational")
        return SideInput(tn.base.total, name=info["name"], modifiers=lasting)

    def situational(self, side: str) -> int:
        """This round's situational modifiers of a side (R9: they last one round)."""
        return sum(line.value for line in self._engine_target(side).lines if line.lasts_one_round)

    def odds(self) -> dict[str, Any] | None:
        """Exact odds of every outcome for the PC before the roll (`simple_odds`), and
        the victory/tie/defeat chances with and without a hero point."""
        pc, opponent = self.target("pc"), self.target("opponent")
        if pc is None or opponent is None:
            return None
        options = {
            "better_roll": self.state["better_roll"],
            "pc_bumps": pc.bumps,
            "opponent_bumps": opponent.bumps,
        }
        return {
            "outcomes": simple_odds(pc.rating, opponent.rating, **options),
            "summary": odds_summary(pc.rating, opponent.rating, **options),
        }

    def hero_point_offer(self, audience: str = "gm") -> str | None:
        """What the PC's hero point would do to the pending roll, in words; while the
        GM's roll is hidden, players learn only that it raises their result."""
        pending = self.state.get("pending")
        if self.phase != "rolled" or not pending or pending["pc_hero_point"]:
            return None
        outcome = self._pending_outcome(pending)
        if outcome.pc_result is Result.CRITICAL:
            return None
        if not pending.get("revealed", True) and audience != "gm":
            return "raises your result one step"
        return hero_point_effect(outcome)

    def level_for_pc(self) -> int | None:
        """+4 complete victory .. -4 complete defeat for the PC side; 0 a tie."""
        outcome = self.state.get("outcome")
        if not outcome or outcome.get("automatic"):
            return None
        if outcome["winner"] not in SIDES or not outcome["degree"]:
            return 0
        step = ("marginal", "minor", "major", "complete").index(outcome["degree"]) + 1
        return step if outcome["winner"] == "pc" else -step

    # -- what BaseFlow's shared actions need: the side an action names ------------------

    def _refusal(self, action: str) -> str | None:
        return REFUSALS.get(action)

    def _require_control(self, actor: Actor, side: str, what: str) -> None:
        if not self.controls(actor, side):
            raise IllegalAction(f"only {self.side(side)['name']}'s player or the GM can {what}")

    def _holder(self, data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        side = read_side(data)
        return side, self.side(side)

    def _gm_rolls_for(self, key: str) -> bool:
        return key == "opponent" and self.state["hide_gm_rolls"]

    def _check_modifier(self, key: str, record: dict[str, Any], line: dict[str, Any]) -> None:
        """Every line applies: to the roll, or in a long contest as the change from the
        starting TN (a mob or ganging up goes on the side it applies to, §2.14, §2.15)."""

    def _reveal_text(self, pending: dict[str, Any]) -> str:
        return (
            f"The GM reveals the roll: {pending['opponent_roll']} "
            f"({pending['outcome']['opponent_result']}); so far {pending['outcome']['describe']}"
        )

    # -- what an actor may do now -------------------------------------------------

    def _keys(self) -> list[tuple[str, str]]:
        return [(side, self.side(side)["name"]) for side in SIDES]

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
        self, data: dict[str, Any], actor: Actor, roller: Roller
    ) -> dict[str, Any]:
        """A player picks the ability (and its rating and states, from the sheet)."""
        self._require_phase("preparing")
        side = read_side(data)
        self._require_control(actor, side, "choose their ability")
        if self.started:
            raise IllegalAction("the contest has started; switch abilities with the GM's agreement")
        info = self.side(side)
        info["ability"] = read_text(data, "ability", required=True, limit=120)
        info["rating"] = Rating.parse(data.get("rating")).total
        states = data.get("states", [])
        if not isinstance(states, list) or not all(isinstance(s, str) for s in states):
            raise RulesError("states must be a list of state names")
        info["states"] = states
        # Penalties the service read from the community for this ability (§8.2): they
        # follow the ability, so choosing another one drops them.
        info["modifiers"] = [m for m in info["modifiers"] if m["kind"] != "community"] + [
            {
                "label": str(p["label"])[:80],
                "value": int(p["value"]),
                "bumps": 0,
                "kind": "community",
            }
            for p in data.get("sheet_penalties", [])
        ]
        rating, tn = Rating(info["rating"]), self.rated_target(side).rating
        return {"summary": f"{info['name']} uses {info['ability']} ({rating}); TN {tn}"}

    def _do_no_relevant_ability(
        self, data: dict[str, Any], actor: Actor, roller: Roller
    ) -> dict[str, Any]:
        """The GM rules that no ability on the sheet applies: the side rolls against a
        base TN of 6, modifiers still applying (§2.1.2.1, R18.10)."""
        self._require_gm(actor, "rule that no ability applies")
        self._require_phase("preparing")
        side = read_side(data)
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

    def _do_set_tactic(self, data: dict[str, Any], actor: Actor, roller: Roller) -> dict[str, Any]:
        self._require_phase("preparing")
        side = read_side(data)
        self._require_control(actor, side, "describe their tactic")
        info = self.side(side)
        info["tactic"] = read_text(data, "tactic", required=True)
        round_tactic = data.get("round_tactic", "normal")
        allowed = self.ROUND_TACTICS
        if round_tactic not in allowed:
            raise RulesError(
                f"round_tactic must be one of {', '.join(allowed)} in a {self.kind} contest"
            )
        info["round_tactic"] = round_tactic
        return {"summary": f"{info['name']}: {info['tactic']}"}

    def _do_roll(self, data: dict[str, Any], actor: Actor, roller: Roller) -> dict[str, Any]:
        """The GM calls for the roll: both sides roll d20 (§4.1.1 step 4)."""
        self._require_gm(actor, "call for the roll")
        self._require_phase("preparing")
        self._require_ratings()
        self._before_roll()
        for side in SIDES:
            self._use_entered_roll(self.side(side), data, f"{side}_roll")
        return self._pend(data, roller, bid=self._roll_bid())

    def _require_ratings(self) -> None:
        for side in SIDES:
            if self.side(side)["rating"] is None:
                raise IllegalAction(f"{self.side(side)['name']} has no ability or rating yet")

    def _before_roll(self) -> None:
        """What a kind does as the GM calls for a roll (a long contest starts its engine)."""

    def _roll_bid(self) -> int | None:
        """What the roll is for, kept with the pending roll (an extended contest's bid)."""
        return None

    def _pend(self, data: dict[str, Any], roller: Roller, **extra: Any) -> dict[str, Any]:
        """Both sides roll; the results wait in `pending` for hero points and `resolve`.
        `extra` names what is rolled for (an extended contest's bid, a parting shot...)."""
        pc_roll = read_roll(data, "pc_roll", roller)
        opponent_roll = read_roll(data, "opponent_roll", roller)
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

    def _do_hero_point(self, data: dict[str, Any], actor: Actor, roller: Roller) -> dict[str, Any]:
        """Spend a hero point to raise one's own result a step (§2.3.5.5, R5.3)."""
        self._require_phase("rolled")
        side = read_side(data)
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

    def _do_pyrrhic(self, data: dict[str, Any], actor: Actor, roller: Roller) -> dict[str, Any]:
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

    def _do_resolve(self, data: dict[str, Any], actor: Actor, roller: Roller) -> dict[str, Any]:
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
        self, data: dict[str, Any], actor: Actor, roller: Roller
    ) -> dict[str, Any]:
        """The GM confirms (or edits) the suggested consequences and benefits (§2.11)."""
        self._require_gm(actor, "confirm consequences")
        self._require_phase("resolved")
        chosen = data.get("consequences")
        edited = data.get("edit")
        if isinstance(edited, dict):
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
        if not isinstance(chosen, list):
            raise RulesError("consequences must be a list")
        applied = []
        for item in chosen:
            if not isinstance(item, dict) or item.get("side") not in SIDES:
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
        narration = read_text(data, "narration")
        if narration:
            self.state["narration"] = narration
        listed = (
            "; ".join(f"{self.side(a['side'])['name']} {a['state']}" for a in applied) or "none"
        )
        return {"summary": f"Consequences: {listed}", "applied": applied}

    # -- helpers ------------------------------------------------------------------

    def explain_roll(self, outcome: dict[str, Any]) -> str:
        """The settled roll in one line, for people: "Tamsin's success beats the Grey
        River's failure: minor victory for Tamsin" (§2.3.5). Written only once the
        roll is settled, when the GM's dice are revealed to everyone."""
        pc, opponent = self.side("pc")["name"], self.side("opponent")["name"]
        level = {"pc": 1, "opponent": -1}.get(str(outcome.get("winner")), 0)
        line = versus(
            (pc, outcome["pc_result"]),
            (opponent, outcome["opponent_result"]),
            level,
            self.state["better_roll"],
        )
        if level > 0:
            return f"{line}: {outcome['degree']} victory for {pc}"
        if level < 0:
            return f"{line}: {outcome['degree']} defeat for {pc}"
        return f"{line}: a tie"

    def _roll_outcome(
        self, pc_roll: int, opponent_roll: int, extra: dict[str, Any] | None = None
    ) -> Any:
        """The outcome of a fresh roll, before any hero point; `extra` says what it is
        rolled for (an extended contest's action and bid)."""
        return self._simple_outcome(pc_roll, opponent_roll)

    def _pending_outcome(self, pending: dict[str, Any]) -> Any:
        """The pending roll's outcome so far, with the hero points spent on it."""
        return self._simple_outcome(pending["pc_roll"], pending["opponent_roll"], pending)

    def _spend_on_roll(self, side: str, pending: dict[str, Any]) -> Any:
        """`side`'s hero point (already marked in `pending`) on the pending roll: the
        outcome after it."""
        return self._pending_outcome(pending)

    def _simple_outcome(
        self, pc_roll: int, opponent_roll: int, pending: dict[str, Any] | None = None
    ) -> Any:
        pc, opponent = self.rated_target("pc"), self.rated_target("opponent")
        outcome = simple_contest(
            pc.rating,
            pc_roll,
            opponent.rating,
            opponent_roll,
            better_roll=self.state["better_roll"],
            pc_bumps=pc.bumps,
            opponent_bumps=opponent.bumps,
        )
        if pending:
            if pending["pc_hero_point"]:
                outcome = bump_with_hero_point(outcome, side="pc")
            if pending["opponent_hero_point"]:
                outcome = bump_with_hero_point(outcome, side="opponent")
        # §2.10 (R18.4): a victory won with a stretched ability counts as minor.
        stretched = [side for side, tn in (("pc", pc), ("opponent", opponent)) if tn.stretched]
        return cap_stretched(outcome, stretched) if stretched else outcome

    def _rolls_json(self, outcome: Any) -> list[dict[str, Any]]:
        rows = []
        for side, roll, result in (
            ("pc", outcome.pc_roll, outcome.pc_result),
            ("opponent", outcome.opponent_roll, outcome.opponent_result),
        ):
            info, tn = self.side(side), self.rated_target(side)
            rows.append(
                {
                    "who": info["name"],
                    "ability": info["ability"],
                    "tn": str(tn.rating),
                    "roll": roll,
                    "result": result.label,
                    "bumps": tn.bumps,
                    "hero_point": bool((self.state.get("pending") or {}).get(f"{side}_hero_point")),
                }
            )
        return rows

    def _decide(self, winner: str | None, degree: str | None) -> None:
        """Record the outcome and suggest consequences of defeat and benefits of victory
        (§2.11, R10): none for a tie, and no benefit against a clearly inferior opponent."""
        self.state["outcome"] = {"winner": winner, "degree": degree}
        self.state["phase"] = "resolved"
        suggested = []
        if winner in SIDES and degree and self.state["apply_consequences"]:
            loser = "opponent" if winner == "pc" else "pc"
            suggested.append({"side": loser, "state": CONSEQUENCE_OF_DEFEAT[degree].value})
            winner_rating = self.side(winner)["rating"]
            loser_rating = self.side(loser)["rating"]
            if not is_clearly_inferior(winner_rating, loser_rating):
                suggested.append({"side": winner, "state": BENEFIT_OF_VICTORY[degree].value})
        self.state["suggested"] = [
            s for s in suggested if self.side(s["side"])["character_id"] is not None
        ]

    def _apply_variant(self, level: int) -> None:
        """The framing's variant (simple.py) and the pyrrhic victory's price (§2.17)
        adjust what a decided contest means."""
        self._apply_framed_variant(self.state["outcome"], level)
        if self.state.get("pyrrhic"):
            price = pyrrhic_victory_consequence(level).value
            self.state["outcome"]["pyrrhic"] = price
            self.state["suggested"] = [s for s in self.state["suggested"] if s["side"] != "pc"] + [
                {"side": "pc", "state": price}
            ]

    def _apply_framed_variant(self, outcome: dict[str, Any], level: int) -> None:
        """A simple contest's costly or graduated framing (none elsewhere)."""


CONFIRMABLE = (
    {s.value for s in CONSEQUENCE_OF_DEFEAT.values()}
    | {s.value for s in BENEFIT_OF_VICTORY.values()}
    | {"dead"}
)


def other_side(side: str) -> str:
    return "opponent" if side == "pc" else "pc"


def outcome_json(outcome: Any) -> dict[str, Any]:
    return {
        "winner": outcome.winner,
        "degree": outcome.degree,
        "pc_result": outcome.pc_result.label,
        "opponent_result": outcome.opponent_result.label,
        "describe": outcome.describe,
    }


def versus(first: tuple[str, str], second: tuple[str, str], level: int, better_roll: str) -> str:
    """Two results compared in words, from the first's side: "Tamsin's success beats the
    Grey River's failure"; equal results are decided by the better roll (§2.3.5.1)."""
    verb = "beats" if level > 0 else "loses to" if level < 0 else "ties with"
    line = f"{possessive(first[0])} {first[1]} {verb} {possessive(second[0])} {second[1]}"
    if level and first[1] == second[1]:
        line += f" (the {'higher' if better_roll == 'high' else 'lower'} roll wins)"
    return line


def possessive(name: str) -> str:
    """ "Tamsin" -> "Tamsin's"; "the Grey Wolves" -> "the Grey Wolves'"."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"
