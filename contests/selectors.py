"""Reads of the table that pages and other apps share: its chat as one reader may see it,
and the players' proposals in words."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from .models import ChatKind, ChatMessage, ContestKind, Proposal, ProposalStatus

# The table shows the open session's latest lines; the archive shows a session's all.
CHAT_LENGTH = 50


def visible_chat(
    lines: QuerySet[ChatMessage], *, is_gm: bool, user_id: int | None
) -> QuerySet[ChatMessage]:
    """The lines this reader may see: a whisper to the GM only by the GM and by whoever
    whispered it; a reader with no account (a public archive link) sees no whisper."""
    if is_gm:
        return lines
    seen = ~Q(kind=ChatKind.WHISPER)
    if user_id is not None:
        seen |= Q(author_id=user_id)
    return lines.filter(seen)


def chat_lines(
    session, *, is_gm: bool, user_id: int | None, last: int | None = None
) -> list[ChatMessage]:
    """The session's chat as this reader may see it, oldest first (one query): all of
    it, or the `last` lines."""
    if session is None:
        return []
    lines = visible_chat(
        ChatMessage.objects.filter(session=session), is_gm=is_gm, user_id=user_id
    ).select_related("author", "character")
    if last is None:
        return list(lines.order_by("created_at", "id"))
    return list(reversed(lines.order_by("-created_at", "-id")[:last]))


def proposal_words(proposal: Proposal) -> str:
    """A proposal and what became of it, in the words the table and the archive show:
    "Alice proposes: Tamsin wants to cross the river, with Boatcraft (a simple contest);
    by poling the ferry. The GM framed it as contest #3."."""
    who = proposal.player.shown_name if proposal.player else "A player"
    kind = ContestKind(proposal.kind).label.lower()
    text = f"{who} proposes: {proposal.character.name} wants {proposal.prize}"
    text += f", with {proposal.ability_name}" if proposal.ability_name else ""
    text += f" (a {kind})"
    text += f"; {proposal.how}" if proposal.how else ""
    text += "."
    if proposal.status == ProposalStatus.FRAMED and proposal.contest is not None:
        how = "amended it and framed it" if proposal.amended else "framed it"
        rating = proposal.contest.resistance_rating
        at = f" against a resistance of {rating}" if rating is not None else ""
        text += f" The GM {how}{at} as contest #{proposal.contest.number}."
    elif proposal.status == ProposalStatus.DECLINED:
        text += f" The GM declined it: {proposal.reason}"
        text += "" if proposal.reason.endswith((".", "!", "?")) else "."
    elif proposal.status == ProposalStatus.WITHDRAWN:
        text += " Withdrawn by its player."
    elif proposal.lapsed:
        text += " It ended with the session, unanswered."
    else:
        text += " Waiting for the GM."
    return text


def session_proposals(session) -> list[Proposal]:
    """A session's proposals, oldest first, with what their words read (one query)."""
    if session is None:
        return []
    return list(
        Proposal.objects.filter(session=session)
        .select_related("player", "character", "contest", "session")
        .order_by("created_at", "id")
    )


def open_proposal(campaign, proposal_id: int) -> Proposal | None:
    """The campaign's proposal of that id while it waits for the GM in its session."""
    proposal = (
        Proposal.objects.filter(pk=proposal_id, campaign=campaign, status=ProposalStatus.OPEN)
        .select_related("player", "character", "contest", "session")
        .first()
    )
    return None if proposal is None or proposal.lapsed else proposal
