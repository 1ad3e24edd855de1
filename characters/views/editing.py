"""The player's edits of the sheet: a text in place, the campaign, abilities, the
concept's abilities, the prose paragraph, and finishing creation (§3)."""

from __future__ import annotations

from django.db import models
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from questworlds_site.requests import AuthenticatedRequest

from .. import forms, services
from ..access import get_character_for_owner, get_character_for_user
from ..models import Character
from .respond import ability_of, submit


def _verbose_name(field: str) -> str:
    """How the sheet names a text field of the character."""
    model_field = Character._meta.get_field(field)
    assert isinstance(model_field, models.Field), f"{field} is a relation, not a text"
    return str(model_field.verbose_name)


@require_http_methods(["GET", "POST"])
def character_field(request: AuthenticatedRequest, character_id: int, field: str) -> HttpResponse:
    """One text of the sheet, in place: GET shows it (or its form with ?edit), POST saves."""
    if field not in services.DETAIL_FIELDS:
        raise Http404("No such field")
    if request.method == "POST" or request.GET.get("edit"):
        character, access = get_character_for_owner(request.user, character_id)
    else:
        character, access = get_character_for_user(request.user, character_id)
    form = forms.DetailForm(
        request.POST if request.method == "POST" else None, instance=character, field=field
    )
    editing = bool(request.GET.get("edit"))
    heading_changed = False
    if request.method == "POST":
        if form.is_valid():
            character = services.character_details_update(
                character=character, actor=request.user, **{field: form.cleaned_data[field]}
            )
            if not request.htmx:
                return redirect("characters:sheet", character.pk)
            heading_changed = field in ("name", "concept")  # the heading shows them too
        else:
            editing = True
            character.refresh_from_db()
    context = {
        "character": character,
        "access": access,
        "field": field,
        "field_label": _verbose_name(field).capitalize(),
        "value": getattr(character, field),
        "form": form,
        "editing": editing,
        "heading_changed": heading_changed,
    }
    # An invalid edit comes back with its errors as a 400 (htmx swaps it: base.html).
    status = 400 if request.method == "POST" and form.errors else 200
    return render(request, "characters/sheet.html#field", context, status=status)


@require_POST
def character_campaign(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return submit(
        request,
        character,
        "campaign",
        lambda d: services.character_campaign_join(
            character=character, actor=request.user, campaign=d["campaign"]
        ),
        lambda c: f"{c.name} joined {c.campaign}." if c.campaign else f"{c.name} left.",
    )


@require_POST
def ability_add(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return submit(
        request,
        character,
        "ability",
        lambda d: services.character_ability_add(
            character=character,
            actor=request.user,
            name=d["name"],
            kind=d["kind"],
            rating=d["rating"],
            keyword=d["keyword"],
            relationship=d["relationship"],
            description=d["description"],
            phrase=d["phrase"],
            creation_role=d["creation_role"],
        ),
        lambda ability: f"{ability.name} is on the sheet.",
    )


@require_http_methods(["GET", "POST"])
def ability_edit(request: AuthenticatedRequest, character_id: int, ability_id: int) -> HttpResponse:
    """GET: the ability's line as a form, in place; POST: save it."""
    character, access = get_character_for_owner(request.user, character_id)
    ability = ability_of(character, ability_id)
    if request.method == "GET":
        form = forms.AbilityEditForm(
            ability=ability,
            initial={
                "name": ability.name,
                "description": ability.description,
                "rating": ability.rating_text,
            },
        )
        context = {
            "character": character,
            "access": access,
            "ability": ability,
            "form": form,
            "page": "wizard" if request.GET.get("page") == "wizard" else "sheet",
        }
        return render(request, "characters/_parts.html#ability-edit", context)
    return submit(
        request,
        character,
        "ability_edit",
        lambda d: services.character_ability_update(
            character=character,
            actor=request.user,
            ability=ability,
            name=d["name"],
            description=d["description"],
            rating=d["rating"],
        ),
        lambda row: f"{row.name} is saved.",
        forms.AbilityEditForm(request.POST, ability=ability),
    )


@require_POST
def ability_remove(
    request: AuthenticatedRequest, character_id: int, ability_id: int
) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    ability = ability_of(character, ability_id)
    return submit(
        request,
        character,
        "action",
        lambda d: services.character_ability_remove(
            character=character, actor=request.user, ability=ability
        ),
        f"{ability.name} is off the sheet.",
    )


@require_POST
def concept_set(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return submit(
        request,
        character,
        "concept",
        lambda d: services.character_concept_set(
            character=character,
            actor=request.user,
            defining=d["defining"],
            distinguishing=d["distinguishing"],
            free_keyword=d["free_keyword"],
        ),
        "The concept's abilities are marked.",
    )


@require_POST
def prose_set(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return submit(
        request,
        character,
        "prose",
        lambda d: services.character_prose_set(
            character=character, actor=request.user, prose=d["prose"]
        ),
        "Your paragraph is saved. Select words in it to make them abilities.",
    )


@require_POST
def creation_finish(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return submit(
        request,
        character,
        "action",
        lambda d: services.character_creation_finish(character=character, actor=request.user),
        lambda c: f"{c.name} is ready to play.",
    )
