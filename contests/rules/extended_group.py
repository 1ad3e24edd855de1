"""The group extended contest (§5.3.3-§5.3.11, RULINGS.md R13).

Three or more contestants, on two sides or more (a free-for-all). Each round everyone
still in declares a bid, the opponents they single out and how daring the action is;
the GM's chosen order rule then sets who acts when. An action is one exchange against
one target, read on the same Extended Contest Table as the one-on-one contest. A
contestant at 0 AP or below is knocked out; the contest ends when only one side has
anyone in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .dice import Result
from .errors import IllegalAction, RulesError
from .extended import (
    DEFAULT_BID,
    SideRoll,
    ability_in_use,
    check_bid,
    defeat_degree,
    final_action_ap,
    final_action_resistance,
    fraction_up,
    lending_effect,
    lending_resistance,
    outcome_words,
    pc_bid_limit,
    pc_bid_reason,
    roll_against_resistance,
    roll_disengagement,
    roll_exchange,
    roll_gift,
    starting_ap,
    total_modifier,
    unrelated_action_log,
)
from .inputs import read_better_roll, read_flag, read_int, read_rating, read_roll
from .machine import ContestMachine, action, after_end
from .outcomes import is_clearly_inferior
from .ratings import Rating
from .simple import DEGREES
from .states import BENEFIT_OF_VICTORY, CONSEQUENCE_OF_DEFEAT

DARING_LEVELS: tuple[str, ...] = ("cautious", "steady", "daring", "reckless")
"""How bold a declared action is, least first (§5.3.3: "a reckless bid goes before a
daring bid"). 2.2 names no scale, so these four are the project's."""

ORDER_RULES: tuple[str, ...] = ("daring", "bid", "ap")
"""§5.3.3: the GM's three options for the order of action in a round."""

_PARTICIPANT_KEYS = {"name", "side", "pc", "rating", "modifiers", "followers", "bumps"}


@dataclass(slots=True)
class _Participant:
    name: str
    side: str
    pc: bool
    index: int
    rating: str
    modifier: int
    bumps: int
    starting_ap: int
    ap: int
    withdrawn: bool = False
    hero_points_spent: int = 0
    final_action_used: bool = False
    used: list[int] = field(default_factory=list)
    # Degrees of defeats a final action overcame: they still apply (§5.3.5).
    overcome_defeats: list[str] = field(default_factory=list)

    @property
    def tn(self) -> Rating:
        return Rating.parse(self.rating) + self.modifier

    @property
    def status(self) -> str:
        """ "in", "out" (at 0 AP or below) or "withdrawn" (disengaged, §5.3.9)."""
        if self.withdrawn:
            return "withdrawn"
        return "out" if self.ap <= 0 else "in"

    @property
    def is_in(self) -> bool:
        return self.status == "in"

    @property
    def bid_limit(self) -> int:
        """§5.3.6: a PC may stake up to their starting AP; a resistance what it has."""
        return pc_bid_limit(self.ap, self.starting_ap) if self.pc else max(self.ap, 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "side": self.side,
            "pc": self.pc,
            "rating": self.rating,
            "modifier": self.modifier,
            "bumps": self.bumps,
            "tn": str(self.tn),
            "starting_ap": self.starting_ap,
            "ap": self.ap,
            "status": self.status,
            "hero_points_spent": self.hero_points_spent,
            "final_action_used": self.final_action_used,
        }


def _read_participant(index: int, raw: Any) -> _Participant:
    if not isinstance(raw, dict):
        raise RulesError(f"participant {index + 1} must be a mapping with a name, side and rating")
    unknown = set(raw) - _PARTICIPANT_KEYS
    if unknown:
        raise RulesError(f"unknown participant field(s): {', '.join(sorted(unknown))}")
    for key in ("name", "side", "rating"):
        if key not in raw:
            raise RulesError(f"participant {index + 1} needs a {key}")
    name, side = raw["name"], raw["side"]
    for what, value in (("name", name), ("side", side)):
        if not isinstance(value, str) or not value.strip():
            raise RulesError(f"participant {index + 1}'s {what} must be non-empty text")
    pc = read_flag(raw.get("pc", False), f"{name}'s pc flag")
    modifier = total_modifier(raw.get("modifiers", 0), f"{name}'s modifiers")
    followers = raw.get("followers", [])
    if not isinstance(followers, list | tuple):
        raise RulesError(f"{name}'s followers must be a list of ratings")
    if not pc and (modifier or followers):
        raise RulesError(
            f"{name} is a resistance: modifiers and followers are for PCs "
            "(R2: the GM gives a resistance its rating instead)"
        )
    rating = read_rating(raw["rating"], f"{name}'s rating")
    start = starting_ap(raw["rating"], modifier, followers)
    if start < 1:
        raise RulesError(
            f"{name} would start with {start} AP: a contestant needs at least 1 AP to enter "
            "an extended contest"
        )
    return _Participant(
        name=name,
        side=side,
        pc=pc,
        index=index,
        rating=str(rating),
        modifier=modifier,
        bumps=read_int(raw.get("bumps", 0), f"{name}'s bumps"),
        starting_ap=start,
        ap=start,
    )


def _worst_first(degrees: list[str]) -> list[str]:
    return sorted(degrees, key=DEGREES.index, reverse=True)


class GroupExtendedContest(ContestMachine):
    """A group extended contest (§5.3.3): several PCs and opponents, or a free-for-all.

    Setup (all JSON-able):

    - `participants`: a list of mappings, each with `name` (unique), `side` (any label;
      two sides or more), `rating` (int total or notation), and optionally `pc` (true
      for a player character: hero points, desperation stakes, final actions, AP
      lending), `modifiers` and `followers` (PCs only, as in `ExtendedContest`) and
      `bumps` (lasting bumps on the contestant's rolls).
    - `order`: how the GM orders each round (§5.3.3): "daring" (default; most daring
      first, ties to the higher bid), "bid" (highest bid first, ties to the more
      daring) or "ap" (highest AP total first, ties to the higher bid, then the more
      daring). Remaining ties follow the participants list.
    - `better_roll`: "high" (default) or "low" (R6).

    Phases: "declaring" (everyone in declares with `declare`), then "acting" (the
    order is fixed; each acts with `act`, `unrelated_action`, `disengage` or `lend`,
    or `delay`s), then the next round; "over" once only one side has anyone in.
    Free actions at any time: `switch_ability`, `final_action`, `gift`, `rejoin`, and
    `parting_shot` right after a knockout. See docs/rules-extended.md.
    """

    kind = "extended_group"

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
        modifier = read_int(modifier, what)
        if modifier and not person.pc:
            raise RulesError(f"{person.name} is a resistance: modifiers never apply to it (R2)")
        return modifier

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

    # -- actions: the round ---------------------------------------------------

    @action
    def declare(
        self,
        *,
        name: str,
        targets: list[str] | str,
        bid: int = DEFAULT_BID,
        daring: str = "steady",
    ) -> None:
        """State an action at the start of the round (§5.3.3): the bid, the opponents
        singled out (a name or a list) and how daring it is (one of DARING_LEVELS).
        A contestant may declare again until the last one in has declared; then the
        order is fixed and the acting phase begins."""
        person = self._in_person(name)
        if self.phase != "declaring":
            raise IllegalAction(f"round {self.round} is under way: declarations are closed")
        names = [targets] if isinstance(targets, str) else targets
        if not isinstance(names, list | tuple) or not names:
            raise RulesError("single out at least one opponent in targets")
        for target in names:
            self._opponent_of(person, target, "target")
        if daring not in DARING_LEVELS:
            raise RulesError(f"daring must be one of {', '.join(DARING_LEVELS)}, not {daring!r}")
        bid = self._check_bid(person, bid)
        self.declarations[name] = {"bid": bid, "targets": list(names), "daring": daring}
        self._advance()

    @action
    def delay(self, *, name: str) -> None:
        """Let the others act first (§5.3.3); act any time later this round."""
        person = self._in_person(name)
        self._check_turn(person)
        if name != self.next_actor:
            raise IllegalAction(f"{name} has already delayed: act when ready")
        self.queue.remove(name)
        self.delayed.append(name)

    @action
    def act(
        self,
        *,
        name: str,
        actor_roll: int,
        defender_roll: int,
        target: str | None = None,
        bid: int | None = None,
        actor_hero_point: bool = False,
        defender_hero_point: bool = False,
        actor_modifier: int = 0,
        defender_modifier: int = 0,
        both_lose_half: bool = False,
    ) -> dict[str, Any]:
        """Take this turn's action: one exchange against one target (§5.3.1, §5.3.3).

        `target` and `bid` default to the declaration (the first declared target still
        in); naming others is the GM-approved change of action. The target only rolls
        to oppose; it acts on its own turn. Hero points are the actor's and the
        target's own (PCs only); modifiers are situational, for this exchange (R9).
        `both_lose_half` is the GM's call on a both-fumble tie (§5.3.1 footnote).
        """
        person = self._in_person(name)
        self._check_turn(person)
        declared = self.declarations[name]
        if target is None:
            standing = [t for t in declared["targets"] if self.people[t].is_in]
            if not standing:
                raise IllegalAction(
                    f"{name}'s declared targets are all out of the contest: name another "
                    "target (the GM decides whether the action may change)"
                )
            target = standing[0]
        defender = self._opponent_of(person, target, "target")
        entry = self._exchange(
            "exchange",
            person,
            defender,
            declared["bid"] if bid is None else bid,
            actor_roll,
            defender_roll,
            actor_hero_point,
            defender_hero_point,
            actor_modifier,
            defender_modifier,
            both_lose_half,
        )
        self._finish_turn(name)
        return entry

    @action
    @after_end
    def parting_shot(
        self,
        *,
        name: str,
        actor_roll: int,
        defender_roll: int,
        bid: int = DEFAULT_BID,
        actor_hero_point: bool = False,
        defender_hero_point: bool = False,
        actor_modifier: int = 0,
        defender_modifier: int = 0,
    ) -> dict[str, Any]:
        """Act again right after knocking a contestant out (§5.3.4), against it.

        A failure may transfer AP back and bring it into the contest again; the defeat
        it suffered stays in `defeats` for the GM. Takes no one's turn.
        """
        person = self._person(name)
        shot = self.open_parting_shot
        if shot is None or shot["by"] != name:
            raise IllegalAction(
                f"{name} has no parting shot: it is only allowed right after the exchange "
                "in which they knocked an opponent out (§5.3.4)"
            )
        target = self.people[shot["at"]]
        self.defeats.append(
            {"name": target.name, "ap": target.ap, "degree": defeat_degree(target.ap)}
        )
        return self._exchange(
            "parting_shot",
            person,
            target,
            bid,
            actor_roll,
            defender_roll,
            actor_hero_point,
            defender_hero_point,
            actor_modifier,
            defender_modifier,
            False,
        )

    def _exchange(
        self,
        kind: str,
        actor: _Participant,
        defender: _Participant,
        bid: Any,
        actor_roll: Any,
        defender_roll: Any,
        actor_hero_point: Any,
        defender_hero_point: Any,
        actor_modifier: Any,
        defender_modifier: Any,
        both_lose_half: Any,
    ) -> dict[str, Any]:
        bid = self._check_bid(actor, bid)
        held = actor.ap
        actor_roll = read_roll(actor_roll, f"{actor.name}'s roll")
        defender_roll = read_roll(defender_roll, f"{defender.name}'s roll")
        actor_hp = self._hero_point(actor, actor_hero_point, "actor_hero_point")
        defender_hp = self._hero_point(defender, defender_hero_point, "defender_hero_point")
        actor_tn = actor.tn + self._check_modifier(actor, actor_modifier, "actor_modifier")
        defender_tn = defender.tn + self._check_modifier(
            defender, defender_modifier, "defender_modifier"
        )
        both_lose_half = read_flag(both_lose_half, "both_lose_half")
        exchange = roll_exchange(
            SideRoll(actor.name, actor_tn, actor_roll, actor_hp, actor.bumps),
            SideRoll(defender.name, defender_tn, defender_roll, defender_hp, defender.bumps),
            bid=bid,
            held=held,
            better_roll=self.better_roll,
        )
        actor_change, defender_change, rule = (
            exchange.effect.actor_change,
            exchange.effect.defender_change,
            exchange.effect.rule,
        )
        if both_lose_half:
            if (exchange.actor_result, exchange.defender_result) != (Result.FUMBLE, Result.FUMBLE):
                raise IllegalAction(
                    "both contestants lose 1/2x bid only on a both-fumble tie (§5.3.1 footnote)"
                )
            half = fraction_up(bid, 1, 2)
            actor_change = defender_change = -half
            rule = "fumble against fumble: the GM has both lose 1/2x bid"
        was_in = {actor.name: actor.is_in, defender.name: defender.is_in}
        actor.ap += actor_change
        defender.ap += defender_change
        for person, hero_point in ((actor, actor_hp), (defender, defender_hp)):
            person.used.append(person.tn.total)
            person.hero_points_spent += hero_point
        entry = {
            "kind": kind,
            "round": self.round,
            "actor": actor.name,
            "defender": defender.name,
            **exchange.log(),
            "actor_hero_point": actor_hp,
            "defender_hero_point": defender_hp,
            "rule": rule,
            "change": {actor.name: actor_change, defender.name: defender_change},
            "ap": {actor.name: actor.ap, defender.name: defender.ap},
            "knocked_out": [n for n, was in was_in.items() if was and not self.people[n].is_in],
            "back_in": [n for n, was in was_in.items() if not was and self.people[n].is_in],
        }
        self.exchanges.append(entry)
        return entry

    @action
    def unrelated_action(self, *, name: str, description: str = "") -> dict[str, Any]:
        """Forfeit this turn's action to do something unrelated (§5.3.7)."""
        person = self._in_person(name)
        self._check_turn(person)
        entry = {**unrelated_action_log(self.round, name, description), "change": {}}
        self.exchanges.append(entry)
        self._finish_turn(name)
        return entry

    @action
    def disengage(
        self,
        *,
        name: str,
        opponent: str,
        roll: int,
        opponent_roll: int,
        rating: int | str | None = None,
        opponent_rating: int | str | None = None,
        hero_point: bool = False,
        opponent_hero_point: bool = False,
    ) -> dict[str, Any]:
        """Try to leave the contest, as this turn's unrelated action (§5.3.9).

        A simple contest against the `opponent` keeping you in: `rating` defaults to
        your current ability (a resistance always uses its own), `opponent_rating` to
        theirs. Any victory withdraws you with your AP (see `rejoin`); any defeat keeps
        you in and transfers part of your current AP to the opponent; a tie does nothing.
        """
        person = self._in_person(name)
        self._check_turn(person)
        other = self._opponent_of(person, opponent, "opponent")
        if not person.pc and rating is not None:
            raise RulesError(f"{name} is a resistance: it disengages with its own rating (§5.3.9)")
        mine, bumps = ability_in_use(person.tn, person.bumps, rating, "the disengaging ability")
        theirs, their_bumps = ability_in_use(
            other.tn, other.bumps, opponent_rating, "the opposing ability"
        )
        roll = read_roll(roll, f"{name}'s roll")
        opponent_roll = read_roll(opponent_roll, f"{other.name}'s roll")
        my_hp = self._hero_point(person, hero_point, "hero_point")
        their_hp = self._hero_point(other, opponent_hero_point, "opponent_hero_point")
        attempt = roll_disengagement(
            SideRoll(name, mine, roll, my_hp, bumps),
            SideRoll(other.name, theirs, opponent_roll, their_hp, their_bumps),
            current_ap=person.ap,
            better_roll=self.better_roll,
        )
        person.hero_points_spent += my_hp
        other.hero_points_spent += their_hp
        person.ap -= attempt.transfer
        other.ap += attempt.transfer
        person.withdrawn = attempt.left
        entry = {
            "kind": "disengage",
            "round": self.round,
            "actor": name,
            "opponent": other.name,
            **attempt.log,
            "hero_point": my_hp,
            "opponent_hero_point": their_hp,
            "outcome": outcome_words(attempt.outcome.level),
            "left": attempt.left,
            "change": {name: -attempt.transfer, other.name: attempt.transfer},
        }
        self.exchanges.append(entry)
        self._finish_turn(name)
        return entry

    @action
    def rejoin(self, *, name: str, restore: int = 0) -> None:
        """Come back after a disengagement (§5.3.9) with the AP held when leaving, plus
        any `restore` the narrator grants. Declares from the next declaration phase."""
        person = self._person(name)
        if not person.withdrawn:
            raise IllegalAction(f"{name} has not withdrawn from the contest")
        restore = read_int(restore, "restore")
        if restore < 0:
            raise RulesError("restore is the AP the narrator gives back: 0 or more")
        person.withdrawn = False
        person.ap += restore
        self.exchanges.append(
            {"kind": "rejoin", "round": self.round, "actor": name, "change": {name: restore}}
        )
        self._advance()

    @action
    def lend(
        self,
        *,
        name: str,
        target: str,
        amount: int,
        roll: int,
        resistance_roll: int,
        rating: int | str | None = None,
        hero_point: bool = False,
    ) -> dict[str, Any]:
        """Lend AP to another PC on your side, as this turn's unrelated action (§5.3.10).

        A simple contest of `rating` (default: your current ability) against a
        resistance equal to the `amount`; the AP Lending table sets what moves.
        """
        person = self._in_person(name)
        self._check_turn(person)
        receiver = self._in_person(target, "target")
        if not person.pc or not receiver.pc:
            raise IllegalAction("AP lending is between PCs (§5.3.10)")
        if receiver is person:
            raise IllegalAction("a contestant cannot lend AP to themselves (§5.3.10)")
        if receiver.side != person.side:
            raise IllegalAction(f"{target} is not on {name}'s side: AP go only to an ally")
        amount = check_bid(
            amount, person.ap, f"{name}'s", "a loan is some or all of the AP you hold"
        )
        ability, bumps = ability_in_use(person.tn, person.bumps, rating, "the lending ability")
        roll = read_roll(roll, f"{name}'s roll")
        resistance_roll = read_roll(resistance_roll, "the resistance's roll")
        hero_point = self._hero_point(person, hero_point, "hero_point")
        outcome, log = roll_against_resistance(
            SideRoll(name, ability, roll, hero_point, bumps),
            lending_resistance(amount),
            resistance_roll,
            better_roll=self.better_roll,
        )
        person.hero_points_spent += hero_point
        target_change, lender_change = lending_effect(outcome.level, amount)
        receiver.ap += target_change
        person.ap += lender_change
        entry = {
            "kind": "lend",
            "round": self.round,
            "actor": name,
            "target": target,
            "amount": amount,
            **log,
            "change": {name: lender_change, target: target_change},
        }
        self.exchanges.append(entry)
        self._finish_turn(name)
        return entry

    # -- free actions ---------------------------------------------------------

    @action
    def final_action(
        self,
        *,
        name: str,
        rating: int | str,
        roll: int,
        resistance_roll: int,
        hero_point: bool = False,
    ) -> dict[str, Any]:
        """A knocked-out PC's one try to get back in (§5.3.5).

        Costs a hero point (counted in `hero_points_spent`; it gives no bump). A simple
        contest of `rating` against the number of AP below 0; `hero_point` spends a
        second hero point as a bump (R5.3). The Final Action Results table sets the AP.
        Refused to a dying PC (AP of -31 or below: a complete defeat) and to the
        resistance.
        """
        person = self._person(name)
        if not person.pc:
            raise IllegalAction("the GM does not use final actions for the resistance (§5.3.5)")
        if person.status != "out":
            raise IllegalAction(f"{name} is not knocked out: a final action is for the defeated")
        if person.final_action_used:
            raise IllegalAction(f"{name} has used their one final action in this contest (§5.3.5)")
        degree = defeat_degree(person.ap)
        if degree == "complete":
            raise IllegalAction(
                f"{name} is dying at {person.ap} AP (a complete defeat): dying allows no "
                "actions (§5.3.5)"
            )
        ability = read_rating(rating, "the final action's ability")
        roll = read_roll(roll, f"{name}'s roll")
        resistance_roll = read_roll(resistance_roll, "the resistance's roll")
        bump = self._hero_point(person, hero_point, "hero_point")
        outcome, log = roll_against_resistance(
            SideRoll(name, ability, roll, bump),
            final_action_resistance(person.ap),
            resistance_roll,
            better_roll=self.better_roll,
        )
        person.final_action_used = True
        person.hero_points_spent += 1 + bump
        before = person.ap
        person.ap = final_action_ap(outcome.level, person.starting_ap, person.ap)
        if person.is_in:
            # §5.3.5: "the consequences of the original defeat still apply".
            person.overcome_defeats.append(degree)
        entry = {
            "kind": "final_action",
            "round": self.round,
            "actor": name,
            **log,
            "back_in": person.is_in,
            "change": {name: person.ap - before},
        }
        self.exchanges.append(entry)
        self._advance()
        return entry

    @action
    def gift(
        self,
        *,
        recipient: str,
        opponent: str,
        rating: int | str,
        bid: int,
        roll: int,
        resistance_roll: int,
        hero_point: bool = False,
    ) -> dict[str, Any]:
        """An uninvolved character tries to raise `recipient`'s AP (§5.3.11).

        The gifter bids at most their rating and rolls against twice the bid; on a
        defeat the recipient's `opponent` gains instead. Takes no one's turn.
        """
        receiver = self._in_person(recipient, "recipient")
        other = self._opponent_of(receiver, opponent, "opponent")
        gift = roll_gift(
            rating, bid, roll, resistance_roll, hero_point, better_roll=self.better_roll
        )
        receiver.ap += gift.recipient_gain
        other.ap += gift.opponent_gain
        entry = {
            "kind": "gift",
            "round": self.round,
            "recipient": recipient,
            "opponent": opponent,
            **gift.log,
            "change": {recipient: gift.recipient_gain, opponent: gift.opponent_gain},
        }
        self.exchanges.append(entry)
        return entry

    @action
    def switch_ability(
        self, *, name: str, rating: int | str, modifier: int | list[int] = 0, bumps: int = 0
    ) -> None:
        """Pursue the prize with another ability (§5.3.8); AP stay as they are. Free,
        from round 2 (the first ability must be used in the first round, §5.3.1).
        Also applies a newly won augment to the ability in use."""
        person = self._person(name)
        if self.round == 1:
            raise IllegalAction(
                "the ability the AP were figured from must be used in the first round "
                "(§5.3.1): switch from round 2"
            )
        new_rating = read_rating(rating, "the new ability's rating")
        modifier = total_modifier(modifier, "modifier")
        if modifier and not person.pc:
            raise RulesError(f"{name} is a resistance: modifiers never apply to it (R2)")
        person.rating, person.modifier = str(new_rating), modifier
        person.bumps = read_int(bumps, "bumps")
