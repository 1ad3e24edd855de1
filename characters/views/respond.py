"""Responding to the sheet's and the wizard's actions: each form by name, the page's
context, and `submit` (validate, call the service, respond), which every action uses.

htmx requests get the page's fragment back (`sheet.html#sheet`, `wizard.html#creation`);
other requests are redirected to the page, with messages. A refused action answers
400 with the page (or fragment) and its errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.forms import Form
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django_htmx.http import HttpResponseClientRedirect

from questworlds_site.inputs import max_length_of
from questworlds_site.requests import AuthenticatedRequest

from .. import forms, services
from ..access import CharacterAccess, get_character_for_user
from ..models import Character
from ..selectors import sheet_context
from ..services.base import sheet_changed

PAGES = {"sheet": "characters/sheet.html#sheet", "wizard": "characters/wizard.html#creation"}


def page_context(
    character: Character, access: CharacterAccess, failed: dict[str, Form] | None = None
) -> dict[str, Any]:
    context = sheet_context(character, access)
    context["forms"] = {**_blank_forms(character, access), **(failed or {})}
    context["healing_outcomes"] = forms.HEALING_OUTCOMES
    # The conditions' heal and clear reasons are written out by hand, one per condition.
    context["reason_limits"] = {
        "heal": max_length_of(forms.HealForm, "reason"),
        "wherewithal": max_length_of(forms.WherewithalForm, "reason"),
        "clear": max_length_of(forms.ClearForm, "reason"),
    }
    return context


# Each form the sheet or the wizard shows, by name. Names prefix the ids, so the many
# forms of one page never share an id (labels stay tied to their inputs).
FORMS: dict[str, Callable[[Character, Any], Form]] = {
    "campaign": lambda c, data: forms.CampaignForm(
        data, user=c.player, initial={"campaign": c.campaign_id}
    ),
    "retainer": lambda c, data: forms.RetainerForm(data),
    "spend": lambda c, data: forms.SpendForm(data),
    "ability": lambda c, data: forms.AbilityForm(data, character=c),
    "concept": lambda c, data: forms.ConceptForm(data, character=c, initial=_roles(c)),
    "sidekick": lambda c, data: forms.SidekickForm(data, initial=_sidekick(c)),
    "sidekick_lose": lambda c, data: forms.SidekickLoseForm(data),
    "sidekick_new": lambda c, data: forms.NewSidekickForm(data),
    "prose": lambda c, data: forms.ProseForm(data, initial={"prose": c.prose}),
    "advance": lambda c, data: forms.AdvanceForm(data),
    "catch_up": lambda c, data: forms.CatchUpForm(data, character=c),
    "classic_raise": lambda c, data: forms.OwnAbilityForm(data, character=c),
    "sidekick_raise": lambda c, data: forms.SidekickAbilityForm(data, character=c),
    "classic_new": lambda c, data: forms.ClassicNewAbilityForm(data, character=c),
    "award": lambda c, data: forms.AwardForm(data),
    "directed": lambda c, data: forms.DirectedForm(data, character=c),
    "directed_new": lambda c, data: forms.DirectedNewAbilityForm(data),
    "condition": lambda c, data: forms.ConditionForm(data, character=c),
    "heal": lambda c, data: forms.HealForm(data),
    "wherewithal": lambda c, data: forms.WherewithalForm(data),
    "clear": lambda c, data: forms.ClearForm(data),
    "wane": lambda c, data: forms.WaneForm(data),
    "action": lambda c, data: Form(data),
}


# The forms each page renders whole, errors included, when it offers them (the rest
# are buttons or one field, or not on the page: their errors go to the alert on top).
SHOWN_WITH_ERRORS = {
    "wizard": {"ability", "concept", "sidekick", "prose"},
    "sheet": {
        "ability",
        "sidekick_lose",
        "sidekick_new",
        "advance",
        "retainer",
        "award",
        "directed",
        "directed_new",
        "condition",
        "wane",
        "classic_new",
    },
}


def _shown_with_errors(page: str, character: Character, context: dict[str, Any]) -> set[str]:
    shown = SHOWN_WITH_ERRORS[page] & set(_offered(character, context["access"]))
    # The sheet offers a new sidekick, or the loss of the one there is.
    shown -= {"sidekick_lose"} if context.get("sidekick") is None else {"sidekick_new"}
    if character.rules_options.hero_point_economy != "advances":
        shown.discard("award")  # hero points come with the sessions (1e §6)
    if character.creation_method != "prose":
        shown.discard("prose")
    elif page == "wizard" and not character.prose:
        shown.discard("ability")  # abilities come from the paragraph, once written
    return shown


def named_form(name: str, character: Character, data: Any = None) -> Form:
    form = FORMS[name](character, data)
    form.auto_id = f"{name}-%s"
    return form


def _roles(character: Character) -> dict[str, int]:
    roles = character.abilities.exclude(creation_role="").only("id", "creation_role")
    return {a.creation_role: a.pk for a in roles}


def _sidekick(character: Character) -> dict[str, Any]:
    sidekick = character.followers.filter(kind="sidekick", lost_at__isnull=True).first()
    if sidekick is None:
        return {}
    initial: dict[str, Any] = {"name": sidekick.name, "description": sidekick.description}
    for i, ability in enumerate(sidekick.abilities.all(), 1):
        initial[f"ability_{i}"] = ability.name
        initial[f"rating_{i}"] = ability.rating_text
        initial[f"keyword_{i}"] = ability.kind == "keyword"
    return initial


def _blank_forms(character: Character, access: CharacterAccess) -> dict[str, Form]:
    """The forms the viewer may use on this page, empty."""
    return {name: named_form(name, character) for name in _offered(character, access)}


def _offered(character: Character, access: CharacterAccess) -> list[str]:
    """The names of the forms the viewer may use on the sheet and the wizard."""
    names = []
    if access.can_edit:
        names += ["campaign", "retainer", "spend"]
        if character.creation_complete:
            names.append("sidekick_raise")  # §6.5.1, in either economy
        if not character.creation_complete:
            names += ["ability", "concept", "sidekick", "prose"]
        if character.rules_options.hero_point_economy == "advances":
            names.append("advance")
        else:
            names += ["classic_raise", "classic_new"]
    if access.can_direct:
        names += ["award", "directed", "directed_new", "condition", "wane"]
    if access.can_tend_followers and character.creation_complete:
        names += ["sidekick_lose", "sidekick_new"]
    return names


def respond(
    request: AuthenticatedRequest,
    character_id: int,
    *,
    failed: dict[str, Form] | None = None,
    notice: str = "",
) -> HttpResponse:
    """After an action: the fragment for htmx, else a redirect to the page. A refused
    action (`failed`: forms with their errors) answers 400 with the page and its errors
    (htmx swaps a 400: base.html), having changed nothing."""
    page = "wizard" if request.POST.get("page") == "wizard" else "sheet"
    character, access = get_character_for_user(request.user, character_id)
    if page == "wizard" and character.creation_complete:
        if request.htmx:
            messages.success(request, notice)
            return HttpResponseClientRedirect(reverse("characters:sheet", args=[character.pk]))
        page = "sheet"
    refused = any(form.errors for form in (failed or {}).values())
    if request.htmx or refused:
        context = page_context(character, access, failed)
        context["notice"] = notice
        # Forms shown whole carry their own errors; the others' go to the alert on top.
        shown = _shown_with_errors(page, character, context)
        context["errors"] = [
            error
            for name, form in (failed or {}).items()
            if name not in shown
            for error in _error_lines(form)
        ]
        template = PAGES[page] if request.htmx else f"characters/{page}.html"
        return render(request, template, context, status=400 if refused else 200)
    if notice:
        messages.success(request, notice)
    return redirect(f"characters:{page}", character.pk)


def _error_lines(form: Form) -> list[str]:
    """The form's errors, each naming its field (the alert shows no form)."""
    return [
        f"{form.fields[name].label or name.replace('_', ' ').capitalize()}: {error}"
        if name in form.fields
        else str(error)
        for name, errors in form.errors.items()
        for error in errors
    ]


def submit(
    request: AuthenticatedRequest,
    character: Character,
    name: str,
    run: Callable[[dict[str, Any]], Any],
    notice: str | Callable[[Any], str],
    form: Form | None = None,
) -> HttpResponse:
    """Validate the form `name` (or `form`), call the service `run(cleaned_data)` and
    respond; a refusal from the service (a rule broken) shows with the form, and the
    service's transaction has changed nothing."""
    form = form or named_form(name, character, request.POST)
    if form.is_valid():
        try:
            result = run(form.cleaned_data)
        except ValidationError as exc:
            form.add_error(None, services.error_lines(exc))
        else:
            # Whoever changed the sheet, its player's open pages at the table show it.
            sheet_changed(character)
            text = notice(result) if callable(notice) else notice
            return respond(request, character.pk, notice=text)
    return respond(request, character.pk, failed={name: form})


def ability_of(character: Character, ability_id: int):
    return get_object_or_404(character.abilities, pk=ability_id)
