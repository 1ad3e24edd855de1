"""The group scored contest: `GroupScoredContest` and the actions outside the pairings.

Participants who are not enmeshed in a pairing may take unrelated actions: assists
(§5.2.3), other unrelated actions (§5.2.2), parting shots (§5.1.4) and removing
followers (§5.2.4). The pairings come from `pairings.py`.
"""

from __future__ import annotations

from typing import Any

from ..errors import IllegalAction, RulesError
from ..inputs import read_int, read_rating, read_roll
from ..machine import HoldsGroupRolls, action, after_end
from ..ratings import RESISTANCE_LEVELS, Rating, resistance
from ..scored import (
    WINNING_SCORE,
    assist_resistance,
    assisted_score,
    contest_outcome,
    other_side,
    parting_shot_score,
    rating_in_use,
    resolution_points,
)
from ..simple import Outcome
from .pairings import GroupScoredPairings
from .participants import FOLLOWER_EXTRA, FOLLOWER_THRESHOLD, PAIRED_ROLES, _Pairing, _Participant


def _face_off_entry(outcome: Outcome, first: str, second: str) -> dict[str, Any]:
    """Log fields of a simple contest outside the pairings, named for its two sides
    (the `Outcome` calls the first side "pc" and the second "opponent")."""
    names = {"pc": first, "opponent": second}
    return {
        f"{first}_roll": outcome.pc_roll,
        f"{second}_roll": outcome.opponent_roll,
        f"{first}_result": outcome.pc_result.label,
        f"{second}_result": outcome.opponent_result.label,
        "winner": names.get(outcome.winner) if outcome.winner else None,
        "degree": outcome.degree,
        "outcome": f"{outcome.describe} for the {first}",
    }


class GroupScoredContest(HoldsGroupRolls, GroupScoredPairings):
    """Several PCs against several opponents in pairings (§5.2, R12).

    Setup (JSON-able keyword arguments):

    - `participants`: a list of dicts `{"name", "side", "rating"}` plus optional
      `"role"` (one of `ROLES`, default "contestant"), `"owner"` (the participant a
      follower belongs to; required for followers), `"player"` (may spend hero
      points and make parting shots; default: PC side, or the owner's for followers)
      and what lasts the whole contest, as every machine reads a side
      (`group_side`): `"modifiers"`, `"states"`, `"bumps"`.
    - `pairings`: optional starting pairings, `[[pc_side_name, opponent_name], ...]`.
    - `stakes`: "rising_action" (default) or "climax"; `better_roll`: "high" or
      "low"; `base_resistance`: the campaign's base (R2), for assists.

    Actions: `engage`, `play_round`, `assist`, `unrelated_action`, `parting_shot`,
    `shift_points`, `remove_follower`, `join`, `switch_ability`. Pairings are
    numbered from 1 in the order they are made. Any rolling action can also be held
    for hero points decided after the roll (§2.2): `roll(move="play_round", ...)`,
    then `hero_point(name=...)`, then `settle()` (`HoldsGroupRolls`).

    >>> contest = GroupScoredContest(
    ...     participants=[
    ...         {"name": "Asha", "side": "pc", "rating": "15"},
    ...         {"name": "Troll", "side": "opponent", "rating": "14"},
    ...     ],
    ...     pairings=[["Asha", "Troll"]],
    ... )
    >>> contest.play_round(pairing=1, pc_roll=1, opponent_roll=20).points
    5
    >>> contest.winner, contest.degree
    ('pc', 'major')
    """

    kind = "group_scored"
    ROLLING = frozenset(
        {"play_round", "assist", "unrelated_action", "parting_shot", "remove_follower"}
    )

    def _hero_flags(
        self, move: str, arguments: dict[str, Any], result: Any
    ) -> dict[str, str | None]:
        """Whose hero point each flag of a rolling action is."""
        if move == "play_round":
            members = self._find_pairing(arguments.get("pairing")).members
            return {"pc_hero_point": members["pc"], "opponent_hero_point": members["opponent"]}
        first, second = {
            "assist": ("helper", None),
            "unrelated_action": ("participant", None),
            "parting_shot": ("shooter", "target"),
            "remove_follower": ("remover", "follower"),
        }[move]
        flags = {"hero_point": arguments[first]}
        if second:
            flags[f"{second}_hero_point"] = arguments[second]
        return flags

    # -- actions outside the pairings (§5.2.2) ------------------------------------------

    def _free_to_act(self, participant: _Participant, doing: str) -> None:
        """§5.2.2: unrelated actions are for those not enmeshed in a round, once a round."""
        if participant.status == "defeated":
            raise IllegalAction(f"{participant.name} is out of the contest and cannot {doing}")
        if participant.role == "secondary":
            raise IllegalAction(
                f"{participant.name} is a secondary contestant: they do not roll (§5.2.4)"
            )
        engaged = self._active_pairings(participant.name)
        if engaged:
            raise IllegalAction(
                f"{participant.name} is enmeshed in pairing {engaged[0].label}: only "
                f"participants not in a round can {doing} (§5.2.2)"
            )
        if participant.acted_in_round == self._round:
            raise IllegalAction(
                f"{participant.name} has already taken an unrelated action in round "
                f"{self._round}; wait for the next round"
            )

    def _face_off(
        self,
        first: _Participant,
        first_rating: Rating,
        first_roll: Any,
        first_hero: bool,
        first_bumps: Any,
        second_label: str,
        second_rating: Rating,
        second_roll: Any,
        second_hero: bool = False,
        second_bumps: Any = 0,
        second_lasting: int = 0,
    ) -> tuple[Outcome, int]:
        """A simple contest seen from `first`'s side: the outcome and its signed level;
        `second_lasting` is a participant second side's lasting bumps."""
        outcome = contest_outcome(
            first_rating,
            read_roll(first_roll, f"{first.name}'s roll"),
            second_rating,
            read_roll(second_roll, f"{second_label}'s roll"),
            better_roll=self._better_roll,
            pc_hero_point=first_hero,
            opponent_hero_point=second_hero,
            # The action's bumps and the participants' lasting ones (R18.5).
            pc_bumps=read_int(first_bumps, f"{first.name}'s bumps") + first.bumps,
            opponent_bumps=read_int(second_bumps, f"{second_label}'s bumps") + second_lasting,
            pc_label=first.name,
            opponent_label=second_label,
        )
        return outcome, outcome.level

    @action
    def assist(
        self,
        *,
        helper: str,
        recipient: str,
        helper_roll: int,
        resistance_roll: int,
        pairing: int | None = None,
        rating: int | str | None = None,
        modifier: int = 0,
        hero_point: bool = False,
        bumps: int = 0,
        resistance_shift: int = 0,
    ) -> Outcome:
        """An unrelated action that changes the score against an enmeshed teammate
        (§5.2.3, R12).

        The helper rolls (with `rating`, default their contest rating) against
        moderate resistance for the recipient's first assist, then high, very high
        and nearly impossible for each later one, whoever helps; `resistance_shift`
        is the GM's one-step adjustment. The outcome changes the score against the
        recipient in `pairing` (needed only when they are in several) by
        -4 .. +3 (never below 0); a failed assist can knock the recipient out.
        """
        giver, receiver = self._find(helper), self._find(recipient)
        if giver.side != receiver.side:
            raise IllegalAction(f"{helper} can only assist a teammate; {recipient} is not one")
        if giver is receiver:
            raise IllegalAction(f"{helper} cannot assist themself: that is an augment (§5.2.2)")
        self._free_to_act(giver, "assist")
        target = self._recipient_pairing(receiver, pairing)
        level_name = assist_resistance(receiver.assists_received, resistance_shift)
        hero = self._hero_point(giver, hero_point)
        outcome, level = self._face_off(
            giver,
            rating_in_use(giver.rating, rating, modifier, giver.name),
            helper_roll,
            hero,
            bumps,
            "the resistance",
            resistance(level_name, self._base),
            resistance_roll,
        )
        side = target.member_side(receiver.name)
        against = other_side(side)
        before = target.points[against]
        target.points[against] = assisted_score(before, level)
        receiver.assists_received += 1
        giver.acted_in_round = self._round
        self._payer(giver).hero_points_spent += int(hero)
        if target.points[against] > before:
            self._check_knockout(target, side, target.points[against] - before)
        self._log.append(
            {
                "kind": "assist",
                "round": self._round,
                "helper": helper,
                "recipient": recipient,
                "pairing": target.id,
                "resistance": level_name,
                **_face_off_entry(outcome, "helper", "resistance"),
                "hero_point": hero,
                "change": target.points[against] - before,
                "score_against": target.points[against],
                "knocked_out": recipient if receiver.status == "defeated" else None,
            }
        )
        self._settle()
        return outcome

    def _recipient_pairing(self, receiver: _Participant, pairing: Any) -> _Pairing:
        engaged = self._active_pairings(receiver.name)
        if not engaged:
            raise IllegalAction(
                f"{receiver.name} is not enmeshed in a round: an assist changes the score "
                f"against a teammate in a pairing (§5.2.3)"
            )
        if pairing is None:
            if len(engaged) > 1:
                numbers = ", ".join(p.label for p in engaged)
                raise IllegalAction(f"{receiver.name} is in pairings {numbers}: name the pairing")
            return engaged[0]
        chosen = self._find_pairing(pairing)
        if chosen not in engaged:
            raise IllegalAction(f"{receiver.name} is not in active pairing #{pairing}")
        return chosen

    @action
    def unrelated_action(
        self,
        *,
        participant: str,
        roll: int,
        resistance_roll: int,
        resistance_level: str = "moderate",
        resistance_rating: int | str | None = None,
        rating: int | str | None = None,
        modifier: int = 0,
        hero_point: bool = False,
        bumps: int = 0,
    ) -> Outcome:
        """A simple contest outside the pairings (§5.2.2): an augment for oneself or a
        teammate, or a secondary objective. Against `resistance_rating` when given,
        else the class `resistance_level`. The outcome is logged and returned; what
        it grants (an augment's bonus, say) is for the caller to apply."""
        actor = self._find(participant)
        self._free_to_act(actor, "take an unrelated action")
        if resistance_rating is not None:
            against = read_rating(resistance_rating, "the resistance")
        elif resistance_level in RESISTANCE_LEVELS:
            against = resistance(resistance_level, self._base)
        else:
            raise RulesError(
                f"resistance_level must be one of {', '.join(RESISTANCE_LEVELS)}, "
                f"not {resistance_level!r}"
            )
        hero = self._hero_point(actor, hero_point)
        outcome, _ = self._face_off(
            actor,
            rating_in_use(actor.rating, rating, modifier, actor.name),
            roll,
            hero,
            bumps,
            "the resistance",
            against,
            resistance_roll,
        )
        actor.acted_in_round = self._round
        self._payer(actor).hero_points_spent += int(hero)
        self._log.append(
            {
                "kind": "unrelated_action",
                "round": self._round,
                "participant": participant,
                "resistance": str(against),
                **_face_off_entry(outcome, "participant", "resistance"),
                "hero_point": hero,
            }
        )
        self._settle()
        return outcome

    @action
    @after_end
    def parting_shot(
        self,
        *,
        shooter: str,
        target: str,
        shooter_roll: int,
        target_roll: int,
        rating: int | str | None = None,
        target_rating: int | str | None = None,
        modifier: int = 0,
        target_modifier: int = 0,
        hero_point: bool = False,
        target_hero_point: bool = False,
        bumps: int = 0,
        target_bumps: int = 0,
    ) -> Outcome:
        """Kick a knocked-out opponent while they are down (§5.1.4).

        Allowed to a player's participant who is not enmeshed in a round, against an
        opponent knocked out of a pairing in this group round or the one before, once
        per knock-out. A win adds its RP to the score against the target; a defeat
        takes the target's RP off the knock-out round's, and a score now under 5
        (3 for a follower) brings the target back into that pairing.
        """
        shot_by, shot_at = self._find(shooter), self._find(target)
        if not shot_by.player:
            raise IllegalAction("the GM does not make parting shots (§5.1.4)")
        if shot_by.side == shot_at.side:
            raise IllegalAction(f"{shooter} may not make a parting shot at a teammate (§5.1.4)")
        knockout = shot_at.knockout
        if knockout is None or self._round > knockout["round"] + 1:
            raise IllegalAction(
                f"{target} was not just knocked out of a pairing: a parting shot comes in the "
                f"round right after the knock-out, once (§5.1.4)"
            )
        self._free_to_act(shot_by, "make a parting shot")
        pairing = self._pairings[knockout["pairing"] - 1]
        winner = pairing.winner
        assert winner is not None, "a knock-out pairing has a winner"
        hero = self._hero_point(shot_by, hero_point)
        target_hero = self._hero_point(shot_at, target_hero_point)
        outcome, level = self._face_off(
            shot_by,
            rating_in_use(shot_by.rating, rating, modifier, shot_by.name),
            shooter_roll,
            hero,
            bumps,
            target,
            rating_in_use(shot_at.rating, target_rating, target_modifier, shot_at.name),
            target_roll,
            target_hero,
            target_bumps,
            shot_at.bumps,
        )
        before = pairing.against(other_side(winner))
        pairing.points[winner] = parting_shot_score(
            pairing.points[winner], knockout["points"], level
        )
        threshold = FOLLOWER_THRESHOLD if shot_at.role == "follower" else WINNING_SCORE
        revived = pairing.points[winner] < threshold
        if revived:
            # §5.1.4: a dramatic turnaround; the provisional consequences go away and
            # the pairing goes on.
            pairing.extra[winner] = 0
            pairing.status, pairing.winner, pairing.decided_at = "active", None, 0
            shot_at.status = "active"
        shot_at.knockout = None
        shot_by.acted_in_round = self._round
        self._payer(shot_by).hero_points_spent += int(hero)
        self._payer(shot_at).hero_points_spent += int(target_hero)
        self._log.append(
            {
                "kind": "parting_shot",
                "round": self._round,
                "shooter": shooter,
                "target": target,
                "pairing": pairing.id,
                **_face_off_entry(outcome, "shooter", "target"),
                "hero_point": hero,
                "target_hero_point": target_hero,
                "change": pairing.against(other_side(winner)) - before,
                "score_against": pairing.against(other_side(winner)),
                "revived": revived,
            }
        )
        self._settle()
        return outcome

    @action
    def remove_follower(
        self,
        *,
        remover: str,
        follower: str,
        remover_roll: int,
        follower_roll: int,
        rating: int | str | None = None,
        follower_rating: int | str | None = None,
        modifier: int = 0,
        follower_modifier: int = 0,
        hero_point: bool = False,
        follower_hero_point: bool = False,
        bumps: int = 0,
        follower_bumps: int = 0,
    ) -> Outcome:
        """An unengaged opponent takes a follower out of the contest (§5.2.4).

        A simple contest; on any defeat the follower is out, with X+2 RP against
        them, X the RP of the remover's victory (R12)."""
        taker, taken = self._find(remover), self._find(follower)
        if taken.role == "contestant":
            raise IllegalAction(f"{follower} is not a follower; engage them in a pairing instead")
        if taker.side == taken.side:
            raise IllegalAction(f"{remover} cannot remove a follower of their own side")
        if taker.role not in PAIRED_ROLES or taker.status != "active":
            raise IllegalAction(f"{remover} must be an active contestant to remove a follower")
        if taken.status != "active":
            raise IllegalAction(f"{follower} is already out of the contest")
        self._free_to_act(taker, "remove a follower")
        hero = self._hero_point(taker, hero_point)
        follower_hero = self._hero_point(taken, follower_hero_point)
        outcome, level = self._face_off(
            taker,
            rating_in_use(taker.rating, rating, modifier, taker.name),
            remover_roll,
            hero,
            bumps,
            follower,
            rating_in_use(taken.rating, follower_rating, follower_modifier, taken.name),
            follower_roll,
            follower_hero,
            follower_bumps,
            taken.bumps,
        )
        taker.acted_in_round = self._round
        self._payer(taker).hero_points_spent += int(hero)
        self._payer(taken).hero_points_spent += int(follower_hero)
        removal_id = None
        if level > 0:
            self._close_pairings(taken, "ended")
            removal = _Pairing(
                id=len(self._pairings) + 1,
                kind="removal",
                members={taker.side: taker.name, taken.side: taken.name},
                ratings={taker.side: taker.rating, taken.side: taken.rating},
            )
            self._decide(removal, "won", taker.side)
            assert outcome.degree is not None, "a victory has a degree"
            removal.points[taker.side] = resolution_points(outcome.degree)
            removal.extra[taker.side] = FOLLOWER_EXTRA
            self._pairings.append(removal)
            removal_id = removal.id
            taken.status = "defeated"
        self._log.append(
            {
                "kind": "remove_follower",
                "round": self._round,
                "remover": remover,
                "follower": follower,
                **_face_off_entry(outcome, "remover", "follower"),
                "hero_point": hero,
                "follower_hero_point": follower_hero,
                "removed": level > 0,
                "pairing": removal_id,
            }
        )
        self._settle()
        return outcome
