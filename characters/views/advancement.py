"""The player's advancement: hero points spent, advances bought, catch-ups taken or
declined, and the classic economy's raises and new abilities (§7)."""

from __future__ import annotations

from django.http import HttpResponse
from django.views.decorators.http import require_POST

from questworlds_site.requests import AuthenticatedRequest

from .. import services
from ..access import get_character_for_owner
from .respond import ability_of, submit


@require_POST
def hero_point_spend(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return submit(
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
def advance_buy(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return submit(
        request,
        character,
        "advance",
        lambda d: services.character_advance_buy(
            character=character, actor=request.user, first=d["choices"][0], second=d["choices"][1]
        ),
        "Advance bought.",
    )


@require_POST
def catch_up(request: AuthenticatedRequest, character_id: int, ability_id: int) -> HttpResponse:
    """Take (with up to three abilities) or decline the catch-up `ability` offers."""
    character, _ = get_character_for_owner(request.user, character_id)
    trigger = ability_of(character, ability_id)
    if request.POST.get("decline"):
        return submit(
            request,
            character,
            "catch_up",
            lambda d: services.character_catch_up_decline(
                character=character, actor=request.user, trigger=trigger
            ),
            "Catch-up declined.",
        )
    return submit(
        request,
        character,
        "catch_up",
        lambda d: services.character_catch_up_take(
            character=character, actor=request.user, trigger=trigger, targets=list(d["targets"])
        ),
        "Catch-up taken.",
    )


@require_POST
def classic_raise(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return submit(
        request,
        character,
        "classic_raise",
        lambda d: services.character_classic_raise(
            character=character, actor=request.user, ability=d["ability"]
        ),
        "+1 bought with hero points.",
    )


@require_POST
def sidekick_raise(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    """+1 to the sidekick's ability for a hero point (§6.5.1)."""
    character, _ = get_character_for_owner(request.user, character_id)
    return submit(
        request,
        character,
        "sidekick_raise",
        lambda d: services.character_sidekick_raise(
            character=character, actor=request.user, ability=d["ability"]
        ),
        "+1 to your sidekick's ability, for a hero point.",
    )


@require_POST
def classic_new(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_owner(request.user, character_id)
    return submit(
        request,
        character,
        "classic_new",
        lambda d: services.character_classic_new_ability(
            character=character, actor=request.user, name=d["name"], keyword=d["keyword"]
        ),
        "New ability bought with a hero point.",
    )
