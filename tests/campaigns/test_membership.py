"""Creating campaigns, invitations by link, joining, removing, leaving, handing over."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import timezone

from campaigns import services
from campaigns.models import Campaign, Invitation, Membership, Role
from characters import services as character_services
from characters.models import Character


def invite(campaign, gm, role=Role.PLAYER, **kwargs) -> Invitation:
    return services.invitation_create(campaign=campaign, actor=gm, role=role, **kwargs)


# --------------------------------------------------------------------- creating


def test_a_new_campaign_is_run_by_its_creator_with_default_options(client, charlie):
    client.force_login(charlie)
    response = client.post(
        reverse("campaign_create"),
        {"name": "Iron Coast", "genre": "Pulp", "description": "Smugglers."},
    )
    campaign = Campaign.objects.get(name="Iron Coast")
    assert response.url == reverse("campaign_members", args=[campaign.pk])
    assert campaign.gm == charlie
    assert campaign.rules_options.base_resistance == 14
    assert campaign.rules_options.hero_point_economy == "advances"
    assert ">Iron Coast</a>" in client.get(reverse("home")).content.decode()


def test_a_campaign_needs_a_name(client, charlie):
    client.force_login(charlie)
    response = client.post(reverse("campaign_create"), {"name": "", "genre": "Pulp"})
    assert response.status_code == 400
    assert "This field is required" in response.content.decode()
    assert not Campaign.objects.exists()


# --------------------------------------------------------------------- invitations


def test_a_player_joins_by_link_then_the_wizard_asks_the_creation_method(
    client, campaign, gm, charlie
):
    """Issue 27, 11b: joining made a character "as you go" without a word; now the
    player joins, then the wizard's first page asks the name, concept and method."""
    invitation = invite(campaign, gm)
    client.force_login(charlie)
    page = client.get(reverse("invitation_accept", args=[invitation.token])).content.decode()
    assert "invites you as a <strong>player</strong>" in page
    assert "how you build it (as you go, from a list, or from prose)" in page
    response = client.post(reverse("invitation_accept", args=[invitation.token]), {})
    wizard = f"{reverse('characters:create')}?campaign={campaign.pk}"
    assert response.url == wizard
    membership = Membership.objects.get(campaign=campaign, user=charlie)
    assert membership.role == Role.PLAYER
    assert not Character.objects.filter(player=charlie).exists()  # nothing made silently
    invitation.refresh_from_db()
    assert invitation.uses == 1

    first_page = client.get(wizard).content.decode()
    assert "Now create your character for it." in first_page
    assert re.search(rf'<option value="{campaign.pk}" selected>', first_page)
    assert "Creation method" in first_page
    response = client.post(
        reverse("characters:create"),
        {
            "name": "Vell",
            "concept": "Grim smuggler",
            "creation_method": "list",
            "campaign": campaign.pk,
        },
    )
    vell = Character.objects.get(name="Vell")
    assert response.url == reverse("characters:wizard", args=[vell.pk])
    assert (vell.player, vell.campaign, vell.creation_method) == (charlie, campaign, "list")


def test_a_player_without_a_character_is_pointed_to_the_wizard(client, campaign, gm, charlie):
    services.invitation_accept(token=invite(campaign, gm).token, user=charlie)
    client.force_login(charlie)
    page = client.get(reverse("campaign_detail", args=[campaign.pk])).content.decode()
    assert f'href="{reverse("characters:create")}?campaign={campaign.pk}"' in page
    rook = character_services.character_create(player=charlie, name="Rook", campaign=campaign)
    page = client.get(reverse("campaign_detail", args=[campaign.pk])).content.decode()
    assert "You have no character here yet" not in page
    assert rook.name in page


def test_a_player_joins_with_one_of_their_characters(campaign, gm, charlie):
    rook = character_services.character_create(player=charlie, name="Rook")
    services.invitation_accept(token=invite(campaign, gm).token, user=charlie, character=rook)
    rook.refresh_from_db()
    assert rook.campaign == campaign


def test_a_spectator_joins_without_a_character(client, campaign, gm, charlie):
    invitation = invite(campaign, gm, Role.SPECTATOR)
    client.force_login(charlie)
    response = client.post(reverse("invitation_accept", args=[invitation.token]), {})
    assert response.url == reverse("campaign_detail", args=[campaign.pk])
    assert Membership.objects.get(user=charlie).role == Role.SPECTATOR
    assert not Character.objects.filter(player=charlie).exists()


def test_a_spectator_cannot_bring_a_character(campaign, gm, charlie):
    rook = character_services.character_create(player=charlie, name="Rook")
    with pytest.raises(ValidationError, match="A spectator joins without a character"):
        services.invitation_accept(
            token=invite(campaign, gm, Role.SPECTATOR).token, user=charlie, character=rook
        )
    assert not Membership.objects.filter(campaign=campaign, user=charlie).exists()


def test_a_link_for_several_people_works_until_it_is_used_up(campaign, gm, make_user):
    invitation = invite(campaign, gm, Role.SPECTATOR, max_uses=2)
    for name in ("ann", "ben"):
        services.invitation_accept(token=invitation.token, user=make_user(name))
    with pytest.raises(ValidationError, match="already been used"):
        services.invitation_accept(token=invitation.token, user=make_user("cid"))


def expire(invitation):
    Invitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )


def revoke(invitation):
    services.invitation_revoke(invitation=invitation, actor=invitation.campaign.gm)


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (expire, "This invitation has expired"),
        (revoke, "This invitation was revoked"),
    ],
)
def test_a_spoilt_invitation_says_why_and_changes_nothing(
    client, campaign, gm, charlie, spoil, message
):
    invitation = invite(campaign, gm)
    spoil(invitation)
    client.force_login(charlie)
    url = reverse("invitation_accept", args=[invitation.token])
    assert message in client.get(url).content.decode()
    response = client.post(url, {})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Membership.objects.filter(user=charlie).exists()
    assert not Character.objects.filter(player=charlie).exists()


def test_an_invalid_token_says_so(client, charlie):
    client.force_login(charlie)
    response = client.get(reverse("invitation_accept", args=["not-a-token"]))
    assert response.status_code == 404
    assert "This invitation link is not valid" in response.content.decode()


def test_a_double_join_is_refused_clearly(client, campaign, gm, alice):
    invitation = invite(campaign, gm)
    client.force_login(alice)
    response = client.post(reverse("invitation_accept", args=[invitation.token]), {})
    assert "You are already a player in The Sunken Crown" in response.content.decode()
    assert Membership.objects.filter(user=alice).count() == 1
    invitation.refresh_from_db()
    assert invitation.uses == 0


def test_the_gm_needs_no_invitation(campaign, gm):
    with pytest.raises(ValidationError, match="You are the GM"):
        services.invitation_accept(token=invite(campaign, gm).token, user=gm)


@pytest.mark.parametrize(
    ("choice", "message"),
    [
        ({"character": "elsewhere"}, "already plays in Elsewhere"),
        ({"character": "alices"}, "a character of your own"),
    ],
)
def test_a_player_must_bring_one_character_of_their_own(
    campaign, gm, alice, charlie, choice, message
):
    elsewhere = services.campaign_create(gm=charlie, name="Elsewhere")
    Membership.objects.create(campaign=elsewhere, user=charlie, role=Role.PLAYER)
    characters = {
        "mine": character_services.character_create(player=charlie, name="Mine"),
        "elsewhere": character_services.character_create(
            player=charlie, name="Busy", campaign=elsewhere
        ),
        "alices": character_services.character_create(player=alice, name="Not yours"),
    }
    Membership.objects.filter(campaign=elsewhere, user=charlie).delete()
    if "character" in choice:
        choice = {**choice, "character": characters[choice["character"]]}
    with pytest.raises(ValidationError, match=message):
        services.invitation_accept(token=invite(campaign, gm).token, user=charlie, **choice)
    assert not Membership.objects.filter(campaign=campaign, user=charlie).exists()


def test_the_join_page_offers_only_free_characters_of_ones_own(client, campaign, gm, charlie):
    character_services.character_create(player=charlie, name="Free Rook")
    client.force_login(charlie)
    page = client.get(reverse("invitation_accept", args=[invite(campaign, gm).token]))
    text = page.content.decode()
    assert "Free Rook" in text and "Tamsin" not in text


def test_only_the_gm_invites_and_revokes(campaign, alice, gm):
    with pytest.raises(PermissionDenied):
        invite(campaign, alice)
    invitation = invite(campaign, gm)
    with pytest.raises(PermissionDenied):
        services.invitation_revoke(invitation=invitation, actor=alice)


def test_invitations_last_one_to_thirty_days(campaign, gm):
    with pytest.raises(ValidationError, match="1 to 30 days"):
        invite(campaign, gm, days=31)
    assert not Invitation.objects.exists()


def test_the_gm_creates_a_link_on_the_members_page(client, campaign, gm):
    client.force_login(gm)
    response = client.post(
        reverse("invitation_create", args=[campaign.pk]),
        {"role": "spectator", "days": 3, "max_uses": ""},
        follow=True,
    )
    invitation = Invitation.objects.get()
    assert (invitation.role, invitation.max_uses) == ("spectator", None)
    assert f"/join/{invitation.token}/" in response.content.decode()


# --------------------------------------------------------------------- removing and leaving


def test_the_gm_removes_a_member_who_loses_access_at_once(client, campaign, gm, alice, tamsin):
    membership = Membership.objects.get(user=alice)
    client.force_login(gm)
    client.post(reverse("membership_remove", args=[campaign.pk, membership.pk]))
    assert not Membership.objects.filter(user=alice).exists()
    tamsin.refresh_from_db()
    assert tamsin.campaign is None and tamsin.player == alice
    client.force_login(alice)
    assert client.get(reverse("campaign_detail", args=[campaign.pk])).status_code == 404
    assert client.get(reverse("archive_timeline", args=[campaign.pk])).status_code == 404


def test_a_member_leaves(client, campaign, sam):
    client.force_login(sam)
    response = client.post(reverse("campaign_leave", args=[campaign.pk]))
    assert response.url == reverse("home")
    assert not Membership.objects.filter(user=sam).exists()


def test_the_gm_cannot_leave_without_handing_over(client, campaign, gm):
    client.force_login(gm)
    response = client.post(reverse("campaign_leave", args=[campaign.pk]), follow=True)
    assert "hand the campaign over to another member before you leave" in (
        response.content.decode()
    )
    campaign.refresh_from_db()
    assert campaign.gm == gm


def test_the_gm_hands_over_and_stays_as_a_player(client, campaign, gm, sam):
    client.force_login(gm)
    client.post(reverse("campaign_hand_over", args=[campaign.pk]), {"new_gm": sam.pk})
    campaign.refresh_from_db()
    assert campaign.gm == sam
    assert Membership.objects.get(campaign=campaign, user=gm).role == Role.PLAYER
    assert not Membership.objects.filter(campaign=campaign, user=sam).exists()
    # ... and can leave now.
    client.post(reverse("campaign_leave", args=[campaign.pk]))
    assert not Membership.objects.filter(campaign=campaign, user=gm).exists()


def test_the_campaign_goes_only_to_a_member(campaign, gm, charlie):
    with pytest.raises(ValidationError, match="must already be a member"):
        services.campaign_gm_hand_over(campaign=campaign, actor=gm, new_gm=charlie)
    campaign.refresh_from_db()
    assert campaign.gm == gm
