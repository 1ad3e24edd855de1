"""A group extended contest (§5.3.3-§5.3.11, R13) over `GroupExtendedContest`:
declarations and bids, the order of action, exchanges, AP lending and gifts, final
actions, disengaging, parting shots."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from ..actions.models import (
    CompletedAct,
    CompletedDisengage,
    CompletedFinalAction,
    CompletedGift,
    CompletedLend,
    CompletedPartingShot,
    CompletedUnrelatedAction,
    Declare,
    Delay,
    Rejoin,
    SwitchAbility,
)
from ..rules import DEFAULT_BID, GroupExtendedContest, IllegalAction, Rating, RulesError
from ..rules.extended_group import DARING_LEVELS
from ..terms import MAX_NAME
from .base import (
    MODIFIER_KINDS,
    RESISTANCE_ADJUSTMENTS,
    ActionInput,
    Actor,
    AvailableAction,
    Dice,
    choice,
    number,
    required,
    required_number,
    text,
    words,
)
from .group import RATING, Roll
from .group_long import GroupLongFlow


class GroupExtendedFlow(GroupLongFlow):
    KIND = "group_extended"
    MACHINE = GroupExtendedContest
    FREE_SIDES = True
    FIXED_RESISTANCE = True

    # -- the engine -----------------------------------------------------------------

    def _engine_entry(self, p: dict[str, Any], rating: int, tn: Any) -> dict[str, Any]:
        entry = {
            "name": p["name"],
            "side": p["side"],
            "pc": p["character_id"] is not None,
            "rating": rating,
            "bumps": tn.bumps if tn else 0,
        }
        if tn is not None and tn.stretched:
            entry["stretched"] = True  # §2.10, R18.4
        return entry

    def _engine_options(self) -> dict[str, Any]:
        return {"order": self.state["order"], "better_roll": self.state["better_roll"]}

    def _totals(self, machine: Any) -> dict[str, Any]:
        """Each one's AP."""
        return {"totals": dict(machine.ap), "totals_kind": "AP"}

    def _describe(self, action: str, machine: Any, result: Any, note: str) -> str:
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

    def _suggest_consequences(self, machine: Any) -> None:
        """§5.3.2.4: the engine's consequences for each participant."""
        for name, states in machine.consequences.items():
            for state in states:
                self._suggest(name, state)

    def _switch_engine(self, machine: Any, name: str, tn: Any, data: SwitchAbility) -> str:
        machine.switch_ability(
            name=name, rating=tn.rating.total, bumps=tn.bumps, stretched=tn.stretched
        )
        return ""

    def _check_modifier(self, key: str, record: dict[str, Any], line: dict[str, Any]) -> None:
        """A group extended contest takes a resistance's TN as it starts and never
        modifies it (R2: its engine refuses), and its bumps as they were when the
        contest started or the ability was switched."""
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

    def _engine_rolls(self, engine: dict[str, Any]) -> list[tuple[Roll, Roll]]:
        """Once declared, each exchange still to come this round, the actor against
        their declared target (the first still in)."""
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
                    self._rolling(name, actor["tn"], actor["bumps"]),
                    self._rolling(target, defender["tn"], defender["bumps"]),
                )
            )
        return rolls

    def _open_parting_shots(
        self, participant: dict[str, Any], engine: dict[str, Any], standing: dict[str, Any]
    ) -> list[str]:
        shot = engine.get("parting_shot")
        return [shot["at"]] if shot and shot["by"] == participant["name"] else []

    # -- what an actor may do now ------------------------------------------------------

    def _modifier_rule(self, key: str) -> tuple[tuple[str, ...], int] | None:
        """A resistance's TN is set before the contest starts (R2); bumps change only
        with a switch of ability once it is under way (§5.3.8)."""
        resistance = self.is_resistance(key, self.participant(key))
        if resistance and self.started:
            return None
        if resistance:
            return RESISTANCE_ADJUSTMENTS, 0  # R2, R9, R18.3
        return MODIFIER_KINDS, 0 if self.started else 3

    def _bid_limit(self, name: str) -> int:
        """The most `name` may bid now (§5.3.6), the contest started on a copy if need be."""
        probe = GroupExtendedFlow(copy.deepcopy(self.state))
        try:
            limit: int = probe._machine(start=True).people[name].bid_limit
            return limit
        except RulesError:
            return 0

    def _kind_offers(
        self, actor: Actor, mine: list[str], hero_points: Mapping[int, int]
    ) -> list[AvailableAction]:
        offers: list[AvailableAction] = []
        shot = self._machine().open_parting_shot if self.started else None
        if shot and shot["by"] in mine and self.phase in ("preparing", "resolved"):
            limit = self._bid_limit(shot["by"])
            if limit >= 1 and self._accepts("parting_shot", actor, participant=shot["by"], bid=1):
                inputs: tuple[ActionInput, ...] = (
                    self._pick([shot["by"]]),
                    number("bid", "Bid", 1, limit, default=min(DEFAULT_BID, limit)),
                )
                offers.append(
                    AvailableAction("parting_shot", f"Parting shot at {shot['at']}", inputs)
                )
        if self.phase != "preparing":
            return offers
        names = [p["name"] for p in self.participants]
        for name in mine:
            side = self.participant(name)["side"]
            against = [n for n in names if self.participant(n)["side"] != side]
            targets = [
                t
                for t in against
                if self._accepts("declare", actor, participant=name, targets=[t], bid=1)
            ]
            limit = self._bid_limit(name)
            if targets and limit >= 1:
                inputs = (
                    self._pick([name]),
                    self._pick(targets, "targets", "Against"),
                    number("bid", "Bid", 1, limit, default=min(DEFAULT_BID, limit)),
                    choice(
                        "daring",
                        "How daring",
                        ((d, d) for d in DARING_LEVELS),
                        required=False,
                        default="steady",
                    ),
                )
                # The table waits on a declaration not made yet; one made may change
                # until the last one is in (§5.3.3).
                engine = (self.state.get("machine") or {}).get("state") or {}
                declared = name in (engine.get("declarations") or {})
                label = f"{name} changes the declaration" if declared else f"{name} declares"
                offers.append(AvailableAction("declare", label, inputs, primary=not declared))
            away = [
                o
                for o in against
                if self._accepts("disengage", actor, participant=name, opponent=o)
            ]
            if away:
                inputs = (self._pick([name]), self._pick(away, "opponent", "From"))
                offers.append(
                    AvailableAction("disengage", f"{name} tries to disengage", inputs, confirm=True)
                )
            friends = [n for n in names if n != name and self.participant(n)["side"] == side]
            lent = [
                t
                for t in friends
                if self._accepts("lend", actor, participant=name, target=t, amount=1)
            ]
            most = max(
                (
                    a
                    for a in range(1, 41)
                    if lent
                    and self._accepts("lend", actor, participant=name, target=lent[0], amount=a)
                ),
                default=0,
            )
            if lent and most:
                inputs = (
                    self._pick([name]),
                    self._pick(lent, "target", "To"),
                    number("amount", "AP", 1, most),
                )
                offers.append(AvailableAction("lend", f"{name} lends AP", inputs))
        acting = self._names("act", actor, mine)
        if acting:
            offers.append(
                AvailableAction("act", "Act as declared", (self._pick(acting),), primary=True)
            )
        for action, label, confirm in (
            ("delay", "Wait to act later this round", False),
            ("unrelated_action", "Give up the action for something else", False),
            ("final_action", "Take a final action (a hero point)", True),
        ):
            who = self._names(action, actor, mine)
            if action == "final_action":
                who = [n for n in who if self._has_points(hero_points, self._payer(n))]
            if who:
                extra = (words("description", "What"),) if action == "unrelated_action" else ()
                offers.append(
                    AvailableAction(action, label, (self._pick(who), *extra), confirm=confirm)
                )
        switching = [
            n
            for n in mine
            if self._accepts(
                "switch_ability", actor, participant=n, rating=self.participant(n)["rating"]
            )
        ]
        if switching:
            inputs = (self._pick(switching), words("ability", "Ability", limit=MAX_NAME), RATING)
            offers.append(AvailableAction("switch_ability", "Switch abilities", inputs))
        if actor.is_gm:
            back = self._names("rejoin", actor, names)
            if back:
                inputs = (self._pick(back), number("restore", "AP given back", 0, 20, default=0))
                offers.append(AvailableAction("rejoin", "Bring a participant back", inputs))
        return offers + self._gift_offers(actor, names)

    def _gift_offers(self, actor: Actor, names: list[str]) -> list[AvailableAction]:
        """AP from a character outside the contest (§5.3.11): the GM's for anyone, a
        player's for their characters outside it; the bid is at most the giver's rating."""
        if not self.started:
            return []
        givers = [
            c["character_id"]
            for c in self.outsiders
            if c.get("character_id") in actor.character_ids
        ]
        if not actor.is_gm and not givers:
            return []
        who = (
            (choice("helper_character_id", "Giver", ((c, f"character #{c}") for c in givers)),)
            if not actor.is_gm
            else ()
        )
        offers = []
        for recipient in names:
            sample = {"helper_character_id": givers[0]} if givers and not actor.is_gm else {}
            against = [
                o
                for o in names
                if self._accepts(
                    "gift",
                    actor,
                    helper="A giver",
                    recipient=recipient,
                    opponent=o,
                    rating=13,
                    bid=1,
                    **sample,
                )
            ]
            if against:
                inputs: tuple[ActionInput, ...] = (
                    *who,
                    words("helper", "Giver", limit=MAX_NAME, required=True),
                    self._pick([recipient], "recipient", "To"),
                    self._pick(against, "opponent", "Against"),
                    ActionInput("rating", "rating", "Giver's rating"),
                    ActionInput(
                        "bid", "int", "Bid (at most the rating)", minimum=1, default=DEFAULT_BID
                    ),
                )
                if who:
                    waits = choice(
                        "wait_for_hero_point",
                        "See the roll before spending a hero point on it (R5.3)",
                        [(False, "no"), (True, "yes")],
                        required=False,
                        default=False,
                    )
                    inputs += (waits,)
                offers.append(AvailableAction("gift", f"Give {recipient} AP from outside", inputs))
        return offers

    # -- actions ----------------------------------------------------------------------

    def _do_unrelated_action(
        self, data: CompletedUnrelatedAction, actor: Actor, dice: Dice
    ) -> dict[str, Any]:
        """Something other than contending for the prize: in a scored contest a simple
        contest against a resistance class by someone not enmeshed (§5.2.2); in an
        extended contest the turn's action given up (§5.3.7)."""
        self._require_phase("preparing")
        name = required(data.participant, "participant")
        self._require_control(actor, name, "take an unrelated action")
        description = text(data.description)
        machine = self._machine(start=True)
        machine.unrelated_action(name=name, description=description)
        return self._played(
            machine,
            "unrelated_action",
            {},
            f"{name} gives up the action" + (f": {description}" if description else ""),
            [],
        )

    def _do_parting_shot(
        self, data: CompletedPartingShot, actor: Actor, dice: Dice
    ) -> dict[str, Any]:
        """Kick an opponent who was just knocked out (§5.1.4, §5.3.4)."""
        self._require_phase("preparing", "resolved")
        name = required(data.participant, "participant")
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
                "bid": data.bid if data.bid is not None else DEFAULT_BID,
                **self._modifiers(actor_modifier=name, defender_modifier=shot["at"]),
                **self._dice(dice, rollers),
            },
            rollers,
            {"actor_hero_point": name, "defender_hero_point": shot["at"]},
        )

    def _do_declare(self, data: Declare, actor: Actor, dice: Dice) -> dict[str, Any]:
        """A participant's bid (default 3; a PC may stake up to their starting AP),
        the opponent(s) they single out and how daring it is (§5.3.3, §5.3.6). The
        first declaration starts the contest: AP are figured from the TNs then."""
        self._require_phase("preparing")
        name = required(data.participant, "participant")
        self._require_control(actor, name, "declare their action")
        targets = data.targets or data.target
        machine = self._machine(start=True)
        machine.declare(
            name=name,
            targets=targets,
            bid=data.bid if data.bid is not None else DEFAULT_BID,
            daring=data.daring or "steady",
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

    def _do_delay(self, data: Delay, actor: Actor, dice: Dice) -> dict[str, Any]:
        """Let the others act first this round (§5.3.3)."""
        self._require_phase("preparing")
        name = required(data.participant, "participant")
        self._require_control(actor, name, "delay")
        machine = self._machine()
        machine.delay(name=name)
        self._save(machine)
        return {"summary": f"{name} waits to act later this round"}

    def _do_act(self, data: CompletedAct, actor: Actor, dice: Dice) -> dict[str, Any]:
        """The participant whose turn it is acts against one opponent: an exchange
        (§5.3.1), with the declared target and bid unless the GM allows a change."""
        self._require_phase("preparing")
        name = required(data.participant, "participant")
        self._require_control(actor, name, "act")
        machine = self._machine()
        args: dict[str, Any] = {"name": name}
        if data.target:
            args["target"] = required(data.target, "target")
        if data.bid is not None:
            args["bid"] = data.bid
        # The declared target, unless changed (the engine refuses anyone else).
        defender = args.get("target") or self._declared_target(machine.state(), name)
        if defender is not None and self._is_participant(defender):
            args.update(self._modifiers(actor_modifier=name, defender_modifier=defender))
        rollers = {"actor_roll": name, "defender_roll": defender}
        args.update(self._dice(dice, rollers))
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

    def _do_disengage(self, data: CompletedDisengage, actor: Actor, dice: Dice) -> dict[str, Any]:
        """Try to leave the contest as the turn's action (§5.3.9): a victory withdraws
        with the AP held; a defeat hands part of them to the opponent."""
        self._require_phase("preparing")
        name, opponent = (
            required(data.participant, "participant"),
            required(data.opponent, "opponent"),
        )
        self._require_control(actor, name, "disengage")
        rollers = {"roll": name, "opponent_roll": opponent}
        return self._rolled(
            "disengage",
            {"name": name, "opponent": opponent, **self._dice(dice, rollers)},
            rollers,
            {"hero_point": name, "opponent_hero_point": opponent},
        )

    def _do_rejoin(self, data: Rejoin, actor: Actor, dice: Dice) -> dict[str, Any]:
        """A withdrawn participant comes back with the AP they left with, plus any the
        GM restores (§5.3.9)."""
        self._require_phase("preparing")
        self._require_gm(actor, "bring a participant back")
        name = required(data.participant, "participant")
        restore = data.restore or 0
        machine = self._machine()
        machine.rejoin(name=name, restore=restore)
        return self._played(
            machine, "rejoin", {}, f"{name} rejoins the contest (+{restore} AP)", []
        )

    def _do_lend(self, data: CompletedLend, actor: Actor, dice: Dice) -> dict[str, Any]:
        """Lend AP to a PC on one's side as the turn's action (§5.3.10): a simple
        contest against the amount."""
        self._require_phase("preparing")
        name, target = required(data.participant, "participant"), required(data.target, "target")
        self._require_control(actor, name, "lend AP")
        rollers = {"roll": name, "resistance_roll": "the resistance"}
        return self._rolled(
            "lend",
            {
                "name": name,
                "target": target,
                "amount": required_number(data.amount, "amount"),
                **self._dice(dice, rollers),
            },
            rollers,
            {"hero_point": name},
        )

    def _do_final_action(
        self, data: CompletedFinalAction, actor: Actor, dice: Dice
    ) -> dict[str, Any]:
        """A knocked-out PC's one try to get back in (§5.3.5): it costs a hero point at
        once; a second one may raise the roll. The ability is the sheet's (`ability_id`)
        or the one in use."""
        self._require_phase("preparing")
        name = required(data.participant, "participant")
        participant = self._require_participant(actor, name, "take a final action")
        payer = self._payer(name)
        if payer is None:
            raise IllegalAction("the GM does not use final actions for the resistance (§5.3.5)")
        rating = Rating.parse(data.rating).total if data.rating else None
        if rating is None:
            tn = self.tn(participant)
            if tn is None:
                raise RulesError(f"{name} has no ability to act with yet")
            rating = tn.rating.total
        ability = text(data.ability) or participant["ability"]
        rollers = {"roll": name, "resistance_roll": "the resistance"}
        payload = self._rolled(
            "final_action",
            {"name": name, "rating": rating, **self._dice(dice, rollers)},
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

    def _do_gift(self, data: CompletedGift, actor: Actor, dice: Dice) -> dict[str, Any]:
        """A character outside the contest tries to raise a participant's AP (§5.3.11):
        a bid up to their rating against twice the bid; on a defeat the named opponent
        gains instead. Takes no one's turn, and is played at once unless a giver with a
        sheet asks to see it first (`wait_for_hero_point`): then it waits, like any roll,
        for their own hero point (R5.3) and the GM's `resolve`."""
        self._require_phase("preparing")
        helper_id = data.helper_character_id
        if helper_id is not None and any(p["character_id"] == helper_id for p in self.participants):
            raise IllegalAction("only a character outside the contest gives AP (§5.3.11)")
        if helper_id is None:
            self._require_gm(actor, "give AP for someone without a character sheet")
        elif not (actor.is_gm or helper_id in actor.character_ids):
            raise IllegalAction("only the giver's player or the GM can offer that gift")
        helper = required(data.helper, "helper")
        recipient, opponent = (
            required(data.recipient, "recipient"),
            required(data.opponent, "opponent"),
        )
        rollers = {"roll": helper, "resistance_roll": "the resistance"}
        gifters = {helper: helper_id} if helper_id and data.wait_for_hero_point else {}
        return self._rolled(
            "gift",
            {
                "recipient": recipient,
                "opponent": opponent,
                "rating": data.rating,
                "bid": data.bid if data.bid is not None else DEFAULT_BID,
                **self._dice(dice, rollers),
            },
            rollers,
            {"hero_point": helper} if gifters else {},
            note=helper,
            gifters=gifters,
        )
