"""Drawing on resources, penalties, bolstering and withdrawal by hand (§8.2-§8.2.3), GM
only, so the flows work without the live table."""

from __future__ import annotations

from django.forms import Form
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from questworlds_site.requests import AuthenticatedRequest

from .. import forms, selectors, services
from ..models import Community, ResourceDraw
from .base import attempt, community_for_gm, resources_of, start_draw

RESOURCE_FORMS = {
    "penalty_form": forms.PenaltyForm,
    "bolster_form": forms.BolsterForm,
    "concede_form": forms.ConcedeForm,
}


def _start_form(community: Community, data=None) -> forms.DrawStartForm:
    return forms.DrawStartForm(
        data,
        resources=resources_of(community),
        abilities=selectors.draw_abilities(community),
        required_uses=list(community.required_uses.select_related("resource")),
    )


def _resource_form(community: Community, name: str, data=None) -> Form:
    return RESOURCE_FORMS[name](
        data, resources=resources_of(community), campaign_id=community.campaign_id
    )


@require_GET
def draws(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """The GM's page to draw on resources, penalise, bolster and concede by hand, so the
    flows work without the live table."""
    community = community_for_gm(request.user, campaign_id)
    return _draws_page(request, community)


def _draws_page(
    request: AuthenticatedRequest, community: Community, status: int = 200
) -> HttpResponse:
    """The draws page; with status 400, after a refused action (its messages)."""
    context = {
        "campaign": community.campaign,
        "community": community,
        **selectors.draws_context(community),
        "start_form": _start_form(community),
        "settle_form": forms.SettleForm(campaign_id=community.campaign_id),
        **{name: _resource_form(community, name) for name in RESOURCE_FORMS},
    }
    return render(request, "community/draws.html", context, status=status)


@require_POST
def draw_start(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    form = _start_form(community, request.POST)

    def act() -> str:
        data = form.cleaned_data
        draw = start_draw(community, request.user, data)
        rolls = f"rolled {draw.lobbying['pc_roll']} against {draw.lobbying['opponent_roll']}"
        verdict = "approved" if draw.status == "approved" else "refused"
        return f"Lobbying: {rolls}, {draw.lobbying_text}: the draw is {verdict}."

    if attempt(request, form, act):
        return redirect("community:draws", campaign_id)
    return _draws_page(request, community, status=400)


@require_POST
def draw_settle(request: AuthenticatedRequest, campaign_id: int, draw_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    draw = get_object_or_404(ResourceDraw, pk=draw_id, community=community)
    form = forms.SettleForm(request.POST, campaign_id=campaign_id)

    def act() -> str:
        settled = services.community_draw_settle(
            draw=draw,
            actor=request.user,
            outcome_level=form.cleaned_data["outcome_level"],
            contest_id=form.cleaned_data["contest"],
        )
        text = f"{draw.resource.name} depleted {settled.draw.depletion:+d}."
        if settled.social_penalty:
            text += (
                f" {draw.character_name} takes {settled.social_penalty:+d} on social and "
                "community abilities with community members until the interval ends."
            )
        return text

    if attempt(request, form, act):
        return redirect("community:draws", campaign_id)
    return _draws_page(request, community, status=400)


def _resource_action(
    request: AuthenticatedRequest, campaign_id: int, form_name: str, service, done: str
) -> HttpResponse:
    """A penalty, bolstering or withdrawal by hand: the form's fields are the service's
    arguments (the contest number becomes its id)."""
    community = community_for_gm(request.user, campaign_id)
    form = _resource_form(community, form_name, request.POST)

    def act() -> str:
        data = dict(form.cleaned_data)
        data["contest_id"] = data.pop("contest")
        service(community=community, actor=request.user, **data)
        return done.format(resource=data["resource"].name)

    if attempt(request, form, act):
        return redirect("community:draws", campaign_id)
    return _draws_page(request, community, status=400)


@require_POST
def penalty(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    return _resource_action(
        request,
        campaign_id,
        "penalty_form",
        services.community_penalty_from_defeat,
        "{resource} penalised.",
    )


@require_POST
def bolster(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    return _resource_action(
        request, campaign_id, "bolster_form", services.community_bolster, "{resource} bolstered."
    )


@require_POST
def concede(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    return _resource_action(
        request,
        campaign_id,
        "concede_form",
        services.community_concede,
        "{resource} depleted by the withdrawal.",
    )
