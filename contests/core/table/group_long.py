"""What the long group contests share: scored (§5.2, R12) and extended (§5.3.3-§5.3.11,
R13) over the rules engine's `GroupScoredContest` and `GroupExtendedContest`.

Each engine action is one flow action. Its dice are recorded under "dice" in its data
(`Dice`), so `replay` is deterministic. Every roll is held by the engine
(`roll(move=...)`, §2.2): when a player could spend a hero point on it, it waits in
`pending` for `hero_point` and the GM's `resolve` (the engine's `hero_point` and
`settle`); a roll nobody can raise is settled at once. A long contest's engine takes each TN when it
starts (or when someone joins or switches abilities); later changes (a situational
modifier lasting one round, R9) reach its rolls as the difference from that TN.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..actions.models import Resolve, SwitchAbility
from ..rules import IllegalAction, Rating, RulesError
from .base import Actor, Dice, required, text
from .group import GroupFlow, Roll


class GroupLongFlow(GroupFlow):
    """A group contest played through the engine's machine, action by action."""

    is_long = True
    MACHINE: ClassVar[Any]  # the engine's contest class
    FIXED_RESISTANCE: ClassVar[bool] = False  # a resistance's TN never changes (R2)

    def _check_framing(self) -> None:
        sides = {p["side"] for p in self.participants}
        if self.state["pc_side"] not in sides:
            raise RulesError(f"nobody is on the PCs' side {self.state['pc_side']!r}")
        try:
            self.MACHINE(**self._setup(placeholder=13))
        except (RulesError, IllegalAction) as error:
            raise RulesError(str(error)) from None

    # -- the engine's machine ---------------------------------------------------------

    def _setup(self, placeholder: int | None = None) -> dict[str, Any]:
        """The engine's setup from the participants' TNs (masteries counting 20)."""
        entries = []
        for p in self.participants:
            tn = self.tn(p)
            rating: int
            if tn:
                rating = tn.rating.total
            elif placeholder is not None:
                rating = placeholder
            else:
                raise IllegalAction(f"{p['name']} has no ability or rating yet")
            entries.append(self._engine_entry(p, rating, tn))
        return {"participants": entries, **self._engine_options()}

    def _engine_entry(self, participant: dict[str, Any], rating: int, tn: Any) -> dict[str, Any]:
        """One participant as the engine takes them."""
        raise NotImplementedError

    def _engine_options(self) -> dict[str, Any]:
        """The engine's setup besides the participants."""
        raise NotImplementedError

    def _machine(self, *, start: bool = False) -> Any:
        """The engine's contest, rebuilt from its recorded actions; `start` begins it
        (the TNs are fixed from then on; abilities change by `switch_ability`)."""
        if self.state["machine"] is None:
            if not start:
                raise IllegalAction("the contest has not started yet")
            machine = self.MACHINE(**self._setup())
            self.state["machine"] = machine.to_json()
            for participant in self.participants:
                self._engine_took(participant)
            return machine
        return self.MACHINE.from_json(self.state["machine"])

    def _engine_took(self, participant: dict[str, Any]) -> None:
        """Remember the TN the engine now holds for the participant: later modifier
        lines reach its rolls as the difference (`_modifiers`)."""
        participant["engine_tn"] = self.rated_tn(participant).rating.total

    def _save(self, machine: Any) -> None:
        self.state["machine"] = machine.to_json()
        if machine.round != self.state["round"]:
            self._lapse_situational(self.participants)  # one round is over (R9)
        self.state["round"] = machine.round

    def _bumps(self, name: str) -> int:
        tn = self.tn(self.participant(name))
        return tn.bumps if tn else 0

    def _join_engine(self, participant: dict[str, Any]) -> None:
        machine = self._machine()
        setup = self._setup()["participants"][-1]
        machine.join(**{k: v for k, v in setup.items() if k != "bumps"})
        self._engine_took(participant)
        self._save(machine)

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
            if self.FIXED_RESISTANCE and participant["character_id"] is None:
                continue  # a resistance's TN never changes (R2, `_check_modifier`)
            change = tn.rating.total - participant["engine_tn"]
            if change:
                changes[argument] = change
        return changes

    def _coming_rolls(self) -> list[tuple[Roll, Roll]]:
        engine = (self.state["machine"] or {}).get("state")
        if not engine:
            return []  # nobody is paired and nothing declared before the contest starts
        return self._engine_rolls(engine)

    def _engine_rolls(self, engine: dict[str, Any]) -> list[tuple[Roll, Roll]]:
        """The coming rolls, from the engine's `state()`."""
        raise NotImplementedError

    def _rolling(self, name: str, held: str, bumps: int) -> Roll:
        """A coming roll's side as the engine will roll it: the TN it holds plus the
        change since (`_modifiers`), the bumps as the `_do_` actions pass them."""
        change = self._modifiers(change=name).get("change", 0)
        return name, Rating.parse(held) + change, bumps

    def _totals(self, machine: Any) -> dict[str, Any]:
        """The standing for the log: `totals` and `totals_kind`."""
        raise NotImplementedError

    def _describe(self, action: str, machine: Any, result: Any, note: str) -> str:
        """One line for the log, from the engine's own record of the action."""
        raise NotImplementedError

    def _decide_long(self, machine: Any) -> None:
        """The engine says the contest is over: the outcome for the PCs' side and each
        participant's suggested consequence or benefit."""
        winner, degree = machine.winner, machine.degree
        pc_side = self.state["pc_side"]
        self.state["outcome"] = {
            "winner": None if winner is None else ("pc" if winner == pc_side else "opponent"),
            "winner_side": winner,
            "degree": degree,
        }
        self.state["phase"] = "resolved"
        self.state["suggested"] = []
        self._suggest_consequences(machine)

    def _suggest_consequences(self, machine: Any) -> None:
        raise NotImplementedError

    # -- rolling through the engine ---------------------------------------------------

    def _rolled(
        self,
        action: str,
        args: dict[str, Any],
        rollers: Mapping[str, str | None],
        heroes: Mapping[str, str | None],
        note: str = "",
        gifters: dict[str, int] | None = None,
    ) -> dict[str, Any]:
        """Roll the engine action with its dice: the engine holds it (`roll`), so
        whatever the rules refuse is refused now, and then either settles it at once or
        lets it wait in `pending` when a player could spend a hero point on it (§2.2),
        or the GM may call a both-fumble tie (§5.3.1 footnote). `rollers` names who
        rolled each die; `heroes` the participant (or `gifters`' giver) behind each hero
        point flag of the engine action. While it waits, the GM's dice are hidden from
        the players when the campaign says so."""
        gifters = gifters or {}
        # Nobody behind a flag (an act with no target left) spends nothing: the engine
        # then refuses the action in its own words.
        spenders = {
            flag: name
            for flag, name in heroes.items()
            if name is not None
            and (gifters[name] if name in gifters else self._payer(name)) is not None
        }
        machine = self._machine(start=True)
        machine.roll(move=action, **args)
        settled, result = machine.as_settled
        summary = self._describe(action, settled, result, note)
        both_fumble = self._both_fumble(action, result)
        if not spenders and not both_fumble:
            machine.settle()
            rolls = [{"who": who, "roll": args[key]} for key, who in rollers.items()]
            return self._played(machine, action, args, summary, rolls)
        self.state["machine"] = machine.to_json()  # the roll is held: nothing is played yet
        pending: dict[str, Any] = {
            "action": action,
            "args": args,
            "heroes": spenders,
            "spent": {flag: False for flag in spenders},
            "rollers": rollers,
            "gifters": gifters,
            "note": note,
            "summary": summary,
            "both_fumble": both_fumble,
        }
        self.state["pending"] = pending
        pending["rolls"] = [
            {"who": who, "roll": args[key], "hidden": who is not None and self._gm_rolls_for(who)}
            for key, who in rollers.items()
        ]
        pending["revealed"] = not any(row["hidden"] for row in pending["rolls"])
        self.state["phase"] = "rolled"
        waiting = "hero points may still change it" if spenders else "the GM calls the tie"
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
        self,
        machine: Any,
        action: str,
        args: dict[str, Any],
        summary: str,
        rolls: list[dict[str, Any]],
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

    def _dice(self, dice: Dice, rollers: dict[str, Any]) -> dict[str, int]:
        """The action's dice, kept under "dice" for replay: `rollers` names who rolls
        each; a physical d20 entered for a participant is their roll."""
        kept = dice.under("dice")
        for key, who in rollers.items():
            if self._is_participant(who):
                self._use_entered_roll(self.participant(who), kept, key)
        return {key: kept.take(key) for key in rollers}

    # -- hero points and the GM's resolve ----------------------------------------------

    def _hero_point_names(self, pending: dict[str, Any]) -> list[str]:
        return [n for flag, n in pending["heroes"].items() if not pending["spent"][flag]]

    def _raise_result(self, name: str, pending: dict[str, Any]) -> tuple[str, str]:
        flags = [f for f, n in pending["heroes"].items() if n == name]
        if not flags:
            raise IllegalAction(f"{name} has no roll to raise now")
        free = [f for f in flags if not pending["spent"][f]]
        if not free:
            raise IllegalAction("one hero point per roll (R5.3)")
        machine = self._machine()
        # A gifter is outside the contest: the engine knows their flag as nobody's.
        machine.hero_point(name=None if name in pending["gifters"] else name)
        settled, result = machine.as_settled
        self.state["machine"] = machine.to_json()
        pending["spent"] = {**pending["spent"], free[0]: True}
        pending["summary"] = self._describe(pending["action"], settled, result, pending["note"])
        pending["both_fumble"] = self._both_fumble(pending["action"], result)
        summary = f"{name} spends a hero point: {pending['summary']}"
        secret = f"{name} spends a hero point; the GM's roll stays secret"
        return summary, secret

    def _settle(self, data: Resolve) -> dict[str, Any]:
        pending = self.state["pending"]
        machine = self._machine()
        summary = pending["summary"]
        calls = {}
        if data.both_lose_half:
            # §5.3.1 footnote: on a both-fumble tie the GM may have both lose 1/2x bid.
            if pending["action"] != "act":
                raise IllegalAction("both contestants lose 1/2x bid only in an exchange")
            calls["both_lose_half"] = True
        result = machine.settle(**calls)
        if calls:
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

    # -- actions of both long kinds -------------------------------------------------

    def _do_switch_ability(self, data: SwitchAbility, actor: Actor, dice: Dice) -> dict[str, Any]:
        """Go on with another ability (§5.2.8 in a pairing; §5.3.8 from round 2)."""
        self._require_phase("preparing")
        name = required(data.participant, "participant")
        participant = self._require_participant(actor, name, "switch abilities")
        if participant["character_id"] is None:
            self._require_gm(actor, "rate the GM's participants")
        machine = self._machine()
        self._set_ability(
            participant, text(data.ability), data.ability_id, data.rating, data.states
        )
        tn = self.rated_tn(participant)
        where = self._switch_engine(machine, name, tn, data)
        self._engine_took(participant)
        self._save(machine)
        return {
            "summary": f"{name} switches to {participant['ability'] or 'another ability'} "
            f"(TN {tn.rating}){where}"
        }

    def _switch_engine(self, machine: Any, name: str, tn: Any, data: SwitchAbility) -> str:
        """Tell the engine of the switch; returns where it happened, for the log."""
        raise NotImplementedError
