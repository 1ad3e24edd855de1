"""Who may see or do what in a campaign (every view and consumer asks here)."""

from __future__ import annotations

from django.db.models import Q, QuerySet
from django.http import Http404

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


def campaigns_for_user(user) -> QuerySet[Campaign]:
    """Campaigns the user runs or belongs to, by name."""
    return (
        Campaign.objects.filter(Q(gm=user) | Q(memberships__user=user))
        .select_related("gm")
        .distinct()
        .order_by("name", "id")
    )
