"""A group contest's participants (issue 6): the framing that names them and sets
their sides, and who plays whom. `GroupFlow` (group.py) builds on it."""

from __future__ import annotations

from typing import Any, ClassVar

from ..actions.models import Holder
from ..rules import IllegalAction, Rating, RulesError, TargetNumber
from ..rules.extended_group import ORDER_RULES
from ..rules.scored_group import ROLES
from ..terms import GROUP_KINDS, MAX_NAME, MAX_SIDE
from .base import SIDES, Actor, read_int, read_rounding, read_text, required
from .offers import SharedOffers


def read_name(data: dict[str, Any], key: str) -> str:
    return read_text(data, key, required=True, limit=MAX_NAME)


class GroupFraming(SharedOffers):
    """The participants of a group contest, as framed and joined, and who plays them."""

    KINDS = GROUP_KINDS
    FREE_SIDES: ClassVar[bool] = False  # sides other than "pc"/"opponent" (extended)
    FOLLOWERS: ClassVar[bool] = False  # followers and secondary contestants (scored)

    # -- building ---------------------------------------------------------------

    @classmethod
    def _unknown_kind(cls, kind: Any) -> str:
        return f"unknown group contest {kind!r}; choose one of {', '.join(GROUP_KINDS)}"

    @classmethod
    def _build(cls, data: dict[str, Any]) -> dict[str, Any]:
        """A new group contest's state from the GM's framing.

        `data`: kind, prize, obstacle, better_roll, stakes (scored), order (extended:
        daring, bid or ap), base_resistance, the campaign options physical_dice,
        hide_gm_rolls and apply_consequences, pc_side (extended: the
        PCs' side label; "pc" otherwise), participants [{name, side, character_id?,
        player_id?, ability?, rating?, states?, role?, owner?}] and roster (the
        campaign's characters and abilities, for the forms).
        """
        better_roll = data.get("better_roll", "high")
        if better_roll not in ("high", "low"):
            raise RulesError("better_roll must be 'high' or 'low'")
        stakes = data.get("stakes") or "rising_action"
        if stakes not in ("rising_action", "climax"):
            raise RulesError("stakes must be 'rising_action' or 'climax'")
        order = data.get("order") or "daring"
        if order not in ORDER_RULES:
            raise RulesError(f"order must be one of {', '.join(ORDER_RULES)}")
        raw = data.get("participants")
        if not isinstance(raw, list) or not raw:
            raise RulesError("a group contest needs a list of participants")
        pc_side = read_text(data, "pc_side", limit=MAX_SIDE) or "pc"
        if not cls.FREE_SIDES and pc_side != "pc":
            raise RulesError("in a group simple or scored contest the PCs' side is 'pc'")
        state = {
            "kind": cls.KIND,
            # Campaign options (issue 5), as for the one-on-one table.
            "physical_dice": bool(data.get("physical_dice", False)),
            "hide_gm_rolls": bool(data.get("hide_gm_rolls", False)),
            "apply_consequences": bool(data.get("apply_consequences", True)),
            "prize": read_text(data, "prize"),
            "obstacle": read_text(data, "obstacle"),
            "better_roll": better_roll,
            "stakes": stakes,
            "order": order,
            "base_resistance": read_int(data, "base_resistance", default=14),
            "quick_augment_rounding": read_rounding(data),
            "pc_side": pc_side,
            "phase": "preparing",
            "round": 1,
            "participants": [],
            "sides": {},
            "boost": {"paid": []},
            "pending": None,
            "machine": None,
            "outcome": None,
            "suggested": [],
            "applied": [],
            "narration": "",
            "roster": list(data.get("roster") or []),
        }
        flow = cls(state)
        for entry in raw:
            flow._add_participant(entry)
        flow._check_framing()
        return flow.state

    def _add_participant(self, raw: Any) -> dict[str, Any]:
        if not isinstance(raw, dict):
            raise RulesError("each participant is an object with a name and a side")
        name = read_name(raw, "name")
        if any(p["name"] == name for p in self.participants):
            raise RulesError(f"two participants are called {name!r}; names must be unique")
        side = read_text(raw, "side", limit=MAX_SIDE) or (
            self.state["pc_side"] if raw.get("character_id") else "opponent"
        )
        if not self.FREE_SIDES and side not in SIDES:
            raise RulesError(f"{name}'s side must be 'pc' or 'opponent'")
        for key in ("character_id", "player_id"):
            value = raw.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise RulesError(f"{key} must be a whole number")
        rating = raw.get("rating")
        states = raw.get("states", [])
        if not isinstance(states, list) or not all(isinstance(s, str) for s in states):
            raise RulesError(f"{name}'s states must be a list of state names")
        role = raw.get("role") or "contestant"
        if role not in ROLES or (role != "contestant" and not self.FOLLOWERS):
            raise RulesError(f"{name}'s role must be a contestant (followers: scored contests)")
        owner = read_text(raw, "owner", limit=MAX_NAME) or None
        if (owner is None) != (role == "contestant"):
            raise RulesError(f"{name}: followers name their owner, and only followers do")
        participant = {
            "name": name,
            "side": side,
            "character_id": raw.get("character_id"),
            "player_id": raw.get("player_id"),
            "ability": read_text(raw, "ability", limit=MAX_NAME),
            "ability_id": raw.get("ability_id"),
            "rating": None if rating in (None, "") else Rating.parse(rating).total,
            "states": list(states),
            "role": role,
            "owner": owner,
            "tactic": "",
            "round_tactic": "normal",
            "hero_points_spent": 0,
            "modifiers": [],
            "augments": [],
        }
        self.state["participants"].append(participant)
        self._refresh_sides()
        return participant

    def _check_framing(self) -> None:
        """What each kind needs, checked when framed rather than at the first roll."""
        raise NotImplementedError

    # -- reading ------------------------------------------------------------------

    @property
    def participants(self) -> list[dict[str, Any]]:
        participants: list[dict[str, Any]] = self.state["participants"]
        return participants

    def participant(self, name: Any) -> dict[str, Any]:
        for participant in self.participants:
            if participant["name"] == name:
                return participant
        raise IllegalAction(f"there is no participant named {name!r} in this contest")

    def side(self, side: str) -> dict[str, Any]:
        """Each side summed up, as the one-on-one table shows a side."""
        summed: dict[str, Any] = self.state["sides"][side]
        return summed

    @property
    def side_labels(self) -> list[str]:
        """The sides in play, in the participants' order (a free-for-all has more)."""
        return list(dict.fromkeys(p["side"] for p in self.participants))

    def target(self, side: str) -> None:
        return None  # each participant has their own TN: see `rows`

    def odds(self) -> None:
        return None  # no single pair of TNs to compare: see `coming_odds`

    def hero_point_offer(self, audience: str = "gm") -> None:
        return None  # one offer per participant: see `hero_point_offers`

    def participant_rows(self) -> list[dict[str, Any]]:
        """Who takes part, for the contest's participant records (and archive filters)."""
        return [
            {key: p[key] for key in ("character_id", "name", "side", "ability", "rating")}
            for p in self.participants
        ]

    def tn(self, participant: dict[str, Any]) -> TargetNumber | None:
        """A participant's target number now (§2.11, R9): rating, modifier lines,
        augments and the states on their ability; None without a rating yet."""
        return self._target_of(participant)

    def rated_tn(self, participant: dict[str, Any]) -> TargetNumber:
        """A participant's target number where they must have a rating (to roll)."""
        tn = self.tn(participant)
        if tn is None:
            raise IllegalAction(f"{participant['name']} has no ability or rating yet")
        return tn

    def controls(self, actor: Actor, name: str) -> bool:
        """The GM controls everyone; a player their characters and those characters'
        followers, and the giver of a pending AP gift their own roll."""
        if actor.is_gm:
            return True
        gifter = self._gifter(name)
        if gifter is not None:
            return actor.role == "player" and gifter in actor.character_ids
        participant = self.participant(name)
        owner = self._owner(participant) or participant
        return actor.role == "player" and owner["character_id"] in actor.character_ids

    # -- who plays whom ------------------------------------------------------------

    def _owner(self, participant: dict[str, Any]) -> dict[str, Any] | None:
        return self.participant(participant["owner"]) if participant["owner"] else None

    def _gifter(self, name: str) -> int | None:
        """The character of the pending AP gift's giver called `name` (§5.3.11): someone
        outside the contest, who may spend their own hero point on their roll."""
        return ((self.state.get("pending") or {}).get("gifters") or {}).get(name)

    def _payer(self, name: str) -> int | None:
        """The character whose hero points this participant spends (a follower uses its
        owner's, R5.3); None for the GM's participants."""
        gifter = self._gifter(name)
        if gifter is not None:
            return gifter
        participant = self.participant(name)
        owner = self._owner(participant) or participant
        character_id: int | None = owner["character_id"]
        return character_id

    def _player_for(self, name: str) -> int | None:
        """The user who plays `name` (a follower's owner's player), for their forms."""
        gifter = self._gifter(name)
        if gifter is not None:
            return next(
                (c["player_id"] for c in self.state["roster"] if c["character_id"] == gifter), None
            )
        participant = self.participant(name)
        player_id: int | None = (self._owner(participant) or participant)["player_id"]
        return player_id

    def _is_participant(self, name: Any) -> bool:
        return any(p["name"] == name for p in self.participants)

    def _require_control(self, actor: Actor, name: str, what: str) -> dict[str, Any] | None:
        """The participant, once `actor` may act for them (None for a gift's giver)."""
        if not self.controls(actor, name):
            raise IllegalAction(f"only {name}'s player or the GM can {what}")
        return None if self._gifter(name) is not None else self.participant(name)

    def _require_participant(self, actor: Actor, name: str, what: str) -> dict[str, Any]:
        """The participant `name`, once `actor` may act for them; a gift's giver, who
        is no participant, is refused like any other name outside the contest."""
        self._require_control(actor, name, what)
        return self.participant(name)

    def _held(self, data: Holder) -> str:
        return required(data.participant, "participant")

    def holder(self, key: str) -> dict[str, Any]:
        participant = self.participant(key)
        participant.setdefault("modifiers", [])  # contests framed before modifiers
        participant.setdefault("augments", [])
        return participant

    def _gm_rolls_for(self, key: str) -> bool:
        """Hidden GM rolls: those of participants no player plays and of resistances."""
        if not self.state.get("hide_gm_rolls"):
            return False
        return self._gifter(key) is None and (
            not self._is_participant(key) or self._payer(key) is None
        )

    def _refresh_sides(self) -> None:
        pc_side = self.state["pc_side"]
        for key in SIDES:
            members = [p for p in self.participants if (p["side"] == pc_side) == (key == "pc")]
            single = members[0] if len(members) == 1 else None
            self.state["sides"][key] = {
                "name": ", ".join(p["name"] for p in members)[:MAX_NAME] or key,
                "character_id": None,
                "player_id": None,
                "ability": single["ability"] if single else "",
                "rating": single["rating"] if single else None,
                "states": [],
                "tactic": "",
                "modifiers": [],
                "augments": [],
                "round_tactic": "normal",
                "hero_points_spent": sum(p["hero_points_spent"] for p in members),
            }
