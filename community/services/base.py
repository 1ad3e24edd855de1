"""What every community service shares: who may act, locking the community, cleaning
input into plain messages, and recording a step with the changes the rules engine made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError

from campaigns.access import campaign_role
from campaigns.models import Campaign, Role, Session
from contests.core.rules import community as rules
from contests.core.rules.errors import RulesError
from contests.core.rules.ratings import Rating
from contests.models import Contest
from questworlds_site.accounts.models import User

from ..models import Community, CommunityStep, Resource, ResourceChange
from ..selectors import has_play_history

RulesAction = Callable[[rules.Community], list[rules.ResourceChange]]


def invalid(exc: RulesError) -> ValidationError:
    return ValidationError(str(exc))


def require_gm(campaign: Campaign, actor: User) -> None:
    if campaign_role(campaign, actor) != Role.GM:
        raise PermissionDenied("Only the campaign's GM may do that.")


def lock(community: Community) -> Community:
    """Reload the community and hold its row until commit: one change at a time."""
    return Community.objects.select_for_update().select_related("campaign").get(pk=community.pk)


def resources_of(community: Community) -> list[Resource]:
    return list(community.resources.order_by("position", "id"))


def resource_of(community: Community, resource: Resource) -> Resource:
    if resource is None or resource.community_id != community.pk:
        raise ValidationError(f"That is not one of {community.name}'s resources.")
    return Resource.objects.get(pk=resource.pk)


def require_session(community: Community, what: str) -> Session:
    session = community.campaign.open_session()
    if session is None:
        raise ValidationError(f"{what} happens in play: start a session first.")
    return session


def contest_of(community: Community, contest_id: int | None) -> Contest | None:
    if contest_id is None:
        return None
    contest = Contest.objects.filter(pk=contest_id, campaign_id=community.campaign_id).first()
    if contest is None:
        raise ValidationError(f"There is no contest {contest_id} in {community.campaign.name}.")
    return contest


def level_of(outcome_level: rules.OutcomeLike) -> int:
    try:
        return rules.outcome_level(outcome_level)
    except RulesError as exc:
        raise invalid(exc) from exc


def clean_text(value: str, what: str, max_length: int, *, required: bool = True) -> str:
    cleaned = (value or "").strip()
    if required and not cleaned:
        raise ValidationError(f"Give {what}.")
    if len(cleaned) > max_length:
        raise ValidationError(f"{what[0].upper()}{what[1:]} is too long (at most {max_length}).")
    return cleaned


def resource_rating(value: int | str, name: str) -> int:
    """A resource rating from `14`, `12W`, `7M` or a total; at least 1."""
    try:
        total = Rating.parse(value.strip() if isinstance(value, str) else value).total
    except (RulesError, TypeError) as exc:
        raise ValidationError(f"{name}: {exc}") from exc
    if total < 1:
        raise ValidationError(f"{name}: a resource's rating is at least 1, not {total}.")
    return total


def check_with_rules(pairs: Sequence[tuple[str, int]]) -> None:
    """Let the rules engine judge a set of resources: at most five (§8.1.1), named,
    no two alike."""
    try:
        rules.Community(list(pairs))
    except RulesError as exc:
        raise invalid(exc) from exc


def require_setup(community: Community) -> None:
    if has_play_history(community):
        raise ValidationError(
            f"Play with {community.name} has begun: its ratings now change through play "
            "and plot events (§8.4), not setup."
        )


def record_step(
    community: Community, *, actor: User, kind: str, summary: str, **fields: Any
) -> CommunityStep:
    """Record one action on the community (in the current interval unless told)."""
    step = CommunityStep(
        community=community,
        interval=fields.pop("interval", community.interval_number),
        kind=kind,
        summary=summary[:300],
        actor=actor,
        session=fields.pop("session", None) or community.campaign.open_session(),
        **fields,
    )
    step.full_clean()
    step.save()
    return step


def record_changes(
    step: CommunityStep, resources: Sequence[Resource], changes: Sequence[rules.ResourceChange]
) -> None:
    by_name = {resource.name.casefold(): resource for resource in resources}
    ResourceChange.objects.bulk_create(
        ResourceChange(
            step=step,
            resource=by_name[change.resource.casefold()],
            column=change.column,
            before=change.before,
            after=change.after,
            reason=change.reason[:300],
        )
        for change in changes
    )


def run_rule(
    community: Community,
    *,
    actor: User,
    kind: str,
    summary: str | Callable[[rules.Community], str],
    action: RulesAction,
    **fields: Any,
) -> CommunityStep:
    """Apply one rule to the community through the rules engine and record it: the
    step, each change the engine reports, and the new columns."""
    resources = resources_of(community)
    if not resources:
        raise ValidationError(f"{community.name} has no resources yet: the GM sets them up first.")
    state = community.to_rules(resources, better_roll=community.campaign.rules_options.better_roll)
    interval = community.interval_number
    try:
        changes = action(state)
    except RulesError as exc:
        raise invalid(exc) from exc
    community.apply_rules(state, resources)
    community.save(update_fields=["interval_number", "background_done"])
    Resource.objects.bulk_update(resources, [*Resource.COLUMNS, "crisis_note"])
    # The step belongs to the interval it happened in (an interval's end included).
    step = record_step(
        community,
        actor=actor,
        kind=kind,
        summary=summary(state) if callable(summary) else summary,
        interval=interval,
        rolls=state.tests,
        **fields,
    )
    record_changes(step, resources, changes)
    return step
