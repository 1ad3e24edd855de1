"""What every community view shares: finding the community for its member or its GM,
and running a service from a form with its message (or its errors) for the page."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.forms import Form
from django.http import Http404

from campaigns.access import get_campaign_for_gm, get_campaign_for_user
from campaigns.models import Campaign
from questworlds_site.requests import AuthenticatedRequest

from .. import services
from ..models import Community, ResourceDraw


def community_for_user(user, campaign_id: int) -> tuple[Campaign, str, Community]:
    """The campaign's community and the user's role; 404 for outsiders or none."""
    campaign, role = get_campaign_for_user(user, campaign_id)
    community = Community.objects.filter(campaign=campaign).first()
    if community is None:
        raise Http404("This campaign tracks no community")
    community.campaign = campaign
    return campaign, role, community


def community_for_gm(user, campaign_id: int) -> Community:
    """The community, for the campaign's GM: other members get 403, outsiders 404."""
    campaign = get_campaign_for_gm(user, campaign_id)
    community = Community.objects.filter(campaign=campaign).first()
    if community is None:
        raise Http404("This campaign tracks no community")
    community.campaign = campaign
    return community


def resources_of(community: Community) -> list:
    return list(community.resources.all())


def form_errors(request: AuthenticatedRequest, form: Form) -> None:
    for field, errors in form.errors.items():
        label = form.fields[field].label or field.replace("_", " ") if field in form.fields else ""
        for error in errors:
            messages.error(request, f"{label}: {error}" if label else str(error))


def attempt(
    request: AuthenticatedRequest, form: Form | None, act: Callable[[], str | None]
) -> bool:
    """Run a service when the form is valid; its message (or the error) for the page.
    False when refused (the form's errors or the service's): the view then answers 400
    with the page, the errors among its messages, and nothing has changed."""
    if form is not None and not form.is_valid():
        form_errors(request, form)
        return False
    try:
        done = act()
    except ValidationError as exc:
        for message in exc.messages:
            messages.error(request, message)
        return False
    if done:
        messages.success(request, done)
    return True


def start_draw(community: Community, actor, data: dict) -> ResourceDraw:
    """Lobby for a draw (§8.2) from a lobbying form's cleaned data: the draws page's
    (the GM's) and the table's; a resistance or modifier the form does not ask for is
    the moderate resistance with no modifier."""
    return services.community_draw_start(
        community=community,
        actor=actor,
        resource=data["resource"],
        character=data["ability"].character,
        ability=data["ability"],
        purpose=data["purpose"],
        resistance_level=data.get("resistance_level") or "moderate",
        modifier=data.get("modifier") or 0,
        used_as=data["used_as"],
        required_action=data["required_action"],
    )
