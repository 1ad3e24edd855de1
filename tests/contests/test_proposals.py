"""A player proposes a contest; the GM frames it as proposed, amended, or declines it
(issue 30), played through the services as the table does. Each refusal says why and
changes nothing."""

from __future__ import annotations

import pytest

from campaigns import services as campaign_services
from contests.models import Contest, Proposal, ProposalStatus
from contests.services import ContestError
from contests.services import proposals as services

from .conftest import ability, key

pytestmark = pytest.mark.django_db


@pytest.fixture
def told(monkeypatch):
    """What the table's pages were told, in order (after each commit)."""
    messages: list[dict] = []
    monkeypatch.setattr(
        services, "send_to_table_on_commit", lambda _id, message: messages.append(message)
    )
    return messages


def propose(campaign, alice, tamsin, **changes):
    fields = {
        "character_id": tamsin.pk,
        "ability_id": ability(tamsin, "Boatcraft").pk,
        "prize": "Tamsin wants to cross the Grey River before the raiders",
        "kind": "simple",
        "how": "poling the ferry along the shallows",
        **changes,
    }
    return services.proposal_make(campaign=campaign, user=alice, **fields)


def test_the_gm_frames_a_proposal_as_proposed_with_a_resistance(
    campaign, session, gm, alice, tamsin, told
):
    proposal = propose(campaign, alice, tamsin)
    assert (proposal.status, proposal.ability_name) == (ProposalStatus.OPEN, "Boatcraft")
    result = services.proposal_accept(
        campaign=campaign,
        user=gm,
        proposal_id=proposal.pk,
        resistance={"name": "The Grey River", "level": "high"},
        idempotency_key=key(),
    )
    contest = result.contest
    assert (contest.kind, contest.prize, contest.obstacle) == (
        "simple",
        "Tamsin wants to cross the Grey River before the raiders",
        "poling the ferry along the shallows",
    )
    assert contest.session == session and contest.resistance_rating == 20
    pc = contest.state["sides"]["pc"]
    assert (pc["character_id"], pc["ability"]) == (tamsin.pk, "Boatcraft")
    proposal.refresh_from_db()
    assert (proposal.status, proposal.contest, proposal.amended) == (
        ProposalStatus.FRAMED,
        contest,
        False,
    )
    # Every page was told twice: the proposal made, then framed.
    assert [m["html"] for m in told] == [services.PROPOSALS_CHANGED] * 2


def test_the_gm_amends_a_proposal_before_framing_it(campaign, session, gm, alice, tamsin):
    proposal = propose(campaign, alice, tamsin)
    framing = services.framing_of(proposal, {"rating": "14"})
    framing.update(kind="extended", prize="Tamsin wants the ferry, and the ferryman's thanks")
    result = services.proposal_amend(
        campaign=campaign, user=gm, proposal_id=proposal.pk, data=framing, idempotency_key=key()
    )
    assert (result.contest.kind, result.contest.resistance_rating) == ("extended", 14)
    proposal.refresh_from_db()
    assert (proposal.status, proposal.contest, proposal.amended) == (
        ProposalStatus.FRAMED,
        result.contest,
        True,
    )


def test_a_declined_proposal_says_why_and_a_reason_is_required(
    campaign, session, gm, alice, tamsin
):
    proposal = propose(campaign, alice, tamsin)
    with pytest.raises(ContestError, match="A reason is required"):
        services.proposal_decline(campaign=campaign, user=gm, proposal_id=proposal.pk, reason=" ")
    proposal.refresh_from_db()
    assert proposal.status == ProposalStatus.OPEN
    services.proposal_decline(
        campaign=campaign, user=gm, proposal_id=proposal.pk, reason="The river is frozen."
    )
    proposal.refresh_from_db()
    assert (proposal.status, proposal.reason) == (ProposalStatus.DECLINED, "The river is frozen.")
    assert Contest.objects.count() == 0


def test_its_player_withdraws_a_proposal_until_the_gm_answers(
    campaign, session, gm, alice, bob, tamsin
):
    proposal = propose(campaign, alice, tamsin)
    with pytest.raises(ContestError, match="only its player"):
        services.proposal_withdraw(campaign=campaign, user=bob, proposal_id=proposal.pk)
    services.proposal_withdraw(campaign=campaign, user=alice, proposal_id=proposal.pk)
    proposal.refresh_from_db()
    assert proposal.status == ProposalStatus.WITHDRAWN
    # Answered already: the GM can no longer frame it, nor its player withdraw it again.
    with pytest.raises(ContestError, match="answered already"):
        services.proposal_accept(
            campaign=campaign,
            user=gm,
            proposal_id=proposal.pk,
            resistance={"level": "high"},
            idempotency_key=key(),
        )
    with pytest.raises(ContestError, match="answered already"):
        services.proposal_withdraw(campaign=campaign, user=alice, proposal_id=proposal.pk)
    assert Contest.objects.count() == 0


def test_one_open_proposal_per_player(campaign, session, alice, tamsin):
    first = propose(campaign, alice, tamsin)
    with pytest.raises(ContestError, match="waiting for the GM already"):
        propose(campaign, alice, tamsin, prize="Something else")
    services.proposal_withdraw(campaign=campaign, user=alice, proposal_id=first.pk)
    second = propose(campaign, alice, tamsin, prize="Something else")
    assert second.status == ProposalStatus.OPEN


def test_a_proposal_ends_with_its_session(campaign, session, gm, alice, tamsin):
    proposal = propose(campaign, alice, tamsin)
    campaign_services.session_end(session=session, actor=gm)
    proposal.refresh_from_db()
    assert proposal.lapsed
    with pytest.raises(ContestError, match="ended with its session"):
        services.proposal_accept(
            campaign=campaign,
            user=gm,
            proposal_id=proposal.pk,
            resistance={"level": "high"},
            idempotency_key=key(),
        )
    # And no proposal opens until the next session starts.
    with pytest.raises(ContestError, match="no session is in progress"):
        propose(campaign, alice, tamsin)


@pytest.mark.parametrize(
    ("who", "changes", "message"),
    [
        ("gm", {}, "you are the GM"),
        ("sam", {}, "spectators watch the table"),
        ("bob", {}, "one of your own characters"),
        ("alice", {"kind": "group_simple"}, "suggest one of these kinds: simple contest"),
        ("alice", {"prize": "   "}, "The prize is required"),
        ("alice", {"prize": "x" * 301}, "at most 300 characters"),
        ("alice", {"how": "a\x00b"}, "must not contain NUL"),
    ],
)
def test_a_proposal_the_table_refuses_says_why_and_stores_nothing(
    campaign, session, gm, alice, bob, sam, tamsin, brannoc, who, changes, message
):
    user = {"gm": gm, "alice": alice, "bob": bob, "sam": sam}[who]
    with pytest.raises(ContestError, match=message):
        propose(campaign, user, tamsin, **changes)
    assert not Proposal.objects.exists()


def test_a_player_proposes_only_with_their_characters_own_abilities(
    campaign, session, alice, tamsin, brannoc
):
    with pytest.raises(ContestError, match="choose one of Tamsin's abilities"):
        propose(campaign, alice, tamsin, ability_id=ability(brannoc, "Temple singer").pk)
    assert not Proposal.objects.exists()


def test_an_outsider_is_refused(campaign, session, charlie, tamsin):
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        propose(campaign, charlie, tamsin)
