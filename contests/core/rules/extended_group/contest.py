"""The group extended contest: `GroupExtendedContest` and its free actions (§5.3.3).

The free actions take no one's turn: a final action (§5.3.5), an AP gift (§5.3.11)
and switching ability (§5.3.8). The round's actions come from `rounds.py`.
"""

from __future__ import annotations

from typing import Any

from ..errors import IllegalAction, RulesError
from ..extended import (
    SideRoll,
    defeat_degree,
    final_action_ap,
    final_action_resistance,
    roll_against_resistance,
    roll_gift,
    total_modifier,
)
from ..inputs import read_flag, read_int, read_rating, read_roll
from ..machine import HoldsGroupRolls, action
from .rounds import GroupExtendedRounds


class GroupExtendedContest(HoldsGroupRolls, GroupExtendedRounds):
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
    `parting_shot` right after a knockout. Any rolling action can also be held for
    hero points decided after the roll (§2.2): `roll(move="act", ...)`, then
    `hero_point(name=...)`, then `settle()` (`HoldsGroupRolls`); `settle` takes the
    GM's `both_lose_half` call on an exchange. See docs/rules-extended.md.
    """

    kind = "extended_group"
    ROLLING = frozenset({"act", "parting_shot", "disengage", "lend", "final_action", "gift"})
    SETTLE_OPTIONS = {"act": frozenset({"both_lose_half"})}

    def _hero_flags(
        self, move: str, arguments: dict[str, Any], result: Any
    ) -> dict[str, str | None]:
        """Whose hero point each flag of a rolling action is (a gift's is the gifter's,
        who is outside the contest: None)."""
        if move in ("act", "parting_shot"):
            return {
                "actor_hero_point": result["actor"],
                "defender_hero_point": result["defender"],
            }
        if move == "disengage":
            return {"hero_point": arguments["name"], "opponent_hero_point": arguments["opponent"]}
        if move in ("final_action", "lend"):
            return {"hero_point": arguments["name"]}
        return {"hero_point": None}

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
        self,
        *,
        name: str,
        rating: int | str,
        modifier: int | list[int] = 0,
        bumps: int = 0,
        stretched: bool = False,
    ) -> None:
        """Pursue the prize with another ability (§5.3.8); AP stay as they are. Free,
        from round 2 (the first ability must be used in the first round, §5.3.1).
        Also applies a newly won augment to the ability in use; `stretched` says the
        new ability is a stretch (§2.10, R18.4)."""
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
        stretched = read_flag(stretched, "stretched")
        if stretched and not person.pc:
            raise RulesError(f"{name} is a resistance: it takes no stretch (R2, R18.3)")
        person.rating, person.modifier = str(new_rating), modifier
        person.bumps = read_int(bumps, "bumps")
        person.stretched = stretched
