"""Thin views: check access (characters.access), read a form, call a service, render.

htmx requests get the page's fragment back (`sheet.html#sheet`, `wizard.html#creation`,
`sheet.html#field`); other requests are redirected to the page, with messages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from campaigns.access import get_campaign_for_user
from campaigns.models import Role

from . import forms, services
from .access import (
    CharacterAccess,
    get_character_for_gm,
    get_character_for_owner,
    get_character_for_player_or_gm,
    get_character_for_user,
)
from .models import Character, Follower
from .selectors import campaign_roster, character_export, characters_of_player, sheet_context

PAGES = {"sheet": "characters/sheet.html#sheet", "wizard": "characters/wizard.html#creation"}


# --------------------------------------------------------------------- pages


@require_GET
def character_list(request: HttpRequest) -> HttpResponse:
    """My characters, and a roster link for each campaign I run."""
    context = {
        "characters": characters_of_player(request.user),
        "campaigns_run": request.user.campaigns_run.order_by("name"),
    }
    return render(request, "characters/list.html", context)


@require_http_methods(["GET", "POST"])
def character_create(request: HttpRequest) -> HttpResponse:
    """The wizard's first step: name, concept, method, campaign, traits (§3)."""
    form = forms.CharacterCreateForm(request.POST or None, user=request.user)
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
    return render(request, "characters/create.html", {"form": form})


@require_GET
def character_sheet(request: HttpRequest, character_id: int) -> HttpResponse:
    character, access = get_character_for_user(request.user, character_id)
    if request.htmx:
        return render(request, PAGES["sheet"], _context(character, access))
    return render(request, "characters/sheet.html", _context(character, access))


@require_GET
def character_wizard(request: HttpRequest, character_id: int) -> HttpResponse:
    character, access = get_character_for_owner(request.user, character_id)
    if character.creation_complete:
        return redirect("characters:sheet", character.pk)
    if request.htmx:
        return render(request, PAGES["wizard"], _context(character, access))
    return render(request, "characters/wizard.html", _context(character, access))


@require_GET
def character_roster(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The GM's roster of a campaign's characters."""
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    if role != Role.GM:
        raise PermissionDenied("Only the campaign's GM sees its roster.")
    context = {"campaign": campaign, "characters": campaign_roster(campaign)}
    return render(request, "characters/roster.html", context)


@require_GET
def character_export_json(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_user(request.user, character_id)
    response = JsonResponse(character_export(character), json_dumps_params={"indent": 2})
    filename = slugify(character.name) or "character"
    response["Content-Disposition"] = f'attachment; filename="{filename}.json"'
    return response


@require_http_methods(["GET", "POST"])
def character_import(request: HttpRequest) -> HttpResponse:
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
    return render(request, "characters/import.html", {"form": form})


# --------------------------------------------------------------------- responding to actions


def _context(
    character: Character, access: CharacterAccess, failed: dict[str, Form] | None = None
) -> dict[str, Any]:
    context = sheet_context(character, access)
    context["forms"] = {**_blank_forms(character, access), **(failed or {})}
    context["healing_outcomes"] = forms.HEALING_OUTCOMES
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
    "classic_new": lambda c, data: forms.ClassicNewAbilityForm(data, character=c),
    "award": lambda c, data: forms.AwardForm(data),
    "directed": lambda c, data: forms.DirectedForm(data, character=c),
    "directed_new": lambda c, data: forms.DirectedNewAbilityForm(data),
    "condition": lambda c, data: forms.ConditionForm(data, character=c),
    "heal": lambda c, data: forms.HealForm(data),
    "clear": lambda c, data: forms.ClearForm(data),
    "wane": lambda c, data: forms.WaneForm(data),
    "action": lambda c, data: Form(data),
}


# The forms the pages render whole, errors included (the rest are buttons or one field).
SHOWN_WITH_ERRORS = {
    "ability",
    "concept",
    "sidekick",
    "sidekick_lose",
    "sidekick_new",
    "prose",
    "advance",
    "retainer",
    "award",
    "directed",
    "directed_new",
    "condition",
    "wane",
    "classic_new",
}


def _form(name: str, character: Character, data: Any = None) -> Form:
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
    names = []
    if access.can_edit:
        names += ["campaign", "retainer", "spend"]
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
    return {name: _form(name, character) for name in names}


def _respond(
    request: HttpRequest,
    character_id: int,
    *,
    failed: dict[str, Form] | None = None,
    notice: str = "",
) -> HttpResponse:
    """After an action: the fragment for htmx, else a redirect to the page."""
    page = "wizard" if request.POST.get("page") == "wizard" else "sheet"
    character, access = get_character_for_user(request.user, character_id)
    if page == "wizard" and character.creation_complete:
        if request.htmx:
            messages.success(request, notice)
            return HttpResponseClientRedirect(reverse("characters:sheet", args=[character.pk]))
        page = "sheet"
    if request.htmx:
        context = _context(character, access, failed)
        context["notice"] = notice
        # Forms shown whole carry their own errors; the others' go to the alert on top.
        context["errors"] = [
            error
            for name, form in (failed or {}).items()
            if name not in SHOWN_WITH_ERRORS
            for errors in form.errors.values()
            for error in errors
        ]
        return render(request, PAGES[page], context)
    for form in (failed or {}).values():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
    if notice:
        messages.success(request, notice)
    return redirect(f"characters:{page}", character.pk)


def _submit(
    request: HttpRequest,
    character: Character,
    name: str,
    run: Callable[[dict[str, Any]], Any],
    notice: str | Callable[[Any], str],
    form: Form | None = None,
) -> HttpResponse:
    """Validate the form `name` (or `form`), call the service `run(cleaned_data)` and
    respond; a refusal from the service (a rule broken) shows with the form, and the
    service's transaction has changed nothing."""
    form = form or _form(name, character, request.POST)
    if form.is_valid():
        try:
            result = run(form.cleaned_data)
        except ValidationError as exc:
            form.add_error(None, services.error_lines(exc))
        else:
            text = notice(result) if callable(notice) else notice
            return _respond(request, character.pk, notice=text)
    return _respond(request, character.pk, failed={name: form})


def _ability(character: Character, ability_id: int):
    return get_object_or_404(character.abilities, pk=ability_id)


# --------------------------------------------------------------------- the player's actions


@require_http_methods(["GET", "POST"])
def character_field(request: HttpRequest, character_id: int, field: str) -> HttpResponse:
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
        "field_label": Character._meta.get_field(field).verbose_name.capitalize(),
        "value": getattr(character, field),
        "form": form,
        "editing": editing,
        "heading_changed": heading_changed,
    }
    return render(request, "characters/sheet.html#field", context)


@require_POST
def character_campaign(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return _submit(
        request,
        character,
        "campaign",
        lambda d: services.character_campaign_join(
            character=character, actor=request.user, campaign=d["campaign"]
        ),
        lambda c: f"{c.name} joined {c.campaign}." if c.campaign else f"{c.name} left.",
    )


@require_POST
def ability_add(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return _submit(
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
def ability_edit(request: HttpRequest, character_id: int, ability_id: int) -> HttpResponse:
    """GET: the ability's line as a form, in place; POST: save it."""
    character, access = get_character_for_owner(request.user, character_id)
    ability = _ability(character, ability_id)
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
    return _submit(
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
def ability_remove(request: HttpRequest, character_id: int, ability_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    ability = _ability(character, ability_id)
    return _submit(
        request,
        character,
        "action",
        lambda d: services.character_ability_remove(
            character=character, actor=request.user, ability=ability
        ),
        f"{ability.name} is off the sheet.",
    )


@require_POST
def concept_set(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return _submit(
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
def sidekick_set(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return _submit(
        request,
        character,
        "sidekick",
        lambda d: services.character_sidekick_set(
            character=character,
            actor=request.user,
            name=d["name"],
            description=d["description"],
            abilities=d["abilities"],
        ),
        lambda sidekick: f"{sidekick.name} is your sidekick.",
    )


@require_POST
def retainer_add(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return _submit(
        request,
        character,
        "retainer",
        lambda d: services.character_follower_add(
            character=character, actor=request.user, name=d["name"], description=d["description"]
        ),
        lambda follower: f"{follower.name} follows you.",
    )


@require_POST
def follower_remove(request: HttpRequest, character_id: int, follower_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    follower = get_object_or_404(character.followers, pk=follower_id)
    return _submit(
        request,
        character,
        "action",
        lambda d: services.character_follower_remove(
            character=character, actor=request.user, follower=follower
        ),
        f"{follower.name} has left.",
    )


@require_POST
def sidekick_lose(request: HttpRequest, character_id: int, follower_id: int) -> HttpResponse:
    """The player or the GM records the sidekick killed or gone for good (§6.5.2)."""
    character, _ = get_character_for_player_or_gm(request.user, character_id)
    follower = get_object_or_404(character.followers, pk=follower_id)
    return _submit(
        request,
        character,
        "sidekick_lose",
        lambda d: services.character_sidekick_lose(
            character=character, actor=request.user, follower=follower, reason=d["reason"]
        ),
        lambda lost: f"{lost.name} is lost: {lost.lost_reason}.",
    )


def _retainer(character: Character, value: str | None) -> Follower | None:
    if not value:
        return None
    if not value.isdigit():
        raise Http404("No such retainer")
    return get_object_or_404(character.followers, pk=int(value), kind=Follower.Kind.RETAINER)


@require_http_methods(["GET", "POST"])
def sidekick_new(request: HttpRequest, character_id: int) -> HttpResponse:
    """GET: the new-sidekick form in place (`?retainer=<id>`: promoting that retainer,
    its name filled in); POST: the new sidekick, without a hero point (§6.5.2)."""
    character, access = get_character_for_player_or_gm(request.user, character_id)
    source = request.GET if request.method == "GET" else request.POST
    retainer = _retainer(character, source.get("retainer"))
    if request.method == "GET":
        initial = {}
        if retainer is not None:
            initial = {
                "retainer": retainer.pk,
                "name": retainer.name,
                "description": retainer.description,
            }
        form = forms.NewSidekickForm(initial=initial)
        form.auto_id = "sidekick_new-%s"
        form.promoting = retainer
        context = {"character": character, "access": access, "form": form, "open": True}
        return render(request, "characters/sheet.html#sidekick-new", context)
    form = _form("sidekick_new", character, request.POST)
    form.promoting = retainer

    def run(d: dict[str, Any]) -> Follower:
        common = {
            "character": character,
            "actor": request.user,
            "name": d["name"],
            "description": d["description"],
            "origin": d["origin"],
            "abilities": d["abilities"],
        }
        if retainer is not None:
            return services.character_retainer_promote(retainer=retainer, **common)
        return services.character_sidekick_replace(**common)

    return _submit(
        request,
        character,
        "sidekick_new",
        run,
        lambda sidekick: f"{sidekick.name} is your sidekick now; no hero point spent.",
        form,
    )


@require_POST
def prose_set(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return _submit(
        request,
        character,
        "prose",
        lambda d: services.character_prose_set(
            character=character, actor=request.user, prose=d["prose"]
        ),
        "Your paragraph is saved. Select words in it to make them abilities.",
    )


@require_POST
def creation_finish(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return _submit(
        request,
        character,
        "action",
        lambda d: services.character_creation_finish(character=character, actor=request.user),
        lambda c: f"{c.name} is ready to play.",
    )


@require_POST
def hero_point_spend(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return _submit(
        request,
        character,
        "spend",
        lambda d: services.character_hero_point_spend(
            character=character,
            actor=request.user,
            reason=d["reason"] or "a bump in a contest",
        ),
        "A hero point is spent.",
    )


@require_POST
def advance_buy(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return _submit(
        request,
        character,
        "advance",
        lambda d: services.character_advance_buy(
            character=character, actor=request.user, first=d["choices"][0], second=d["choices"][1]
        ),
        "Advance bought.",
    )


@require_POST
def catch_up(request: HttpRequest, character_id: int, ability_id: int) -> HttpResponse:
    """Take (with up to three abilities) or decline the catch-up `ability` offers."""
    character, _ = get_character_for_owner(request.user, character_id)
    trigger = _ability(character, ability_id)
    if request.POST.get("decline"):
        return _submit(
            request,
            character,
            "catch_up",
            lambda d: services.character_catch_up_decline(
                character=character, actor=request.user, trigger=trigger
            ),
            "Catch-up declined.",
        )
    return _submit(
        request,
        character,
        "catch_up",
        lambda d: services.character_catch_up_take(
            character=character, actor=request.user, trigger=trigger, targets=list(d["targets"])
        ),
        "Catch-up taken.",
    )


@require_POST
def classic_raise(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return _submit(
        request,
        character,
        "classic_raise",
        lambda d: services.character_classic_raise(
            character=character, actor=request.user, ability=d["ability"]
        ),
        "+1 bought with hero points.",
    )


@require_POST
def classic_new(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return _submit(
        request,
        character,
        "classic_new",
        lambda d: services.character_classic_new_ability(
            character=character, actor=request.user, name=d["name"], keyword=d["keyword"]
        ),
        "New ability bought with a hero point.",
    )


# --------------------------------------------------------------------- the GM's actions


@require_POST
def hero_points_award(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    return _submit(
        request,
        character,
        "award",
        lambda d: services.character_hero_points_award(
            character=character, actor=request.user, count=d["count"], reason=d["reason"]
        ),
        "Hero points awarded.",
    )


@require_POST
def directed_improvement(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    return _submit(
        request,
        character,
        "directed",
        lambda d: services.character_directed_improvement(
            character=character,
            actor=request.user,
            ability=d["ability"],
            amount=d["amount"],
            reason=d["reason"],
        ),
        "Directed improvement made.",
    )


@require_POST
def directed_new_ability(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    return _submit(
        request,
        character,
        "directed_new",
        lambda d: services.character_directed_new_ability(
            character=character,
            actor=request.user,
            name=d["name"],
            rating=d["rating"],
            reason=d["reason"],
        ),
        "New ability given.",
    )


@require_POST
def condition_apply(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    return _submit(
        request,
        character,
        "condition",
        lambda d: services.character_condition_apply(
            character=character,
            actor=request.user,
            state=d["state"],
            abilities=list(d["abilities"]),
            cause=d["cause"],
        ),
        lambda condition: f"{condition.get_state_display()} recorded.",
    )


@require_POST
def condition_heal(request: HttpRequest, character_id: int, condition_id: int) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    condition = get_object_or_404(character.conditions, pk=condition_id)
    return _submit(
        request,
        character,
        "heal",
        lambda d: services.character_condition_heal(
            character=character,
            actor=request.user,
            condition=condition,
            outcome=d["outcome"],
            reason=d["reason"],
        ),
        lambda after: "Healed." if after is None else f"Now {after.get_state_display().lower()}.",
    )


@require_POST
def condition_clear(request: HttpRequest, character_id: int, condition_id: int) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    condition = get_object_or_404(character.conditions, pk=condition_id)
    return _submit(
        request,
        character,
        "clear",
        lambda d: services.character_condition_clear(
            character=character, actor=request.user, condition=condition, reason=d["reason"]
        ),
        "Condition cleared.",
    )


@require_POST
def conditions_wane(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    return _submit(
        request,
        character,
        "wane",
        lambda d: services.character_conditions_wane(
            character=character, actor=request.user, at=d["at"], reason=d["reason"]
        ),
        lambda ended: f"{len(ended)} condition(s) waned.",
    )


@require_POST
def step_undo(request: HttpRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    return _submit(
        request,
        character,
        "action",
        lambda d: services.character_step_undo(character=character, actor=request.user),
        "Undone.",
    )
