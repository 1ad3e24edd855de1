"""How a contest is played at the live table, from framing to consequences (issue 6).

Pure Python like the rules engine it drives (no Django here): a `TableFlow` holds the
table-level state of one contest (who uses which ability, modifiers, augments, pending
rolls, hero point decisions, the engine's long-contest machine, suggested consequences)
and changes only through `apply(action, data, actor, roller)`. Every action is checked
for who may do it and whether the contest's phase allows it, and raises
`IllegalAction`/`RulesError` with a readable message otherwise.

Rolling actions write the dice they rolled back into `data`, so the service can store
the completed `data` in the event and `replay` rebuilds the identical state from events.

Phases: preparing (abilities, tactics, modifiers, augments) -> rolled (results shown,
hero points may be spent) -> in a long contest back to preparing for the next round,
until the engine says the contest is over -> resolved (consequences suggested) ->
finished (the GM confirmed consequences and narration).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Self

from .rules import (
    BENEFIT_OF_VICTORY,
    CONSEQUENCE_OF_DEFEAT,
    DEFAULT_BID,
    ChainedContest,
    ExtendedContest,
    IllegalAction,
    Modifier,
    Rating,
    Result,
    RulesError,
    ScoredContest,
    augment_bonus,
    costly_automatic_victory,
    graduated_goals,
    hero_point_effect,
    is_clearly_inferior,
    pyrrhic_victory_consequence,
    quick_augment,
    resistance,
    rolled_augment,
    simple_contest,
    simple_odds,
    spend_hero_point,
    target_number,
)
from .rules.dice import check_roll
from .rules.odds import odds_summary

Roller = Callable[[], int]

SIDES = ("pc", "opponent")
LONG_KINDS = {"scored": ScoredContest, "extended": ExtendedContest, "chained": ChainedContest}
KINDS = ("simple", "automatic", *LONG_KINDS)
# Ways to frame a simple contest: §2.19.2 costly automatic victory, §2.18 graduated goals.
VARIANTS = ("normal", "costly", "graduated")
MODIFIER_KINDS = ("stretch", "situational", "flaw", "mob", "ganging_up", "other")
PLOT_AUGMENTS = (3, 6, 9, 20)  # §2.4.3
MAX_TEXT = 300


@dataclass(frozen=True)
class Actor:
    """Who is acting: their user id, role at the table, and the characters they play."""

    user_id: int
    role: str  # "gm", "player" or "spectator"
    character_ids: frozenset[int] = field(default_factory=frozenset)

    @property
    def is_gm(self) -> bool:
        return self.role == "gm"


def _text(data: dict[str, Any], key: str, *, required: bool = False, limit: int = MAX_TEXT) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise RulesError(f"{key} must be text")
    value = value.strip()
    if required and not value:
        raise RulesError(f"{key} is required")
    if len(value) > limit:
        raise RulesError(f"{key} is too long ({len(value)} characters; at most {limit})")
    return value


def _int(data: dict[str, Any], key: str, *, default: int | None = None) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{key} must be a whole number")
    return value


def _side(data: dict[str, Any], key: str = "side") -> str:
    side = data.get(key)
    if side not in SIDES:
        raise RulesError(f"{key} must be 'pc' or 'opponent'")
    return side


def _roll(data: dict[str, Any], key: str, roller: Roller) -> int:
    """The roll stored under `key`, rolling (and storing) it when there is none yet."""
    if key not in data:
        data[key] = roller()
    try:
        return check_roll(data[key])
    except ValueError as error:
        raise RulesError(f"{key}: {error}") from None


class BaseFlow(ABC):
    """What every flow shares: a JSON state, replay from events, and `apply`, which
    refuses spectators and leaves the state unchanged when an action fails.

    A subclass builds its state in `frame(data)` and defines one `_do_<action>(data,
    actor, roller)` per action, returning the event payload. The actions both the
    one-on-one and the group table take (modifier lines, augments, physical dice, the
    reveal of hidden GM rolls, narration) live here, on the side or participant that
    the subclass's `_holder` reads from the action's data.
    """

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = state

    def to_json(self) -> dict[str, Any]:
        return copy.deepcopy(self.state)

    @classmethod
    def from_json(cls, state: dict[str, Any]) -> Self:
        return cls(copy.deepcopy(state))

    @classmethod
    def replay(cls, framing: dict[str, Any], events: Iterable[tuple[str, dict, Actor]]) -> Self:
        """Rebuild a contest from its framing and its recorded (action, data, actor)."""
        flow = cls.frame(framing)  # type: ignore[attr-defined]

        def no_dice() -> int:
            raise RulesError("a recorded action is missing its roll")

        for action, data, actor in events:
            flow.apply(action, copy.deepcopy(data), actor, no_dice)
        return flow  # type: ignore[return-value]

    @property
    def kind(self) -> str:
        return self.state["kind"]

    @property
    def phase(self) -> str:
        return self.state["phase"]

    def apply(
        self, action: str, data: dict[str, Any], actor: Actor, roller: Roller
    ) -> dict[str, Any]:
        """Perform one action; returns the event payload (summary, rolls, totals...).

        Raises IllegalAction (not allowed now or not yours) or RulesError (bad input),
        leaving the flow unchanged.
        """
        handler = getattr(self, f"_do_{action}", None) if action.isidentifier() else None
        if handler is None:
            raise RulesError(f"unknown action {action!r}")
        if actor.role == "spectator":
            raise IllegalAction("spectators watch; they cannot act in a contest")
        saved = copy.deepcopy(self.state)
        try:
            payload = handler(data, actor, roller)
        except Exception:
            self.state = saved
            raise
        return payload

    def _require_phase(self, *phases: str) -> None:
        if self.phase not in phases:
            names = {
                "preparing": "before the roll",
                "rolled": "after the roll, before it is resolved",
                "resolved": "once the contest is decided",
                "finished": "after the contest",
            }
            allowed = " or ".join(names[p] for p in phases)
            raise IllegalAction(
                f"that can only be done {allowed}; the contest is {names[self.phase]}"
            )

    def _require_gm(self, actor: Actor, what: str) -> None:
        if not actor.is_gm:
            raise IllegalAction(f"only the GM can {what}")

    def _do_narrate(self, data: dict, actor: Actor, roller: Roller) -> dict:
        self._require_gm(actor, "narrate the outcome")
        self._require_phase("resolved", "finished")
        self.state["narration"] = _text(data, "narration", required=True)
        return {"summary": self.state["narration"]}

    # -- shared by the one-on-one and group flows, for the side or participant an action
    # names: target numbers, modifiers, augments, physical dice and hidden GM rolls ---------

    @property
    @abstractmethod
    def is_long(self) -> bool:
        """Whether the contest runs through an engine machine over rounds (§5)."""

    @abstractmethod
    def _holder(self, data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The side (one-on-one) or participant (group) an action names: the key that
        `_require_control` takes, and its record (name, rating, states, modifiers,
        augments, entered_roll)."""

    @abstractmethod
    def _require_control(self, actor: Actor, key: str, what: str) -> Any:
        """Refuse unless `actor` plays (or, as the GM, runs) the side or participant."""

    @abstractmethod
    def _gm_rolls_for(self, key: str) -> bool:
        """Whether this side's or participant's rolls are the GM's, hidden from the
        players until revealed (campaign option roll visibility "gm_hidden")."""

    @abstractmethod
    def _reveal_text(self, pending: dict[str, Any]) -> str:
        """The log line when the GM shows the hidden dice of the pending roll."""

    @abstractmethod
    def _check_modifier(self, key: str, record: dict[str, Any], line: dict[str, Any]) -> None:
        """Refuse a modifier line (added or removed) that the contest cannot apply."""

    @staticmethod
    def _target_of(record: dict[str, Any]) -> Any:
        """A side's or participant's target number now (§2.11, R9): rating, modifier
        lines, augments and states; None without a rating yet."""
        if record.get("rating") is None:
            return None
        # A mob or ganging-up adjusts the resistance (§2.14, §2.15): the GM puts it on
        # the side it applies to, so it adds like any other modifier line.
        modifiers = [
            Modifier(
                m["label"],
                value=m["value"],
                bumps=m["bumps"],
                kind=m["kind"] if m["kind"] in ("stretch", "situational", "flaw") else "other",
            )
            for m in record.get("modifiers", [])
        ]
        return target_number(
            record["rating"],
            modifiers=modifiers,
            augments=[a["bonus"] for a in record.get("augments", []) if a["bonus"]],
            states=record.get("states", []),
        )

    @staticmethod
    def _lapse_situational(records: Iterable[dict[str, Any]]) -> None:
        """At the end of a round of a long contest situational modifiers lapse (R9)."""
        for record in records:
            record["modifiers"] = [
                m for m in record.get("modifiers", []) if m["kind"] != "situational"
            ]

    def _do_modifier(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The GM adds a modifier line to a side or participant (§2.11-2.15, R9);
        a situational one lasts one round of a long contest."""
        self._require_gm(actor, "set modifiers")
        self._require_phase("preparing")
        key, record = self._holder(data)
        kind = data.get("kind", "other")
        if kind not in MODIFIER_KINDS:
            raise RulesError(f"modifier kind must be one of {', '.join(MODIFIER_KINDS)}")
        value, bumps = _int(data, "value", default=0), _int(data, "bumps", default=0)
        if not -40 <= value <= 40 or not -3 <= bumps <= 3:
            raise RulesError("a modifier is at most ±40 and ±3 bumps")
        if value == 0 and bumps == 0:
            raise RulesError("a modifier must change the value or give a bump")
        label = _text(data, "label", limit=80) or kind.replace("_", " ")
        line = {"label": label, "value": value, "bumps": bumps, "kind": kind}
        self._check_modifier(key, record, line)
        record["modifiers"].append(line)
        return {
            "summary": f"{label} {value:+d} to {record['name']}"
            + (f", {bumps:+d} bump" if bumps else "")
        }

    def _do_remove_modifier(self, data: dict, actor: Actor, roller: Roller) -> dict:
        self._require_gm(actor, "remove modifiers")
        self._require_phase("preparing")
        key, record = self._holder(data)
        index = _int(data, "index")
        modifiers = record["modifiers"]
        if not 0 <= index < len(modifiers):
            raise RulesError("there is no such modifier")
        self._check_modifier(key, record, modifiers[index])
        removed = modifiers.pop(index)
        return {"summary": f"{removed['label']} removed from {record['name']}"}

    def _do_augment(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """An augment to a side or participant before the contest (§2.4, R8): rolled,
        quick or plot."""
        self._require_phase("preparing")
        if self.is_long and self.state["machine"] is not None:
            raise IllegalAction("augments come before the contest starts (§2.4)")
        key, info = self._holder(data)
        kind = data.get("kind")
        helper = _text(data, "helper", limit=120) or info["name"]
        ability = _text(data, "ability", limit=120)
        if kind == "plot":
            self._require_gm(actor, "give a plot augment")
            bonus = _int(data, "bonus")
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
            # R8: one own augment per contest; after a failed attempt no other own attempt.
            # A required use of a community resource allows one more own augment (§8.2.1).
            allowed = info.get("own_augments_allowed", 1) if own else 1
            earlier_tries = [
                a for a in info["augments"] if a["kind"] != "plot" and a["helper"] == helper
            ]
            failed_before = any(a["bonus"] <= 0 for a in earlier_tries)
            if earlier_tries and (len(earlier_tries) >= allowed or failed_before):
                raise IllegalAction(f"{helper} has already tried to augment this contest (§2.4)")
            rating = Rating.parse(data.get("rating"))
            if kind == "quick":
                bonus = quick_augment(rating, rounding=data.get("rounding", "down"))
                entry = {"kind": "quick", "helper": helper, "ability": ability, "bonus": bonus}
            else:
                roll = _roll(data, "roll", roller)
                resistance_roll = _roll(data, "resistance_roll", roller)
                # A group contest knows the campaign's base resistance from its framing.
                base = self.state.get("base_resistance") or _int(
                    data, "base_resistance", default=14
                )
                outcome = rolled_augment(
                    rating, roll, resistance_roll, base=base, better_roll=self.state["better_roll"]
                )
                bonus = augment_bonus(outcome)
                entry = {
                    "kind": "rolled",
                    "helper": helper,
                    "ability": ability,
                    "bonus": bonus,
                    "roll": roll,
                    "resistance_roll": resistance_roll,
                    "tn": str(rating),
                    "resistance": str(resistance("moderate", base)),
                }
        else:
            raise RulesError("augment kind must be 'rolled', 'quick' or 'plot'")
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

    def _do_enter_roll(self, data: dict, actor: Actor, roller: Roller) -> dict:
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

    def hides_gm_roll(self, audience: str) -> bool:
        """Whether `audience` must not yet see the GM's dice of the pending roll."""
        pending = self.state.get("pending")
        return audience != "gm" and bool(pending) and not pending.get("revealed", True)

    @staticmethod
    def _roll_payload(summary: str, rolls: list[dict[str, Any]], secret: str) -> dict[str, Any]:
        """A roll's event payload. While any of `rolls` is a hidden GM roll (marked
        `hidden`), players and the archive read `secret` and the GM `gm_summary`."""
        if not any(row.get("hidden") for row in rolls):
            return {"summary": summary, "rolls": rolls}
        return {"summary": secret, "gm_summary": summary, "rolls": rolls}

    def _do_reveal(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The GM shows a hidden roll (campaign option: GM rolls hidden until revealed)."""
        self._require_gm(actor, "reveal the GM's roll")
        self._require_phase("rolled")
        pending = self.state["pending"]
        if pending.get("revealed", True):
            raise IllegalAction("the GM's roll is already shown")
        pending["revealed"] = True
        return {"summary": self._reveal_text(pending)}


class TableFlow(BaseFlow):
    """One contest at the table. Build it with `frame(...)`, change it with `apply`."""

    # -- building ---------------------------------------------------------------

    @classmethod
    def frame(cls, data: dict[str, Any]) -> TableFlow:
        """A new contest from the GM's framing (validated, §2.3.2).

        `data`: kind, prize, obstacle, better_roll, pc {name, character_id, player_id,
        ability, rating, states}, opponent {name, rating, character_id?, player_id?,
        ability?, states?}, stakes (scored: rising_action/climax).
        """
        kind = data.get("kind")
        if kind not in KINDS:
            raise RulesError(f"unknown contest type {kind!r}; choose one of {', '.join(KINDS)}")
        better_roll = data.get("better_roll", "high")
        if better_roll not in ("high", "low"):
            raise RulesError("better_roll must be 'high' or 'low'")
        variant = data.get("variant") or "normal"
        if variant not in VARIANTS or (variant != "normal" and kind != "simple"):
            raise RulesError(f"variant must be one of {', '.join(VARIANTS)}, for a simple contest")
        stakes = data.get("stakes", "rising_action")
        if stakes not in ("rising_action", "climax"):
            raise RulesError("stakes must be 'rising_action' or 'climax'")
        sides = {side: cls._read_side(data.get(side), side) for side in SIDES}
        if sides["opponent"]["player_id"] is None and kind == "simple":
            sides["opponent"]["ability"] = sides["opponent"]["ability"] or "Resistance"
        state = {
            "kind": kind,
            # Campaign options (issue 5): physical dice, hidden GM rolls, mechanical states.
            "physical_dice": bool(data.get("physical_dice", False)),
            "hide_gm_rolls": bool(data.get("hide_gm_rolls", False))
            and sides["opponent"]["character_id"] is None,
            "apply_consequences": bool(data.get("apply_consequences", True)),
            "variant": variant,
            "secondary_prize": _text(data, "secondary_prize"),
            "prize": _text(data, "prize"),
            "obstacle": _text(data, "obstacle"),
            "better_roll": better_roll,
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
        return cls(state)

    @staticmethod
    def _read_side(raw: Any, side: str) -> dict[str, Any]:
        if not isinstance(raw, dict):
            raise RulesError(f"the {side} side is missing")
        name = _text(raw, "name", required=True, limit=120)
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
            "ability": _text(raw, "ability", limit=120),
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

    # -- reading ------------------------------------------------------------------

    @property
    def is_long(self) -> bool:
        return self.kind in LONG_KINDS

    def side(self, side: str) -> dict[str, Any]:
        return self.state["sides"][side]

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

    def target(self, side: str) -> Any:
        """The side's target number now (§2.11, R9): rating, modifiers, augments, states."""
        return self._target_of(self.side(side))

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

    # -- acting -------------------------------------------------------------------

    def _require_control(self, actor: Actor, side: str, what: str) -> None:
        if not self.controls(actor, side):
            raise IllegalAction(f"only {self.side(side)['name']}'s player or the GM can {what}")

    def _holder(self, data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        side = _side(data)
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

    def _do_choose_ability(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """A player picks the ability (and its rating and states, from the sheet)."""
        self._require_phase("preparing")
        side = _side(data)
        self._require_control(actor, side, "choose their ability")
        if self.is_long and self.state["machine"] is not None:
            raise IllegalAction("the contest has started; switch abilities with the GM's agreement")
        info = self.side(side)
        info["ability"] = _text(data, "ability", required=True, limit=120)
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
        rating, tn = Rating(info["rating"]), self.target(side).rating
        return {"summary": f"{info['name']} uses {info['ability']} ({rating}); TN {tn}"}

    def _do_set_tactic(self, data: dict, actor: Actor, roller: Roller) -> dict:
        self._require_phase("preparing")
        side = _side(data)
        self._require_control(actor, side, "describe their tactic")
        info = self.side(side)
        info["tactic"] = _text(data, "tactic", required=True)
        round_tactic = data.get("round_tactic", "normal")
        allowed = {
            "scored": ("normal", "risky_gambit", "defensive", "asymmetrical", "disengage"),
            "chained": ("normal", "disengage"),
        }.get(self.kind, ("normal",))
        if round_tactic not in allowed:
            raise RulesError(
                f"round_tactic must be one of {', '.join(allowed)} in a {self.kind} contest"
            )
        info["round_tactic"] = round_tactic
        return {"summary": f"{info['name']}: {info['tactic']}"}

    def _do_bid(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The acting side's bid in an extended contest (§5.3.1, R13: default 3)."""
        self._require_phase("preparing")
        if self.kind != "extended":
            raise IllegalAction("bids belong to extended contests")
        turn = self._machine().turn if self.state["machine"] else "pc"
        self._require_control(actor, turn, "bid: it is their turn to act")
        bid = _int(data, "bid")
        if self.state["machine"]:
            limit = self._machine().bid_limit(turn)
        else:
            limit = self.target(turn).rating.total
        if not 1 <= bid <= limit:
            raise RulesError(f"a bid is 1 to {limit} AP for {self.side(turn)['name']}; not {bid}")
        self.state["bid"] = bid
        return {"summary": f"{self.side(turn)['name']} bids {bid} AP"}

    def _bid(self) -> int:
        """The acting side's bid: as bid, else the default 3, but never more than the
        resistance has (R13)."""
        if "bid" in self.state:
            return self.state["bid"]
        machine = self._machine()
        return max(1, min(DEFAULT_BID, machine.bid_limit(machine.turn)))

    def _do_roll(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The GM calls for the roll: both sides roll d20 (§4.1.1 step 4)."""
        self._require_gm(actor, "call for the roll")
        self._require_phase("preparing")
        if self.kind == "automatic":
            raise IllegalAction("an automatic victory needs no roll")
        for side in SIDES:
            if self.side(side)["rating"] is None:
                raise IllegalAction(f"{self.side(side)['name']} has no ability or rating yet")
        if self.is_long and self.state["machine"] is None:
            self._start_machine()
        for side in SIDES:
            self._use_entered_roll(self.side(side), data, f"{side}_roll")
        bid = self._bid() if self.kind == "extended" else None
        return self._pend(data, roller, bid=bid)

    def _pend(self, data: dict, roller: Roller, **extra: Any) -> dict:
        """Both sides roll; the results wait in `pending` for hero points and `resolve`.
        `extra` names what is rolled for (an extended contest's bid, a parting shot...)."""
        pc_roll = _roll(data, "pc_roll", roller)
        opponent_roll = _roll(data, "opponent_roll", roller)
        outcome = self._simple_outcome(pc_roll, opponent_roll)
        self.state["pending"] = {
            **extra,
            "pc_roll": pc_roll,
            "opponent_roll": opponent_roll,
            "pc_hero_point": False,
            "opponent_hero_point": False,
            "outcome": _outcome_json(outcome),
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

    # -- extended contests: the actions besides an exchange (§5.3.4, §5.3.7-§5.3.11) ----

    def _extended_turn(self, data: dict, actor: Actor, what: str) -> str:
        """The side taking its turn with something other than an exchange; starts the
        engine's contest when this is the first turn (AP are figured from the TNs)."""
        self._require_phase("preparing")
        if self.kind != "extended":
            raise IllegalAction(f"{what} belongs to extended contests")
        side = _side(data)
        self._require_control(actor, side, what)
        if self.state["machine"] is None:
            for each in SIDES:
                if self.side(each)["rating"] is None:
                    raise IllegalAction(f"{self.side(each)['name']} has no ability or rating yet")
            self._start_machine()
        turn = self._machine().turn
        if side != turn:
            raise IllegalAction(
                f"it is {self.side(turn)['name']}'s turn: {what} takes the side's own turn"
            )
        return side

    def _do_unrelated_action(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """Give up this turn's exchange to do something else (§5.3.7); any roll it
        needs is a simple contest of its own."""
        side = self._extended_turn(data, actor, "take an unrelated action")
        description = _text(data, "description")
        machine = self._machine()
        machine.unrelated_action(side=side, description=description)
        self.state["machine"] = machine.to_json()
        self._end_turn()
        name = self.side(side)["name"]
        return {
            "summary": f"{name} gives up the exchange"
            + (f": {description}" if description else ""),
            "totals": self._totals(machine),
            "totals_kind": "AP",
        }

    def _do_disengage(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """Try to leave the contest, as the side's turn (§5.3.9): both roll; after
        hero points, `resolve` settles it (a victory ends the contest with no winner,
        a defeat hands AP to the other side)."""
        side = self._extended_turn(data, actor, "disengage")
        return self._pend(data, roller, action="disengage", actor=side)

    def _do_parting_shot(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The winner acts once more right after the exchange that decided the contest
        (§5.3.4): both roll; `resolve` plays it, and a failure may revive the loser."""
        self._require_phase("resolved")
        machine = self._machine() if self.kind == "extended" and self.state["machine"] else None
        shooter = machine.parting_shot_by if machine else None
        if shooter is None:
            raise IllegalAction(
                "a parting shot is for the winner of an extended contest, right after the "
                "exchange that decided it (§5.3.4)"
            )
        self._require_control(actor, shooter, "take the parting shot")
        bid = _int(data, "bid", default=max(1, min(DEFAULT_BID, machine.bid_limit(shooter))))
        if not 1 <= bid <= machine.bid_limit(shooter):
            raise RulesError(f"a bid is 1 to {machine.bid_limit(shooter)} AP; not {bid}")
        return self._pend(data, roller, action="parting_shot", actor=shooter, bid=bid)

    def _do_gift(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """A character outside the contest tries to raise a side's AP (§5.3.11): they
        bid at most their rating and roll against twice the bid. Takes no one's turn."""
        self._require_phase("preparing")
        if self.kind != "extended" or self.state["machine"] is None:
            raise IllegalAction("AP gifts go to a side of an extended contest under way")
        recipient = _side(data, "recipient")
        helper_id = data.get("helper_character_id")
        if helper_id is not None and helper_id in {self.side(s)["character_id"] for s in SIDES}:
            raise IllegalAction("only a character outside the contest gives AP (§5.3.11)")
        if helper_id is None:
            self._require_gm(actor, "give AP for someone without a character sheet")
        elif not (actor.is_gm or helper_id in actor.character_ids):
            raise IllegalAction("only the giver's player or the GM can offer that gift")
        helper = _text(data, "helper", required=True, limit=120)
        ability = _text(data, "ability", limit=120)
        roll = _roll(data, "roll", roller)
        resistance_roll = _roll(data, "resistance_roll", roller)
        machine = self._machine()
        entry = machine.gift(
            recipient=recipient,
            rating=data.get("rating"),
            bid=_int(data, "bid", default=DEFAULT_BID),
            roll=roll,
            resistance_roll=resistance_roll,
        )
        self.state["machine"] = machine.to_json()
        name = self.side(recipient)["name"]
        gainers = [
            f"{self.side(side)['name']} gains {points} AP"
            for side, points in entry["change"].items()
            if points
        ]
        return {
            "summary": f"{helper} gives {name} AP"
            + (f" with {ability}" if ability else "")
            + f": bid {entry['bid']}, {entry['outcome']}; "
            + (", ".join(gainers) or "nothing changes"),
            "rolls": [
                {
                    "who": helper,
                    "ability": ability,
                    "tn": entry["tn"],
                    "roll": roll,
                    "result": entry["result"],
                },
                {
                    "who": "the resistance",
                    "tn": entry["resistance"],
                    "roll": resistance_roll,
                    "result": entry["resistance_result"],
                },
            ],
            "totals": self._totals(machine),
            "totals_kind": "AP",
        }

    def _end_turn(self) -> None:
        """After a turn or round: one-round modifiers and tactics lapse (R9)."""
        self.state["round"] += 1
        self._lapse_situational(self.side(side) for side in SIDES)
        for side in SIDES:
            self.side(side)["round_tactic"] = "normal"
        self.state.pop("bid", None)

    def _do_hero_point(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """Spend a hero point to raise one's own result a step (§2.3.5.5, R5.3)."""
        self._require_phase("rolled")
        side = _side(data)
        self._require_control(actor, side, "spend their hero point")
        if self.side(side)["character_id"] is None:
            raise IllegalAction("only player characters spend hero points")
        pending = self.state["pending"]
        key = f"{side}_hero_point"
        if pending[key]:
            raise IllegalAction("one hero point per roll (R5.3)")
        before = self._simple_outcome(pending["pc_roll"], pending["opponent_roll"], pending=pending)
        result = before.pc_result if side == "pc" else before.opponent_result
        if result is Result.CRITICAL:
            raise IllegalAction(
                "a hero point cannot raise a critical: the result is already the best"
            )
        pending[key] = True
        after = self._simple_outcome(pending["pc_roll"], pending["opponent_roll"], pending=pending)
        pending["outcome"] = _outcome_json(after)
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

    def _do_pyrrhic(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The PC fights for a pyrrhic victory (§2.17, R11): a bump up now, a state of
        adversity at the end whatever happens."""
        self._require_phase("preparing")
        self._require_control(actor, "pc", "choose a pyrrhic victory")
        if self.state.get("pyrrhic"):
            raise IllegalAction("this contest is already fought for a pyrrhic victory")
        if self.is_long and self.state["machine"] is not None:
            raise IllegalAction("a pyrrhic victory is chosen before the contest starts (§2.17)")
        self.state["pyrrhic"] = True
        self.side("pc")["modifiers"].append(
            {"label": "pyrrhic victory", "value": 0, "bumps": 1, "kind": "other"}
        )
        return {"summary": f"{self.side('pc')['name']} fights for a pyrrhic victory: a bump up"}

    def _do_automatic_victory(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """An automatic victory (§2.3.1): no roll; the PC overcomes the obstacle."""
        self._require_gm(actor, "grant an automatic victory")
        self._require_phase("preparing")
        if self.kind != "automatic":
            raise IllegalAction("frame an automatic victory to grant one")
        self.state["outcome"] = {"winner": "pc", "degree": None, "automatic": True}
        self.state["phase"] = "resolved"
        self.state["suggested"] = []
        return {"summary": f"{self.side('pc')['name']} overcomes it: an automatic victory"}

    def _do_escalate(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """Continue a decided simple contest as round one of a scored or chained contest
        (§2.8.2), before its consequences are applied."""
        self._require_gm(actor, "escalate the contest")
        self._require_phase("resolved")
        into = data.get("into")
        if self.kind != "simple" or self.state["variant"] != "normal":
            raise IllegalAction("only a plain simple contest escalates (§2.8.2)")
        if into not in ("scored", "chained"):
            raise RulesError("a simple contest escalates into a scored or chained contest")
        last = self.state["rounds"][-1]
        outcome = self._simple_outcome(last["pc_roll"], last["opponent_roll"], pending=last)
        pc, opponent = self.target("pc"), self.target("opponent")
        setup: dict[str, Any] = {
            "pc": pc.rating.total,
            "opponent": opponent.rating.total,
            "better_roll": self.state["better_roll"],
            "opponent_is_pc": self.side("opponent")["character_id"] is not None,
        }
        if into == "scored":
            setup.update(
                pc_name=self.side("pc")["name"], opponent_name=self.side("opponent")["name"]
            )
        machine = LONG_KINDS[into].escalate(outcome, **setup)
        self.state.update(kind=into, machine=machine.to_json(), outcome=None, suggested=[])
        self.state["start_tn"] = {"pc": pc.rating.total, "opponent": opponent.rating.total}
        self.state["round"] = 2
        if machine.is_over:
            self._decide_long(machine)
        else:
            self.state["phase"] = "preparing"
        return {
            "summary": f"The contest escalates into a {into} contest; round one was the "
            f"{outcome.describe}",
            "totals": self._totals(machine),
            "totals_kind": "RP" if into == "scored" else "state",
        }

    def _do_resolve(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The GM settles the roll: a simple contest is decided; a long contest plays
        the round through the engine and goes on until the engine says it is over."""
        self._require_gm(actor, "resolve the roll")
        self._require_phase("rolled")
        pending = self.state["pending"]
        pending["revealed"] = True
        if not self.is_long:
            outcome = self._simple_outcome(
                pending["pc_roll"], pending["opponent_roll"], pending=pending
            )
            self.state["outcome"] = _outcome_json(outcome)
            # The rolls' rows say who spent a hero point: read them while it is pending.
            rolls = self._rolls_json(outcome)
            self.state["rounds"].append(pending)
            self.state["pending"] = None
            self._decide(outcome.winner, outcome.degree)
            self._apply_variant(outcome.level)
            return {"summary": f"{self.side('pc')['name']}: {outcome.describe}", "rolls": rolls}
        machine = self._machine()
        entry = self._play_machine_round(machine, pending)
        self.state["machine"] = machine.to_json()
        self.state["rounds"].append({**pending, "entry": _jsonable(entry)})
        self.state["pending"] = None
        self._end_turn()
        totals = self._totals(machine)
        payload = {
            "summary": f"Round {self.state['round'] - 1}: "
            + ", ".join(f"{k} {v}" for k, v in totals.items()),
            "totals": totals,
            "totals_kind": "AP"
            if self.kind == "extended"
            else ("RP" if self.kind == "scored" else "state"),
        }
        if machine.is_over:
            self._decide_long(machine)
            if self.kind == "extended" and machine.ended_by == "disengaged":
                self.state["outcome"]["disengaged"] = machine.disengaged
            self._apply_variant(self.level_for_pc() or 0)
        else:
            # A failed parting shot can bring the loser back (§5.3.4): play goes on.
            self.state.update(phase="preparing", outcome=None, suggested=[])
        return payload

    def _do_apply_consequences(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The GM confirms (or edits) the suggested consequences and benefits (§2.11)."""
        self._require_gm(actor, "confirm consequences")
        self._require_phase("resolved")
        chosen = data.get("consequences")
        edited = data.get("edit")
        if isinstance(edited, dict):
            # The GM's edit from the form: {"pc": "hurt", "opponent": ""} ("" is none).
            chosen = [
                {"side": side, "state": state}
                for side, state in edited.items()
                if side in SIDES and state and self.side(side)["character_id"] is not None
            ]
        if chosen is None:
            chosen = self.state["suggested"]
        if not isinstance(chosen, list):
            raise RulesError("consequences must be a list")
        applied = []
        for item in chosen:
            if not isinstance(item, dict) or item.get("side") not in SIDES:
                raise RulesError("each consequence names a side")
            state = item.get("state")
            if state not in {s.value for s in CONSEQUENCE_OF_DEFEAT.values()} | {
                s.value for s in BENEFIT_OF_VICTORY.values()
            } | {"dead"}:
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
        narration = _text(data, "narration")
        if narration:
            self.state["narration"] = narration
        listed = (
            "; ".join(f"{self.side(a['side'])['name']} {a['state']}" for a in applied) or "none"
        )
        return {"summary": f"Consequences: {listed}", "applied": applied}

    # -- helpers ------------------------------------------------------------------

    def _simple_outcome(self, pc_roll: int, opponent_roll: int, pending: dict | None = None) -> Any:
        pc, opponent = self.target("pc"), self.target("opponent")
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
                outcome = spend_hero_point(outcome, side="pc")
            if pending["opponent_hero_point"]:
                outcome = spend_hero_point(outcome, side="opponent")
        return outcome

    def hero_point_offer(self, audience: str = "gm") -> str | None:
        """What the PC's hero point would do to the pending roll, in words; while the
        GM's roll is hidden, players learn only that it raises their result."""
        pending = self.state.get("pending")
        if self.phase != "rolled" or not pending or pending["pc_hero_point"]:
            return None
        outcome = self._simple_outcome(pending["pc_roll"], pending["opponent_roll"], pending)
        if outcome.pc_result is Result.CRITICAL:
            return None
        if not pending.get("revealed", True) and audience != "gm":
            return "raises your result one step"
        return hero_point_effect(outcome)

    def _rolls_json(self, outcome: Any) -> list[dict[str, Any]]:
        rows = []
        for side, roll, result in (
            ("pc", outcome.pc_roll, outcome.pc_result),
            ("opponent", outcome.opponent_roll, outcome.opponent_result),
        ):
            info, tn = self.side(side), self.target(side)
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

    def _start_machine(self) -> None:
        pc, opponent = self.target("pc"), self.target("opponent")
        setup: dict[str, Any] = {
            "pc": pc.rating.total,
            "opponent": opponent.rating.total,
            "better_roll": self.state["better_roll"],
        }
        if self.kind == "scored":
            setup.update(
                pc_name=self.side("pc")["name"],
                opponent_name=self.side("opponent")["name"],
                stakes=self.state["stakes"],
                opponent_is_pc=self.side("opponent")["character_id"] is not None,
            )
        elif self.kind == "chained":
            setup["opponent_is_pc"] = self.side("opponent")["character_id"] is not None
        elif self.kind == "extended":
            setup["pc_bumps"] = pc.bumps
        machine = LONG_KINDS[self.kind](**setup)
        self.state["machine"] = machine.to_json()
        # Later rounds' situational modifiers are the change from these TNs (R9).
        self.state["start_tn"] = {"pc": pc.rating.total, "opponent": opponent.rating.total}

    def _machine(self) -> Any:
        return LONG_KINDS[self.kind].from_json(self.state["machine"])

    def _play_machine_round(self, machine: Any, pending: dict) -> Any:
        """Play the pending roll as the engine's next round or exchange (§5)."""
        change = {
            side: self.target(side).rating.total - self.state["start_tn"][side] for side in SIDES
        }
        rolls = {"pc_roll": pending["pc_roll"], "opponent_roll": pending["opponent_roll"]}
        hero_points = {
            "pc_hero_point": pending["pc_hero_point"],
            "opponent_hero_point": pending["opponent_hero_point"],
        }
        tactic = {side: self.side(side)["round_tactic"] for side in SIDES}
        if self.kind == "scored":
            return machine.play_round(
                **rolls,
                **hero_points,
                pc_tactic=tactic["pc"],
                opponent_tactic=tactic["opponent"],
                pc_modifier=change["pc"],
                opponent_modifier=change["opponent"],
            )
        if self.kind == "chained":
            return machine.play_round(
                **rolls,
                **hero_points,
                pc_modifier=change["pc"],
                opponent_modifier=change["opponent"],
                pc_disengages=tactic["pc"] == "disengage",
                opponent_disengages=tactic["opponent"] == "disengage",
            )
        action = pending.get("action", "exchange")
        if action == "disengage":
            side = pending["actor"]
            return machine.disengage(
                side=side,
                roll=pending[f"{side}_roll"],
                opponent_roll=pending[f"{_other_side(side)}_roll"],
                hero_point=pending["pc_hero_point"],
            )
        if action == "parting_shot":
            shooter = pending["actor"]
            return machine.parting_shot(
                actor_roll=pending[f"{shooter}_roll"],
                defender_roll=pending[f"{_other_side(shooter)}_roll"],
                bid=pending["bid"],
                hero_point=pending["pc_hero_point"],
                pc_modifier=change["pc"],
            )
        # Extended (§5.3.1): the side whose turn it is acts with its bid; the other defends.
        actor = machine.turn
        defender = "opponent" if actor == "pc" else "pc"
        return machine.exchange(
            actor=actor,
            actor_roll=pending[f"{actor}_roll"],
            defender_roll=pending[f"{defender}_roll"],
            bid=pending["bid"],
            hero_point=pending["pc_hero_point"],
            pc_modifier=change["pc"],
        )

    def _totals(self, machine: Any) -> dict[str, Any]:
        names = {side: self.side(side)["name"] for side in SIDES}
        if self.kind == "scored":
            return {names["pc"]: machine.pc_points, names["opponent"]: machine.opponent_points}
        if self.kind == "extended":
            return {names["pc"]: machine.pc_ap, names["opponent"]: machine.opponent_ap}
        state = machine.state()
        return {
            names["pc"]: state["pc_state"] or "unharmed",
            names["opponent"]: state["opponent_state"] or "unharmed",
        }

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

    def _decide_long(self, machine: Any) -> None:
        """The engine says a long contest is over. A chained contest's wounds landed as
        its rounds were played (§5.4): they are the consequences to confirm, a wounded
        winner's included (in place of a benefit of victory)."""
        self._decide(machine.winner, machine.degree)
        if self.kind != "chained" or not self.state["apply_consequences"]:
            return
        wounds = machine.consequences()
        earlier = {s["side"]: s for s in self.state["suggested"]}
        suggested = [
            {"side": side, "state": wounds[side]} if wounds[side] else earlier.get(side)
            for side in SIDES
        ]
        self.state["suggested"] = [
            s for s in suggested if s and self.side(s["side"])["character_id"] is not None
        ]

    def _apply_variant(self, level: int) -> None:
        """Costly automatic victory (§2.19.2), graduated goals (§2.18) and the pyrrhic
        victory's price (§2.17) adjust what a decided simple contest means."""
        outcome = self.state["outcome"]
        if self.state["variant"] == "costly":
            costly = costly_automatic_victory(level)
            outcome.update(winner="pc", costly=costly.describe)
            self.state["suggested"] = (
                [{"side": "pc", "state": costly.consequence.value}] if costly.consequence else []
            )
        elif self.state["variant"] == "graduated":
            outcome["goals"] = list(graduated_goals(level))
        if self.state.get("pyrrhic"):
            price = pyrrhic_victory_consequence(level).value
            outcome["pyrrhic"] = price
            self.state["suggested"] = [s for s in self.state["suggested"] if s["side"] != "pc"] + [
                {"side": "pc", "state": price}
            ]

    def level_for_pc(self) -> int | None:
        """+4 complete victory .. -4 complete defeat for the PC side; 0 a tie."""
        outcome = self.state.get("outcome")
        if not outcome or outcome.get("automatic"):
            return None
        if outcome["winner"] not in SIDES or not outcome["degree"]:
            return 0
        step = ("marginal", "minor", "major", "complete").index(outcome["degree"]) + 1
        return step if outcome["winner"] == "pc" else -step


def _other_side(side: str) -> str:
    return "opponent" if side == "pc" else "pc"


def _outcome_json(outcome: Any) -> dict[str, Any]:
    return {
        "winner": outcome.winner,
        "degree": outcome.degree,
        "pc_result": outcome.pc_result.label,
        "opponent_result": outcome.opponent_result.label,
        "describe": outcome.describe,
    }


def _jsonable(value: Any) -> Any:
    if hasattr(value, "_asdict"):
        return _jsonable(value._asdict())
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, Result):
        return value.label
    if isinstance(value, Rating):
        return str(value)
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


# Which flow plays which kind of contest. Group contests register their own flow class
# here; everything else (services, rendering, replay) asks `flow_class`.
FLOW_CLASSES: dict[str, type[BaseFlow]] = {kind: TableFlow for kind in KINDS}


def flow_class(kind: str) -> type[BaseFlow]:
    try:
        return FLOW_CLASSES[kind]
    except KeyError:
        raise RulesError(
            f"unknown contest type {kind!r}; choose one of {', '.join(FLOW_CLASSES)}"
        ) from None


def load_flow(state: dict[str, Any]) -> BaseFlow:
    """The flow of a stored contest state, whatever its kind."""
    return flow_class(state["kind"]).from_json(state)


def known_actions() -> frozenset[str]:
    """Every action any flow accepts (for refusing unknown ones early)."""
    return frozenset(
        name[4:]
        for cls in set(FLOW_CLASSES.values())
        for name in dir(cls)
        if name.startswith("_do_")
    )


# Imported last: the group flows build on everything above and register their kinds
# in FLOW_CLASSES (there, so importing either module first works).
from . import group_flows  # noqa: E402, F401
