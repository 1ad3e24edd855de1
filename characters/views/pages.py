"""The pages: my characters, a new one, the sheet, the creation wizard, the GM's
roster, and a character's JSON export and import."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods

from campaigns.access import get_campaign_for_user
from campaigns.models import Role
from questworlds_site import inputs
from questworlds_site.requests import AuthenticatedRequest

from .. import forms, services
from ..access import get_character_for_owner, get_character_for_user
from ..selectors import campaign_roster, character_export, characters_of_player
from .respond import PAGES, page_context


@require_GET
def character_list(request: AuthenticatedRequest) -> HttpResponse:
    """My characters, and a roster link for each campaign I run."""
    context = {
        "characters": characters_of_player(request.user),
        "campaigns_run": request.user.campaigns_run.order_by("name"),
    }
    return render(request, "characters/list.html", context)


@require_http_methods(["GET", "POST"])
def character_create(request: AuthenticatedRequest) -> HttpResponse:
    """The wizard's first step: name, concept, method, campaign, traits (§3)."""
    # A player who just joined by invitation arrives with the campaign chosen.
    campaign_id = inputs.an_id(request.GET.get("campaign"))
    initial = {"campaign": campaign_id} if campaign_id is not None else {}
    form = forms.CharacterCreateForm(request.POST or None, user=request.user, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            character = services.character_create(
                player=request.user,
                name=data["name"],
                concept=data["concept"],
                creation_method=data["creation_method"],
                campaign=data["campaign"],
                traits=[data["trait_1"], data["trait_2"], data["trait_3"]],
                portrait=data["portrait"],
            )
        except ValidationError as exc:
            form.add_error(None, services.error_lines(exc))
        else:
            return redirect("characters:wizard", character.pk)
    status = 400 if form.errors else 200
    return render(request, "characters/create.html", {"form": form}, status=status)


@require_GET
def character_sheet(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, access = get_character_for_user(request.user, character_id)
    if request.htmx:
        return render(request, PAGES["sheet"], page_context(character, access))
    return render(request, "characters/sheet.html", page_context(character, access))


@require_GET
def character_wizard(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, access = get_character_for_owner(request.user, character_id)
    if character.creation_complete:
        return redirect("characters:sheet", character.pk)
    if request.htmx:
        return render(request, PAGES["wizard"], page_context(character, access))
    return render(request, "characters/wizard.html", page_context(character, access))


@require_GET
def character_roster(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """The GM's roster of a campaign's characters."""
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    if role != Role.GM:
        raise PermissionDenied("Only the campaign's GM sees its roster.")
    context = {"campaign": campaign, "characters": campaign_roster(campaign)}
    return render(request, "characters/roster.html", context)


@require_GET
def character_export_json(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_user(request.user, character_id)
    response = JsonResponse(character_export(character), json_dumps_params={"indent": 2})
    filename = slugify(character.name) or "character"
    response["Content-Disposition"] = f'attachment; filename="{filename}.json"'
    return response


@require_http_methods(["GET", "POST"])
def character_import(request: AuthenticatedRequest) -> HttpResponse:
    form = forms.ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            character = services.character_import(
                player=request.user, data=form.cleaned_data["file"]
            )
        except ValidationError as exc:
            form.add_error("file", services.error_lines(exc))
        else:
            messages.success(request, f"{character.name} is imported.")
            return redirect("characters:sheet", character.pk)
    status = 400 if form.errors else 200
    return render(request, "characters/import.html", {"form": form}, status=status)
