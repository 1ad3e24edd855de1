"""Community pages (§8): the notation table, chart and interval controls; setup and
the questionnaire; drawing on resources by hand. Thin views: check access, read a form,
call a service, redirect with a message (or render a fragment for htmx)."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns.access import get_campaign_for_gm, get_campaign_for_user
from campaigns.models import Campaign, Role

from . import forms, selectors, services
from .models import Community, Question, RequiredResourceUse, ResourceDraw


def _community_for_user(user, campaign_id: int) -> tuple[Campaign, str, Community]:
    """The campaign's community and the user's role; 404 for outsiders or none."""
    campaign, role = get_campaign_for_user(user, campaign_id)
    community = Community.objects.filter(campaign=campaign).first()
    if community is None:
        raise Http404("This campaign tracks no community")
    community.campaign = campaign
    return campaign, role, community


def _community_for_gm(user, campaign_id: int) -> Community:
    """The community, for the campaign's GM: other members get 403, outsiders 404."""
    campaign = get_campaign_for_gm(user, campaign_id)
    community = Community.objects.filter(campaign=campaign).first()
    if community is None:
        raise Http404("This campaign tracks no community")
    community.campaign = campaign
    return community


def _resources(community: Community) -> list:
    return list(community.resources.all())


def _form_errors(request: HttpRequest, form: Form) -> None:
    for field, errors in form.errors.items():
        label = form.fields[field].label or field.replace("_", " ") if field in form.fields else ""
        for error in errors:
            messages.error(request, f"{label}: {error}" if label else error)


def _attempt(request: HttpRequest, form: Form | None, act: Callable[[], str | None]) -> None:
    """Run a service when the form is valid; its message (or the error) for the page."""
    if form is not None and not form.is_valid():
        _form_errors(request, form)
        return
    try:
        done = act()
    except ValidationError as exc:
        for message in exc.messages:
            messages.error(request, message)
        return
    if done:
        messages.success(request, done)


# --------------------------------------------------------------------- the page


@require_GET
def community_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The community page: every member reads it; the GM also runs the interval."""
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    community = Community.objects.filter(campaign=campaign).first()
    if community is None:
        form = forms.CommunityForm() if role == Role.GM else None
        context = {"campaign": campaign, "role": role, "form": form}
        return render(request, "community/none.html", context)
    community.campaign = campaign
    try:
        interval = int(request.GET.get("interval", "")) or None
    except ValueError:
        interval = None
    context = selectors.page_context(community, role=role, user=request.user, interval=interval)
    context.update(campaign=campaign, oob=False)
    if role == Role.GM:
        resources = context["resources"]
        context["plot_form"] = forms.PlotEventForm(resources=resources, campaign_id=campaign.pk)
        context["end_form"] = forms.IntervalEndForm(initial={"interval": community.interval_number})
    return render(request, "community/page.html", context)


@require_GET
def notation(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The notation table alone: what a page fetches after its socket reconnects."""
    campaign, role, community = _community_for_user(request.user, campaign_id)
    context = {**selectors.notation_context(community), "oob": False}
    return render(request, "community/page.html#notation", context)


@require_http_methods(["GET", "POST"])
def community_create(request: HttpRequest, campaign_id: int) -> HttpResponse:
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
    )


@require_http_methods(["GET", "POST"])
def community_edit(request: HttpRequest, campaign_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
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
    )


# --------------------------------------------------------------------- the interval cycle


@require_POST
def background_events(request: HttpRequest, campaign_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)

    def act() -> str:
        services.community_background_events(community=community, actor=request.user)
        return "Background events rolled."

    _attempt(request, None, act)
    return redirect("community:page", campaign_id)


@require_POST
def crisis_tests(request: HttpRequest, campaign_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)

    def act() -> str:
        step = services.community_crisis_tests(community=community, actor=request.user)
        started = sum(1 for change in step.changes.all() if change.column == "crisis")
        return f"Crisis tests done: {started} crisis." if started else "Crisis tests: no crisis."

    _attempt(request, None, act)
    return redirect("community:page", campaign_id)


@require_POST
def interval_end(request: HttpRequest, campaign_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
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

    _attempt(request, form, act)
    return redirect("community:page", campaign_id)


@require_POST
def plot_event(request: HttpRequest, campaign_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
    form = forms.PlotEventForm(
        request.POST, resources=_resources(community), campaign_id=campaign_id
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

    _attempt(request, form, act)
    return redirect("community:page", campaign_id)


@require_POST
def cement(request: HttpRequest, campaign_id: int, resource_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
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

    _attempt(request, form, act)
    return redirect("community:page", campaign_id)


@require_POST
def crisis_narrate(request: HttpRequest, campaign_id: int, resource_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
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

    _attempt(request, form, act)
    return redirect("community:page", campaign_id)


# --------------------------------------------------------------------- setup


def _setup_context(community: Community) -> dict:
    resources = _resources(community)
    return {
        "campaign": community.campaign,
        "community": community,
        "resources": resources,
        "in_setup": not services.has_play_history(community),
        "found_form": forms.FoundForm(),
        "spread_form": forms.SpreadForm(resources=resources) if len(resources) == 5 else None,
        "required_uses": list(community.required_uses.select_related("resource")),
        "required_form": forms.RequiredUseForm(resources=resources),
    }


@require_GET
def setup(request: HttpRequest, campaign_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
    return render(request, "community/setup.html", _setup_context(community))


@require_POST
def found(request: HttpRequest, campaign_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
    form = forms.FoundForm(request.POST)

    def act() -> str:
        services.community_found(
            community=community, actor=request.user, ranked_names=form.ranked_names()
        )
        return f"{community.name} has its five resources."

    _attempt(request, form, act)
    return redirect("community:setup", campaign_id)


@require_POST
def resource_add(request: HttpRequest, campaign_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
    form = forms.ResourceForm(request.POST)

    def act() -> str:
        resource = services.resource_add(
            community=community,
            actor=request.user,
            name=form.cleaned_data["name"],
            rating=form.cleaned_data["rating"],
        )
        return f"{resource.name} added at {resource.rating_text}."

    _attempt(request, form, act)
    return redirect("community:setup", campaign_id)


@require_POST
def resource_edit(request: HttpRequest, campaign_id: int, resource_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
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

    _attempt(request, form, act)
    return redirect("community:setup", campaign_id)


@require_POST
def resource_remove(request: HttpRequest, campaign_id: int, resource_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
    resource = get_object_or_404(community.resources, pk=resource_id)

    def act() -> str:
        services.resource_remove(resource=resource, actor=request.user)
        return f"{resource.name} removed."

    _attempt(request, None, act)
    return redirect("community:setup", campaign_id)


@require_POST
def spread(request: HttpRequest, campaign_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
    form = forms.SpreadForm(request.POST, resources=_resources(community))

    def act() -> str:
        services.community_spread_assign(
            community=community, actor=request.user, ranked=form.ranked()
        )
        return "Ratings assigned."

    _attempt(request, form, act)
    return redirect("community:setup", campaign_id)


@require_POST
def required_add(request: HttpRequest, campaign_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
    form = forms.RequiredUseForm(request.POST, resources=_resources(community))

    def act() -> str:
        use = services.required_use_add(
            community=community,
            actor=request.user,
            resource=form.cleaned_data["resource"],
            action=form.cleaned_data["action"],
        )
        return f"{use.action} now requires {use.resource.name}."

    _attempt(request, form, act)
    return redirect("community:setup", campaign_id)


@require_POST
def required_remove(request: HttpRequest, campaign_id: int, use_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
    use = get_object_or_404(RequiredResourceUse, pk=use_id, community=community)

    def act() -> str:
        services.required_use_remove(required_use=use, actor=request.user)
        return f"{use.action} no longer requires a resource."

    _attempt(request, None, act)
    return redirect("community:setup", campaign_id)


# --------------------------------------------------------------------- the questionnaire


@require_GET
def questionnaire(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, role, community = _community_for_user(request.user, campaign_id)
    context = {
        "campaign": campaign,
        "community": community,
        "role": role,
        "in_setup": not services.has_play_history(community),
        **selectors.questionnaire_context(community, request.user, role),
    }
    if role == Role.GM:
        context["question_form"] = forms.QuestionForm(resources=_resources(community))
    return render(request, "community/questionnaire.html", context)


@require_POST
def question_add(request: HttpRequest, campaign_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
    form = forms.QuestionForm(request.POST, resources=_resources(community))

    def act() -> str:
        services.question_add(
            community=community,
            actor=request.user,
            text=form.cleaned_data["text"],
            choices=form.choices(),
        )
        return "Question added."

    _attempt(request, form, act)
    return redirect("community:questionnaire", campaign_id)


@require_POST
def question_remove(request: HttpRequest, campaign_id: int, question_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
    question = get_object_or_404(Question, pk=question_id, community=community)

    def act() -> str:
        services.question_remove(question=question, actor=request.user)
        return "Question removed."

    _attempt(request, None, act)
    return redirect("community:questionnaire", campaign_id)


@require_POST
def answer(request: HttpRequest, campaign_id: int, question_id: int) -> HttpResponse:
    campaign, role, community = _community_for_user(request.user, campaign_id)
    if role not in (Role.GM, Role.PLAYER):
        raise PermissionDenied("Only the players answer the questionnaire.")
    question = get_object_or_404(Question, pk=question_id, community=community)
    choice = question.choices.filter(pk=request.POST.get("choice") or 0).first()

    def act() -> str:
        if choice is None:
            raise ValidationError("Choose one of the answers.")
        services.questionnaire_answer(question=question, actor=request.user, choice=choice)
        return "Answer saved."

    _attempt(request, None, act)
    return redirect("community:questionnaire", campaign_id)


@require_POST
def questionnaire_assign(request: HttpRequest, campaign_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)

    def act() -> str:
        services.community_spread_from_questionnaire(community=community, actor=request.user)
        return "Ratings assigned from the questionnaire."

    _attempt(request, None, act)
    return redirect("community:page", campaign_id)


# --------------------------------------------------------------------- drawing by hand


RESOURCE_FORMS = {
    "penalty_form": forms.PenaltyForm,
    "bolster_form": forms.BolsterForm,
    "concede_form": forms.ConcedeForm,
}


def _start_form(community: Community, data=None) -> forms.DrawStartForm:
    return forms.DrawStartForm(
        data,
        resources=_resources(community),
        abilities=selectors.draw_abilities(community),
        required_uses=list(community.required_uses.select_related("resource")),
    )


def _resource_form(community: Community, name: str, data=None) -> Form:
    return RESOURCE_FORMS[name](
        data, resources=_resources(community), campaign_id=community.campaign_id
    )


@require_GET
def draws(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The GM's page to draw on resources, penalise, bolster and concede by hand, so the
    flows work without the live table."""
    community = _community_for_gm(request.user, campaign_id)
    context = {
        "campaign": community.campaign,
        "community": community,
        **selectors.draws_context(community),
        "start_form": _start_form(community),
        "settle_form": forms.SettleForm(campaign_id=community.campaign_id),
        **{name: _resource_form(community, name) for name in RESOURCE_FORMS},
    }
    return render(request, "community/draws.html", context)


@require_POST
def draw_start(request: HttpRequest, campaign_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
    form = _start_form(community, request.POST)

    def act() -> str:
        data = form.cleaned_data
        draw = services.community_draw_start(
            community=community,
            actor=request.user,
            resource=data["resource"],
            character=data["ability"].character,
            ability=data["ability"],
            purpose=data["purpose"],
            resistance_level=data["resistance_level"],
            modifier=data["modifier"] or 0,
            used_as=data["used_as"],
            required_action=data["required_action"],
        )
        rolls = f"rolled {draw.lobbying['pc_roll']} against {draw.lobbying['opponent_roll']}"
        verdict = "approved" if draw.status == "approved" else "refused"
        return f"Lobbying: {rolls}, {draw.lobbying_text}: the draw is {verdict}."

    _attempt(request, form, act)
    return redirect("community:draws", campaign_id)


@require_POST
def draw_settle(request: HttpRequest, campaign_id: int, draw_id: int) -> HttpResponse:
    community = _community_for_gm(request.user, campaign_id)
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

    _attempt(request, form, act)
    return redirect("community:draws", campaign_id)


def _resource_action(
    request: HttpRequest, campaign_id: int, form_name: str, service, done: str
) -> HttpResponse:
    """A penalty, bolstering or withdrawal by hand: the form's fields are the service's
    arguments (the contest number becomes its id)."""
    community = _community_for_gm(request.user, campaign_id)
    form = _resource_form(community, form_name, request.POST)

    def act() -> str:
        data = dict(form.cleaned_data)
        data["contest_id"] = data.pop("contest")
        service(community=community, actor=request.user, **data)
        return done.format(resource=data["resource"].name)

    _attempt(request, form, act)
    return redirect("community:draws", campaign_id)


@require_POST
def penalty(request: HttpRequest, campaign_id: int) -> HttpResponse:
    return _resource_action(
        request,
        campaign_id,
        "penalty_form",
        services.community_penalty_from_defeat,
        "{resource} penalised.",
    )


@require_POST
def bolster(request: HttpRequest, campaign_id: int) -> HttpResponse:
    return _resource_action(
        request, campaign_id, "bolster_form", services.community_bolster, "{resource} bolstered."
    )


@require_POST
def concede(request: HttpRequest, campaign_id: int) -> HttpResponse:
    return _resource_action(
        request,
        campaign_id,
        "concede_form",
        services.community_concede,
        "{resource} depleted by the withdrawal.",
    )
