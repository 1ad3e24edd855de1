"""The actions of a round of a group extended contest (§5.3.1, §5.3.3-§5.3.10).

Declaring (§5.3.3), delaying, acting with an exchange (§5.3.1), the parting shot
(§5.3.4), unrelated actions (§5.3.7), disengaging and rejoining (§5.3.9) and AP
lending (§5.3.10).
"""

from __future__ import annotations

from typing import Any

from ..dice import Result
from ..errors import IllegalAction, RulesError
from ..extended import (
    DEFAULT_BID,
    SideRoll,
    ability_in_use,
    check_bid,
    defeat_degree,
    fraction_up,
    lending_effect,
    lending_resistance,
    outcome_words,
    roll_against_resistance,
    roll_disengagement,
    roll_exchange,
    unrelated_action_log,
)
from ..inputs import read_flag, read_int, read_roll
from ..machine import action, after_end
from .participants import _Participant
from .state import DARING_LEVELS, GroupExtendedBase


class GroupExtendedRounds(GroupExtendedBase):
    """A group extended contest with the actions of a round: the base of
    `GroupExtendedContest`, which adds the free actions."""

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
            SideRoll(actor.name, actor_tn, actor_roll, actor_hp, actor.bumps, actor.stretched),
            SideRoll(
                defender.name,
                defender_tn,
                defender_roll,
                defender_hp,
                defender.bumps,
                defender.stretched,
            ),
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
