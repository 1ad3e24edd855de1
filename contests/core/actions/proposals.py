"""The typed input of the table's proposal actions (issue 30): a player proposes a
contest, withdraws it; the GM frames it as proposed or declines it. They act on the
table, not on a contest (as a framing does): no flow takes them, no contest event is
written; contests/services/proposals.py carries them out (a handler under each name).
A GM's amended framing is a `frame` naming the proposal."""

from __future__ import annotations

from typing import Annotated

from ..terms import PROPOSED_KINDS
from .declaration import By, Data, OnTable
from .fields import Id, Level, Name, OneOf, RatingValue, Text


class Propose(Data):
    character_id: Id | None = None
    ability_id: Id | None = None
    prize: Annotated[str, Text()] | None = None
    kind: Annotated[str, OneOf(PROPOSED_KINDS)] | None = None
    how: Annotated[str, Text()] | None = None


class ProposalRef(Data):
    proposal: Id | None = None


class DeclineProposal(ProposalRef):
    reason: Annotated[str, Text()] | None = None


class AcceptProposal(ProposalRef):
    # The resistance the GM sets: a class or a rating, and its name.
    name: Name | None = None
    level: Level | None = None
    rating: RatingValue | None = None


# The table's proposal actions (issue 30), one line each: the union every message is
# read through, the known actions and the refusals' words follow from these lines
# (registry.py), and contests/services/proposals.py registers a handler under each name.
PROPOSALS = (
    OnTable("propose", Propose, "propose a contest", By.PLAYER),
    OnTable("withdraw_proposal", ProposalRef, "withdraw a proposal", By.PLAYER),
    OnTable("decline_proposal", DeclineProposal, "decline a proposal", By.GM),
    OnTable("accept_proposal", AcceptProposal, "frame a proposal as proposed", By.GM),
)
