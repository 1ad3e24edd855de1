"""Setting a community up (§8.1): the community itself, its resources and their
ratings (the §8.1.3 spread, or ratings given one by one), and the actions that always
require a resource (§8.2.1). Ratings change here only until play begins.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.db import transaction

from campaigns.models import Campaign
from contests.core.rules import community as rules
from contests.core.rules.errors import RulesError
from questworlds_site.accounts.models import User

from ..live import broadcast_community
from ..models import (
    AnswerMode,
    Community,
    CommunityStep,
    RequiredResourceUse,
    Resource,
    ResourceChange,
    StepKind,
)
from .base import (
    check_with_rules,
    clean_text,
    invalid,
    lock,
    record_step,
    require_gm,
    require_setup,
    resource_of,
    resource_rating,
    resources_of,
)


@transaction.atomic
def community_create(
    *,
    campaign: Campaign,
    actor: User,
    name: str,
    description: str = "",
    interval_name: str = "season",
    answer_mode: str = AnswerMode.CONSENSUS,
    social_penalties_linger: bool = False,
) -> Community:
    """The campaign's focal community (§8; a campaign tracks at most one).
    `social_penalties_linger` is §8.2's optional rule: social penalties shed 3 points per
    interval instead of ending with it."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    require_gm(campaign, actor)
    if Community.objects.filter(campaign=campaign).exists():
        raise ValidationError(
            f"{campaign.name} already tracks a community; other communities are "
            "relationship abilities (§8)."
        )
    community = Community(
        campaign=campaign,
        name=clean_text(name, "the community a name", 120),
        description=(description or "").strip(),
        interval_name=clean_text(interval_name, "the interval a name (season, voyage…)", 40),
        answer_mode=answer_mode,
        social_penalties_linger=bool(social_penalties_linger),
    )
    community.full_clean()
    community.save()
    return community


@transaction.atomic
def community_update(
    *,
    community: Community,
    actor: User,
    name: str,
    description: str = "",
    interval_name: str = "season",
    answer_mode: str = AnswerMode.CONSENSUS,
    social_penalties_linger: bool = False,
) -> Community:
    community = lock(community)
    require_gm(community.campaign, actor)
    community.name = clean_text(name, "the community a name", 120)
    community.description = (description or "").strip()
    community.interval_name = clean_text(interval_name, "the interval a name (season, voyage…)", 40)
    community.answer_mode = answer_mode
    community.social_penalties_linger = bool(social_penalties_linger)
    community.full_clean()
    community.save(
        update_fields=[
            "name",
            "description",
            "interval_name",
            "answer_mode",
            "social_penalties_linger",
        ]
    )
    broadcast_community(community)
    return community


# --------------------------------------------------------------------- resources (setup)


def _setup_step(
    community: Community, actor: User, summary: str, changed: Sequence[tuple[Resource, int | None]]
) -> CommunityStep:
    """Record a setup change of ratings: (resource, rating before or None if new)."""
    step = record_step(community, actor=actor, kind=StepKind.SETUP, summary=summary)
    ResourceChange.objects.bulk_create(
        ResourceChange(
            step=step,
            resource=resource,
            column="rating",
            before=before,
            after=resource.rating,
            reason="§8.1.3 setup",
        )
        for resource, before in changed
    )
    return step


@transaction.atomic
def community_found(
    *, community: Community, actor: User, ranked_names: Sequence[str]
) -> list[Resource]:
    """Five resources with the §8.1.3 spread, highest first: 12W, 9W, 18, 18, 12.
    Only for a community without resources."""
    community = lock(community)
    require_gm(community.campaign, actor)
    if community.resources.exists():
        raise ValidationError(
            f"{community.name} already has resources: rank them to assign the spread instead."
        )
    names = [(name or "").strip() for name in ranked_names]
    try:
        founded = rules.Community.founded(names)
    except RulesError as exc:
        raise invalid(exc) from exc
    resources = []
    for position, resource in enumerate(founded.resources.values(), start=1):
        row = Resource(
            community=community, name=resource.name, position=position, rating=resource.rating
        )
        row.full_clean()
        resources.append(row)
    Resource.objects.bulk_create(resources)
    _setup_step(
        community,
        actor,
        f"{community.name} founded with the §8.1.3 spread",
        [(r, None) for r in resources],
    )
    broadcast_community(community)
    return resources


@transaction.atomic
def resource_add(*, community: Community, actor: User, name: str, rating: int | str) -> Resource:
    """A new resource (at most five, §8.1.1), rated `14`, `12W` or `9W`."""
    community = lock(community)
    require_gm(community.campaign, actor)
    name = clean_text(name, "the resource a name", 60)
    total = resource_rating(rating, name)
    resources = resources_of(community)
    check_with_rules([*((r.name, r.rating) for r in resources), (name, total)])
    used = {r.position for r in resources}
    position = min(p for p in range(1, rules.MAX_RESOURCES + 1) if p not in used)
    resource = Resource(community=community, name=name, position=position, rating=total)
    resource.full_clean()
    resource.save()
    _setup_step(community, actor, f"{name} added at {resource.rating_text}", [(resource, None)])
    broadcast_community(community)
    return resource


@transaction.atomic
def resource_update(
    *, resource: Resource, actor: User, name: str, rating: int | str | None = None
) -> Resource:
    """Rename a resource (any time) or correct its rating (during setup only; in play,
    ratings change through the rules or a plot event)."""
    community = lock(resource.community)
    require_gm(community.campaign, actor)
    resource = resource_of(community, resource)
    name = clean_text(name, "the resource a name", 60)
    total = resource.rating if rating in (None, "") else resource_rating(rating, name)
    if total != resource.rating:
        require_setup(community)
    others = [(r.name, r.rating) for r in resources_of(community) if r.pk != resource.pk]
    check_with_rules([*others, (name, total)])
    before = resource.rating
    old_name, resource.name, resource.rating = resource.name, name, total
    resource.full_clean()
    resource.save(update_fields=["name", "rating"])
    if total != before:
        _setup_step(community, actor, f"{name} set to {resource.rating_text}", [(resource, before)])
    elif name != old_name:
        summary = f"{old_name} renamed {name}"
        record_step(community, actor=actor, kind=StepKind.SETUP, summary=summary)
    broadcast_community(community)
    return resource


@transaction.atomic
def resource_remove(*, resource: Resource, actor: User) -> None:
    """Remove a resource during setup (in play its history must stay)."""
    community = lock(resource.community)
    require_gm(community.campaign, actor)
    resource = resource_of(community, resource)
    require_setup(community)
    resource.delete()
    record_step(community, actor=actor, kind=StepKind.SETUP, summary=f"{resource.name} removed")
    broadcast_community(community)


def assign_spread(community: Community, actor: User, ranked: Sequence[Resource], why: str) -> None:
    resources = resources_of(community)
    ranked_ids = [r.pk for r in ranked]
    if sorted(ranked_ids) != sorted(r.pk for r in resources) or len(set(ranked_ids)) != len(
        ranked_ids
    ):
        raise ValidationError(
            f"Rank each of {community.name}'s resources exactly once, highest first."
        )
    by_id = {r.pk: r for r in resources}
    try:
        founded = rules.Community.founded([by_id[pk].name for pk in ranked_ids])
    except RulesError as exc:
        raise invalid(exc) from exc
    changed = []
    for pk in ranked_ids:
        resource = by_id[pk]
        rating = founded.resource(resource.name).rating
        if rating != resource.rating:
            changed.append((resource, resource.rating))
            resource.rating = rating
    Resource.objects.bulk_update(resources, ["rating"])
    order = ", ".join(f"{by_id[pk].name} {by_id[pk].rating_text}" for pk in ranked_ids)
    _setup_step(community, actor, f"{why}: {order}", changed)


@transaction.atomic
def community_spread_assign(
    *, community: Community, actor: User, ranked: Sequence[Resource]
) -> Community:
    """Give five resources the §8.1.3 spread in the GM's order, highest first."""
    community = lock(community)
    require_gm(community.campaign, actor)
    require_setup(community)
    assign_spread(community, actor, ranked, "Ratings assigned (§8.1.3)")
    broadcast_community(community)
    return community


@transaction.atomic
def required_use_add(
    *, community: Community, actor: User, resource: Resource, action: str
) -> RequiredResourceUse:
    """Setting design (§8.2.1): `action` always requires drawing on `resource`."""
    community = lock(community)
    require_gm(community.campaign, actor)
    resource = resource_of(community, resource)
    use = RequiredResourceUse(
        community=community, resource=resource, action=clean_text(action, "the action", 120)
    )
    use.full_clean()
    use.save()
    return use


@transaction.atomic
def required_use_remove(*, required_use: RequiredResourceUse, actor: User) -> None:
    community = lock(required_use.community)
    require_gm(community.campaign, actor)
    required_use.delete()
