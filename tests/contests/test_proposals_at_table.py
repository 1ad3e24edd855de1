"""Proposals at the table as browsers make them (issue 30): htmx POSTs to `table_act`
from the proposals panel's forms, the panel each reader reloads, and the GM's amend
form filled in from a proposal."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from contests.models import Contest, Proposal, ProposalStatus

from .conftest import ability, key

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def post(client, campaign, **fields):
    return client.post(
        reverse("table_act", args=[campaign.pk]), {"key": key(), **fields}, headers=HTMX
    )


def panel(client, campaign, **query):
    return client.get(reverse("table_proposals", args=[campaign.pk]), query).content.decode()


def propose(client, campaign, alice, tamsin, **changes):
    client.force_login(alice)
    fields = {
        "action": "propose",
        "character_id": str(tamsin.pk),
        "ability_id": str(ability(tamsin, "Boatcraft").pk),
        "prize": "to cross the Grey River before the raiders",
        "kind": "simple",
        "how": "poling the ferry along the shallows",
        **changes,
    }
    return post(client, campaign, **fields)


def test_a_player_proposes_every_reader_sees_it_and_the_gm_frames_it(
    client, campaign, session, gm, alice, sam, tamsin
):
    client.force_login(alice)
    assert 'data-action="propose"' in panel(client, campaign)
    answer = propose(client, campaign, alice, tamsin)
    assert answer.status_code == 200 and 'id="table-error"' in answer.content.decode()
    assert re.search(r'id="table-error"[^>]*></p>', answer.content.decode())
    proposal = Proposal.objects.get()
    words = (
        "Alice proposes: Tamsin wants to cross the Grey River before the raiders, with "
        "Boatcraft (a simple contest); poling the ferry along the shallows. Waiting for the GM."
    )
    # Alice reads it with her Withdraw button, and no second proposal form.
    mine = panel(client, campaign)
    assert words in mine and 'data-action="withdraw_proposal"' in mine
    assert 'data-action="propose"' not in mine
    # Sam, a spectator, reads it and can do nothing with it.
    client.force_login(sam)
    seen = panel(client, campaign)
    assert words in seen and "<form" not in seen
    # The GM's bar says it is their move, with the answers.
    client.force_login(gm)
    bar = panel(client, campaign, **{"in": "bar"})
    assert "Your move:</strong> answer Alice's proposal" in bar
    for action in ("accept_proposal", "decline_proposal"):
        assert f'data-action="{action}"' in bar
    answer = post(
        client,
        campaign,
        action="accept_proposal",
        proposal=str(proposal.pk),
        name="The Grey River",
        level="high",
    )
    assert re.search(r'data-acked="1"', answer.content.decode()), answer.content.decode()
    contest = Contest.objects.get()
    assert (contest.prize, contest.resistance_rating) == (proposal.prize, 20)
    assert "The GM framed it against a resistance of 20 as contest #1." in panel(client, campaign)
    assert "Your move" not in panel(client, campaign, **{"in": "bar"})


def test_the_gm_amends_a_proposal_in_the_frame_form_filled_from_it(
    client, campaign, session, gm, alice, tamsin
):
    propose(client, campaign, alice, tamsin)
    proposal = Proposal.objects.get()
    client.force_login(gm)
    form = client.get(
        reverse("table_frame_panel", args=[campaign.pk]), {"proposal": proposal.pk}
    ).content.decode()
    assert f'name="proposal" value="{proposal.pk}"' in form
    assert 'value="to cross the Grey River before the raiders"' in form
    assert re.search(rf'<option value="{tamsin.pk}" selected>Tamsin', form)
    answer = post(
        client,
        campaign,
        action="frame",
        proposal=str(proposal.pk),
        kind="extended",
        prize="to cross the river and keep the ferry",
        **{"pc.character_id": str(tamsin.pk), "opponent.name": "Raiders", "opponent.rating": "14"},
    )
    assert re.search(r'data-acked="1"', answer.content.decode()), answer.content.decode()
    proposal.refresh_from_db()
    assert (proposal.status, proposal.amended, proposal.contest.kind) == (
        ProposalStatus.FRAMED,
        True,
        "extended",
    )
    assert "The GM amended it and framed it against a resistance of 14" in panel(client, campaign)


def test_a_decline_needs_a_reason_and_the_table_reads_it(
    client, campaign, session, gm, alice, tamsin
):
    propose(client, campaign, alice, tamsin)
    proposal = Proposal.objects.get()
    client.force_login(gm)
    answer = post(client, campaign, action="decline_proposal", proposal=str(proposal.pk))
    assert "A reason is required. Nothing was done." in answer.content.decode()
    post(
        client,
        campaign,
        action="decline_proposal",
        proposal=str(proposal.pk),
        reason="The river is frozen",
    )
    client.force_login(alice)
    assert "The GM declined it: The river is frozen." in panel(client, campaign)
    # Answered, Alice may propose again.
    assert 'data-action="propose"' in panel(client, campaign)


def test_a_player_may_not_answer_nor_withdraw_anothers_proposal(
    client, campaign, session, gm, alice, bob, tamsin
):
    propose(client, campaign, alice, tamsin)
    proposal = Proposal.objects.get()
    client.force_login(bob)
    refused = post(
        client, campaign, action="accept_proposal", proposal=str(proposal.pk), level="high"
    )
    assert (
        "Only the GM may frame a proposal as proposed. Nothing was done."
        in refused.content.decode()
    )
    refused = post(client, campaign, action="withdraw_proposal", proposal=str(proposal.pk))
    assert "Only its player withdraws a proposal. Nothing was done." in refused.content.decode()
    proposal.refresh_from_db()
    assert proposal.status == ProposalStatus.OPEN and not Contest.objects.exists()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"kind": "group_simple"}, "Kind:"),
        ({"character_id": "²"}, "Character"),
        ({"prize": ""}, "The prize is required"),
    ],
)
def test_a_bad_proposal_from_a_form_is_refused_in_words(
    client, campaign, session, alice, tamsin, changes, message
):
    answer = propose(client, campaign, alice, tamsin, **changes)
    assert message in answer.content.decode() and "Nothing was done." in answer.content.decode()
    assert not Proposal.objects.exists()


def test_the_archive_keeps_the_sessions_proposals_in_words(
    client, campaign, session, gm, alice, tamsin
):
    propose(client, campaign, alice, tamsin)
    proposal = Proposal.objects.get()
    client.force_login(gm)
    post(client, campaign, action="decline_proposal", proposal=str(proposal.pk), reason="Not now.")
    client.force_login(alice)
    page = client.get(reverse("archive_session", args=[campaign.pk, session.number]))
    assert (
        "Alice proposes: Tamsin wants to cross the Grey River before the raiders, with "
        "Boatcraft (a simple contest); poling the ferry along the shallows. The GM declined "
        "it: Not now."
    ) in page.content.decode()


@pytest.mark.parametrize(
    ("who", "fields", "message"),
    [
        # Declared for players: the GM and a spectator are told so, in the action's words.
        ("gm", {"action": "withdraw_proposal"}, "You are the GM; only players may withdraw a"),
        ("sam", {"action": "withdraw_proposal"}, "only players may withdraw a proposal"),
        # Declared for the GM.
        ("alice", {"action": "decline_proposal", "reason": "No"}, "Only the GM may decline a"),
        # The handler's own checks of the typed data, in words.
        ("gm", {"action": "accept_proposal"}, "Set the resistance: a class or a rating."),
        ("gm", {"action": "decline_proposal", "proposal": ""}, "Name the proposal."),
        ("alice", {"action": "withdraw_proposal", "proposal": "x"}, "Proposal: "),
        ("alice", {"action": "propose", "proposal": "1"}, "Proposal is not something this"),
        ("alice", {"action": "propose", "character_id": ""}, "Choose your character."),
    ],
)
def test_who_may_take_an_action_on_the_table_follows_its_declaration(
    client, campaign, session, gm, alice, sam, tamsin, who, fields, message
):
    propose(client, campaign, alice, tamsin)
    proposal = Proposal.objects.get()
    client.force_login({"gm": gm, "alice": alice, "sam": sam}[who])
    named = {} if fields["action"] == "propose" else {"proposal": str(proposal.pk)}
    answer = post(client, campaign, **{**named, **fields}).content.decode()
    assert message in answer and "Nothing was done." in answer, answer
    proposal.refresh_from_db()
    assert proposal.status == ProposalStatus.OPEN and not Contest.objects.exists()


def test_every_action_on_the_table_is_declared_once_and_carried_out_by_one_handler():
    from contests.core import actions
    from contests.services import on_table

    assert (
        set(on_table.HANDLERS)
        == actions.TABLE_ACTIONS
        == {"propose", "withdraw_proposal", "decline_proposal", "accept_proposal"}
    )
    # A table action is not a contest's: no flow offers it, no contest event names it.
    assert not actions.TABLE_ACTIONS & actions.ACTIONS
    with pytest.raises(LookupError, match="not declared"):
        on_table.on_table("steal_the_dice")
    with pytest.raises(LookupError, match="has a handler already"):
        on_table.on_table("propose")
