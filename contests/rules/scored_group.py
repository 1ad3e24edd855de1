"""The group scored contest: pairings of PCs and opponents, each first to 5 RP (§5.2, R12).

The GM pairs participants (`engage`) and plays one round per pairing per group round
(`play_round`), in any order they like; a pairing that already played must wait until
every other active pairing has. Participants who are not enmeshed in a pairing may
take unrelated actions instead: assists (§5.2.3), other unrelated actions (§5.2.2),
parting shots (§5.1.4) and removing followers (§5.2.4). The contest ends when one side
has nobody left standing; the side still standing wins.

The tables and the one-round rules are shared with the one-on-one contest in
`scored.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .dice import Roller, d20
from .errors import IllegalAction, RulesError
from .inputs import read_better_roll, read_flag, read_int, read_rating, read_roll
from .machine import ContestMachine, action, after_end
from .options import RulesOptions
from .ratings import RESISTANCE_LEVELS, Rating, resistance
from .scored import (
    SIDES,
    WINNING_SCORE,
    ScoredRound,
    Side,
    assist_resistance,
    assisted_score,
    climax_consequence,
    contest_outcome,
    group_victory_level,
    other_side,
    parting_shot_score,
    play_contest,
    rating_in_use,
    read_stakes,
    read_tactics,
    resolution_points,
    rising_action,
    round_log,
    score_round,
)
from .simple import Outcome

ROLES: tuple[str, ...] = ("contestant", "follower", "secondary", "supporter")
"""§5.2.4: a participant is a full contestant, or a follower taking part as a
contestant ("follower"), a secondary contestant ("secondary") or a supporter."""

PAIRED_ROLES = ("contestant", "follower")
"""Roles that roll in pairings and keep their side standing."""

FOLLOWER_THRESHOLD = 3
"""§5.2.4 (R12): a follower leaves the contest at 3 RP against them..."""

FOLLOWER_EXTRA = 2
"""...and then takes 2 more, for the consequences."""


@dataclass
class _Participant:
    name: str
    side: Side
    role: str
    rating: Rating
    owner: str | None
    player: bool | None
    status: str = "active"  # active | defeated | disengaged
    shifted_points: int = 0  # §5.2.4: RP a secondary contestant took over from the owner
    removed_by_shift: bool = False
    hero_points_spent: int = 0
    assists_received: int = 0
    acted_in_round: int = 0  # the group round of their last unrelated action
    # While a parting shot may still come: {"pairing", "round", "points"} (§5.1.4).
    knockout: dict[str, int] | None = None


@dataclass
class _Pairing:
    id: int
    kind: str  # "contest", or "removal" for a follower removed by a simple contest
    members: dict[str, str]  # side -> participant name
    ratings: dict[str, Rating]
    points: dict[str, int] = field(default_factory=lambda: {"pc": 0, "opponent": 0})
    # §5.2.4: the 2 RP lodged on a removed follower, by the side that lodged them.
    extra: dict[str, int] = field(default_factory=lambda: {"pc": 0, "opponent": 0})
    status: str = "active"  # active | won | disengaged | ended
    winner: Side | None = None
    played_round: int = 0
    decided_at: int = 0  # the order in which pairings were decided (won or disengaged)

    def side_of(self, name: str) -> Side | None:
        for side, member in self.members.items():
            if member == name:
                return side  # type: ignore[return-value]
        return None

    def against(self, side: str) -> int:
        """RP scored against the member on `side` in this pairing."""
        other = other_side(side)  # type: ignore[arg-type]
        return self.points[other] + self.extra[other]

    @property
    def label(self) -> str:
        return f"#{self.id} ({self.members['pc']} vs {self.members['opponent']})"


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


class GroupScoredContest(ContestMachine):
    """Several PCs against several opponents in pairings (§5.2, R12).

    Setup (JSON-able keyword arguments):

    - `participants`: a list of dicts `{"name", "side", "rating"}` plus optional
      `"role"` (one of `ROLES`, default "contestant"), `"owner"` (the participant a
      follower belongs to; required for followers) and `"player"` (may spend hero
      points and make parting shots; default: PC side, or the owner's for followers).
    - `pairings`: optional starting pairings, `[[pc_side_name, opponent_name], ...]`.
    - `stakes`: "rising_action" (default) or "climax"; `better_roll`: "high" or
      "low"; `base_resistance`: the campaign's base (R2), for assists.

    Actions: `engage`, `play_round`, `assist`, `unrelated_action`, `parting_shot`,
    `shift_points`, `remove_follower`, `join`, `switch_ability`. Pairings are
    numbered from 1 in the order they are made.

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

    def _start(
        self,
        *,
        participants: list[dict[str, Any]],
        pairings: list[list[str]] | None = None,
        stakes: str = "rising_action",
        better_roll: str = "high",
        base_resistance: int = 14,
    ) -> None:
        self._stakes = read_stakes(stakes)
        self._better_roll = read_better_roll(better_roll)
        self._base = RulesOptions(base_resistance=base_resistance).base_resistance
        self._participants: dict[str, _Participant] = {}
        self._pairings: list[_Pairing] = []
        self._log: list[dict[str, Any]] = []
        self._round = 1
        self._decisions = 0
        if not isinstance(participants, list):
            raise RulesError(f"participants must be a list of dicts, not {participants!r}")
        for entry in participants:
            self._add_participant(entry, check_owner=False)
        for participant in self._participants.values():
            self._check_owner(participant)
        for side in SIDES:
            if not self._standing(side):
                raise RulesError(f"a group scored contest needs a contestant on the {side} side")
        for pair in pairings or []:
            if not isinstance(pair, list | tuple) or len(pair) != 2:
                raise RulesError(f"a pairing is [pc_side_name, opponent_name], not {pair!r}")
            self._engage(pair[0], pair[1], None, None)

    # -- participants -----------------------------------------------------------------

    def _add_participant(self, entry: Any, *, check_owner: bool = True) -> _Participant:
        if not isinstance(entry, dict):
            raise RulesError(f"a participant is a dict with name, side and rating, not {entry!r}")
        unknown = set(entry) - {"name", "side", "rating", "role", "owner", "player"}
        if unknown:
            raise RulesError(f"unknown participant field(s): {', '.join(sorted(unknown))}")
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise RulesError(f"a participant needs a name, not {name!r}")
        if name in self._participants:
            raise RulesError(f"two participants are called {name!r}; names must be unique")
        side = entry.get("side")
        if side not in SIDES:
            raise RulesError(f"{name}'s side must be 'pc' or 'opponent', not {side!r}")
        role = entry.get("role", "contestant")
        if role not in ROLES:
            raise RulesError(f"{name}'s role must be one of {', '.join(ROLES)}, not {role!r}")
        owner = entry.get("owner")
        if role == "contestant" and owner is not None:
            raise RulesError(f"{name} is a contestant: only followers have an owner")
        if role != "contestant" and not isinstance(owner, str):
            raise RulesError(f"{name} is a follower ({role}): name their owner")
        player = entry.get("player")
        if player is not None:
            read_flag(player, f"{name}'s player flag")
        elif role == "contestant":
            player = side == "pc"
        participant = _Participant(
            name=name,
            side=side,
            role=role,
            rating=read_rating(entry.get("rating"), f"{name}'s rating"),
            owner=owner,
            player=player,  # a follower's None is settled by _check_owner
        )
        self._participants[name] = participant
        if check_owner:
            self._check_owner(participant)
        return participant

    def _check_owner(self, participant: _Participant) -> None:
        if participant.owner is None:
            return
        owner = self._participants.get(participant.owner)
        if owner is None or owner.role != "contestant" or owner.side != participant.side:
            raise RulesError(
                f"{participant.name}'s owner {participant.owner!r} must be a contestant on "
                f"the same side"
            )
        if participant.player is None:
            # R5.3: followers are bumped by their owner, so they share the owner's hero points.
            participant.player = owner.player

    def _find(self, name: Any) -> _Participant:
        participant = self._participants.get(name) if isinstance(name, str) else None
        if participant is None:
            raise IllegalAction(f"there is no participant named {name!r} in this contest")
        return participant

    def _find_pairing(self, pairing: Any) -> _Pairing:
        if isinstance(pairing, bool) or not isinstance(pairing, int):
            raise RulesError(f"a pairing is named by its number, not {pairing!r}")
        if not 1 <= pairing <= len(self._pairings):
            raise IllegalAction(f"there is no pairing #{pairing} in this contest")
        return self._pairings[pairing - 1]

    def _active_pairings(self, name: str | None = None) -> list[_Pairing]:
        return [
            p
            for p in self._pairings
            if p.status == "active" and (name is None or p.side_of(name) is not None)
        ]

    def _standing(self, side: str) -> bool:
        return any(
            p.side == side and p.role in PAIRED_ROLES and p.status == "active"
            for p in self._participants.values()
        )

    def _points_against(self, participant: _Participant) -> int:
        total = participant.shifted_points
        for pairing in self._pairings:
            side = pairing.side_of(participant.name)
            if side is not None:
                total += pairing.against(side)
        return total

    # -- reading the contest ----------------------------------------------------------

    @property
    def round(self) -> int:
        """The group round: every active pairing plays once per group round."""
        return self._round

    @property
    def stakes(self) -> str:
        return self._stakes

    @property
    def is_over(self) -> bool:
        return not (self._standing("pc") and self._standing("opponent"))

    @property
    def winner(self) -> Side | None:
        """The side with participants left standing once the contest is over (§5.2)."""
        if not self.is_over:
            return None
        for side in SIDES:
            if self._standing(side):
                return side
        return None

    @property
    def degree(self) -> str | None:
        """The winning side's victory level (§5.2, R12): the consequence of the one
        defeated opponent, else the second-worst among the defeated opponents."""
        winner = self.winner
        if winner is None:
            return None
        defeated = [
            self.consequence_of(p.name)
            for p in self._participants.values()
            if p.side != winner and p.status == "defeated"
        ]
        return group_victory_level(defeated)

    @property
    def log(self) -> list[dict[str, Any]]:
        """Every action's result, oldest first (copies)."""
        return [dict(entry) for entry in self._log]

    def waiting(self) -> list[int]:
        """Numbers of the active pairings that have not played this group round."""
        return [p.id for p in self._active_pairings() if p.played_round < self._round]

    def pairing_between(self, pc: str, opponent: str) -> int | None:
        """The number of the active pairing of these two, if any."""
        for pairing in self._active_pairings(pc):
            if pairing.members["opponent"] == opponent:
                return pairing.id
        return None

    def points(self, pairing: int) -> dict[str, int]:
        """RP each side has scored in a pairing, including a removed follower's +2."""
        found = self._find_pairing(pairing)
        return {side: found.points[side] + found.extra[side] for side in SIDES}

    def points_against(self, name: str) -> int:
        """Every RP scored against a participant in all their pairings (§5.1.3)."""
        return self._points_against(self._find(name))

    def consequence_of(self, name: str) -> str:
        """A participant's consequence, once they are out or the contest is over.

        Climax (§5.1.3): the climax table with every RP scored against them, +1 if
        they were defeated. Rising action (§5.1.2): the row of their last decided
        pairing ("only use the last opponent you engaged"); unharmed after a
        disengagement or when none of their pairings was decided.
        """
        participant = self._find(name)
        if participant.status == "active" and not self.is_over:
            raise IllegalAction(
                f"{name}'s consequence is settled when they leave the contest or it ends (§5.1.1)"
            )
        if self._stakes == "climax":
            return climax_consequence(
                self._points_against(participant), lost=participant.status == "defeated"
            )
        if participant.removed_by_shift:
            return rising_action(participant.shifted_points).loser
        decided = [p for p in self._pairings if p.decided_at and p.side_of(name) is not None]
        if not decided:
            return "unharmed"
        last = max(decided, key=lambda p: p.decided_at)
        if last.status == "disengaged":
            return "unharmed"
        side, winner = last.side_of(name), last.winner
        row = rising_action(last.against(other_side(winner)) - last.against(winner))
        return row.winner if side == winner else row.loser

    def consequences(self) -> dict[str, str]:
        """Every participant's consequence, by name, once the contest is over."""
        if not self.is_over:
            raise IllegalAction(
                "no consequence is certain until the scored contest is over (§5.1.1)"
            )
        return {name: self.consequence_of(name) for name in self._participants}

    def parting_shots_open(self) -> list[str]:
        """Participants knocked out recently enough to take a parting shot (§5.1.4)."""
        return [
            p.name
            for p in self._participants.values()
            if p.knockout is not None and self._round <= p.knockout["round"] + 1
        ]

    def state(self) -> dict[str, Any]:
        over = self.is_over
        waiting = set(self.waiting())
        return {
            "kind": self.kind,
            "stakes": self._stakes,
            "better_roll": self._better_roll,
            "base_resistance": self._base,
            "round": self._round,
            "participants": [
                {
                    "name": p.name,
                    "side": p.side,
                    "role": p.role,
                    "owner": p.owner,
                    "player": p.player,
                    "rating": str(p.rating),
                    "status": p.status,
                    "enmeshed": bool(self._active_pairings(p.name)),
                    "points_against": self._points_against(p),
                    "shifted_points": p.shifted_points,
                    "assists_received": p.assists_received,
                    "next_assist_resistance": assist_resistance(p.assists_received),
                    "hero_points_spent": p.hero_points_spent,
                    "consequence": (
                        self.consequence_of(p.name) if over or p.status != "active" else None
                    ),
                }
                for p in self._participants.values()
            ],
            "pairings": [
                {
                    "id": p.id,
                    "kind": p.kind,
                    "pc": p.members["pc"],
                    "opponent": p.members["opponent"],
                    "pc_rating": str(p.ratings["pc"]),
                    "opponent_rating": str(p.ratings["opponent"]),
                    "pc_points": p.points["pc"] + p.extra["pc"],
                    "opponent_points": p.points["opponent"] + p.extra["opponent"],
                    "status": p.status,
                    "winner": p.winner,
                    "waiting": p.id in waiting,
                }
                for p in self._pairings
            ],
            "log": self.log,
            "parting_shots_open": self.parting_shots_open(),
            "is_over": over,
            "winner": self.winner,
            "degree": self.degree,
        }

    # -- shared rules of the actions ----------------------------------------------------

    def _hero_point(self, participant: _Participant, value: Any) -> bool:
        if read_flag(value, f"{participant.name}'s hero point") and not participant.player:
            raise IllegalAction(
                f"{participant.name} is the GM's: only players spend hero points (R5.3)"
            )
        return value

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
    ) -> tuple[Outcome, int]:
        """A simple contest seen from `first`'s side: the outcome and its signed level."""
        outcome = contest_outcome(
            first_rating,
            read_roll(first_roll, f"{first.name}'s roll"),
            second_rating,
            read_roll(second_roll, f"{second_label}'s roll"),
            better_roll=self._better_roll,
            pc_hero_point=first_hero,
            opponent_hero_point=second_hero,
            pc_bumps=read_int(first_bumps, f"{first.name}'s bumps"),
            opponent_bumps=read_int(second_bumps, f"{second_label}'s bumps"),
            pc_label=first.name,
            opponent_label=second_label,
        )
        return outcome, outcome.level

    def _engage(self, pc: Any, opponent: Any, pc_rating: Any, opponent_rating: Any) -> _Pairing:
        members = {"pc": self._find(pc), "opponent": self._find(opponent)}
        for side, participant in members.items():
            if participant.side != side:
                raise IllegalAction(
                    f"a pairing is [PC side, opponent side]: {participant.name} is on the "
                    f"{participant.side} side"
                )
            if participant.role not in PAIRED_ROLES:
                raise IllegalAction(
                    f"{participant.name} is a {participant.role}: only contestants and "
                    f"followers taking part as contestants are paired (§5.2.4)"
                )
            if participant.status != "active":
                raise IllegalAction(
                    f"{participant.name} is out of the contest ({participant.status})"
                )
        if self.pairing_between(pc, opponent) is not None:
            raise IllegalAction(f"{pc} and {opponent} are already paired")
        overrides = {"pc": pc_rating, "opponent": opponent_rating}
        pairing = _Pairing(
            id=len(self._pairings) + 1,
            kind="contest",
            members={side: p.name for side, p in members.items()},
            ratings={
                side: rating_in_use(p.rating, overrides[side], 0, p.name)
                for side, p in members.items()
            },
        )
        self._pairings.append(pairing)
        return pairing

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
        side = pairing.side_of(owner.name)
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
            bumps={"pc": pc_bumps, "opponent": opponent_bumps},
        )
        scored = score_round(
            play.outcome, pc_tactic=tactics["pc"], opponent_tactic=tactics["opponent"]
        )
        if scored.scored_by:
            current.points[scored.scored_by] += scored.points
        shifts = {"pc": pc_shift, "opponent": opponent_shift}
        moved = {side: self._shift(members[side], current, shifts[side]) for side in SIDES}
        for side in SIDES:
            members[side].hero_points_spent += int(play.hero_points[side])
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
        entry["knocked_out"] = (
            current.members[other_side(current.winner)] if current.status == "won" else None
        )
        self._log.append(entry)
        self._settle()
        return scored

    def roll_round(self, *, pairing: int, roller: Roller = d20, **options: Any) -> ScoredRound:
        """Roll both dice with `roller` and play the pairing's round (not an action
        itself: `play_round` is recorded with the rolled numbers)."""
        return self.play_round(pairing=pairing, pc_roll=roller(), opponent_roll=roller(), **options)

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
        side = target.side_of(receiver.name)
        against = other_side(side)
        before = target.points[against]
        target.points[against] = assisted_score(before, level)
        receiver.assists_received += 1
        giver.acted_in_round = self._round
        giver.hero_points_spent += int(hero)
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
        actor.hero_points_spent += int(hero)
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
        shot_by.hero_points_spent += int(hero)
        shot_at.hero_points_spent += int(target_hero)
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
        )
        taker.acted_in_round = self._round
        taker.hero_points_spent += int(hero)
        taken.hero_points_spent += int(follower_hero)
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
    ) -> None:
        """Join the contest in progress, accepting its framing (§5.2.7); then `engage`
        an opponent, or take unrelated actions."""
        entry: dict[str, Any] = {"name": name, "side": side, "rating": rating, "role": role}
        if owner is not None:
            entry["owner"] = owner
        if player is not None:
            entry["player"] = player
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
        resistance: int | str | None = None,
    ) -> None:
        """Use another ability in a pairing from now on (§5.2.8); `resistance`, when
        given, is the GM's new rating for the other member of the pairing."""
        current = self._find_pairing(pairing)
        side = current.side_of(participant)
        if current.status != "active" or side is None:
            raise IllegalAction(f"{participant} is not in active pairing #{pairing}")
        actor = self._participants[participant]
        new = read_rating(rating, f"{participant}'s new rating")
        if resistance is not None:
            other = other_side(side)
            current.ratings[other] = read_rating(
                resistance, f"{current.members[other]}'s new rating"
            )
        current.ratings[side] = new
        self._log.append(
            {
                "kind": "switch_ability",
                "round": self._round,
                "pairing": pairing,
                "participant": actor.name,
                "rating": str(new),
            }
        )
