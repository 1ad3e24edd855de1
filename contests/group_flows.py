"""Group contests at the live table (issue 6): several participants on a side.

`GroupFlow` plays the three group kinds with `TableFlow`'s interface (flows.py:
`frame`, `apply`, `replay`; phases preparing -> rolled -> resolved -> finished) over
the rules engine:

- group simple (§4.2, §4.5, R7): every PC against the one resistance, the GM rolling
  for each; outcome points are collated; a boost is bought before the roll with hero
  points from any mix of players.
- group scored (§5.2, R12) over `GroupScoredContest`: pairings and their rounds,
  round tactics, assists, unrelated actions, parting shots, followers, joining in
  progress.
- group extended (§5.3.3-§5.3.11, R13) over `GroupExtendedContest`: declarations and
  bids, the order of action, exchanges, AP lending and gifts, final actions,
  disengaging, parting shots.

Participants are named (names are unique within a contest); a participant a player
plays has a `character_id`; a follower (scored) names its `owner`. Each engine action
is one flow action. Its dice go through `_roll` into `data["dice"]`, so `replay` is
deterministic. When a player could spend a hero point on the roll (R5.3: after
seeing the results), the results wait in `pending` (phase "rolled") for `hero_point`
and the GM's `resolve`; a roll nobody can raise is played at once.

What the one-on-one table shares (flows.py `BaseFlow`) works per participant here:
modifier lines and augments in each participant's TN, physical dice entered for a
participant, and, with the campaign's GM rolls hidden, the dice of the participants no
player plays and of resistances left out for the players until `reveal` or `resolve`.
A long contest's engine takes each TN when it starts (or when someone joins or
switches abilities); later changes (a situational modifier lasting one round, R9) reach
its rolls as the difference from that TN.
"""

from __future__ import annotations

from typing import Any

from .flows import FLOW_CLASSES, SIDES, Actor, BaseFlow, Roller, _int, _roll, _text
from .rules import (
    BENEFIT_OF_VICTORY,
    CONSEQUENCE_OF_DEFEAT,
    DEFAULT_BID,
    DEGREES,
    GroupExtendedContest,
    GroupScoredContest,
    IllegalAction,
    Rating,
    Result,
    RulesError,
    State,
    boost_cost,
    group_simple_contest,
    is_clearly_inferior,
    simple_contest,
    simple_odds,
    spend_hero_point,
)
from .rules.extended_group import ORDER_RULES
from .rules.odds import odds_summary, outcome_percentages
from .rules.ratings import RESISTANCE_LEVELS
from .rules.scored import TACTICS
from .rules.scored_group import ROLES

GROUP_KINDS = ("group_simple", "group_scored", "group_extended")
MACHINES: dict[str, Any] = {
    "group_scored": GroupScoredContest,
    "group_extended": GroupExtendedContest,
}
# States a GM may confirm at the end (§2.11, R10).
STATES = frozenset(s.value for s in State)
MAX_NAME = 120
MAX_SIDE = 40
# One side of a coming roll: who rolls, with what rating and how many bumps.
_Roll = tuple[str, Rating, int]


def _name(data: dict[str, Any], key: str) -> str:
    return _text(data, key, required=True, limit=MAX_NAME)


class GroupFlow(BaseFlow):
    """A group contest at the table. Build it with `frame(...)`, change it with `apply`."""

    # -- building ---------------------------------------------------------------

    @classmethod
    def frame(cls, data: dict[str, Any]) -> GroupFlow:
        """A new group contest from the GM's framing.

        `data`: kind, prize, obstacle, better_roll, stakes (scored), order (extended:
        daring, bid or ap), base_resistance, the campaign options physical_dice,
        hide_gm_rolls and apply_consequences, pc_side (extended: the
        PCs' side label; "pc" otherwise), participants [{name, side, character_id?,
        player_id?, ability?, rating?, states?, role?, owner?}] and roster (the
        campaign's characters and abilities, for the forms).
        """
        kind = data.get("kind")
        if kind not in GROUP_KINDS:
            raise RulesError(
                f"unknown group contest {kind!r}; choose one of {', '.join(GROUP_KINDS)}"
            )
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
        pc_side = _text(data, "pc_side", limit=MAX_SIDE) or "pc"
        if kind != "group_extended" and pc_side != "pc":
            raise RulesError("in a group simple or scored contest the PCs' side is 'pc'")
        state = {
            "kind": kind,
            # Campaign options (issue 5), as for the one-on-one table.
            "physical_dice": bool(data.get("physical_dice", False)),
            "hide_gm_rolls": bool(data.get("hide_gm_rolls", False)),
            "apply_consequences": bool(data.get("apply_consequences", True)),
            "prize": _text(data, "prize"),
            "obstacle": _text(data, "obstacle"),
            "better_roll": better_roll,
            "stakes": stakes,
            "order": order,
            "base_resistance": _int(data, "base_resistance", default=14),
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
        return flow

    def _add_participant(self, raw: Any) -> dict[str, Any]:
        if not isinstance(raw, dict):
            raise RulesError("each participant is an object with a name and a side")
        name = _name(raw, "name")
        if any(p["name"] == name for p in self.participants):
            raise RulesError(f"two participants are called {name!r}; names must be unique")
        side = _text(raw, "side", limit=MAX_SIDE) or (
            self.state["pc_side"] if raw.get("character_id") else "opponent"
        )
        if self.kind != "group_extended" and side not in SIDES:
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
        if role not in ROLES or (role != "contestant" and self.kind != "group_scored"):
            raise RulesError(f"{name}'s role must be a contestant (followers: scored contests)")
        owner = _text(raw, "owner", limit=MAX_NAME) or None
        if (owner is None) != (role == "contestant"):
            raise RulesError(f"{name}: followers name their owner, and only followers do")
        participant = {
            "name": name,
            "side": side,
            "character_id": raw.get("character_id"),
            "player_id": raw.get("player_id"),
            "ability": _text(raw, "ability", limit=MAX_NAME),
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
        sides = {p["side"] for p in self.participants}
        if self.kind == "group_simple":
            opposition = [p for p in self.participants if p["side"] == "opponent"]
            if len(opposition) != 1 or opposition[0]["character_id"] is not None:
                raise RulesError(
                    "a group simple contest sets every PC against one resistance (§4.2): "
                    "name exactly one opponent who is not a player character"
                )
            if len(self.participants) < 3:
                raise RulesError(
                    "a group simple contest needs two participants or more on the PC side"
                )
            return
        if self.state["pc_side"] not in sides:
            raise RulesError(f"nobody is on the PCs' side {self.state['pc_side']!r}")
        try:
            MACHINES[self.kind](**self._setup(placeholder=13))
        except (RulesError, IllegalAction) as error:
            raise RulesError(str(error)) from None

    # -- reading ------------------------------------------------------------------

    @property
    def is_long(self) -> bool:
        return self.kind != "group_simple"

    @property
    def participants(self) -> list[dict[str, Any]]:
        return self.state["participants"]

    def participant(self, name: Any) -> dict[str, Any]:
        for participant in self.participants:
            if participant["name"] == name:
                return participant
        raise IllegalAction(f"there is no participant named {name!r} in this contest")

    def side(self, side: str) -> dict[str, Any]:
        """Each side summed up, as the one-on-one table shows a side."""
        return self.state["sides"][side]

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

    def tn(self, participant: dict[str, Any]) -> Any:
        """A participant's target number now (§2.11, R9): rating, modifier lines,
        augments and the states on their ability; None without a rating yet."""
        return self._target_of(participant)

    @property
    def rows(self) -> list[dict[str, Any]]:
        """Each participant with their TN, sheet and engine standing, for the template."""
        engine = (self.state["machine"] or {}).get("state") or {}
        standing = {p["name"]: p for p in engine.get("participants", [])}
        sheets = {c.get("character_id"): c.get("abilities", []) for c in self.state["roster"]}
        odds = self.coming_odds()
        rows = []
        for participant in self.participants:
            tn = self.tn(participant)
            owner = self._owner(participant)
            rows.append(
                {
                    **participant,
                    "tn": str(tn.rating) if tn else "",
                    "tn_lines": tn.describe if tn and tn.lines else "",
                    "bumps": tn.bumps if tn else 0,
                    "player_for": (owner or participant)["player_id"],
                    "sheet": sheets.get(participant["character_id"], []),
                    "engine": standing.get(participant["name"], {}),
                    "parting_shots": self._parting_shots(participant, engine, standing),
                    "odds": odds.get(participant["name"], []),
                }
            )
        return rows

    def coming_odds(self) -> dict[str, list[dict[str, Any]]]:
        """The exact odds of every outcome of each coming roll (`simple_odds`), by the
        name of the participant rolling, while that roll is prepared (phase "preparing"),
        so they follow every ability, modifier line and augment.

        The coming rolls (`_coming_rolls`): in a group simple contest each PC-side
        participant's against the resistance; in a group scored contest both members'
        in each pairing still to play this group round; in a group extended contest,
        once declared, each exchange still to come this round, the actor against their
        declared target (the first still in). Each roll is counted from both members'
        sides, with the ratings and bumps the engine will roll them with; two exchanges
        between the same two (each acting against the other) are one entry.

        An entry: `against` (the other member), `tn` and `against_tn` (the two ratings),
        `outcomes` ((winner, degree) -> Fraction, "pc" meaning this participant),
        `rows` ((label, percent) for display, as in the one-on-one table) and `summary`
        (`OddsSummary.to_json()`: victory, tie and defeat in %). The odds depend only on
        the TNs and bumps, which every audience sees in the TN column, and not on any
        die: with the GM's rolls hidden they give nothing away.
        """
        if self.phase != "preparing":
            return {}
        odds: dict[str, list[dict[str, Any]]] = {}
        for pair in self._coming_rolls():
            for me, other in (pair, pair[::-1]):
                (name, rating, bumps), (against, against_rating, against_bumps) = me, other
                entries = odds.setdefault(name, [])
                if any(entry["against"] == against for entry in entries):
                    continue  # each acting against the other: the same roll, once
                options = {
                    "better_roll": self.state["better_roll"],
                    "pc_bumps": bumps,
                    "opponent_bumps": against_bumps,
                }
                outcomes = simple_odds(rating, against_rating, **options)
                entries.append(
                    {
                        "against": against,
                        "tn": str(rating),
                        "against_tn": str(against_rating),
                        "outcomes": outcomes,
                        "rows": outcome_percentages(outcomes),
                        "summary": odds_summary(rating, against_rating, **options).to_json(),
                    }
                )
        return odds

    def _coming_rolls(self) -> list[tuple[_Roll, _Roll]]:
        """The simple contests about to be rolled, each as its two sides' (name, rating,
        bumps): the ratings as the engine will take them (the TN it holds plus the change
        since, `_modifiers`), the bumps as the `_do_` actions pass them."""
        if self.kind == "group_simple":
            against = self.tn(self.resistance)
            if against is None:
                return []
            resistance = (self.resistance["name"], against.rating, against.bumps)
            return [
                ((participant["name"], tn.rating, tn.bumps), resistance)
                for participant in self._pc_side()
                if (tn := self.tn(participant)) is not None
            ]
        engine = (self.state["machine"] or {}).get("state")
        if not engine:
            return []  # nobody is paired and nothing declared before the contest starts

        def rolling(name: str, held: str, bumps: int) -> _Roll:
            change = self._modifiers(change=name).get("change", 0)
            return name, Rating.parse(held) + change, bumps

        if self.kind == "group_scored":
            return [
                (
                    rolling(pairing["pc"], pairing["pc_rating"], self._bumps(pairing["pc"])),
                    rolling(
                        pairing["opponent"],
                        pairing["opponent_rating"],
                        self._bumps(pairing["opponent"]),
                    ),
                )
                for pairing in engine["pairings"]
                if pairing["kind"] == "contest"
                and pairing["status"] == "active"
                and pairing["waiting"]  # not played this group round yet
            ]
        people = {p["name"]: p for p in engine["participants"]}
        # In the acting phase, who has not acted yet this round (delaying or not).
        to_act = engine["order"] + engine["delayed"] if engine["phase"] == "acting" else None
        rolls = []
        # In the order they act once acting, else in the contest's order: never the
        # declarations' own order, which a PostgreSQL jsonb column does not keep.
        for name in to_act if to_act is not None else list(people):
            if name not in engine["declarations"]:
                continue
            target = self._declared_target(engine, name)
            if people[name]["status"] != "in" or target is None:
                continue
            actor, defender = people[name], people[target]
            rolls.append(
                (
                    rolling(name, actor["tn"], actor["bumps"]),
                    rolling(target, defender["tn"], defender["bumps"]),
                )
            )
        return rolls

    def _parting_shots(self, participant: dict, engine: dict, standing: dict) -> list[str]:
        """Whom this participant may kick while they are down now (§5.1.4, §5.3.4)."""
        if self.phase not in ("preparing", "resolved"):
            return []
        if self.kind == "group_extended":
            shot = engine.get("parting_shot")
            return [shot["at"]] if shot and shot["by"] == participant["name"] else []
        me = standing.get(participant["name"], {})
        if self._payer(participant["name"]) is None or me.get("enmeshed"):
            return []
        if me.get("status") == "defeated":
            return []
        return [
            name
            for name in engine.get("parting_shots_open", [])
            if self.participant(name)["side"] != participant["side"]
        ]

    @property
    def outsiders(self) -> list[dict[str, Any]]:
        """Characters of the campaign who are not in the contest (AP gifts, joining)."""
        inside = {p["character_id"] for p in self.participants}
        return [c for c in self.state["roster"] if c.get("character_id") not in inside]

    @property
    def hero_point_offers(self) -> list[dict[str, Any]]:
        """Who may still spend a hero point on the pending roll (R5.3)."""
        pending = self.state["pending"]
        if self.phase != "rolled" or not pending:
            return []
        if self.kind == "group_simple":
            names = [
                p["participant"]
                for p in pending["pairings"]
                if not p["hero_point"] and p["outcome"]["pc_result"] != Result.CRITICAL.label
            ]
        else:
            names = [n for flag, n in pending["heroes"].items() if not pending["spent"][flag]]
        return [
            {"participant": name, "player_id": self._player_for(name)}
            for name in dict.fromkeys(names)
        ]

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

    def level_for_pc(self) -> int | None:
        """+4 complete victory .. -4 complete defeat for the PCs' side; 0 otherwise."""
        outcome = self.state.get("outcome")
        if not outcome:
            return None
        if "level" in outcome:
            return outcome["level"]
        if outcome["winner"] not in SIDES or not outcome["degree"]:
            return 0
        step = DEGREES.index(outcome["degree"]) + 1
        return step if outcome["winner"] == "pc" else -step

    # -- helpers --------------------------------------------------------------------

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
        return owner["character_id"]

    def _player_for(self, name: str) -> int | None:
        """The user who plays `name` (a follower's owner's player), for their forms."""
        gifter = self._gifter(name)
        if gifter is not None:
            return next(
                (c["player_id"] for c in self.state["roster"] if c["character_id"] == gifter), None
            )
        participant = self.participant(name)
        return (self._owner(participant) or participant)["player_id"]

    def _is_participant(self, name: Any) -> bool:
        return any(p["name"] == name for p in self.participants)

    def _require_control(self, actor: Actor, name: str, what: str) -> dict[str, Any] | None:
        """The participant, once `actor` may act for them (None for a gift's giver)."""
        if not self.controls(actor, name):
            raise IllegalAction(f"only {name}'s player or the GM can {what}")
        return None if self._gifter(name) is not None else self.participant(name)

    # -- what BaseFlow's shared actions need: the participant an action names ----------

    def _holder(self, data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        name = _name(data, "participant")
        participant = self.participant(name)
        participant.setdefault("modifiers", [])  # contests framed before modifiers
        participant.setdefault("augments", [])
        return name, participant

    def _gm_rolls_for(self, key: str) -> bool:
        """Hidden GM rolls: those of participants no player plays and of resistances."""
        if not self.state.get("hide_gm_rolls"):
            return False
        return self._gifter(key) is None and (
            not self._is_participant(key) or self._payer(key) is None
        )

    def _check_modifier(self, key: str, record: dict[str, Any], line: dict[str, Any]) -> None:
        """A group extended contest takes a resistance's TN as it starts and never
        modifies it (R2: its engine refuses), and its bumps as they were when the
        contest started or the ability was switched."""
        if self.kind != "group_extended":
            return
        started = self.state["machine"] is not None
        if record["character_id"] is None and (started or line["kind"] == "situational"):
            raise IllegalAction(
                f"{key} is a resistance: its TN is set before the contest starts and does not "
                "change round by round (R2); switch its ability to give it another rating"
            )
        if started and line["bumps"]:
            raise IllegalAction(
                "a bump changes a group extended contest under way only with a switch of "
                "ability (§5.3.8)"
            )

    def _reveal_text(self, pending: dict[str, Any]) -> str:
        if self.kind == "group_simple":
            return "The GM reveals the rolls: " + "; ".join(
                self._pairing_text(p) for p in pending["pairings"]
            )
        shown = ", ".join(f"{r['who']} rolled {r['roll']}" for r in pending["rolls"] if r["hidden"])
        return f"The GM reveals the roll: {shown}; so far {pending['summary']}"

    def _modifiers(self, **names: str) -> dict[str, int]:
        """The engine arguments (`pc_modifier=name`...) for participants whose TN changed
        since the engine took it: modifier lines added, lapsed or removed (R9). Only
        those that changed, so the engine's record stays as before."""
        changes = {}
        for argument, name in names.items():
            participant = self.participant(name)
            tn = self.tn(participant)
            if tn is None or "engine_tn" not in participant:
                continue
            if self.kind == "group_extended" and participant["character_id"] is None:
                continue  # a resistance's TN never changes (R2, `_check_modifier`)
            change = tn.rating.total - participant["engine_tn"]
            if change:
                changes[argument] = change
        return changes

    def _require_kind(self, *kinds: str) -> None:
        if self.kind not in kinds:
            raise IllegalAction(f"that belongs to another kind of contest, not a {self.kind}")

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

    def _setup(self, placeholder: int | None = None) -> dict[str, Any]:
        """The engine's setup from the participants' TNs (masteries counting 20)."""
        entries = []
        for p in self.participants:
            tn = self.tn(p)
            if tn is None and placeholder is None:
                raise IllegalAction(f"{p['name']} has no ability or rating yet")
            rating = tn.rating.total if tn else placeholder
            if self.kind == "group_scored":
                entry: dict[str, Any] = {"name": p["name"], "side": p["side"], "rating": rating}
                if p["role"] != "contestant":
                    entry.update(role=p["role"], owner=p["owner"])
                    if p["character_id"] is not None:
                        entry["player"] = True
                else:
                    entry["player"] = p["character_id"] is not None
            else:
                entry = {
                    "name": p["name"],
                    "side": p["side"],
                    "pc": p["character_id"] is not None,
                    "rating": rating,
                    "bumps": tn.bumps if tn else 0,
                }
            entries.append(entry)
        if self.kind == "group_scored":
            return {
                "participants": entries,
                "stakes": self.state["stakes"],
                "better_roll": self.state["better_roll"],
                "base_resistance": self.state["base_resistance"],
            }
        return {
            "participants": entries,
            "order": self.state["order"],
            "better_roll": self.state["better_roll"],
        }

    def _machine(self, *, start: bool = False) -> Any:
        """The engine's contest, rebuilt from its recorded actions; `start` begins it
        (the TNs are fixed from then on; abilities change by `switch_ability`)."""
        if self.state["machine"] is None:
            if not start:
                raise IllegalAction("the contest has not started yet")
            machine = MACHINES[self.kind](**self._setup())
            self.state["machine"] = machine.to_json()
            for participant in self.participants:
                self._engine_took(participant)
            return machine
        return MACHINES[self.kind].from_json(self.state["machine"])

    def _engine_took(self, participant: dict[str, Any]) -> None:
        """Remember the TN the engine now holds for the participant: later modifier
        lines reach its rolls as the difference (`_modifiers`)."""
        participant["engine_tn"] = self.tn(participant).rating.total

    def _save(self, machine: Any) -> None:
        self.state["machine"] = machine.to_json()
        if machine.round != self.state["round"]:
            self._lapse_situational(self.participants)  # one round is over (R9)
        self.state["round"] = machine.round

    def _bumps(self, name: str) -> int:
        tn = self.tn(self.participant(name))
        return tn.bumps if tn else 0

    def _totals(self, machine: Any) -> dict[str, Any]:
        """RP scored against each participant (scored) or each one's AP (extended)."""
        if self.kind == "group_scored":
            return {
                "totals": {p["name"]: machine.points_against(p["name"]) for p in self.participants},
                "totals_kind": "RP against",
            }
        return {"totals": dict(machine.ap), "totals_kind": "AP"}

    # -- rolling through the engine ---------------------------------------------------

    def _rolled(
        self,
        action: str,
        args: dict[str, Any],
        rollers: dict[str, str],
        heroes: dict[str, str],
        note: str = "",
        gifters: dict[str, int] | None = None,
    ) -> dict[str, Any]:
        """Try the engine action with its dice (so whatever the rules refuse is refused
        now), then play it, or let it wait in `pending` when a player could spend a hero
        point on it, or the GM may call a both-fumble tie (§5.3.1 footnote). `rollers`
        names who rolled each die; `heroes` the participant (or `gifters`' giver) behind
        each hero point flag of the engine action. While it waits, the GM's dice are
        hidden from the players when the campaign says so."""
        gifters = gifters or {}
        heroes = {
            flag: name
            for flag, name in heroes.items()
            if (gifters[name] if name in gifters else self._payer(name)) is not None
        }
        machine = self._machine(start=True)
        result = getattr(machine, action)(**args)
        summary = self._describe(action, machine, result, note)
        both_fumble = self._both_fumble(action, result)
        if not heroes and not both_fumble:
            rolls = [{"who": who, "roll": args[key]} for key, who in rollers.items()]
            return self._played(machine, action, args, summary, rolls)
        pending = {
            "action": action,
            "args": args,
            "heroes": heroes,
            "spent": {flag: False for flag in heroes},
            "rollers": rollers,
            "gifters": gifters,
            "note": note,
            "summary": summary,
            "both_fumble": both_fumble,
        }
        self.state["pending"] = pending
        pending["rolls"] = [
            {"who": who, "roll": args[key], "hidden": self._gm_rolls_for(who)}
            for key, who in rollers.items()
        ]
        pending["revealed"] = not any(row["hidden"] for row in pending["rolls"])
        self.state["phase"] = "rolled"
        waiting = "hero points may still change it" if heroes else "the GM calls the tie"
        return self._roll_payload(
            f"{summary} ({waiting})",
            [dict(row) for row in pending["rolls"]],
            self._secret_rolls(pending["rolls"]),
        )

    @staticmethod
    def _secret_rolls(rolls: list[dict[str, Any]]) -> str:
        """The pending rolls as the players see them while the GM's are hidden."""
        return "; ".join(
            f"the GM rolled for {row['who']} in secret"
            if row["hidden"]
            else f"{row['who']} rolled {row['roll']}"
            for row in rolls
        )

    @staticmethod
    def _both_fumble(action: str, result: Any) -> bool:
        """An exchange both sides fumbled: the GM may have both lose 1/2x bid."""
        return action == "act" and result["actor_result"] == result["defender_result"] == "fumble"

    def _played(
        self, machine: Any, action: str, args: dict, summary: str, rolls: list[dict]
    ) -> dict[str, Any]:
        """An engine action has been played: keep it, and see whether the contest ended
        (a parting shot can also bring a beaten contestant back, §5.1.4, §5.3.4)."""
        self._save(machine)
        if action == "play_round":
            pairing = machine.state()["pairings"][args["pairing"] - 1]
            for name in (pairing["pc"], pairing["opponent"]):
                self.participant(name)["round_tactic"] = "normal"
        if machine.is_over:
            self._decide_long(machine)
        else:
            self.state.update(phase="preparing", outcome=None, suggested=[])
        return {"summary": summary, "rolls": rolls, **self._totals(machine)}

    def _describe(self, action: str, machine: Any, result: Any, note: str) -> str:
        """One line for the log, from the engine's own record of the action."""
        if self.kind == "group_scored":
            entry = machine.log[-1]
            if action == "play_round":
                text = (
                    f"Pairing #{entry['pairing']} ({entry['pc']} vs {entry['opponent']}): "
                    f"{entry['outcome']} for {entry['pc']}; "
                    + (
                        f"{entry['points']} RP to {entry[entry['scored_by']]}"
                        if entry["scored_by"]
                        else "no RP"
                    )
                    + f" ({entry['pc_points']}-{entry['opponent_points']})"
                )
                if entry["knocked_out"]:
                    text += f"; {entry['knocked_out']} is out"
                if entry["escaped"]:
                    text += f"; {entry[entry['escaped']]} disengages"
                return text
            texts = {
                "assist": lambda: (
                    f"{entry['helper']} assists {entry['recipient']} "
                    f"({entry['resistance']} resistance): {result.describe}; "
                    f"RP against {entry['recipient']} {entry['change']:+d}"
                ),
                "unrelated_action": lambda: (
                    f"{entry['participant']}'s unrelated action"
                    + (f" ({note})" if note else "")
                    + f": {result.describe}"
                ),
                "parting_shot": lambda: (
                    f"{entry['shooter']}'s parting shot at "
                    f"{entry['target']}: {result.describe}"
                    + (f"; {entry['target']} is back in the fight" if entry["revived"] else "")
                ),
                "remove_follower": lambda: (
                    f"{entry['remover']} tries to take "
                    f"{entry['follower']} out: {result.describe}"
                    + (f"; {entry['follower']} is out" if entry["removed"] else "")
                ),
            }
            return texts[action]()
        entry = result
        if action in ("act", "parting_shot"):
            what = "acts against" if action == "act" else "takes a parting shot at"
            text = (
                f"{entry['actor']} {what} {entry['defender']} (bid {entry['bid']}): "
                f"{entry['actor_result']} vs {entry['defender_result']}, {entry['rule']}"
            )
        elif action == "disengage":
            text = f"{entry['actor']} tries to disengage from {entry['opponent']}: " + (
                f"{entry['outcome']}, and leaves" if entry["left"] else f"{entry['outcome']}"
            )
        elif action == "lend":
            text = (
                f"{entry['actor']} lends {entry['target']} {entry['amount']} AP: {entry['outcome']}"
            )
        elif action == "final_action":
            text = f"{entry['actor']}'s final action: {entry['outcome']}" + (
                ", back in the contest" if entry["back_in"] else ""
            )
        else:
            text = f"{note} gives {entry['recipient']} AP (bid {entry['bid']}): {entry['outcome']}"
        changes = ", ".join(f"{n} {c:+d}" for n, c in entry["change"].items() if c)
        out = entry.get("knocked_out") or []
        return text + (f"; AP {changes}" if changes else "") + "".join(f"; {n} is out" for n in out)

    # -- actions for every group contest -------------------------------------------

    def _do_choose_ability(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """A participant's ability, read from the sheet by the service (the GM sets an
        NPC's rating), before the contest starts."""
        self._require_phase("preparing")
        name = _name(data, "participant")
        participant = self._require_control(actor, name, "choose their ability")
        if participant["character_id"] is None:
            self._require_gm(actor, "rate the GM's participants")
        if self.state["machine"] is not None:
            raise IllegalAction("the contest has started: switch abilities instead")
        self._set_ability(participant, data)
        tn = self.tn(participant)
        return {
            "summary": f"{name} uses {participant['ability'] or 'their rating'} "
            f"({Rating(participant['rating'])}); TN {tn.rating}"
        }

    def _set_ability(self, participant: dict[str, Any], data: dict[str, Any]) -> None:
        states = data.get("states", [])
        if not isinstance(states, list) or not all(isinstance(s, str) for s in states):
            raise RulesError("states must be a list of state names")
        participant.update(
            ability=_text(data, "ability", limit=MAX_NAME),
            ability_id=data.get("ability_id"),
            rating=Rating.parse(data.get("rating")).total,
            states=states,
        )
        self._refresh_sides()

    def _do_set_tactic(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """A participant's tactic in words, and in a scored contest the tactic of their
        next pairing round (§5.1.5, §5.1.6, §5.2.5, §5.2.6)."""
        self._require_phase("preparing")
        name = _name(data, "participant")
        participant = self._require_control(actor, name, "describe their tactic")
        round_tactic = data.get("round_tactic", "normal")
        allowed = TACTICS if self.kind == "group_scored" else ("normal",)
        if round_tactic not in allowed:
            raise RulesError(
                f"round_tactic must be one of {', '.join(allowed)} in a {self.kind} contest"
            )
        participant["tactic"] = _text(data, "tactic") or participant["tactic"]
        participant["round_tactic"] = round_tactic
        shown = f" ({round_tactic.replace('_', ' ')})" if round_tactic != "normal" else ""
        return {"summary": f"{name}: {participant['tactic'] or 'no tactic in words'}{shown}"}

    def _do_hero_point(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """A participant's player raises their own result one step after seeing the
        roll (§2.3.5.5, R5.3): one per roll, never on a critical."""
        self._require_phase("rolled")
        name = _name(data, "participant")
        self._require_control(actor, name, "spend their hero point")
        payer = self._payer(name)
        if payer is None:
            raise IllegalAction("only player characters spend hero points")
        pending = self.state["pending"]
        if self.kind == "group_simple":
            summary, secret = self._simple_hero_point(name)
        else:
            flags = [f for f, n in pending["heroes"].items() if n == name]
            if not flags:
                raise IllegalAction(f"{name} has no roll to raise now")
            free = [f for f in flags if not pending["spent"][f]]
            if not free:
                raise IllegalAction("one hero point per roll (R5.3)")
            spent = {**pending["spent"], free[0]: True}
            machine = self._machine()
            result = getattr(machine, pending["action"])(**pending["args"], **spent)
            pending["spent"] = spent
            pending["summary"] = self._describe(pending["action"], machine, result, pending["note"])
            pending["both_fumble"] = self._both_fumble(pending["action"], result)
            summary = f"{name} spends a hero point: {pending['summary']}"
            secret = f"{name} spends a hero point; the GM's roll stays secret"
        if self._is_participant(name):
            self.participant(name)["hero_points_spent"] += 1
            self._refresh_sides()
        payload = {"summary": summary}
        if not pending.get("revealed", True):
            payload = {"summary": secret, "gm_summary": summary}
        return {**payload, "hero_point": {"participant": name, "character_id": payer}}

    def _do_resolve(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The GM settles the pending roll: the group simple contest is collated; a
        long contest's action is played with the hero points spent on it."""
        self._require_gm(actor, "resolve the roll")
        self._require_phase("rolled")
        if self.kind == "group_simple":
            return self._resolve_simple()
        pending = self.state["pending"]
        machine = self._machine()
        summary = pending["summary"]
        if data.get("both_lose_half"):
            # §5.3.1 footnote: on a both-fumble tie the GM may have both lose 1/2x bid.
            if pending["action"] != "act":
                raise IllegalAction("both contestants lose 1/2x bid only in an exchange")
            pending["args"]["both_lose_half"] = True
        result = getattr(machine, pending["action"])(**pending["args"], **pending["spent"])
        if data.get("both_lose_half"):
            summary = self._describe(pending["action"], machine, result, pending["note"])
        rolls = [
            {"who": who, "roll": pending["args"][key]} for key, who in pending["rollers"].items()
        ]
        for row in rolls:
            row["hero_point"] = any(
                spent and pending["heroes"][flag] == row["who"]
                for flag, spent in pending["spent"].items()
            )
        self.state["pending"] = None
        return self._played(machine, pending["action"], pending["args"], summary, rolls)

    def _do_apply_consequences(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The GM confirms (or edits) each participant's consequence or benefit (§2.11)."""
        self._require_gm(actor, "confirm consequences")
        self._require_phase("resolved")
        chosen = data.get("consequences")
        if chosen is None:
            chosen = self.state["suggested"]
        if not isinstance(chosen, list):
            raise RulesError("consequences must be a list")
        applied = []
        for item in chosen:
            if not isinstance(item, dict):
                raise RulesError("each consequence names a participant and a state")
            participant = self.participant(item.get("participant"))
            if item.get("state") not in STATES:
                raise RulesError(f"{item.get('state')!r} is not a state of adversity or fortune")
            applied.append(
                {
                    "participant": participant["name"],
                    "state": item["state"],
                    "character_id": participant["character_id"],
                    "ability": participant["ability"],
                }
            )
        self.state["applied"] = applied
        self.state["phase"] = "finished"
        narration = _text(data, "narration")
        if narration:
            self.state["narration"] = narration
        listed = "; ".join(f"{a['participant']} {a['state']}" for a in applied) or "none"
        return {"summary": f"Consequences: {listed}", "applied": applied}

    def _suggest(self, name: str, state: str) -> None:
        participant = self.participant(name)
        if participant["character_id"] is not None and self.state["apply_consequences"]:
            self.state["suggested"].append({"participant": name, "state": state})

    # -- group simple (§4.2, §4.5, R7) ------------------------------------------------

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

    def _do_boost(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """One hero point toward a boost, before the roll (§4.5.3, R7): a boost costs
        1 per 3 heroes or part of 3, a double boost twice that, any mix of players."""
        self._require_kind("group_simple")
        self._require_phase("preparing")
        name = _name(data, "participant")
        participant = self._require_control(actor, name, "pay toward a boost")
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

    def _do_roll(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The GM rolls for every PC and, separately, for the resistance against each
        (§4.2.1 step 4); hero points may then be spent before `resolve`. A physical d20
        entered for a participant is their roll (the resistance's, its first)."""
        self._require_kind("group_simple")
        self._require_gm(actor, "call for the roll")
        self._require_phase("preparing")
        for participant in self.participants:
            if participant["rating"] is None:
                raise IllegalAction(f"{participant['name']} has no ability or rating yet")
        dice = data.setdefault("dice", {})
        if not isinstance(dice, dict):
            raise RulesError("dice must be an object")
        pairings = []
        resistance = self.resistance
        for participant in self._pc_side():
            rolled = dice.setdefault(participant["name"], {})
            self._use_entered_roll(participant, rolled, "roll")
            self._use_entered_roll(resistance, rolled, "resistance_roll")
            roll = _roll(rolled, "roll", roller)
            resistance_roll = _roll(rolled, "resistance_roll", roller)
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
        tn = self.tn(self.participant(pairing["participant"]))
        outcome = simple_contest(
            tn.rating,
            pairing["roll"],
            self.tn(self.resistance).rating,
            pairing["resistance_roll"],
            better_roll=self.state["better_roll"],
            pc_bumps=tn.bumps,
            opponent_bumps=self.tn(self.resistance).bumps,
        )
        return spend_hero_point(outcome) if pairing["hero_point"] else outcome

    def _pairing_text(self, pairing: dict[str, Any]) -> str:
        outcome = pairing["outcome"]
        return (
            f"{pairing['participant']} rolled {pairing['roll']} ({outcome['pc_result']})"
            + (" + hero point" if pairing["hero_point"] else "")
            + f" against {pairing['resistance_roll']} ({outcome['opponent_result']}): "
            + outcome["describe"]
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
                    "tn": str(self.tn(participant).rating),
                    "roll": pairing["roll"],
                    "result": pairing["outcome"]["pc_result"],
                    "bumps": self.tn(participant).bumps,
                    "hero_point": pairing["hero_point"],
                    "hidden": "roll" in hidden,
                },
                {
                    "who": resistance["name"],
                    "ability": resistance["ability"],
                    "tn": str(self.tn(resistance).rating),
                    "roll": pairing["resistance_roll"],
                    "result": pairing["outcome"]["opponent_result"],
                    "hidden": "resistance_roll" in hidden,
                },
            ]
        return rows

    def _simple_hero_point(self, name: str) -> tuple[str, str]:
        """Raise `name`'s result in their pairing: the log line, and the line for the
        players while the GM's roll is hidden (their own result only)."""
        pairings = {p["participant"]: p for p in self.state["pending"]["pairings"]}
        pairing = pairings.get(name)
        if pairing is None:
            raise IllegalAction(f"{name} did not roll in this contest")
        if pairing["hero_point"]:
            raise IllegalAction("one hero point per roll (R5.3)")
        before = pairing["outcome"]
        spend_hero_point(self._pairing_outcome(pairing))  # refuses to raise a critical
        pairing["hero_point"] = True
        after = pairing["outcome"] = self._pairing_outcome(pairing).to_json()
        return (
            f"{name} spends a hero point: {before['describe']} becomes {after['describe']}",
            f"{name} spends a hero point: {before['pc_result']} becomes {after['pc_result']}",
        )

    def _resolve_simple(self) -> dict:
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
        resistance = self.tn(self.resistance).rating
        for participant in self.heroes:
            if group.level < 0:
                self._suggest(participant["name"], CONSEQUENCE_OF_DEFEAT[group.degree].value)
            elif group.level > 0 and not is_clearly_inferior(
                self.tn(participant).rating, resistance
            ):
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

    # -- long group contests: shared actions -----------------------------------------

    def _long_phase(self, *kinds: str, after_end: bool = False) -> None:
        self._require_kind(*kinds)
        if after_end:
            self._require_phase("preparing", "resolved")
        else:
            self._require_phase("preparing")

    def _decide_long(self, machine: Any) -> None:
        """The engine says the contest is over: the outcome for the PCs' side and each
        participant's suggested consequence or benefit (§5.1.2, §5.1.3, §5.2, §5.3.2.4)."""
        winner, degree = machine.winner, machine.degree
        pc_side = self.state["pc_side"]
        self.state["outcome"] = {
            "winner": None if winner is None else ("pc" if winner == pc_side else "opponent"),
            "winner_side": winner,
            "degree": degree,
        }
        self.state["phase"] = "resolved"
        self.state["suggested"] = []
        if self.kind == "group_extended":
            for name, states in machine.consequences.items():
                for state in states:
                    self._suggest(name, state)
            return
        consequences = machine.consequences()
        status = {p["name"]: p["status"] for p in machine.state()["participants"]}
        defeated = [
            self.tn(p).rating
            for p in self.participants
            if p["side"] != winner and status[p["name"]] == "defeated"
        ]
        for participant in self.participants:
            consequence = consequences[participant["name"]]
            if consequence in STATES:
                self._suggest(participant["name"], consequence)
            elif (
                participant["side"] == winner
                and degree
                and defeated
                and not is_clearly_inferior(self.tn(participant).rating, defeated)
            ):
                self._suggest(participant["name"], BENEFIT_OF_VICTORY[degree].value)

    def _do_switch_ability(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """Go on with another ability (§5.2.8 in a pairing; §5.3.8 from round 2)."""
        self._long_phase("group_scored", "group_extended")
        name = _name(data, "participant")
        participant = self._require_control(actor, name, "switch abilities")
        if participant["character_id"] is None:
            self._require_gm(actor, "rate the GM's participants")
        machine = self._machine()
        self._set_ability(participant, data)
        tn = self.tn(participant)
        if self.kind == "group_scored":
            pairing = _int(data, "pairing")
            machine.switch_ability(pairing=pairing, participant=name, rating=tn.rating.total)
            where = f" in pairing #{pairing}"
        else:
            machine.switch_ability(name=name, rating=tn.rating.total, bumps=tn.bumps)
            where = ""
        self._engine_took(participant)
        self._save(machine)
        return {
            "summary": f"{name} switches to {participant['ability'] or 'another ability'} "
            f"(TN {tn.rating}){where}"
        }

    def _do_unrelated_action(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """Something other than contending for the prize: in a scored contest a simple
        contest against a resistance class by someone not enmeshed (§5.2.2); in an
        extended contest the turn's action given up (§5.3.7)."""
        self._long_phase("group_scored", "group_extended")
        name = _name(data, "participant")
        self._require_control(actor, name, "take an unrelated action")
        description = _text(data, "description")
        if self.kind == "group_extended":
            machine = self._machine(start=True)
            machine.unrelated_action(name=name, description=description)
            return self._played(
                machine,
                "unrelated_action",
                {},
                f"{name} gives up the action" + (f": {description}" if description else ""),
                [],
            )
        level = data.get("resistance_level") or "moderate"
        if level not in RESISTANCE_LEVELS:
            raise RulesError(f"resistance_level must be one of {', '.join(RESISTANCE_LEVELS)}")
        rollers = {"roll": name, "resistance_roll": f"{level.replace('_', ' ')} resistance"}
        return self._rolled(
            "unrelated_action",
            {
                "participant": name,
                "resistance_level": level,
                "bumps": self._bumps(name),
                **self._modifiers(modifier=name),
                **self._dice(data, roller, rollers),
            },
            rollers,
            {"hero_point": name},
            note=description,
        )

    def _do_parting_shot(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """Kick an opponent who was just knocked out (§5.1.4, §5.3.4)."""
        self._long_phase("group_scored", "group_extended", after_end=True)
        if self.kind == "group_scored":
            shooter, target = _name(data, "participant"), _name(data, "target")
            self._require_control(actor, shooter, "take a parting shot")
            self.participant(target)
            rollers = {"shooter_roll": shooter, "target_roll": target}
            return self._rolled(
                "parting_shot",
                {
                    "shooter": shooter,
                    "target": target,
                    "bumps": self._bumps(shooter),
                    "target_bumps": self._bumps(target),
                    **self._modifiers(modifier=shooter, target_modifier=target),
                    **self._dice(data, roller, rollers),
                },
                rollers,
                {"hero_point": shooter, "target_hero_point": target},
            )
        name = _name(data, "participant")
        self._require_control(actor, name, "take a parting shot")
        shot = self._machine().open_parting_shot
        if shot is None or shot["by"] != name:
            raise IllegalAction(
                f"{name} has no parting shot: it comes right after the exchange in which "
                "they knocked an opponent out (§5.3.4)"
            )
        rollers = {"actor_roll": name, "defender_roll": shot["at"]}
        return self._rolled(
            "parting_shot",
            {
                "name": name,
                "bid": _int(data, "bid", default=DEFAULT_BID),
                **self._modifiers(actor_modifier=name, defender_modifier=shot["at"]),
                **self._dice(data, roller, rollers),
            },
            rollers,
            {"actor_hero_point": name, "defender_hero_point": shot["at"]},
        )

    def _dice(self, data: dict, roller: Roller, rollers: dict[str, Any]) -> dict[str, int]:
        """The action's dice, kept under `data["dice"]` for replay: `rollers` names who
        rolls each; a physical d20 entered for a participant is their roll."""
        dice = data.setdefault("dice", {})
        if not isinstance(dice, dict):
            raise RulesError("dice must be an object")
        for key, who in rollers.items():
            if self._is_participant(who):
                self._use_entered_roll(self.participant(who), dice, key)
        return {key: _roll(dice, key, roller) for key in rollers}

    # -- group scored (§5.2, R12) ------------------------------------------------------

    def _do_engage(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The GM pairs a PC-side participant with an opponent: a contest of their own,
        first to 5 RP (§5.2.1). The first pairing starts the contest."""
        self._long_phase("group_scored")
        self._require_gm(actor, "pair participants")
        pc, opponent = _name(data, "pc"), _name(data, "opponent")
        machine = self._machine(start=True)
        number = machine.engage(pc=pc, opponent=opponent)
        self._save(machine)
        return {"summary": f"Pairing #{number}: {pc} against {opponent}"}

    def _do_play_round(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The GM rolls one round of a pairing, with its members' round tactics."""
        self._long_phase("group_scored")
        self._require_gm(actor, "roll a pairing's round")
        number = _int(data, "pairing")
        machine = self._machine()
        pairings = machine.state()["pairings"]
        if not 1 <= number <= len(pairings):
            raise IllegalAction(f"there is no pairing #{number} in this contest")
        pc, opponent = pairings[number - 1]["pc"], pairings[number - 1]["opponent"]
        rollers = {"pc_roll": pc, "opponent_roll": opponent}
        return self._rolled(
            "play_round",
            {
                "pairing": number,
                "pc_tactic": self.participant(pc)["round_tactic"],
                "opponent_tactic": self.participant(opponent)["round_tactic"],
                "pc_bumps": self._bumps(pc),
                "opponent_bumps": self._bumps(opponent),
                **self._modifiers(pc_modifier=pc, opponent_modifier=opponent),
                **self._dice(data, roller, rollers),
            },
            rollers,
            {"pc_hero_point": pc, "opponent_hero_point": opponent},
        )

    def _do_assist(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """Someone not enmeshed helps a teammate in a pairing (§5.2.3): moderate
        resistance, then high, very high, nearly impossible for later assists; the GM
        may shift it one step easier or harder (`resistance_shift` -1 or +1)."""
        self._long_phase("group_scored")
        helper, recipient = _name(data, "participant"), _name(data, "recipient")
        self._require_control(actor, helper, "assist")
        args: dict[str, Any] = {
            "helper": helper,
            "recipient": recipient,
            "bumps": self._bumps(helper),
            **self._modifiers(modifier=helper),
        }
        if data.get("pairing") is not None:
            args["pairing"] = _int(data, "pairing")
        shift = _int(data, "resistance_shift", default=0)
        if shift:
            self._require_gm(actor, "shift an assist's resistance")
            args["resistance_shift"] = shift
        rollers = {"helper_roll": helper, "resistance_roll": "the resistance"}
        args.update(self._dice(data, roller, rollers))
        return self._rolled("assist", args, rollers, {"hero_point": helper})

    def _do_remove_follower(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """An opponent not enmeshed takes a follower out with a simple contest (§5.2.4)."""
        self._long_phase("group_scored")
        remover, follower = _name(data, "participant"), _name(data, "follower")
        self._require_control(actor, remover, "take a follower out")
        self.participant(follower)
        rollers = {"remover_roll": remover, "follower_roll": follower}
        return self._rolled(
            "remove_follower",
            {
                "remover": remover,
                "follower": follower,
                "bumps": self._bumps(remover),
                "follower_bumps": self._bumps(follower),
                **self._modifiers(modifier=remover, follower_modifier=follower),
                **self._dice(data, roller, rollers),
            },
            rollers,
            {"hero_point": remover, "follower_hero_point": follower},
        )

    def _do_shift_points(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """An owner moves RP scored against them onto a secondary contestant (§5.2.4)."""
        self._long_phase("group_scored")
        owner, follower = _name(data, "participant"), _name(data, "follower")
        self._require_control(actor, owner, "shift RP onto their follower")
        pairing, points = _int(data, "pairing"), _int(data, "points")
        machine = self._machine()
        machine.shift_points(owner=owner, follower=follower, pairing=pairing, points=points)
        entry = machine.log[-1]
        return self._played(
            machine,
            "shift_points",
            {},
            f"{owner} shifts {points} RP onto {follower}"
            + (f"; {follower} leaves the scene" if entry["removed"] else ""),
            [],
        )

    def _do_join(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The GM adds a participant before any group contest starts (more PCs, NPCs on
        further sides of a free-for-all, followers in a scored contest), or someone
        joins a group scored contest in progress, accepting its framing (§5.2.7). The
        service reads a character's name and ability from the sheet."""
        self._require_phase("preparing")
        self._require_gm(actor, "bring someone into the contest")
        if self.state["machine"] is not None and self.kind != "group_scored":
            raise IllegalAction(
                "once under way only a group scored contest takes newcomers (§5.2.7)"
            )
        fields = ("name", "side", "character_id", "player_id", "ability", "ability_id", "rating")
        entry = {
            k: data[k] for k in (*fields, "states", "role", "owner") if data.get(k) is not None
        }
        participant = self._add_participant(entry)
        tn = self.tn(participant)
        if tn is None:
            raise IllegalAction(f"{participant['name']} joins with an ability or a rating")
        if self.state["machine"] is None:
            self._check_framing()
        else:
            machine = self._machine()
            setup = self._setup()["participants"][-1]
            machine.join(**{k: v for k, v in setup.items() if k != "bumps"})
            self._engine_took(participant)
            self._save(machine)
        return {
            "summary": f"{participant['name']} joins the {participant['side']} side "
            f"({participant['ability'] or 'rating'} {tn.rating})",
            "joined": {
                k: participant[k] for k in ("name", "side", "character_id", "ability", "rating")
            },
        }

    # -- group extended (§5.3.3-§5.3.11, R13) ----------------------------------------

    def _do_declare(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """A participant's bid (default 3; a PC may stake up to their starting AP),
        the opponent(s) they single out and how daring it is (§5.3.3, §5.3.6). The
        first declaration starts the contest: AP are figured from the TNs then."""
        self._long_phase("group_extended")
        name = _name(data, "participant")
        self._require_control(actor, name, "declare their action")
        targets = data.get("targets") or data.get("target")
        machine = self._machine(start=True)
        machine.declare(
            name=name,
            targets=targets,
            bid=_int(data, "bid", default=DEFAULT_BID),
            daring=data.get("daring") or "steady",
        )
        declared = machine.declarations[name]
        self._save(machine)
        order = machine.queue
        return {
            "summary": f"{name} bids {declared['bid']} against {', '.join(declared['targets'])} "
            f"({declared['daring']})"
            + (f"; the order of action: {', '.join(order)}" if machine.phase == "acting" else ""),
            **self._totals(machine),
        }

    def _do_delay(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """Let the others act first this round (§5.3.3)."""
        self._long_phase("group_extended")
        name = _name(data, "participant")
        self._require_control(actor, name, "delay")
        machine = self._machine()
        machine.delay(name=name)
        self._save(machine)
        return {"summary": f"{name} waits to act later this round"}

    def _do_act(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """The participant whose turn it is acts against one opponent: an exchange
        (§5.3.1), with the declared target and bid unless the GM allows a change."""
        self._long_phase("group_extended")
        name = _name(data, "participant")
        self._require_control(actor, name, "act")
        machine = self._machine()
        args: dict[str, Any] = {"name": name}
        if data.get("target"):
            args["target"] = _name(data, "target")
        if data.get("bid") is not None:
            args["bid"] = _int(data, "bid")
        # The declared target, unless changed (the engine refuses anyone else).
        defender = args.get("target") or self._declared_target(machine.state(), name)
        if defender is not None and self._is_participant(defender):
            args.update(self._modifiers(actor_modifier=name, defender_modifier=defender))
        rollers = {"actor_roll": name, "defender_roll": defender}
        args.update(self._dice(data, roller, rollers))
        return self._rolled(
            "act", args, rollers, {"actor_hero_point": name, "defender_hero_point": defender}
        )

    @staticmethod
    def _declared_target(state: dict[str, Any], name: str) -> str | None:
        """The first target `name` declared who is still in (§5.3.3), as the engine's
        `act` picks it, from the engine's `state()`; None when there is none (the engine
        then says why)."""
        status = {p["name"]: p["status"] for p in state["participants"]}
        declared = state["declarations"].get(name) or {}
        return next((t for t in declared.get("targets", []) if status.get(t) == "in"), None)

    def _do_disengage(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """Try to leave the contest as the turn's action (§5.3.9): a victory withdraws
        with the AP held; a defeat hands part of them to the opponent."""
        self._long_phase("group_extended")
        name, opponent = _name(data, "participant"), _name(data, "opponent")
        self._require_control(actor, name, "disengage")
        rollers = {"roll": name, "opponent_roll": opponent}
        return self._rolled(
            "disengage",
            {"name": name, "opponent": opponent, **self._dice(data, roller, rollers)},
            rollers,
            {"hero_point": name, "opponent_hero_point": opponent},
        )

    def _do_rejoin(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """A withdrawn participant comes back with the AP they left with, plus any the
        GM restores (§5.3.9)."""
        self._long_phase("group_extended")
        self._require_gm(actor, "bring a participant back")
        name = _name(data, "participant")
        restore = _int(data, "restore", default=0)
        machine = self._machine()
        machine.rejoin(name=name, restore=restore)
        return self._played(
            machine, "rejoin", {}, f"{name} rejoins the contest (+{restore} AP)", []
        )

    def _do_lend(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """Lend AP to a PC on one's side as the turn's action (§5.3.10): a simple
        contest against the amount."""
        self._long_phase("group_extended")
        name, target = _name(data, "participant"), _name(data, "target")
        self._require_control(actor, name, "lend AP")
        rollers = {"roll": name, "resistance_roll": "the resistance"}
        return self._rolled(
            "lend",
            {
                "name": name,
                "target": target,
                "amount": _int(data, "amount"),
                **self._dice(data, roller, rollers),
            },
            rollers,
            {"hero_point": name},
        )

    def _do_final_action(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """A knocked-out PC's one try to get back in (§5.3.5): it costs a hero point at
        once; a second one may raise the roll. The ability is the sheet's (`ability_id`)
        or the one in use."""
        self._long_phase("group_extended")
        name = _name(data, "participant")
        participant = self._require_control(actor, name, "take a final action")
        payer = self._payer(name)
        if payer is None:
            raise IllegalAction("the GM does not use final actions for the resistance (§5.3.5)")
        rating = Rating.parse(data["rating"]).total if data.get("rating") else None
        if rating is None:
            rating = self.tn(participant).rating.total
        ability = _text(data, "ability", limit=MAX_NAME) or participant["ability"]
        rollers = {"roll": name, "resistance_roll": "the resistance"}
        payload = self._rolled(
            "final_action",
            {"name": name, "rating": rating, **self._dice(data, roller, rollers)},
            rollers,
            {"hero_point": name},
            note=ability,
        )
        participant["hero_points_spent"] += 1
        self._refresh_sides()
        spent = f"{name} spends a hero point on a final action with {ability}: "
        for key in ("summary", "gm_summary"):
            if key in payload:
                payload[key] = spent + payload[key]
        payload["hero_point"] = {"participant": name, "character_id": payer}
        return payload

    def _do_gift(self, data: dict, actor: Actor, roller: Roller) -> dict:
        """A character outside the contest tries to raise a participant's AP (§5.3.11):
        a bid up to their rating against twice the bid; on a defeat the named opponent
        gains instead. Takes no one's turn, and is played at once unless a giver with a
        sheet asks to see it first (`wait_for_hero_point`): then it waits, like any roll,
        for their own hero point (R5.3) and the GM's `resolve`."""
        self._long_phase("group_extended")
        helper_id = data.get("helper_character_id")
        if helper_id is not None and any(p["character_id"] == helper_id for p in self.participants):
            raise IllegalAction("only a character outside the contest gives AP (§5.3.11)")
        if helper_id is None:
            self._require_gm(actor, "give AP for someone without a character sheet")
        elif not (actor.is_gm or helper_id in actor.character_ids):
            raise IllegalAction("only the giver's player or the GM can offer that gift")
        helper = _name(data, "helper")
        recipient, opponent = _name(data, "recipient"), _name(data, "opponent")
        rollers = {"roll": helper, "resistance_roll": "the resistance"}
        gifters = {helper: helper_id} if helper_id and data.get("wait_for_hero_point") else {}
        return self._rolled(
            "gift",
            {
                "recipient": recipient,
                "opponent": opponent,
                "rating": data.get("rating"),
                "bid": _int(data, "bid", default=DEFAULT_BID),
                **self._dice(data, roller, rollers),
            },
            rollers,
            {"hero_point": helper} if gifters else {},
            note=helper,
            gifters=gifters,
        )


FLOW_CLASSES.update(dict.fromkeys(GROUP_KINDS, GroupFlow))
