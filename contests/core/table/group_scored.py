"""A group scored contest (§5.2, R12) over `GroupScoredContest`: pairings and their
rounds, round tactics, assists, unrelated actions, parting shots, followers, joining in
progress."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..actions.models import (
    CompletedAssist,
    CompletedPartingShot,
    CompletedPlayRound,
    CompletedRemoveFollower,
    CompletedUnrelatedAction,
    Engage,
    ShiftPoints,
    SwitchAbility,
)
from ..rules import (
    GroupScoredContest,
    IllegalAction,
)
from ..rules.ratings import RESISTANCE_LEVELS
from ..rules.scored import TACTICS
from .base import (
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


class GroupScoredFlow(GroupLongFlow):
    KIND = "group_scored"
    MACHINE = GroupScoredContest
    FOLLOWERS = True
    JOINS_UNDER_WAY = True
    ROUND_TACTICS = TACTICS

    # -- the engine -----------------------------------------------------------------

    def _engine_entry(self, p: dict[str, Any], rating: int, tn: Any) -> dict[str, Any]:
        entry: dict[str, Any] = {"name": p["name"], "side": p["side"], "rating": rating}
        if p["role"] != "contestant":
            entry.update(role=p["role"], owner=p["owner"])
            if p["character_id"] is not None:
                entry["player"] = True
        else:
            entry["player"] = p["character_id"] is not None
        if tn is not None and tn.stretched:
            entry["stretched"] = True  # §2.10, R18.4
        return entry

    def _engine_options(self) -> dict[str, Any]:
        return {
            "stakes": self.state["stakes"],
            "better_roll": self.state["better_roll"],
            "base_resistance": self.state["base_resistance"],
        }

    def _totals(self, machine: Any) -> dict[str, Any]:
        """RP scored against each participant."""
        return {
            "totals": {p["name"]: machine.points_against(p["name"]) for p in self.participants},
            "totals_kind": "RP against",
        }

    def _describe(self, action: str, machine: Any, result: Any, note: str) -> str:
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

    def _suggest_consequences(self, machine: Any) -> None:
        """§5.1.2, §5.1.3, §5.2: each one's consequence, and a benefit for the winners
        who beat someone not clearly inferior: the engine's `outcome` (R18.6)."""
        outcome = machine.outcome
        for participant in self.participants:
            name = participant["name"]
            for state in (outcome.consequences[name], outcome.benefits[name]):
                if state is not None:
                    self._suggest(name, state.value)

    def _switch_engine(self, machine: Any, name: str, tn: Any, data: SwitchAbility) -> str:
        pairing = required_number(data.pairing, "pairing")
        machine.switch_ability(
            pairing=pairing, participant=name, rating=tn.rating.total, stretched=tn.stretched
        )
        return f" in pairing #{pairing}"

    def _engine_rolls(self, engine: dict[str, Any]) -> list[tuple[Roll, Roll]]:
        """Both members' rolls in each pairing still to play this group round."""
        return [
            (
                self._rolling(pairing["pc"], pairing["pc_rating"], self._bumps(pairing["pc"])),
                self._rolling(
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

    def _open_parting_shots(
        self, participant: dict[str, Any], engine: dict[str, Any], standing: dict[str, Any]
    ) -> list[str]:
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

    # -- what an actor may do now ------------------------------------------------------

    def _kind_offers(
        self, actor: Actor, mine: list[str], hero_points: Mapping[int, int]
    ) -> list[AvailableAction]:
        offers: list[AvailableAction] = []
        if self.phase in ("preparing", "resolved"):
            offers += self._parting_shot_offers(actor, mine)
        if self.phase != "preparing":
            return offers
        pairings = self._machine().state()["pairings"] if self.started else []
        numbers = [p["id"] for p in pairings]
        if actor.is_gm:
            for pc in (p["name"] for p in self.participants if p["side"] == "pc"):
                against = [o["name"] for o in self.participants if o["side"] != "pc"]
                against = [o for o in against if self._accepts("engage", actor, pc=pc, opponent=o)]
                if against:
                    inputs: tuple[ActionInput, ...] = (
                        self._pick([pc], "pc", "PC side"),
                        self._pick(against, "opponent", "Against"),
                    )
                    offers.append(AvailableAction("engage", f"Pair {pc} with an opponent", inputs))
            playable = [n for n in numbers if self._accepts("play_round", actor, pairing=n)]
            if playable:
                which = choice("pairing", "Pairing", ((n, f"#{n}") for n in playable))
                offers.append(
                    AvailableAction("play_round", "Roll a pairing's round", (which,), primary=True)
                )
        for name in mine:
            others = [p["name"] for p in self.participants if p["name"] != name]
            helped = [
                r for r in others if self._accepts("assist", actor, participant=name, recipient=r)
            ]
            if helped:
                inputs = (self._pick([name]), self._pick(helped, "recipient", "Assist"))
                shifts = [
                    (s, label)
                    for s, label in ((0, "as the rules say"), (-1, "one step easier"))
                    + ((1, "one step harder"),)
                    if actor.is_gm
                    and self._accepts(
                        "assist", actor, participant=name, recipient=helped[0], resistance_shift=s
                    )
                ]
                if len(shifts) > 1:
                    inputs += (
                        choice("resistance_shift", "Resistance", shifts, required=False, default=0),
                    )
                offers.append(AvailableAction("assist", f"{name} assists", inputs))
            followers = [p["name"] for p in self.participants if p["role"] != "contestant"]
            out = [
                f
                for f in followers
                if self._accepts("remove_follower", actor, participant=name, follower=f)
            ]
            if out:
                inputs = (self._pick([name]), self._pick(out, "follower", "Follower"))
                offers.append(
                    AvailableAction("remove_follower", f"{name} takes a follower out", inputs)
                )
            for follower in followers:
                offers += self._shift_offers(actor, name, follower, numbers)
            p = self.participant(name)
            switched = [
                n
                for n in numbers
                if self._accepts(
                    "switch_ability",
                    actor,
                    participant=name,
                    pairing=n,
                    rating=p["rating"],
                    ability=p["ability"],
                )
            ]
            if switched:
                inputs = (
                    self._pick([name]),
                    choice("pairing", "In pairing", ((n, f"#{n}") for n in switched)),
                    words("ability", "Ability", limit=120),
                    RATING,
                )
                offers.append(
                    AvailableAction("switch_ability", f"{name} switches abilities", inputs)
                )
        free = self._names("unrelated_action", actor, mine)
        if free:
            levels = choice(
                "resistance_level",
                "Resistance",
                ((r, r.replace("_", " ")) for r in RESISTANCE_LEVELS),
                required=False,
                default="moderate",
            )
            # The resistance is the GM's to set (§5.2.2); a player's action is moderate.
            chosen = (levels,) if actor.is_gm else ()
            inputs = (self._pick(free), *chosen, words("description", "What"))
            offers.append(AvailableAction("unrelated_action", "Take an unrelated action", inputs))
        return offers

    def _shift_offers(
        self, actor: Actor, owner: str, follower: str, numbers: list[int]
    ) -> list[AvailableAction]:
        """RP scored against `owner` moved onto their secondary contestant (§5.2.4)."""
        offers = []
        for pairing in numbers:
            data = {"participant": owner, "follower": follower, "pairing": pairing}
            most = max(
                (n for n in range(1, 6) if self._accepts("shift_points", actor, points=n, **data)),
                default=0,
            )
            if most:
                inputs: tuple[ActionInput, ...] = (
                    self._pick([owner]),
                    self._pick([follower], "follower", "Onto"),
                    choice("pairing", "From pairing", [(pairing, f"#{pairing}")]),
                    number("points", "RP", 1, most),
                )
                offers.append(AvailableAction("shift_points", f"Shift RP onto {follower}", inputs))
        return offers

    def _parting_shot_offers(self, actor: Actor, mine: list[str]) -> list[AvailableAction]:
        if not self.started:
            return []
        engine = self.state["machine"]["state"]
        standing = {p["name"]: p for p in engine.get("participants", [])}
        offers = []
        for name in mine:
            shots = self._parting_shots(self.participant(name), engine, standing)
            shots = [
                t for t in shots if self._accepts("parting_shot", actor, participant=name, target=t)
            ]
            if shots:
                inputs: tuple[ActionInput, ...] = (
                    self._pick([name]),
                    self._pick(shots, "target", "At"),
                )
                offers.append(
                    AvailableAction("parting_shot", f"{name} takes a parting shot", inputs)
                )
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
        level = data.resistance_level or "moderate"
        rollers = {"roll": name, "resistance_roll": f"{level.replace('_', ' ')} resistance"}
        return self._rolled(
            "unrelated_action",
            {
                "participant": name,
                "resistance_level": level,
                "bumps": self._bumps(name),
                **self._modifiers(modifier=name),
                **self._dice(dice, rollers),
            },
            rollers,
            {"hero_point": name},
            note=description,
        )

    def _do_parting_shot(
        self, data: CompletedPartingShot, actor: Actor, dice: Dice
    ) -> dict[str, Any]:
        """Kick an opponent who was just knocked out (§5.1.4, §5.3.4)."""
        self._require_phase("preparing", "resolved")
        shooter, target = required(data.participant, "participant"), required(data.target, "target")
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
                **self._dice(dice, rollers),
            },
            rollers,
            {"hero_point": shooter, "target_hero_point": target},
        )

    def _do_engage(self, data: Engage, actor: Actor, dice: Dice) -> dict[str, Any]:
        """The GM pairs a PC-side participant with an opponent: a contest of their own,
        first to 5 RP (§5.2.1). The first pairing starts the contest."""
        self._require_phase("preparing")
        self._require_gm(actor, "pair participants")
        pc, opponent = required(data.pc, "pc"), required(data.opponent, "opponent")
        machine = self._machine(start=True)
        number = machine.engage(pc=pc, opponent=opponent)
        self._save(machine)
        return {"summary": f"Pairing #{number}: {pc} against {opponent}"}

    def _do_play_round(self, data: CompletedPlayRound, actor: Actor, dice: Dice) -> dict[str, Any]:
        """The GM rolls one round of a pairing, with its members' round tactics."""
        self._require_phase("preparing")
        self._require_gm(actor, "roll a pairing's round")
        number = data.pairing
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
                **self._dice(dice, rollers),
            },
            rollers,
            {"pc_hero_point": pc, "opponent_hero_point": opponent},
        )

    def _do_assist(self, data: CompletedAssist, actor: Actor, dice: Dice) -> dict[str, Any]:
        """Someone not enmeshed helps a teammate in a pairing (§5.2.3): moderate
        resistance, then high, very high, nearly impossible for later assists; the GM
        may shift it one step easier or harder (`resistance_shift` -1 or +1)."""
        self._require_phase("preparing")
        helper, recipient = (
            required(data.participant, "participant"),
            required(data.recipient, "recipient"),
        )
        self._require_control(actor, helper, "assist")
        args: dict[str, Any] = {
            "helper": helper,
            "recipient": recipient,
            "bumps": self._bumps(helper),
            **self._modifiers(modifier=helper),
        }
        if data.pairing is not None:
            args["pairing"] = data.pairing
        shift = data.resistance_shift or 0
        if shift:
            self._require_gm(actor, "shift an assist's resistance")
            args["resistance_shift"] = shift
        rollers = {"helper_roll": helper, "resistance_roll": "the resistance"}
        args.update(self._dice(dice, rollers))
        return self._rolled("assist", args, rollers, {"hero_point": helper})

    def _do_remove_follower(
        self, data: CompletedRemoveFollower, actor: Actor, dice: Dice
    ) -> dict[str, Any]:
        """An opponent not enmeshed takes a follower out with a simple contest (§5.2.4)."""
        self._require_phase("preparing")
        remover, follower = (
            required(data.participant, "participant"),
            required(data.follower, "follower"),
        )
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
                **self._dice(dice, rollers),
            },
            rollers,
            {"hero_point": remover, "follower_hero_point": follower},
        )

    def _do_shift_points(self, data: ShiftPoints, actor: Actor, dice: Dice) -> dict[str, Any]:
        """An owner moves RP scored against them onto a secondary contestant (§5.2.4)."""
        self._require_phase("preparing")
        owner, follower = (
            required(data.participant, "participant"),
            required(data.follower, "follower"),
        )
        self._require_control(actor, owner, "shift RP onto their follower")
        pairing = required_number(data.pairing, "pairing")
        points = required_number(data.points, "points")
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
