"""Setting the community up (§8.1), GM only: its resources, the §8.1.3 spread and
the actions that require a resource."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from questworlds_site.requests import AuthenticatedRequest

from .. import forms, selectors, services
from ..models import Community, RequiredResourceUse
from .base import attempt, community_for_gm, resources_of


def _setup_context(community: Community) -> dict:
    resources = resources_of(community)
    return {
        "campaign": community.campaign,
        "community": community,
        "resources": resources,
        "in_setup": not selectors.has_play_history(community),
        "found_form": forms.FoundForm(),
        "spread_form": forms.SpreadForm(resources=resources) if len(resources) == 5 else None,
        "required_uses": list(community.required_uses.select_related("resource")),
        "required_form": forms.RequiredUseForm(resources=resources),
    }


@require_GET
def setup(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    return _setup_page(request, community)


def _setup_page(
    request: AuthenticatedRequest, community: Community, status: int = 200
) -> HttpResponse:
    """The setup page; with status 400, after a refused action (its messages)."""
    return render(request, "community/setup.html", _setup_context(community), status=status)


@require_POST
def found(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    form = forms.FoundForm(request.POST)

    def act() -> str:
        services.community_found(
            community=community, actor=request.user, ranked_names=form.ranked_names()
        )
        return f"{community.name} has its five resources."

    if attempt(request, form, act):
        return redirect("community:setup", campaign_id)
    return _setup_page(request, community, status=400)


@require_POST
def resource_add(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    form = forms.ResourceForm(request.POST)

    def act() -> str:
        resource = services.resource_add(
            community=community,
            actor=request.user,
            name=form.cleaned_data["name"],
            rating=form.cleaned_data["rating"],
        )
        return f"{resource.name} added at {resource.rating_text}."

    if attempt(request, form, act):
        return redirect("community:setup", campaign_id)
    return _setup_page(request, community, status=400)


@require_POST
def resource_edit(
    request: AuthenticatedRequest, campaign_id: int, resource_id: int
) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    resource = get_object_or_404(community.resources, pk=resource_id)
    form = forms.ResourceForm(request.POST)

    def act() -> str:
        updated = services.resource_update(
            resource=resource,
            actor=request.user,
            name=form.cleaned_data["name"],
            rating=form.cleaned_data["rating"] or None,
        )
        return f"Saved {updated}."

    if attempt(request, form, act):
        return redirect("community:setup", campaign_id)
    return _setup_page(request, community, status=400)


@require_POST
def resource_remove(
    request: AuthenticatedRequest, campaign_id: int, resource_id: int
) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    resource = get_object_or_404(community.resources, pk=resource_id)

    def act() -> str:
        services.resource_remove(resource=resource, actor=request.user)
        return f"{resource.name} removed."

    if attempt(request, None, act):
        return redirect("community:setup", campaign_id)
    return _setup_page(request, community, status=400)


@require_POST
def spread(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    form = forms.SpreadForm(request.POST, resources=resources_of(community))

    def act() -> str:
        services.community_spread_assign(
            community=community, actor=request.user, ranked=form.ranked()
        )
        return "Ratings assigned."

    if attempt(request, form, act):
        return redirect("community:setup", campaign_id)
    return _setup_page(request, community, status=400)


@require_POST
def required_add(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    form = forms.RequiredUseForm(request.POST, resources=resources_of(community))

    def act() -> str:
        use = services.required_use_add(
            community=community,
            actor=request.user,
            resource=form.cleaned_data["resource"],
            action=form.cleaned_data["action"],
        )
        return f"{use.action} now requires {use.resource.name}."

    if attempt(request, form, act):
        return redirect("community:setup", campaign_id)
    return _setup_page(request, community, status=400)


@require_POST
def required_remove(request: AuthenticatedRequest, campaign_id: int, use_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    use = get_object_or_404(RequiredResourceUse, pk=use_id, community=community)

    def act() -> str:
        services.required_use_remove(required_use=use, actor=request.user)
        return f"{use.action} no longer requires a resource."

    if attempt(request, None, act):
        return redirect("community:setup", campaign_id)
    return _setup_page(request, community, status=400)
