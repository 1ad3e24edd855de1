"""The community page (§8.1.4): the notation table, the chart and, for the GM, the
interval cycle (§8.2.4-§8.4); creating and editing the community."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns.access import get_campaign_for_gm, get_campaign_for_user
from campaigns.models import Role
from questworlds_site import inputs
from questworlds_site.requests import AuthenticatedRequest

from .. import forms, selectors, services
from ..models import Community
from .base import attempt, community_for_gm, community_for_user, resources_of


@require_GET
def community_page(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """The community page: every member reads it; the GM also runs the interval."""
    return page_response(request, campaign_id)


def page_response(
    request: AuthenticatedRequest, campaign_id: int, status: int = 200
) -> HttpResponse:
    """The community page; with status 400, after a refused action (its messages)."""
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    community = Community.objects.filter(campaign=campaign).first()
    if community is None:
        form = forms.CommunityForm() if role == Role.GM else None
        context = {"campaign": campaign, "role": role, "form": form}
        return render(request, "community/none.html", context, status=status)
    community.campaign = campaign
    interval = inputs.whole(request.GET.get("interval"), minimum=1)
    context = selectors.page_context(community, role=role, user=request.user, interval=interval)
    context.update(campaign=campaign, oob=False)
    if role == Role.GM:
        resources = context["resources"]
        context["plot_form"] = forms.PlotEventForm(resources=resources, campaign_id=campaign.pk)
        context["end_form"] = forms.IntervalEndForm(initial={"interval": community.interval_number})
    return render(request, "community/page.html", context, status=status)


@require_GET
def notation(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """The notation table alone: what a page fetches after its socket reconnects."""
    campaign, role, community = community_for_user(request.user, campaign_id)
    context = {**selectors.notation_context(community), "oob": False}
    return render(request, "community/page.html#notation", context)


@require_http_methods(["GET", "POST"])
def community_create(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    form = forms.CommunityForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.community_create(campaign=campaign, actor=request.user, **form.cleaned_data)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, "The community is ready: give it its resources.")
            return redirect("community:setup", campaign.pk)
    return render(
        request,
        "campaigns/form.html",
        {"form": form, "campaign": campaign, "title": "Track a community", "submit": "Create"},
        status=400 if form.errors else 200,
    )


@require_http_methods(["GET", "POST"])
def community_edit(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    form = forms.CommunityForm(request.POST or None, instance=community)
    if request.method == "POST" and form.is_valid():
        try:
            services.community_update(community=community, actor=request.user, **form.cleaned_data)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, "Saved.")
            return redirect("community:page", campaign_id)
    return render(
        request,
        "campaigns/form.html",
        {
            "form": form,
            "campaign": community.campaign,
            "title": f"Edit {community.name}",
            "submit": "Save",
        },
        status=400 if form.errors else 200,
    )


# --------------------------------------------------------------------- the interval cycle


@require_POST
def background_events(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)

    def act() -> str:
        services.community_background_events(community=community, actor=request.user)
        return "Background events rolled."

    if attempt(request, None, act):
        return redirect("community:page", campaign_id)
    return page_response(request, campaign_id, status=400)


@require_POST
def crisis_tests(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)

    def act() -> str:
        step = services.community_crisis_tests(community=community, actor=request.user)
        started = sum(1 for change in step.changes.all() if change.column == "crisis")
        return f"Crisis tests done: {started} crisis." if started else "Crisis tests: no crisis."

    if attempt(request, None, act):
        return redirect("community:page", campaign_id)
    return page_response(request, campaign_id, status=400)


@require_POST
def interval_end(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    form = forms.IntervalEndForm(request.POST)

    def act() -> str:
        number = form.cleaned_data["interval"]
        step = services.community_interval_end(
            community=community, actor=request.user, interval=number
        )
        name = community.interval_name.capitalize()
        if step is None:
            return f"{name} {number} had already ended."
        return f"{name} {number} ended; roll the new background events."

    if attempt(request, form, act):
        return redirect("community:page", campaign_id)
    return page_response(request, campaign_id, status=400)


@require_POST
def plot_event(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    form = forms.PlotEventForm(
        request.POST, resources=resources_of(community), campaign_id=campaign_id
    )

    def act() -> str:
        data = form.cleaned_data
        services.community_plot_event(
            community=community,
            actor=request.user,
            resource=data["resource"],
            change=data["change"],
            reason=data["reason"],
            contest_id=data["contest"],
        )
        return f"Plot event: {data['resource'].name} {data['change']:+d}."

    if attempt(request, form, act):
        return redirect("community:page", campaign_id)
    return page_response(request, campaign_id, status=400)


@require_POST
def cement(request: AuthenticatedRequest, campaign_id: int, resource_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    resource = get_object_or_404(community.resources, pk=resource_id)
    form = forms.ReasonForm(request.POST, campaign_id=campaign_id)

    def act() -> str:
        services.community_cement(
            community=community,
            actor=request.user,
            resource=resource,
            reason=form.cleaned_data["reason"],
            contest_id=form.cleaned_data["contest"],
        )
        return f"{resource.name}'s background bonus is cemented."

    if attempt(request, form, act):
        return redirect("community:page", campaign_id)
    return page_response(request, campaign_id, status=400)


@require_POST
def crisis_narrate(
    request: AuthenticatedRequest, campaign_id: int, resource_id: int
) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    resource = get_object_or_404(community.resources, pk=resource_id)
    form = forms.CrisisNoteForm(request.POST)

    def act() -> str:
        services.community_crisis_narrate(
            community=community,
            actor=request.user,
            resource=resource,
            text=form.cleaned_data["text"],
        )
        return "The crisis is narrated."

    if attempt(request, form, act):
        return redirect("community:page", campaign_id)
    return page_response(request, campaign_id, status=400)
