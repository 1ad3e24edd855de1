"""The group scored contest: pairings of PCs and opponents, each first to 5 RP (§5.2, R12).

The GM pairs participants (`engage`) and plays one round per pairing per group round
(`play_round`), in any order they like; a pairing that already played must wait until
every other active pairing has. Participants who are not enmeshed in a pairing may
take unrelated actions instead: assists (§5.2.3), other unrelated actions (§5.2.2),
parting shots (§5.1.4) and removing followers (§5.2.4). The contest ends when one side
has nobody left standing; the side still standing wins.

The tables and the one-round rules are shared with the one-on-one contest in
the `scored` package.

The modules, each importing only from those above it:

- `participants.py`: the roles, a participant and a pairing;
- `state.py`: `GroupScoredBase`, the setup, participants, pairings and what the table
  shows;
- `pairings.py`: `GroupScoredPairings`, the rules and actions of the pairings;
- `contest.py`: `GroupScoredContest`, the actions outside the pairings.

Every public name is importable from `contests.core.rules.scored_group` itself.
"""

from .contest import GroupScoredContest
from .participants import FOLLOWER_EXTRA, FOLLOWER_THRESHOLD, PAIRED_ROLES, ROLES

__all__ = [
    "FOLLOWER_EXTRA",
    "FOLLOWER_THRESHOLD",
    "PAIRED_ROLES",
    "ROLES",
    "GroupScoredContest",
]
