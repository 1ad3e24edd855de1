"""Drawing on a resource (§8.2), the community's side of the live table:

- `community_draw_start(...)`: the lobbying contest, rolled here; returns the
  `ResourceDraw` (approved on a victory, else refused).
- `community_draw_settle(...)`: once the contest that used the resource is decided,
  the depletion (Resource Depletion Table); returns a `SettledDraw` whose
  `social_penalty` the table applies to the character's social abilities.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from campaigns.access import campaign_role
from campaigns.models import Role
from characters.models import Ability, AbilityKind, Character
from characters.selectors import ability_rating, ability_states
from contests.core.rules import Roller, d20
from contests.core.rules import community as rules
from contests.core.rules.errors import RulesError
from contests.core.rules.modifiers import Modifier, target_number
from contests.core.rules.ratings import normalise_level, resistance
from contests.core.rules.simple import simple_contest
from questworlds_site.accounts.models import User

from ..live import broadcast_community
from ..models import Community, CommunityStep, DrawStatus, Resource, ResourceDraw, StepKind, UsedAs
from .base import (
    clean_text,
    contest_of,
    invalid,
    level_of,
    lock,
    record_step,
    require_gm,
    require_session,
    resource_of,
    run_rule,
)


@dataclass(frozen=True)
class SettledDraw:
    """What `community_draw_settle` did: the draw (now settled), the step holding the
    depletion, and the penalty (0 or negative) the character's social and community
    abilities take with community members until the interval ends (§8.2)."""

    draw: ResourceDraw
    step: CommunityStep
    social_penalty: int


@transaction.atomic
def community_draw_start(
    *,
    community: Community,
    actor: User,
    resource: Resource,
    character: Character,
    ability: Ability,
    purpose: str,
    resistance_level: str = "moderate",
    modifier: int = 0,
    used_as: str = UsedAs.ABILITY,
    required_action: str = "",
    roller: Roller = d20,
) -> ResourceDraw:
    """The lobbying contest to draw on a resource (§8.2), rolled at once.

    `ability` is the character's social ability, most likely their relationship to the
    community; the resistance is a class of the campaign's base resistance (moderate
    unless the GM adjusts it); `modifier` totals any augments and situational
    modifiers the GM allows; states recorded on the ability count. Two rolls: the
    character's, then the resistance's. A victory approves the draw; a tie or a defeat
    refuses it (the community was not convinced) and costs nothing.

    `used_as` says whether the resource will be the contest's ability or an augment;
    `required_action` names a required use (§8.2.1), which allows a second own augment
    (`draw.own_augments_allowed`). Needs an open session. The GM or the character's
    player may start a draw.
    """
    community = lock(community)
    campaign = community.campaign
    role = campaign_role(campaign, actor)
    own = role == Role.PLAYER and character is not None and character.player_id == actor.pk
    if role != Role.GM and not own:
        raise PermissionDenied("Only the GM or the character's player may draw on a resource.")
    session = require_session(community, "Drawing on a resource")
    resource = resource_of(community, resource)
    if character is None or character.campaign_id != campaign.pk:
        raise ValidationError(f"Choose a character of {campaign.name}.")
    if (
        ability is None
        or ability.character_id != character.pk
        or ability.follower_id is not None
        or ability.kind == AbilityKind.FLAW
    ):
        raise ValidationError(f"Choose one of {character.name}'s own abilities to lobby with.")
    purpose = clean_text(purpose, "what the resource is for", 300)
    if used_as not in UsedAs.values:
        raise ValidationError("Use the resource as the ability or as an augment.")
    required_action = (required_action or "").strip()
    if (
        required_action
        and not community.required_uses.filter(
            resource=resource, action__iexact=required_action
        ).exists()
    ):
        raise ValidationError(f"{required_action!r} is not a required use of {resource.name}.")
    if isinstance(modifier, bool) or not isinstance(modifier, int) or not -60 <= modifier <= 60:
        raise ValidationError("The lobbying modifier is a whole number from -60 to 60.")
    ability = Ability.objects.select_related("keyword").get(pk=ability.pk)
    try:
        resistance_level = normalise_level(resistance_level)
        opposition = resistance(resistance_level, campaign.rules_options.base_resistance)
        lines = [Modifier("augments and modifiers", value=modifier)] if modifier else []
        tn = target_number(ability_rating(ability), modifiers=lines, states=ability_states(ability))
        outcome = simple_contest(
            tn.rating,
            roller(),
            opposition,
            roller(),
            pc_bumps=tn.bumps,
            better_roll=campaign.rules_options.better_roll,
        )
    except RulesError as exc:
        raise invalid(exc) from exc
    approved = outcome.level > 0
    draw = ResourceDraw(
        community=community,
        resource=resource,
        character=character,
        character_name=character.name,
        actor=actor,
        session=session,
        interval=community.interval_number,
        purpose=purpose,
        used_as=used_as,
        required_action=required_action,
        ability_name=ability.name,
        ability_rating=tn.rating.total,
        resistance_level=resistance_level,
        resistance_rating=opposition.total,
        modifier=modifier,
        lobbying=outcome.to_json(),
        lobbying_level=outcome.level,
        status=DrawStatus.APPROVED if approved else DrawStatus.REFUSED,
    )
    draw.full_clean()
    draw.save()
    verdict = "approved" if approved else "refused"
    record_step(
        community,
        actor=actor,
        kind=StepKind.LOBBYING,
        summary=(
            f"{character.name} lobbied to draw on {resource.name} ({purpose}): "
            f"{outcome.describe}, {verdict}"
        ),
        session=session,
        draw=draw,
        rolls=[
            {
                "kind": "lobbying",
                "resource": resource.name,
                "who": character.name,
                "ability": ability.name,
                "rating": tn.rating.total,
                "resistance": opposition.total,
                "roll": outcome.pc_roll,
                "resistance_roll": outcome.opponent_roll,
                "outcome": outcome.describe,
                "level": outcome.level,
            }
        ],
    )
    broadcast_community(community)
    return draw


@transaction.atomic
def community_draw_settle(
    *,
    draw: ResourceDraw,
    actor: User,
    outcome_level: rules.OutcomeLike,
    contest_id: int | None = None,
) -> SettledDraw:
    """The contest that used the resource is decided: deplete the resource by the
    Resource Depletion Table (§8.2; it replaces the usual consequences of defeat).

    `outcome_level` is the contest's outcome for the PC side (-4..4, an `Outcome` or
    words). Returns a `SettledDraw`; its `social_penalty` (negative when the prize was
    not secured, else 0) applies to the character's social and community abilities with
    community members until the interval ends. GM only; needs an open session; a
    draw settles once, in the interval it was approved in.
    """
    community = lock(draw.community)
    require_gm(community.campaign, actor)
    draw = ResourceDraw.objects.select_for_update().select_related("resource").get(pk=draw.pk)
    if draw.status == DrawStatus.REFUSED:
        raise ValidationError(
            f"The community refused {draw.character_name}'s draw on {draw.resource.name}: "
            "there is nothing to deplete."
        )
    if draw.status == DrawStatus.SETTLED:
        raise ValidationError(
            f"{draw.character_name}'s draw on {draw.resource.name} is settled already."
        )
    require_session(community, "Drawing on a resource")
    if draw.interval != community.interval_number:
        raise ValidationError(
            f"This draw was approved in {community.interval_name} {draw.interval}, which has "
            "ended: it lapsed with its interval."
        )
    level = level_of(outcome_level)
    contest = contest_of(community, contest_id)
    draw.outcome_level = level
    draw.depletion = rules.depletion_penalty(level)
    draw.social_penalty = rules.social_penalty(level)
    draw.status = DrawStatus.SETTLED
    draw.contest = contest
    draw.settled_at = timezone.now()
    draw.full_clean()
    draw.save()
    step = run_rule(
        community,
        actor=actor,
        kind=StepKind.DEPLETION,
        summary=(
            f"{draw.character_name} drew on {draw.resource.name} ({draw.purpose}): "
            f"{rules.describe_level(level)}, depletion {draw.depletion:+d}"
        ),
        action=lambda state: state.draw(draw.resource.name, level),
        contest=contest,
        draw=draw,
    )
    broadcast_community(community)
    return SettledDraw(draw=draw, step=step, social_penalty=draw.social_penalty)
