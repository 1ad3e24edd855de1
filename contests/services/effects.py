"""What an action changes outside the contest (hero points, conditions, participant
records, community draws), and how an undo reverses it."""

from __future__ import annotations

from typing import Any, cast

from characters import services as character_services
from characters.models import Ability, Character, Condition
from characters.selectors import with_active_conditions
from community.services import community_draw_settle
from questworlds_site.accounts.models import User
from questworlds_site.sql import Gathered, PreparedRead

from ..core.actions import DECLARED_BY_NAME
from ..core.rules import IllegalAction
from ..core.table import BaseFlow
from ..models import Contest, ContestEvent, ContestParticipant
from .common import ContestError, _approved_draw


def _settle_resource_draw(contest: Contest, flow: BaseFlow, user: User) -> dict[str, Any]:

    draw_id = contest.framing.get("draw_id")
    level = flow.level_for_pc()
    if draw_id is None or level is None:
        return {}
    draw = _approved_draw(contest.campaign, draw_id)
    settled = community_draw_settle(
        draw=draw, actor=user, outcome_level=level, contest_id=contest.pk
    )
    return {
        "resource_draw": {
            "resource": draw.resource.name,
            "depletion": settled.draw.depletion,
            "social_penalty": settled.social_penalty,
        }
    }


# The abilities a consequence falls on, with their states: built once
# (questworlds_site/sql.py).
_NAMED = PreparedRead(
    lambda character, name: with_active_conditions(
        Ability.objects.filter(character_id=character, name=name)
    )
)


def _named_abilities(character: Character, name: Any) -> list[Ability]:
    """The character's abilities of that name, with their active conditions."""
    if type(name) is str:
        return cast("list[Ability]", _NAMED.objects(character.pk, name))
    return list(with_active_conditions(character.abilities.filter(name=name)))


def _apply_side_effects(
    contest: Contest,
    flow: BaseFlow,
    action: str,
    payload: dict[str, Any],
    user: User,
    gathered: Gathered | None = None,
) -> dict[str, Any]:
    """What an action changes outside the contest: hero points, conditions. A write
    whose id nobody reads (a hero point's ledger step) goes `gathered`, to go out with
    the step's own statement."""

    effects: dict[str, Any] = {}
    # A bump, a boost or a final action (§2.3.5.5, §4.5.3, §5.3.5): one point per event.
    if payload.get("hero_point"):
        # One read, the row held until commit: a second spend waits here and then
        # finds the point gone. The spend writes within this action's transaction.
        character = character_services.locked_character(payload["hero_point"]["character_id"])
        if character.hero_points < 1:
            raise IllegalAction(f"{character.name} has no hero point left")
        reason = DECLARED_BY_NAME[action].spends_for
        character_services.hero_point_spend_locked(
            character=character,
            actor=user,
            reason=f"{reason} in contest #{contest.number}",
            into=gathered,
        )
    if "joined" in payload:
        row = ContestParticipant.objects.create(contest=contest, **payload["joined"])
        effects["participant_row"] = row.pk
    if "applied" in payload:  # the consequences confirmed
        created = []
        for item in payload["applied"]:
            if item["character_id"] is None:
                continue
            if item.get("side") == "pc" and contest.framing.get("draw_used_as") == "ability":
                # The resource was the ability: its depletion replaces the PC's
                # consequences of defeat (§8.2).
                continue
            # The character read and held once; then, under the lock (in a statement
            # of its own, which sees what committed while it waited), its abilities of
            # that name with their active conditions (the service reads none again).
            character = character_services.locked_character(item["character_id"])
            abilities = _named_abilities(character, item["ability"])
            condition = character_services.character_condition_apply(
                character=character,
                actor=user,
                state=item["state"],
                abilities=abilities,
                cause=f"contest #{contest.number}: {contest.prize or contest.obstacle}"[:200],
                contest_id=contest.pk,
                held=True,
            )
            created.append(condition.pk)
        effects["conditions"] = created
        effects.update(_settle_resource_draw(contest, flow, user))
    return effects


def _reverse_side_effects(event: ContestEvent, user: User) -> None:

    if event.payload.get("resource_draw"):
        raise ContestError(
            "the community resource's depletion is settled and stays; "
            "the GM can correct it with a plot event on the community page"
        )
    if event.payload.get("hero_point"):
        character = Character.objects.get(pk=event.payload["hero_point"]["character_id"])
        # The ledger undoes only its latest step; the spend must still be that step.
        step = character_services.undoable_step(character)
        if step is None or step.reason != "hp_spend":
            raise ContestError(
                f"{character.name}'s sheet has changed since that hero point was spent; "
                "it cannot be returned by undo"
            )
        character_services.character_step_undo(character=character, actor=user)
    if event.payload.get("participant_row"):
        ContestParticipant.objects.filter(pk=event.payload["participant_row"]).delete()
    if "conditions" in event.payload:  # the consequences confirmed
        for condition in Condition.objects.filter(pk__in=event.payload.get("conditions", [])):
            character_services.character_condition_clear(
                character=condition.character,
                actor=user,
                condition=condition,
                reason="the GM undid the consequences",
            )
