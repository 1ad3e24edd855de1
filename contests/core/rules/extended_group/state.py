"""The group extended contest's state: its setup, what the table shows, the checks
its actions share and the order of each round (§5.3.3).

`GroupExtendedBase` is the bottom of the machine; `rounds.py` adds the actions of a
round and `contest.py` the free actions.
"""

from __future__ import annotations

from typing import Any

from ..errors import IllegalAction, RulesError
from ..extended import check_bid, defeat_degree, pc_bid_reason
from ..inputs import read_better_roll, read_flag, read_int
from ..machine import ContestMachine
from ..outcomes import is_clearly_inferior
from ..results import ContestOutcome
from ..simple import DEGREES
from ..states import BENEFIT_OF_VICTORY, CONSEQUENCE_OF_DEFEAT, State
from .participants import _Participant, _read_participant

DARING_LEVELS: tuple[str, ...] = ("cautious", "steady", "daring", "reckless")
"""How bold a declared action is, least first (§5.3.3: "a reckless bid goes before a
daring bid"). 2.2 names no scale, so these four are the project's."""

ORDER_RULES: tuple[str, ...] = ("daring", "bid", "ap")
"""§5.3.3: the GM's three options for the order of action in a round."""


def _worst_first(degrees: list[str]) -> list[str]:
    return sorted(degrees, key=DEGREES.index, reverse=True)


class GroupExtendedBase(ContestMachine):
    """The setup and the state of a group extended contest, without its actions: the
    base of `GroupExtendedContest`, which documents the setup and the phases."""

    def _start(
        self,
        *,
        participants: list[dict[str, Any]],
        order: str = "daring",
        better_roll: str = "high",
    ) -> None:
        if order not in ORDER_RULES:
            raise RulesError(f"order must be one of {', '.join(ORDER_RULES)}, not {order!r}")
        if not isinstance(participants, list | tuple):
            raise RulesError("participants must be a list")
        self.order_rule = order
        self.better_roll = read_better_roll(better_roll)
        self.people: dict[str, _Participant] = {}
        for index, raw in enumerate(participants):
            person = _read_participant(index, raw)
            if person.name in self.people:
                raise RulesError(f"two participants are named {person.name!r}")
            person.used.append(person.tn.total)
            self.people[person.name] = person
        if len({p.side for p in self.people.values()}) < 2:
            raise RulesError("a group extended contest needs participants on two sides or more")
        if len(self.people) < 3:
            raise RulesError(
                "a group extended contest has three contestants or more (§5.3.3): "
                "use ExtendedContest for one against one"
            )
        self.round = 1
        self.phase_acting = False
        self.declarations: dict[str, dict[str, Any]] = {}
        self.queue: list[str] = []
        self.delayed: list[str] = []
        self.exchanges: list[dict[str, Any]] = []
        self.defeats: list[dict[str, Any]] = []

    # -- what the table shows -------------------------------------------------

    @property
    def ap(self) -> dict[str, int]:
        return {name: person.ap for name, person in self.people.items()}

    def sides_in(self) -> list[str]:
        """Sides with anyone still in, in the order of the participants list."""
        sides: list[str] = []
        for person in self.people.values():
            if person.is_in and person.side not in sides:
                sides.append(person.side)
        return sides

    @property
    def is_over(self) -> bool:
        return len(self.sides_in()) <= 1

    @property
    def phase(self) -> str:
        if self.is_over:
            return "over"
        return "acting" if self.phase_acting else "declaring"

    def _losers(self) -> list[_Participant]:
        winner = self.winner
        return [p for p in self.people.values() if p.side != winner and p.status == "out"]

    @property
    def ended_by(self) -> str | None:
        """None while running; "defeat" when one side is left and it knocked out at
        least one contestant of the others; "disengaged" when the other sides all
        withdrew; "all_defeated" when nobody is left in."""
        if not self.is_over:
            return None
        sides = self.sides_in()
        if not sides:
            return "all_defeated"
        others = [p for p in self.people.values() if p.side != sides[0]]
        return "defeat" if any(p.status == "out" for p in others) else "disengaged"

    @property
    def winner(self) -> str | None:
        """The winning side's label (§5.3.3: the side that knocked the others out)."""
        if self.ended_by != "defeat":
            return None
        return self.sides_in()[0]

    @property
    def degree(self) -> str | None:
        """The side's level of victory: the defeated opponent's level, or with several
        defeated opponents the second worst of their levels (our reading, as R12)."""
        if self.ended_by != "defeat":
            return None
        degrees = _worst_first([defeat_degree(p.ap) for p in self._losers()])
        return degrees[0] if len(degrees) == 1 else degrees[1]

    @property
    def consequences(self) -> dict[str, list[str]] | None:
        """Suggested states for each participant once the contest is over (§5.3.2.4).

        Each defeat a final action overcame still applies (§5.3.5); a contestant who
        ends out takes the consequence of its own final AP; one still in on the winning
        side takes the benefit of the side's level of victory, unless its best ability
        beat the worst ability of every defeated opponent by 6 or more (§2.11.2.1).
        Withdrawn contestants take only their overcome defeats.
        """
        if not self.is_over:
            return None
        winner, degree = self.winner, self.degree
        losers_worst = min((min(p.used) for p in self._losers()), default=None)
        result: dict[str, list[str]] = {}
        for name, person in self.people.items():
            states = [str(CONSEQUENCE_OF_DEFEAT[d]) for d in person.overcome_defeats]
            if person.status == "out":
                states.append(str(CONSEQUENCE_OF_DEFEAT[defeat_degree(person.ap)]))
            elif person.is_in and person.side == winner and degree is not None:
                assert losers_worst is not None  # a winner implies a defeated opponent
                if not is_clearly_inferior(max(person.used), losers_worst):
                    states.append(str(BENEFIT_OF_VICTORY[degree]))
            result[name] = states
        return result

    @property
    def outcome(self) -> ContestOutcome | None:
        """The result once over (None before), in the shape every machine gives: the
        winning side and its level, each participant's consequence of defeat or benefit
        of victory (`consequences` above, split by ladder) and, in `earlier`, the
        defeats a final action overcame, which still apply (§5.3.5)."""
        suggested = self.consequences
        if suggested is None:
            return None
        consequences: dict[str, State | None] = {}
        benefits: dict[str, State | None] = {}
        earlier: dict[str, tuple[State, ...]] = {}
        for name, person in self.people.items():
            states = [State(word) for word in suggested[name]]
            overcome = len(person.overcome_defeats)
            earlier[name] = tuple(states[:overcome])
            last = states[overcome:]
            consequences[name] = next((s for s in last if s.is_adversity), None)
            benefits[name] = next((s for s in last if s.is_fortune), None)
        pc_sides = {p.side for p in self.people.values() if p.pc}
        return ContestOutcome(
            winner=self.winner,
            degree=self.degree,
            consequences=consequences,
            benefits=benefits,
            ended_by="defeat" if self.winner else None,
            pc_side=next(iter(pc_sides)) if len(pc_sides) == 1 else "pc",
            earlier={name: states for name, states in earlier.items() if states},
        )

    @property
    def next_actor(self) -> str | None:
        """Whose turn it is in the order (delayed contestants may also act)."""
        if self.phase != "acting":
            return None
        for name in self.queue:
            if self.people[name].is_in:
                return name
        return None

    @property
    def may_act(self) -> list[str]:
        """Who may take their action now: the next in order and anyone delayed."""
        names = [self.next_actor] if self.next_actor else []
        return names + [n for n in self.delayed if self.people[n].is_in and n not in names]

    @property
    def awaiting_declarations(self) -> list[str]:
        if self.phase != "declaring":
            return []
        return [n for n, p in self.people.items() if p.is_in and n not in self.declarations]

    @property
    def open_parting_shot(self) -> dict[str, str] | None:
        """{"by": name, "at": name} when a parting shot is open (§5.3.4): right after
        an exchange that knocked out one of its two contestants, to the other."""
        if not self.exchanges:
            return None
        last = self.exchanges[-1]
        if last["kind"] != "exchange" or len(last["knocked_out"]) != 1:
            return None
        (loser,) = last["knocked_out"]
        winner = last["defender"] if loser == last["actor"] else last["actor"]
        if self.people[loser].status != "out" or not self.people[winner].is_in:
            return None
        if not self.people[winner].pc:
            return None  # R18.2: only a PC (or a PC's follower) takes a parting shot
        return {"by": winner, "at": loser}

    def state(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "order_rule": self.order_rule,
            "better_roll": self.better_roll,
            "round": self.round,
            "phase": self.phase,
            "participants": [p.to_json() for p in self.people.values()],
            "ap": self.ap,
            "declarations": {n: dict(d) for n, d in self.declarations.items()},
            "awaiting_declarations": self.awaiting_declarations,
            "order": list(self.queue),
            "delayed": list(self.delayed),
            "next_actor": self.next_actor,
            "may_act": self.may_act,
            "exchanges": [dict(entry) for entry in self.exchanges],
            "defeats": [dict(entry) for entry in self.defeats],
            "parting_shot": self.open_parting_shot,
            "is_over": self.is_over,
            "ended_by": self.ended_by,
            "winner": self.winner,
            "degree": self.degree,
            "consequences": self.consequences,
        }

    # -- checks ---------------------------------------------------------------

    def _person(self, name: Any, role: str = "participant") -> _Participant:
        if not isinstance(name, str) or name not in self.people:
            known = ", ".join(repr(n) for n in self.people)
            raise IllegalAction(f"unknown {role} {name!r}: the contestants are {known}")
        return self.people[name]

    def _in_person(self, name: Any, role: str = "participant") -> _Participant:
        person = self._person(name, role)
        if person.status == "out":
            raise IllegalAction(f"{name} is knocked out of the contest (at {person.ap} AP)")
        if person.status == "withdrawn":
            raise IllegalAction(f"{name} has withdrawn from the contest")
        return person

    def _opponent_of(self, person: _Participant, name: Any, role: str) -> _Participant:
        other = self._in_person(name, role)
        if other.side == person.side:
            raise IllegalAction(f"{other.name} is on {person.name}'s side, not an opponent")
        return other

    def _check_bid(self, person: _Participant, bid: Any) -> int:
        if person.pc:
            reason = pc_bid_reason(person.ap, person.starting_ap)
            return check_bid(bid, person.bid_limit, f"{person.name}'s", reason)
        return check_bid(
            bid, person.bid_limit, f"{person.name}'s", "a resistance never bids more than it has"
        )

    def _check_turn(self, person: _Participant) -> None:
        if self.phase != "acting":
            waiting = ", ".join(self.awaiting_declarations)
            raise IllegalAction(
                f"round {self.round} has not begun: waiting for {waiting} to declare"
            )
        if person.name not in self.may_act:
            if self.next_actor is None:
                waiting = " and ".join(self.may_act)
                raise IllegalAction(
                    f"only {waiting} may still act in round {self.round}, not {person.name}"
                )
            raise IllegalAction(
                f"it is {self.next_actor}'s turn in round {self.round}, not {person.name}'s"
            )

    def _check_modifier(self, person: _Participant, modifier: Any, what: str) -> int:
        value = read_int(modifier, what)
        if value and not person.pc:
            raise RulesError(f"{person.name} is a resistance: modifiers never apply to it (R2)")
        return value

    def _hero_point(self, person: _Participant, value: Any, what: str) -> bool:
        spend = read_flag(value, what)
        if spend and not person.pc:
            raise IllegalAction(f"{person.name} is not a PC and has no hero points")
        return spend

    # -- the round ------------------------------------------------------------

    def _finish_turn(self, name: str) -> None:
        if name in self.queue:
            self.queue.remove(name)
        if name in self.delayed:
            self.delayed.remove(name)
        self._advance()

    def _advance(self) -> None:
        """Begin the acting phase once everyone in has declared; begin the next round
        once everyone in the order has acted (§5.3.3)."""
        if self.is_over:
            return
        if self.phase_acting and not self.may_act:
            self.round += 1
            self.phase_acting = False
            self.declarations = {}
            self.queue, self.delayed = [], []
        if not self.phase_acting and not self.awaiting_declarations:
            self.queue = self._ordered([n for n in self.declarations if self.people[n].is_in])
            self.phase_acting = True

    def _ordered(self, names: list[str]) -> list[str]:
        """§5.3.3: the order of action by the contest's order rule."""

        def key(name: str) -> tuple[int, ...]:
            declared = self.declarations[name]
            bid, rank = declared["bid"], DARING_LEVELS.index(declared["daring"])
            index = self.people[name].index
            if self.order_rule == "daring":
                return (-rank, -bid, index)
            if self.order_rule == "bid":
                return (-bid, -rank, index)
            return (-self.people[name].ap, -bid, -rank, index)

        return sorted(names, key=key)
