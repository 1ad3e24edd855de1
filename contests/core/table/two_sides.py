"""What a one-on-one contest reads and decides of its two sides, "pc" and "opponent":
their records, who controls each, their target numbers and odds, and how a roll's
outcome is worked out and recorded. `TableFlow` (one_on_one.py) builds on it with
what each side may do (the offers) and the actions."""

from __future__ import annotations

from typing import Any, ClassVar

from ..actions.models import Holder
from ..rules import (
    BENEFIT_OF_VICTORY,
    CONSEQUENCE_OF_DEFEAT,
    IllegalAction,
    Result,
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
from ..rules.simple import cap_stretched
from ..terms import KINDS
from .base import (
    SIDES,
    ActionInput,
    Actor,
    side_of,
)
from .offers import SharedOffers
from .sides import framed_state

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


class TwoSides(SharedOffers):
    """Two sides, read and decided (the base of `TableFlow`)."""

    KINDS = KINDS

    VARIANTS: ClassVar[tuple[str, ...]] = ("normal",)  # the framings this kind takes

    ROUND_TACTICS: ClassVar[tuple[str, ...]] = ("normal",)  # a round's tactics (§5.1.5)

    RESISTANCE_ABILITY: ClassVar[str] = ""  # what a resistance's ability is called

    @classmethod
    def _build(cls, data: dict[str, Any]) -> dict[str, Any]:
        return framed_state(cls.KIND, data, cls.VARIANTS, cls.RESISTANCE_ABILITY)

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

    def _refusal(self, action: str) -> str | None:
        return REFUSALS.get(action)

    def _require_control(self, actor: Actor, side: str, what: str) -> None:
        if not self.controls(actor, side):
            raise IllegalAction(f"only {self.side(side)['name']}'s player or the GM can {what}")

    def _held(self, data: Holder) -> str:
        return side_of(data.side)

    def holder(self, key: str) -> dict[str, Any]:
        return self.side(side_of(key))

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

    def _keys(self) -> list[tuple[str, str]]:
        return [(side, self.side(side)["name"]) for side in SIDES]

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
