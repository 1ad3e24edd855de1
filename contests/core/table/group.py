"""What the group contests share at the live table (issue 6): several participants on
a side.

`GroupFlow` is the family's base, with `TableFlow`'s interface (one_on_one.py: `frame`,
`apply`, `replay`; phases preparing -> rolled -> resolved -> finished):
`GroupFlow.frame(framing)` builds the class of the framing's kind: group_simple.py
(§4.2, §4.5, R7), group_scored.py (§5.2, R12) and group_extended.py (§5.3.3-§5.3.11,
R13), the long ones over group_long.py.

Participants are named (names are unique within a contest); a participant a player
plays has a `character_id`; a follower (scored) names its `owner`. When a player could
spend a hero point on a roll (R5.3: after seeing the results), the results wait in
`pending` (phase "rolled") for `hero_point` and the GM's `resolve`.

What the one-on-one table shares (base.py `BaseFlow`) works per participant here:
modifier lines and augments in each participant's TN, physical dice entered for a
participant, and, with the campaign's GM rolls hidden, the dice of the participants no
player plays and of resistances left out for the players until `reveal` or `resolve`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from ..actions.models import (
    ApplyConsequences,
    CompletedChooseAbility,
    CompletedJoin,
    HeroPoint,
    NoRelevantAbility,
    Resolve,
    SetTactic,
)
from ..rules import DEGREES, IllegalAction, Rating, RulesError, State, simple_odds
from ..rules.odds import odds_summary, outcome_percentages
from ..rules.simple import NO_RELEVANT_ABILITY
from ..terms import MAX_NAME
from .base import (
    GM,
    SIDES,
    ActionInput,
    Actor,
    AvailableAction,
    Dice,
    choice,
    required,
    text,
    words,
)
from .group_framing import GroupFraming

# States a GM may confirm at the end (§2.11, R10).
STATES = frozenset(s.value for s in State)
# One side of a coming roll: who rolls, with what rating and how many bumps.
Roll = tuple[str, Rating, int]


RATING = ActionInput("rating", "rating", "Rating")


class GroupFlow(GroupFraming):
    """A group contest at the table. Build it with `frame(...)`, change it with `apply`."""

    JOINS_UNDER_WAY: ClassVar[bool] = False  # newcomers once started (scored, §5.2.7)
    ROUND_TACTICS: ClassVar[tuple[str, ...]] = ("normal",)

    # -- reading ------------------------------------------------------------------

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

    def _coming_rolls(self) -> list[tuple[Roll, Roll]]:
        """The simple contests about to be rolled, each as its two sides' (name, rating,
        bumps), as the kind's actions will roll them."""
        raise NotImplementedError

    def _parting_shots(
        self, participant: dict[str, Any], engine: dict[str, Any], standing: dict[str, Any]
    ) -> list[str]:
        """Whom this participant may kick while they are down now (§5.1.4, §5.3.4)."""
        if self.phase not in ("preparing", "resolved"):
            return []
        return self._open_parting_shots(participant, engine, standing)

    def _open_parting_shots(
        self, participant: dict[str, Any], engine: dict[str, Any], standing: dict[str, Any]
    ) -> list[str]:
        return []

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
        names = self._hero_point_names(pending)
        return [
            {"participant": name, "player_id": self._player_for(name)}
            for name in dict.fromkeys(names)
        ]

    def _hero_point_names(self, pending: dict[str, Any]) -> list[str]:
        """Who may still raise their result in the pending roll (R5.3)."""
        raise NotImplementedError

    def level_for_pc(self) -> int | None:
        """+4 complete victory .. -4 complete defeat for the PCs' side; 0 otherwise."""
        outcome = self.state.get("outcome")
        if not outcome:
            return None
        if "level" in outcome:
            level: int = outcome["level"]
            return level
        if outcome["winner"] not in SIDES or not outcome["degree"]:
            return 0
        step = DEGREES.index(outcome["degree"]) + 1
        return step if outcome["winner"] == "pc" else -step

    def _on_pc_side(self, key: str, record: dict[str, Any]) -> bool:
        return bool(record.get("side") == self.state.get("pc_side", "pc"))

    def _check_modifier(self, key: str, record: dict[str, Any], line: dict[str, Any]) -> None:
        """Every line applies, except where a kind says otherwise (group extended)."""

    def _reveal_text(self, pending: dict[str, Any]) -> str:
        shown = ", ".join(f"{r['who']} rolled {r['roll']}" for r in pending["rolls"] if r["hidden"])
        return f"The GM reveals the roll: {shown}; so far {pending['summary']}"

    # -- what an actor may do now -------------------------------------------------

    KEY = "participant"

    def _keys(self) -> list[tuple[str, str]]:
        return [(p["name"], p["name"]) for p in self.participants]

    def _names(self, action: str, actor: Actor, names: Iterable[str], **data: Any) -> list[str]:
        """Those of `names` for whom `actor` may take `action` with `data` now."""
        return [n for n in names if self._accepts(action, actor, participant=n, **data)]

    def _pick(
        self, names: Iterable[str], key: str | None = None, label: str = "Who"
    ) -> ActionInput:
        return choice(key or self.KEY, label, ((n, n) for n in names))

    def _available(self, actor: Actor, hero_points: Mapping[int, int]) -> list[AvailableAction]:
        mine = [p["name"] for p in self.participants if self.controls(actor, p["name"])]
        offers: list[AvailableAction] = []
        if self.phase == "preparing":
            rateable = [
                n for n in mine if actor.is_gm or self.participant(n)["character_id"] is not None
            ]
            if rateable and not self.started:
                rated = (words("ability", "Ability", limit=MAX_NAME), RATING)
                offers.append(
                    AvailableAction(
                        "choose_ability", "Choose an ability", (self._pick(rateable), *rated)
                    )
                )
            players = [n for n in rateable if self.participant(n)["character_id"] is not None]
            if actor.is_gm and players and not self.started:
                # §2.1.2.1, R18.10: the GM's ruling that nothing on the sheet applies.
                offers.append(
                    AvailableAction(
                        "no_relevant_ability", "No relevant ability: TN 6", (self._pick(players),)
                    )
                )
            if mine:
                tactics = choice(
                    "round_tactic",
                    "Next round",
                    ((t, t.replace("_", " ")) for t in self.ROUND_TACTICS),
                    required=False,
                    default="normal",
                )
                offers.append(
                    AvailableAction(
                        "set_tactic",
                        "Describe your tactic",
                        (self._pick(mine), words("tactic", "Tactic"), tactics),
                    )
                )
            if actor.is_gm and (not self.started or self.JOINS_UNDER_WAY):
                offers += self._join_offers()
        elif self.phase == "rolled":
            raising = [
                n
                for n in dict.fromkeys(self._hero_point_names(self.state["pending"]))
                if self.controls(actor, n)
                and self._has_points(hero_points, self._payer(n))
                and self._accepts("hero_point", actor, participant=n)
            ]
            if raising:
                offers.append(
                    AvailableAction(
                        "hero_point",
                        "Spend a hero point to raise the result a step",
                        (self._pick(raising),),
                        confirm=True,
                    )
                )
            if actor.is_gm:
                half = choice(
                    "both_lose_half",
                    "Both fumbled: both lose 1/2x bid (§5.3.1)",
                    [(False, "no"), (True, "yes")],
                    required=False,
                    default=False,
                )
                inputs = (half,) if self._accepts("resolve", actor, both_lose_half=True) else ()
                offers.append(AvailableAction("resolve", "Resolve the roll", inputs, primary=True))
        elif self.phase == "resolved" and actor.is_gm:
            offers.append(
                AvailableAction(
                    "apply_consequences",
                    "Confirm the consequences",
                    (words("narration", "Narration"),),
                    confirm=True,
                    primary=True,
                )
            )
        return offers + self._kind_offers(actor, mine, hero_points)

    def _join_offers(self) -> list[AvailableAction]:
        """The GM brings someone in (the service reads a character from the sheet)."""
        sides = [
            s
            for s in dict.fromkeys([*self.side_labels, *SIDES])
            if self._accepts("join", GM, name="A newcomer", side=s, rating=13)
        ]
        if not sides:
            return []
        inputs = (
            words("name", "Name (not yet in the contest)", limit=MAX_NAME, required=True),
            choice("side", "Side", ((s, s) for s in sides)),
            RATING,
        )
        return [AvailableAction("join", "Bring someone into the contest", inputs)]

    def _kind_offers(
        self, actor: Actor, mine: list[str], hero_points: Mapping[int, int]
    ) -> list[AvailableAction]:
        """The actions of this kind that `actor` may take now, for `mine` (the
        participants they control)."""
        return []

    # -- actions for every group contest -------------------------------------------

    def _do_choose_ability(
        self, data: CompletedChooseAbility, actor: Actor, dice: Dice
    ) -> dict[str, Any]:
        """A participant's ability, read from the sheet by the service (the GM sets an
        NPC's rating), before the contest starts."""
        self._require_phase("preparing")
        name = required(data.participant, "participant")
        participant = self._require_participant(actor, name, "choose their ability")
        if participant["character_id"] is None:
            self._require_gm(actor, "rate the GM's participants")
        if self.state["machine"] is not None:
            raise IllegalAction("the contest has started: switch abilities instead")
        self._set_ability(
            participant, text(data.ability), data.ability_id, data.rating, data.states
        )
        tn = self.rated_tn(participant)
        return {
            "summary": f"{name} uses {participant['ability'] or 'their rating'} "
            f"({Rating(participant['rating'])}); TN {tn.rating}"
        }

    def _set_ability(
        self,
        participant: dict[str, Any],
        ability: str,
        ability_id: int | None,
        rating: int | str | None,
        states: list[str] | None,
    ) -> None:
        participant.update(
            ability=ability,
            ability_id=ability_id,
            rating=Rating.parse(rating).total,
            states=list(states or []),
        )
        self._refresh_sides()

    def _do_no_relevant_ability(
        self, data: NoRelevantAbility, actor: Actor, dice: Dice
    ) -> dict[str, Any]:
        """The GM rules that no ability on a player's sheet applies: a base TN of 6,
        modifiers still applying (§2.1.2.1, R18.10)."""
        self._require_gm(actor, "rule that no ability applies")
        self._require_phase("preparing")
        name = required(data.participant, "participant")
        participant = self.participant(name)
        if participant["character_id"] is None:
            raise IllegalAction(f"{name} is the GM's: give them a rating")
        if self.state["machine"] is not None:
            raise IllegalAction("the contest has started: switch abilities instead")
        self._set_ability(participant, "No relevant ability", None, NO_RELEVANT_ABILITY, [])
        return {
            "summary": f"{name} has no relevant ability: a base TN of {NO_RELEVANT_ABILITY} "
            f"(§2.1.2.1); TN {self.rated_tn(participant).rating}"
        }

    def _do_set_tactic(self, data: SetTactic, actor: Actor, dice: Dice) -> dict[str, Any]:
        """A participant's tactic in words, and in a scored contest the tactic of their
        next pairing round (§5.1.5, §5.1.6, §5.2.5, §5.2.6)."""
        self._require_phase("preparing")
        name = required(data.participant, "participant")
        participant = self._require_participant(actor, name, "describe their tactic")
        round_tactic = data.round_tactic or "normal"
        allowed = self.ROUND_TACTICS
        if round_tactic not in allowed:
            raise RulesError(
                f"round_tactic must be one of {', '.join(allowed)} in a {self.kind} contest"
            )
        participant["tactic"] = text(data.tactic) or participant["tactic"]
        participant["round_tactic"] = round_tactic
        shown = f" ({round_tactic.replace('_', ' ')})" if round_tactic != "normal" else ""
        return {"summary": f"{name}: {participant['tactic'] or 'no tactic in words'}{shown}"}

    def _do_hero_point(self, data: HeroPoint, actor: Actor, dice: Dice) -> dict[str, Any]:
        """A participant's player raises their own result one step after seeing the
        roll (§2.3.5.5, R5.3): one per roll, never on a critical."""
        self._require_phase("rolled")
        name = required(data.participant, "participant")
        self._require_control(actor, name, "spend their hero point")
        payer = self._payer(name)
        if payer is None:
            raise IllegalAction("only player characters spend hero points")
        pending = self.state["pending"]
        summary, secret = self._raise_result(name, pending)
        if self._is_participant(name):
            self.participant(name)["hero_points_spent"] += 1
            self._refresh_sides()
        payload = {"summary": summary}
        if not pending.get("revealed", True):
            payload = {"summary": secret, "gm_summary": summary}
        return {**payload, "hero_point": {"participant": name, "character_id": payer}}

    def _do_resolve(self, data: Resolve, actor: Actor, dice: Dice) -> dict[str, Any]:
        """The GM settles the pending roll: the group simple contest is collated; a
        long contest's action is played with the hero points spent on it."""
        self._require_gm(actor, "resolve the roll")
        self._require_phase("rolled")
        return self._settle(data)

    def _raise_result(self, name: str, pending: dict[str, Any]) -> tuple[str, str]:
        """`name`'s hero point on the pending roll: the log line, and the line for the
        players while the GM's roll is hidden."""
        raise NotImplementedError

    def _settle(self, data: Resolve) -> dict[str, Any]:
        """The GM's `resolve` of the pending roll."""
        raise NotImplementedError

    def _do_apply_consequences(
        self, data: ApplyConsequences, actor: Actor, dice: Dice
    ) -> dict[str, Any]:
        """The GM confirms (or edits) each participant's consequence or benefit (§2.11)."""
        self._require_gm(actor, "confirm consequences")
        self._require_phase("resolved")
        chosen: list[dict[str, Any]] = self.state["suggested"]
        if data.consequences is not None:
            chosen = [c.model_dump(exclude_unset=True) for c in data.consequences]
        applied = []
        for item in chosen:
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
        narration = text(data.narration)
        if narration:
            self.state["narration"] = narration
        listed = "; ".join(f"{a['participant']} {a['state']}" for a in applied) or "none"
        return {"summary": f"Consequences: {listed}", "applied": applied}

    def _suggest(self, name: str, state: str) -> None:
        participant = self.participant(name)
        if participant["character_id"] is not None and self.state["apply_consequences"]:
            self.state["suggested"].append({"participant": name, "state": state})

    def _do_join(self, data: CompletedJoin, actor: Actor, dice: Dice) -> dict[str, Any]:
        """The GM adds a participant before any group contest starts (more PCs, NPCs on
        further sides of a free-for-all, followers in a scored contest), or someone
        joins a group scored contest in progress, accepting its framing (§5.2.7). The
        service reads a character's name and ability from the sheet."""
        self._require_phase("preparing")
        self._require_gm(actor, "bring someone into the contest")
        if self.started and not self.JOINS_UNDER_WAY:
            raise IllegalAction(
                "once under way only a group scored contest takes newcomers (§5.2.7)"
            )
        fields = ("name", "side", "character_id", "player_id", "ability", "ability_id", "rating")
        entry = data.model_dump(include={*fields, "states", "role", "owner"}, exclude_none=True)
        participant = self._add_participant(entry)
        tn = self.tn(participant)
        if tn is None:
            raise IllegalAction(f"{participant['name']} joins with an ability or a rating")
        if self.state["machine"] is None:
            self._check_framing()
        else:
            self._join_engine(participant)
        return {
            "summary": f"{participant['name']} joins the {participant['side']} side "
            f"({participant['ability'] or 'rating'} {tn.rating})",
            "joined": {
                k: participant[k] for k in ("name", "side", "character_id", "ability", "rating")
            },
        }

    def _join_engine(self, participant: dict[str, Any]) -> None:
        """Bring a newcomer into the engine's contest under way (`JOINS_UNDER_WAY`)."""
        raise IllegalAction("once under way only a group scored contest takes newcomers (§5.2.7)")

    def _refusal(self, action: str) -> str | None:
        """An action of another group kind is refused; any other is unknown."""
        kinds = [GroupFlow]
        while kinds:
            cls = kinds.pop()
            if f"_do_{action}" in vars(cls):
                return f"that belongs to another kind of contest, not a {self.kind}"
            kinds.extend(cls.__subclasses__())
        return None
