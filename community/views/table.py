"""Lobbying for a community resource at the live table (§8.2): the community's panel on
the table page, and the lobbying posted from it (htmx). The draw's result reaches every
page at the table through the community's broadcast (`community.live`); the GM then
frames the contest with the approved draw, and confirming its consequences settles it."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST

from campaigns.access import get_campaign_for_user
from campaigns.models import Role
from questworlds_site import throttle
from questworlds_site.requests import AuthenticatedRequest

from .. import forms, selectors
from ..models import Community
from .base import resources_of, start_draw

PANEL = "community/table.html#panel"


def _lobby_form(community: Community, user, role: str, data=None) -> forms.TableLobbyForm:
    gm = role == Role.GM
    return forms.TableLobbyForm(
        data,
        gm=gm,
        resources=resources_of(community),
        abilities=selectors.lobbying_abilities(community, user, gm=gm),
        required_uses=list(community.required_uses.select_related("resource")),
    )


def _said(text: str, kind: str = "") -> str:
    """The lobbying form's answer line (`#lobby-said`)."""
    return render_to_string("community/table.html#said", {"said": text, "said_kind": kind})


@require_GET
def table_panel(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """The community's panel on the table page, for this member: the interval's draws,
    and the lobbying form for the GM and for a player with a character to lobby with.
    Empty when the campaign tracks no community (outsiders get 404)."""
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    community = Community.objects.filter(campaign=campaign).first()
    if community is None:
        return HttpResponse("")
    form = None if role == Role.SPECTATOR else _lobby_form(community, request.user, role)
    context = {
        **selectors.table_draws_context(community),
        "campaign_id": campaign.pk,
        "open_session": campaign.open_session(),
        "form": form if form is not None and form.abilities and form.resources else None,
    }
    return render(request, PANEL, context)


@require_POST
def table_lobby(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """Lobby to draw on a resource from the table (§8.2): the GM for any character, a
    player for their own (the service checks again under the community's lock). The
    rolls are made at once; every page at the table sees the result through the
    community's broadcast, and the person who lobbied gets it in words here. Refused
    (spectators, the rate limit table actions share, bad input, no session): 400 with
    the reason, and nothing changes."""
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    community = Community.objects.filter(campaign=campaign).first()
    if community is None:
        return HttpResponse(_said(f"{campaign.name} tracks no community.", "error"), status=400)
    if role == Role.SPECTATOR:
        return HttpResponse(_said("Spectators watch: they cannot lobby.", "error"), status=400)
    refusal = throttle.table_action(request.user.pk)
    if refusal is not None:
        response = HttpResponse(_said(refusal.message, "error"), status=400)
        response["Retry-After"] = str(refusal.retry_after)
        return response
    community.campaign = campaign
    form = _lobby_form(community, request.user, role, request.POST)
    if not form.is_valid():
        problems = [
            f"{form.fields[name].label or name}: {error}" if name in form.fields else str(error)
            for name, errors in form.errors.items()
            for error in errors
        ]
        return HttpResponse(_said(" ".join(problems) + " Nothing was done.", "error"), status=400)
    data = form.cleaned_data
    try:
        draw = start_draw(community, request.user, data)
    except (ValidationError, PermissionDenied) as refused:
        text = " ".join(getattr(refused, "messages", None) or [str(refused)])
        return HttpResponse(_said(f"{text} Nothing was done.", "error"), status=400)
    verdict = "approved" if draw.status == "approved" else "refused"
    rolls = f"rolled {draw.lobbying['pc_roll']} against {draw.lobbying['opponent_roll']}"
    return HttpResponse(
        _said(f"Lobbying for {draw.resource.name}: {rolls}, {draw.lobbying_text}: {verdict}.")
    )
