"""A player proposes a contest; the GM frames it or declines it (issue 30).

QuestWorlds frames contests by conversation (§2.3.2): a player says what their
character tries and what they want, the GM sets the resistance. A proposal belongs to
the open session; one open proposal per player; its player may withdraw it until the
GM answers. The GM frames it as proposed with a resistance (`proposal_accept`), frames
it amended from the frame form (`contest_frame` with the proposal's id), or declines it
with a reason the table reads. Every refusal is a `ContestError` in words and changes
nothing; who may do what is read at the moment it is done.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from campaigns.models import Campaign
from characters.models import Ability, Character
from questworlds_site.accounts.models import User

from ..broadcast import send_to_table_on_commit
from ..core.actions import plain_text_problem
from ..core.actions.proposals import AcceptProposal, DeclineProposal, ProposalRef, Propose
from ..models import PROPOSED_KINDS, ContestKind, Proposal, ProposalStatus
from .common import ActionResult, ContestError
from .framing import contest_frame
from .on_table import allowed, on_table

# The words of a proposal and of an answer: a field of the frame form's length.
MAX_WORDS = 300
# What every open page at the table is told when a proposal changes: it reloads the
# proposals it shows, for its reader (contests/views.py `table_proposals`).
PROPOSALS_CHANGED = (
    '<div id="proposals-changed" hx-swap-oob="true" data-proposals-changed hidden></div>'
)


def _words(value: Any, what: str, *, required: bool) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if value is not None and not isinstance(value, str):
        raise ContestError(f"{what} must be words")
    problem = plain_text_problem(text)
    if problem:
        raise ContestError(f"{what} {problem}")
    if required and not text:
        raise ContestError(f"{what} is required")
    if len(text) > MAX_WORDS:
        raise ContestError(f"{what} takes at most {MAX_WORDS} characters (this has {len(text)})")
    return text


def _changed(campaign: Campaign) -> None:
    send_to_table_on_commit(campaign.pk, {"type": "table.fragment", "html": PROPOSALS_CHANGED})


def _open_proposal(campaign: Campaign, proposal_id: int) -> Proposal:
    """The proposal, locked, if it is this campaign's and still open in its session."""
    proposal = (
        Proposal.objects.select_for_update(of=("self",))
        .select_related("session", "character", "player")
        .filter(pk=proposal_id, campaign=campaign)
        .first()
    )
    if proposal is None:
        raise ContestError("there is no such proposal at this table")
    if proposal.status != ProposalStatus.OPEN:
        said = ProposalStatus(proposal.status).label.lower()
        raise ContestError(f"that proposal is answered already ({said})")
    if proposal.session.ended_at is not None:
        raise ContestError("that proposal ended with its session")
    return proposal


@transaction.atomic
def proposal_make(
    *,
    campaign: Campaign,
    user: User,
    character_id: int,
    ability_id: int | None,
    prize: str,
    kind: str,
    how: str = "",
) -> Proposal:
    """`user`, a player, proposes a contest for one of their characters at the open
    session: the prize, the ability they mean to use (one of the character's own or a
    sidekick's in service, §6.5.1), the kind they suggest and how."""
    allowed(campaign, user, "propose")
    session = campaign.open_session()
    if session is None:
        raise ContestError("no session is in progress: proposals open when the GM starts one")
    character = Character.objects.filter(pk=character_id, campaign=campaign, player=user).first()
    if character is None:
        raise ContestError("propose for one of your own characters in this campaign")
    ability = None
    if ability_id is not None:
        ability = (
            Ability.objects.filter(Ability.usable_as_own())
            .filter(pk=ability_id, character=character)
            .select_related("follower")
            .first()
        )
        if ability is None:
            raise ContestError(f"choose one of {character.name}'s abilities")
    if kind not in PROPOSED_KINDS:
        kinds = ", ".join(str(ContestKind(k).label).lower() for k in PROPOSED_KINDS)
        raise ContestError(f"suggest one of these kinds: {kinds}")
    prize = _words(prize, "The prize", required=True)
    how = _words(how, "How", required=False)
    waiting = ContestError(
        "you have a proposal waiting for the GM already: withdraw it to propose another"
    )
    if Proposal.objects.filter(session=session, player=user, status=ProposalStatus.OPEN).exists():
        raise waiting
    try:
        # Two proposals sent at once: the constraint keeps one, the other is told why.
        with transaction.atomic():
            proposal = Proposal.objects.create(
                campaign=campaign,
                session=session,
                player=user,
                character=character,
                ability=ability,
                ability_name=ability.shown_name if ability else "",
                prize=prize,
                kind=kind,
                how=how,
            )
    except IntegrityError:
        raise waiting from None
    _changed(campaign)
    return proposal


@transaction.atomic
def proposal_withdraw(*, campaign: Campaign, user: User, proposal_id: int) -> Proposal:
    """Its player takes the proposal back, until the GM answers it."""
    allowed(campaign, user, "withdraw_proposal")
    proposal = _open_proposal(campaign, proposal_id)
    if proposal.player_id != user.pk:
        raise ContestError("only its player withdraws a proposal")
    proposal.status, proposal.answered_at = ProposalStatus.WITHDRAWN, timezone.now()
    proposal.save(update_fields=["status", "answered_at"])
    _changed(campaign)
    return proposal


@transaction.atomic
def proposal_decline(*, campaign: Campaign, user: User, proposal_id: int, reason: str) -> Proposal:
    """The GM declines the proposal, with a reason the table reads."""
    allowed(campaign, user, "decline_proposal")
    proposal = _open_proposal(campaign, proposal_id)
    proposal.reason = _words(reason, "A reason", required=True)
    proposal.status, proposal.answered_at = ProposalStatus.DECLINED, timezone.now()
    proposal.save(update_fields=["reason", "status", "answered_at"])
    _changed(campaign)
    return proposal


def framing_of(proposal: Proposal, resistance: dict[str, Any]) -> dict[str, Any]:
    """The framing of the contest as proposed, against `resistance` ({level} or
    {rating}, and a name): the frame form's fields, for the GM to frame or amend."""
    pc: dict[str, Any] = {"character_id": proposal.character_id}
    if proposal.ability_id is not None:
        pc["ability_id"] = proposal.ability_id
    return {
        "kind": proposal.kind,
        "prize": proposal.prize,
        "obstacle": proposal.how,
        "pc": pc,
        "opponent": {"name": resistance.get("name") or "Resistance", **resistance},
    }


@transaction.atomic
def proposal_accept(
    *,
    campaign: Campaign,
    user: User,
    proposal_id: int,
    resistance: dict[str, Any],
    idempotency_key: str | None,
) -> ActionResult:
    """The GM frames the contest exactly as proposed, with their resistance
    ({"level": "high"} or {"rating": "14"}, and optionally its name)."""
    allowed(campaign, user, "accept_proposal")
    proposal = _open_proposal(campaign, proposal_id)
    result = contest_frame(
        campaign=campaign,
        user=user,
        data=framing_of(proposal, resistance),
        idempotency_key=idempotency_key,
    )
    proposal_framed(proposal, result, amended=False)
    return result


@transaction.atomic
def proposal_amend(
    *,
    campaign: Campaign,
    user: User,
    proposal_id: int,
    data: dict[str, Any],
    idempotency_key: str | None,
) -> ActionResult:
    """The GM frames the proposal as amended in the frame form (`data`: a framing,
    filled from `framing_of` and changed as the GM likes)."""
    allowed(campaign, user, "accept_proposal")
    proposal = _open_proposal(campaign, proposal_id)
    result = contest_frame(campaign=campaign, user=user, data=data, idempotency_key=idempotency_key)
    proposal_framed(proposal, result, amended=True)
    return result


def proposal_framed(proposal: Proposal, result: ActionResult, *, amended: bool) -> None:
    """Mark the (locked, open) proposal framed as the framing's contest."""
    proposal.status, proposal.answered_at = ProposalStatus.FRAMED, timezone.now()
    proposal.contest, proposal.amended = result.contest, amended
    proposal.save(update_fields=["status", "answered_at", "contest", "amended"])
    _changed(proposal.campaign)


# -- the actions at the table (core/actions/proposals.py `PROPOSALS`), typed ---------------


@on_table("propose")
def _propose(campaign: Campaign, user: User, data: Propose, key: str | None) -> None:
    if data.character_id is None:
        raise ContestError("choose your character")
    proposal_make(
        campaign=campaign,
        user=user,
        character_id=data.character_id,
        ability_id=data.ability_id,
        prize=data.prize or "",
        kind=data.kind or "simple",
        how=data.how or "",
    )


def _named(data: ProposalRef) -> int:
    if data.proposal is None:
        raise ContestError("name the proposal")
    return data.proposal


@on_table("withdraw_proposal")
def _withdraw(campaign: Campaign, user: User, data: ProposalRef, key: str | None) -> None:
    proposal_withdraw(campaign=campaign, user=user, proposal_id=_named(data))


@on_table("decline_proposal")
def _decline(campaign: Campaign, user: User, data: DeclineProposal, key: str | None) -> None:
    proposal_decline(
        campaign=campaign, user=user, proposal_id=_named(data), reason=data.reason or ""
    )


@on_table("accept_proposal")
def _accept(campaign: Campaign, user: User, data: AcceptProposal, key: str | None) -> ActionResult:
    proposal_id = _named(data)
    given = {"name": data.name, "level": data.level, "rating": data.rating}
    resistance = {k: v for k, v in given.items() if v}
    if "level" not in resistance and "rating" not in resistance:
        raise ContestError("set the resistance: a class or a rating")
    return proposal_accept(
        campaign=campaign,
        user=user,
        proposal_id=proposal_id,
        resistance=resistance,
        idempotency_key=key,
    )
