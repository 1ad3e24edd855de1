"""The GM's actions on a sheet: hero points awarded, directed improvements, conditions
applied, healed, cleared and waned, and the ledger's latest step undone."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_POST

from questworlds_site.requests import AuthenticatedRequest

from .. import services
from ..access import get_character_for_gm
from .respond import submit


@require_POST
def hero_points_award(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    return submit(
        request,
        character,
        "award",
        lambda d: services.character_hero_points_award(
            character=character, actor=request.user, count=d["count"], reason=d["reason"]
        ),
        "Hero points awarded.",
    )


@require_POST
def directed_improvement(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    return submit(
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
def directed_new_ability(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    return submit(
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
def condition_apply(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    return submit(
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
def condition_heal(
    request: AuthenticatedRequest, character_id: int, condition_id: int
) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    condition = get_object_or_404(character.conditions, pk=condition_id)
    return submit(
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
def condition_wherewithal(
    request: AuthenticatedRequest, character_id: int, condition_id: int
) -> HttpResponse:
    """The GM records a doomed character's contest of wherewithal (§2.11.1.5)."""
    character, _ = get_character_for_gm(request.user, character_id)
    condition = get_object_or_404(character.conditions, pk=condition_id)
    return submit(
        request,
        character,
        "wherewithal",
        lambda d: services.character_wherewithal(
            character=character,
            actor=request.user,
            condition=condition,
            outcome=d["outcome"],
            waive_bump=d["waive_bump"],
            reason=d["reason"],
        ),
        lambda after: f"{after.get_final_action_display()}.",
    )


@require_POST
def condition_clear(
    request: AuthenticatedRequest, character_id: int, condition_id: int
) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    condition = get_object_or_404(character.conditions, pk=condition_id)
    return submit(
        request,
        character,
        "clear",
        lambda d: services.character_condition_clear(
            character=character, actor=request.user, condition=condition, reason=d["reason"]
        ),
        "Condition cleared.",
    )


@require_POST
def conditions_wane(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    return submit(
        request,
        character,
        "wane",
        lambda d: services.character_conditions_wane(
            character=character, actor=request.user, at=d["at"], reason=d["reason"]
        ),
        lambda ended: f"{len(ended)} condition(s) waned.",
    )


@require_POST
def step_undo(request: AuthenticatedRequest, character_id: int) -> HttpResponse:
    character, _ = get_character_for_gm(request.user, character_id)
    return submit(
        request,
        character,
        "action",
        lambda d: services.character_step_undo(character=character, actor=request.user),
        "Undone.",
    )
