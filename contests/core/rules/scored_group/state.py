"""The group scored contest's state: its setup, participants, pairings and what the
table shows (§5.2, R12).

`GroupScoredBase` is the bottom of the machine; `pairings.py` adds the rules and
actions of the pairings and `contest.py` the actions outside them.
"""

from __future__ import annotations

from typing import Any

from ..errors import IllegalAction, RulesError
from ..inputs import read_better_roll, read_flag
from ..machine import ContestMachine
from ..options import RulesOptions
from ..outcomes import is_clearly_inferior
from ..results import ContestOutcome, state_of
from ..scored import (
    SIDES,
    Side,
    assist_resistance,
    climax_consequence,
    group_victory_level,
    other_side,
    rating_in_use,
    read_stakes,
    rising_action,
)
from ..sides import GROUP_SIDE_KEYS, group_side
from ..states import BENEFIT_OF_VICTORY, State
from .participants import PAIRED_ROLES, ROLES, _Pairing, _Participant


class GroupScoredBase(ContestMachine):
    """The setup and the state of a group scored contest, without its actions: the
    base of `GroupScoredContest`, which documents the setup."""

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
        unknown = (
            set(entry)
            - {"name", "side", "role", "owner", "player", "stretched"}
            - (GROUP_SIDE_KEYS)
        )
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
        stretched = read_flag(entry.get("stretched", False), f"{name}'s stretched flag")
        resistance = role == "contestant" and not player
        if stretched and resistance:
            raise RulesError(f"{name} is a resistance: it takes no stretch (R2, R18.3)")
        # The participant as every machine reads a side (R18.3-R18.5): its rating with
        # its lasting modifier lines and states, and its lasting bumps.
        lasting = group_side(entry, name, is_pc=not resistance)
        participant = _Participant(
            name=name,
            side=side,
            role=role,
            rating=lasting.target.rating,
            owner=owner,
            player=player,  # a follower's None is settled by _check_owner
            stretched=stretched or lasting.stretched,
            bumps=lasting.total_bumps,
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

    def _engage(self, pc: Any, opponent: Any, pc_rating: Any, opponent_rating: Any) -> _Pairing:
        members: dict[Side, _Participant] = {"pc": self._find(pc), "opponent": self._find(opponent)}
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
        overrides: dict[Side, Any] = {"pc": pc_rating, "opponent": opponent_rating}
        pairing = _Pairing(
            id=len(self._pairings) + 1,
            kind="contest",
            members={side: p.name for side, p in members.items()},
            ratings={
                side: rating_in_use(p.rating, overrides[side], 0, p.name)
                for side, p in members.items()
            },
            stretched={
                side: p.stretched and overrides[side] is None for side, p in members.items()
            },
        )
        self._pairings.append(pairing)
        return pairing

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
        assert winner is not None, "a won pairing has a winner"
        row = rising_action(last.against(other_side(winner)) - last.against(winner))
        return row.winner if side == winner else row.loser

    def consequences(self) -> dict[str, str]:
        """Every participant's consequence, by name, once the contest is over."""
        if not self.is_over:
            raise IllegalAction(
                "no consequence is certain until the scored contest is over (§5.1.1)"
            )
        return {name: self.consequence_of(name) for name in self._participants}

    @property
    def outcome(self) -> ContestOutcome | None:
        """The result once over (None before): the winning side and its level, each
        participant's consequence (§5.1.2, §5.1.3, §5.2) and, for a player's participant
        on the winning side left unharmed, the benefit of the side's victory unless every
        defeated opponent was clearly inferior to them (§2.11.2, R10, R18.6)."""
        if not self.is_over:
            return None
        winner, degree = self.winner, self.degree
        words = self.consequences()
        defeated = [
            p.rating
            for p in self._participants.values()
            if p.side != winner and p.status == "defeated"
        ]
        benefits: dict[str, State | None] = {}
        for name, participant in self._participants.items():
            played = bool(participant.player) or participant.owner is not None
            benefits[name] = (
                BENEFIT_OF_VICTORY[degree]
                if participant.side == winner
                and degree is not None
                and played
                and state_of(words[name]) is None
                and defeated
                and not is_clearly_inferior(participant.rating, defeated)
                else None
            )
        return ContestOutcome(
            winner=winner,
            degree=degree,
            consequences={name: state_of(word) for name, word in words.items()},
            benefits=benefits,
            ended_by="knockout" if winner else None,
            words=dict(words),
        )

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
