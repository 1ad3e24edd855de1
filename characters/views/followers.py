"""The player's (and for a lost sidekick, the GM's) followers: the sidekick written in
creation, retainers, a sidekick lost and a new one (§6.5)."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_http_methods, require_POST

from questworlds_site import inputs
from questworlds_site.requests import AuthenticatedRequest

from .. import forms, services
from ..access import get_character_for_owner, get_character_for_player_or_gm
from ..models import Character, Follower
from .respond import named_form, submit


@require_POST
def sidekick_set(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return submit(
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
def retainer_add(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return submit(
        request,
        character,
        "retainer",
        lambda d: services.character_follower_add(
            character=character, actor=request.user, name=d["name"], description=d["description"]
        ),
        lambda follower: f"{follower.name} follows you.",
    )


@require_POST
def follower_remove(
    request: AuthenticatedRequest, character_id: int, follower_id: int
) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    follower = get_object_or_404(character.followers, pk=follower_id)
    return submit(
        request,
        character,
        "action",
        lambda d: services.character_follower_remove(
            character=character, actor=request.user, follower=follower
        ),
        f"{follower.name} has left.",
    )


@require_POST
def sidekick_lose(
    request: AuthenticatedRequest, character_id: int, follower_id: int
) -> HttpResponse:
    """The player or the GM records the sidekick killed or gone for good (§6.5.2)."""
    character, _ = get_character_for_player_or_gm(request.user, character_id)
    follower = get_object_or_404(character.followers, pk=follower_id)
    return submit(
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
    retainer_id = inputs.an_id(value)
    if retainer_id is None:
        raise Http404("No such retainer")
    return get_object_or_404(character.followers, pk=retainer_id, kind=Follower.Kind.RETAINER)


@require_http_methods(["GET", "POST"])
def sidekick_new(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
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
    posted = named_form("sidekick_new", character, request.POST)
    assert isinstance(posted, forms.NewSidekickForm)
    form = posted
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

    return submit(
        request,
        character,
        "sidekick_new",
        run,
        lambda sidekick: f"{sidekick.name} is your sidekick now; no hero point spent.",
        form,
    )
