"""The pairings of a group scored contest: their rules and actions (§5.2.1, §5.2.4-§5.2.8).

Engaging (§5.2.1 step 6.5), playing a pairing's round (§5.2.1 step 6), knock-outs,
shifting RP onto secondary contestants (§5.2.4), joining (§5.2.7) and switching
ability (§5.2.8), on the state of `GroupScoredBase`.
"""

from __future__ import annotations

from typing import Any

from ..dice import Roller, d20
from ..errors import IllegalAction, RulesError
from ..inputs import read_flag, read_int, read_rating
from ..machine import action
from ..modifiers import refuse_resistance_modifier
from ..scored import (
    SIDES,
    WINNING_SCORE,
    ScoredRound,
    Side,
    other_side,
    play_contest,
    read_tactics,
    round_log,
    score_round,
)
from .participants import FOLLOWER_EXTRA, FOLLOWER_THRESHOLD, _Pairing, _Participant
from .state import GroupScoredBase


class GroupScoredPairings(GroupScoredBase):
    """A group scored contest with the rules and actions of its pairings: the base of
    `GroupScoredContest`, which adds the actions outside the pairings."""

    # -- shared rules of the actions ----------------------------------------------------

    def _payer(self, participant: _Participant) -> _Participant:
        """Who pays a participant's hero point: a follower's owner (§5.2.4, R5.3: the
        owner may bump their followers' rolls, from their own hero points)."""
        if participant.owner is not None:
            return self._participants[participant.owner]
        return participant

    def _hero_point(self, participant: _Participant, value: Any) -> bool:
        spent = read_flag(value, f"{participant.name}'s hero point")
        if spent and not participant.player:
            raise IllegalAction(
                f"{participant.name} is the GM's: only players spend hero points (R5.3)"
            )
        return spent

    def _knock_out(self, pairing: _Pairing, winner: Side, last_points: int) -> None:
        """The member on the other side leaves the contest (§5.2.1 step 6.5)."""
        loser = self._participants[pairing.members[other_side(winner)]]
        if loser.role == "follower":
            pairing.extra[winner] += FOLLOWER_EXTRA
        self._decide(pairing, "won", winner)
        loser.status = "defeated"
        loser.knockout = {"pairing": pairing.id, "round": self._round, "points": last_points}
        self._close_pairings(loser, "ended")

    def _decide(self, pairing: _Pairing, status: str, winner: Side | None) -> None:
        self._decisions += 1
        pairing.status, pairing.winner, pairing.decided_at = status, winner, self._decisions

    def _check_knockout(self, pairing: _Pairing, loser_side: Side, last_points: int) -> None:
        loser = self._participants[pairing.members[loser_side]]
        threshold = FOLLOWER_THRESHOLD if loser.role == "follower" else WINNING_SCORE
        if pairing.status == "active" and pairing.points[other_side(loser_side)] >= threshold:
            self._knock_out(pairing, other_side(loser_side), last_points)

    def _close_pairings(self, participant: _Participant, status: str) -> None:
        # A participant who leaves ends every pairing they were still in.
        for pairing in self._active_pairings(participant.name):
            pairing.status = status

    def _shift(self, owner: _Participant, pairing: _Pairing, shifts: Any) -> list[dict[str, Any]]:
        """§5.2.4: the owner moves RP scored against them onto secondary contestants."""
        if shifts is None:
            return []
        if not isinstance(shifts, dict):
            raise RulesError(f"a shift is {{follower_name: points}}, not {shifts!r}")
        side = pairing.member_side(owner.name)
        moved = []
        for name, points in shifts.items():
            follower = self._find(name)
            if follower.role != "secondary" or follower.owner != owner.name:
                raise IllegalAction(f"{name} is not a secondary contestant of {owner.name}")
            if follower.status != "active":
                raise IllegalAction(f"{name} has already been removed from the scene")
            if read_int(points, "shifted points") < 1:
                raise RulesError(f"shift 1 RP or more, not {points}")
            against = pairing.points[other_side(side)]
            if points > against:
                raise IllegalAction(
                    f"{owner.name} has {against} RP against them in pairing {pairing.label}; "
                    f"{points} cannot be shifted"
                )
            pairing.points[other_side(side)] -= points
            follower.shifted_points += points
            if follower.shifted_points >= FOLLOWER_THRESHOLD:
                # §5.2.4: removed at 3 or more, with 2 more lodged against them.
                follower.shifted_points += FOLLOWER_EXTRA
                follower.status = "defeated"
                follower.removed_by_shift = True
            moved.append(
                {"follower": name, "points": points, "removed": follower.status == "defeated"}
            )
        return moved

    def _settle(self) -> None:
        # The group round ends once every active pairing has played in it (§5.2.1 step 6).
        active = self._active_pairings()
        if active and all(p.played_round == self._round for p in active):
            self._round += 1

    # -- actions ----------------------------------------------------------------------

    @action
    def engage(
        self,
        *,
        pc: str,
        opponent: str,
        pc_rating: int | str | None = None,
        opponent_rating: int | str | None = None,
    ) -> int:
        """Pair a PC-side participant with an opponent: a new contest, first to 5
        (§5.2.1 step 6.5). Either may already be in other pairings; points scored
        there do not count here. `*_rating` use another ability in this pairing.
        Returns the new pairing's number."""
        pairing = self._engage(pc, opponent, pc_rating, opponent_rating)
        self._log.append(
            {
                "kind": "engage",
                "round": self._round,
                "pairing": pairing.id,
                "pc": pc,
                "opponent": opponent,
            }
        )
        self._settle()
        return pairing.id

    @action
    def play_round(
        self,
        *,
        pairing: int,
        pc_roll: int,
        opponent_roll: int,
        pc_tactic: str = "normal",
        opponent_tactic: str = "normal",
        pc_hero_point: bool = False,
        opponent_hero_point: bool = False,
        pc_modifier: int = 0,
        opponent_modifier: int = 0,
        pc_bumps: int = 0,
        opponent_bumps: int = 0,
        pc_rating: int | str | None = None,
        opponent_rating: int | str | None = None,
        pc_shift: dict[str, int] | None = None,
        opponent_shift: dict[str, int] | None = None,
    ) -> ScoredRound:
        """Play one round of a pairing with the given rolls (§5.2.1 step 6).

        The arguments are those of `ScoredContest.play_round`, plus `pairing` (its
        number) and `*_shift`: `{secondary_follower: points}` moved from the score
        against that side's member onto their secondary contestants after this
        round's RP are lodged and before anyone is knocked out (§5.2.4).
        A member reaching 5 RP (a follower 3) is knocked out; winning a
        "disengage" round takes the winner out of the contest unharmed (§5.1.6).
        """
        current = self._find_pairing(pairing)
        if current.status != "active":
            raise IllegalAction(f"pairing {current.label} is over ({current.status})")
        if current.played_round == self._round:
            others = ", ".join(self._pairings[n - 1].label for n in self.waiting())
            raise IllegalAction(
                f"pairing {current.label} has already played round {self._round}; "
                f"play {others} first"
            )
        members = {side: self._participants[current.members[side]] for side in SIDES}
        names = {side: member.name for side, member in members.items()}
        # R18.3: a GM resistance (played by no one, following no one) takes no modifier.
        played = {side: bool(m.player) or m.owner is not None for side, m in members.items()}
        refuse_resistance_modifier(opponent_modifier, played)
        tactics = read_tactics(names, pc_tactic, opponent_tactic)
        play = play_contest(
            names,
            current.ratings,
            lambda side, hero_point: self._hero_point(members[side], hero_point),
            better_roll=self._better_roll,
            rolls={"pc": pc_roll, "opponent": opponent_roll},
            hero_points={"pc": pc_hero_point, "opponent": opponent_hero_point},
            overrides={"pc": pc_rating, "opponent": opponent_rating},
            modifiers={"pc": pc_modifier, "opponent": opponent_modifier},
            bumps={  # this round's bumps and each member's lasting ones (R18.5)
                "pc": read_int(pc_bumps, "pc_bumps") + members["pc"].bumps,
                "opponent": read_int(opponent_bumps, "opponent_bumps") + members["opponent"].bumps,
            },
            stretched=[side for side in SIDES if current.stretched[side]],
        )
        scored = score_round(
            play.outcome, pc_tactic=tactics["pc"], opponent_tactic=tactics["opponent"]
        )
        if scored.scored_by:
            current.points[scored.scored_by] += scored.points
        shifts = {"pc": pc_shift, "opponent": opponent_shift}
        moved = {side: self._shift(members[side], current, shifts[side]) for side in SIDES}
        for side in SIDES:
            self._payer(members[side]).hero_points_spent += int(play.hero_points[side])
        current.played_round = self._round
        entry = {
            "kind": "round",
            "round": self._round,
            "pairing": current.id,
            "pc": members["pc"].name,
            "opponent": members["opponent"].name,
            **round_log(play, scored),
            "shifted": moved["pc"] + moved["opponent"],
        }
        if scored.escaped:
            # §5.1.6: a won disengagement takes the participant out of the contest, with
            # their consequences settled there and then.
            escaper = members[scored.escaped]
            self._decide(current, "disengaged", None)
            escaper.status = "disengaged"
            self._close_pairings(escaper, "ended")
        elif scored.scored_by:
            self._check_knockout(current, other_side(scored.scored_by), scored.points)
        entry["pc_points"] = current.points["pc"] + current.extra["pc"]
        entry["opponent_points"] = current.points["opponent"] + current.extra["opponent"]
        winner = current.winner if current.status == "won" else None
        entry["knocked_out"] = None if winner is None else current.members[other_side(winner)]
        self._log.append(entry)
        self._settle()
        return scored

    def roll_round(self, *, pairing: int, roller: Roller = d20, **options: Any) -> ScoredRound:
        """Roll both dice with `roller` and play the pairing's round (not an action
        itself: `play_round` is recorded with the rolled numbers)."""
        return self.play_round(pairing=pairing, pc_roll=roller(), opponent_roll=roller(), **options)

    @action
    def shift_points(self, *, owner: str, follower: str, pairing: int, points: int) -> None:
        """Move RP scored against `owner` in `pairing` onto their secondary contestant
        `follower` (§5.2.4), at any point. A follower with 3 RP or more is removed
        from the scene with 2 more against them."""
        holder = self._find(owner)
        current = self._find_pairing(pairing)
        if current.status != "active" or current.side_of(owner) is None:
            raise IllegalAction(f"{owner} is not in active pairing #{pairing}")
        moved = self._shift(holder, current, {follower: points})
        self._log.append(
            {"kind": "shift", "round": self._round, "owner": owner, "pairing": pairing, **moved[0]}
        )
        self._settle()

    @action
    def join(
        self,
        *,
        name: str,
        side: str,
        rating: int | str,
        role: str = "contestant",
        owner: str | None = None,
        player: bool | None = None,
        modifiers: list[Any] | None = None,
        states: list[str] | None = None,
        bumps: int = 0,
    ) -> None:
        """Join the contest in progress, accepting its framing (§5.2.7); then `engage`
        an opponent, or take unrelated actions. `modifiers`, `states` and `bumps` last
        the whole contest, as in the setup's participants."""
        entry: dict[str, Any] = {"name": name, "side": side, "rating": rating, "role": role}
        if owner is not None:
            entry["owner"] = owner
        if player is not None:
            entry["player"] = player
        for key, value in (("modifiers", modifiers), ("states", states), ("bumps", bumps)):
            if value:
                entry[key] = value
        self._add_participant(entry)
        self._log.append({"kind": "join", "round": self._round, "name": name, "side": side})
        self._settle()

    @action
    def switch_ability(
        self,
        *,
        pairing: int,
        participant: str,
        rating: int | str,
        stretched: bool = False,
    ) -> None:
        """Use another ability in a pairing from now on (§5.2.8); `stretched` says it is
        a stretch (§2.10, R18.4). When a tactic exploits a weakness the GM switches the
        other member's rating the same way."""
        current = self._find_pairing(pairing)
        side = current.side_of(participant)
        if current.status != "active" or side is None:
            raise IllegalAction(f"{participant} is not in active pairing #{pairing}")
        actor = self._participants[participant]
        new = read_rating(rating, f"{participant}'s new rating")
        stretched = read_flag(stretched, "stretched")
        if stretched and not (actor.player or actor.owner is not None):
            raise RulesError(f"{participant} is a resistance: it takes no stretch (R2, R18.3)")
        current.ratings[side] = new
        current.stretched[side] = stretched
        self._log.append(
            {
                "kind": "switch_ability",
                "round": self._round,
                "pairing": pairing,
                "participant": actor.name,
                "rating": str(new),
            }
        )
