"""The typed input of the table's proposal actions (issue 30): a player proposes a
contest, withdraws it; the GM frames it as proposed or declines it. They act on the
table, not on a contest (as a framing does): no flow takes them, no contest event is
written; contests/services/proposals.py carries them out. A GM's amended framing is a
`frame` naming the proposal."""

from __future__ import annotations

from typing import Annotated, Any, Union, cast

from pydantic import Field, TypeAdapter, ValidationError

from ..terms import PROPOSED_KINDS
from .declaration import Data
from .fields import ActionInputError, Id, Level, Name, OneOf, RatingValue, Text
from .readable import readable
from .registry import Message, _message_model


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


# The table's proposal actions by name, with the words a refusal names them by.
PROPOSAL_MODELS: dict[str, type[Data]] = {
    "propose": Propose,
    "withdraw_proposal": ProposalRef,
    "decline_proposal": DeclineProposal,
    "accept_proposal": AcceptProposal,
}
_ANY: Any = Annotated[
    cast(Any, Union)[tuple(_message_model(n, m) for n, m in PROPOSAL_MODELS.items())],  # noqa: UP007
    Field(discriminator="action"),
]
PROPOSAL_ADAPTER: TypeAdapter[Message] = TypeAdapter(_ANY)
PROPOSAL_ACTIONS = frozenset(PROPOSAL_MODELS)


def parse_proposal(message: dict[str, Any], *, form: bool = False) -> Message:
    """A proposal action's message as its model (`check_bounds` done by the caller), or
    ActionInputError with a readable reason."""
    try:
        return PROPOSAL_ADAPTER.validate_python(message, context={"form": form})
    except ValidationError as error:
        raise ActionInputError(readable(error, str(message.get("action")))) from None
