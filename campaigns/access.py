"""Who may see or do what in a campaign (every view and consumer asks here)."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.http import Http404

from questworlds_site.sql import PreparedRead

from .models import Campaign, Membership, Role


def campaign_role(campaign: Campaign, user) -> str | None:
    """The user's role in the campaign ("gm", "player", "spectator"), or None."""
    if not getattr(user, "is_authenticated", False):
        return None
    if campaign.gm_id == user.pk:
        return Role.GM
    return (
        Membership.objects.filter(campaign=campaign, user=user)
        .values_list("role", flat=True)
        .first()
    )


def get_campaign_for_user(user, campaign_id: int) -> tuple[Campaign, str]:
    """The campaign and the user's role in it; 404 for outsiders, so they learn nothing."""
    campaign = Campaign.objects.select_related("gm").filter(pk=campaign_id).first()
    role = campaign_role(campaign, user) if campaign else None
    if campaign is None or role is None:
        raise Http404("No such campaign")
    return campaign, role


# Read for every table action refused and every sheet reload: built once
# (questworlds_site/sql.py).
_ROLE = PreparedRead(
    lambda campaign, user: (
        Campaign.objects.filter(pk=campaign)
        .annotate(
            member_role=Subquery(
                Membership.objects.filter(campaign=OuterRef("pk"), user_id=user).values("role")[:1]
            )
        )
        .values_list("gm_id", "member_role")[:1]
    )
)


def role_in_campaign(user, campaign_id: int) -> str:
    """The user's role in the campaign, read in one query without loading the campaign,
    for a view that needs only who may act (the table's actions, issue 16); 404 for
    outsiders, like `get_campaign_for_user`."""
    if not getattr(user, "is_authenticated", False):
        raise Http404("No such campaign")
    rows = _ROLE.rows(campaign_id, user.pk)
    if not rows:
        raise Http404("No such campaign")
    gm_id, member_role = rows[0]
    role = Role.GM if gm_id == user.pk else member_role
    if role is None:
        raise Http404("No such campaign")
    return role


def campaigns_for_user(user) -> QuerySet[Campaign]:
    """Campaigns the user runs or belongs to, by name."""
    return (
        Campaign.objects.filter(Q(gm=user) | Q(memberships__user=user))
        .select_related("gm")
        .distinct()
        .order_by("name", "id")
    )


def get_campaign_for_gm(user, campaign_id: int) -> Campaign:
    """The campaign, for its GM only: outsiders get 404, other members 403."""
    campaign, role = get_campaign_for_user(user, campaign_id)
    if role != Role.GM:
        raise PermissionDenied("Only the campaign's GM may do that.")
    return campaign


def check_can_import_campaigns(user) -> None:
    """Importing creates accounts and memberships, so it is for staff only: the people
    who could run `manage.py import_campaign` on the server."""
    if not getattr(user, "is_staff", False):
        raise PermissionDenied("Only staff may import campaigns.")


@dataclass(frozen=True)
class ArchiveViewer:
    """Who is reading a campaign's archive: a member (with their role and `user_id`) or
    anyone holding the public link (`role` None), who sees neither GM-only notes nor
    hidden rolls nor whispers to the GM."""

    campaign: Campaign
    role: str | None
    public_token: str | None = None
    user_id: int | None = None

    @property
    def is_gm(self) -> bool:
        return self.role == Role.GM

    @property
    def is_public(self) -> bool:
        return self.public_token is not None


def get_archive_for_user(user, campaign_id: int) -> ArchiveViewer:
    campaign, role = get_campaign_for_user(user, campaign_id)
    return ArchiveViewer(campaign, role, user_id=user.pk)


def get_archive_for_public_link(token: str) -> ArchiveViewer:
    """The archive behind a public link; 404 once the GM has revoked it."""
    campaign = Campaign.objects.select_related("gm").filter(public_token=token).first()
    if campaign is None or not token:
        raise Http404("No such archive")
    return ArchiveViewer(campaign, None, token)
