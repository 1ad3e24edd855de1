"""What other contests do to a resource, applied by the GM: a defeat's penalty
(§8.2.2), a withdrawal (R17), bolstering (§8.2.3), cementing the background bonus
(§8.2.6) and plot events (§8.4).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.core.exceptions import ValidationError
from django.db import transaction

from contests.core.rules import community as rules
from questworlds_site.accounts.models import User

from ..live import broadcast_community
from ..models import Community, CommunityStep, Resource, StepKind
from .base import clean_text, contest_of, level_of, lock, require_gm, resource_of, run_rule

ResourceRule = Callable[[rules.Community, str, str], list[rules.ResourceChange]]


def _on_resource(
    community: Community,
    *,
    actor: User,
    resource: Resource,
    kind: str,
    summary: Callable[[Resource], str],
    rule: ResourceRule,
    reason: str,
    contest_id: int | None,
    reason_required: bool = False,
    check: Callable[[Resource], None] | None = None,
) -> CommunityStep:
    """One rule applied to one resource by the GM: `rule(state, resource name, reason)`
    runs on the rules engine's state; the step links the contest that caused it."""
    community = lock(community)
    require_gm(community.campaign, actor)
    resource = resource_of(community, resource)
    reason = clean_text(reason, "the reason", 200, required=reason_required)
    if check is not None:
        check(resource)
    contest = contest_of(community, contest_id)
    step = run_rule(
        community,
        actor=actor,
        kind=kind,
        summary=summary(resource),
        action=lambda state: rule(state, resource.name, reason),
        note=reason,
        contest=contest,
    )
    broadcast_community(community)
    return step


@transaction.atomic
def community_penalty_from_defeat(
    *,
    community: Community,
    actor: User,
    resource: Resource,
    outcome_level: rules.OutcomeLike | None = None,
    states: Sequence[str] | None = None,
    contest_id: int | None = None,
    reason: str = "",
) -> CommunityStep:
    """A defeat's penalty lands on a resource (§8.2.2): give `outcome_level` for a
    simple contest (Consequences of Defeat: -3, -6, -9), or `states`, the states of
    adversity the defeated group members suffered in a long contest (the second worst
    counts). GM only."""
    if (outcome_level in (None, "")) == (not states):
        raise ValidationError(
            "Give either the simple contest's outcome or the long contest's states of "
            "adversity, not both."
        )
    level = None
    if not states:
        assert outcome_level is not None, "given when no states are (checked above)"
        level = level_of(outcome_level)

    def rule(state: rules.Community, name: str, why: str) -> list[rules.ResourceChange]:
        if level is None:
            return state.penalize_after_long_contest(name, list(states or ()), reason=why)
        return state.penalize(name, level, reason=why)

    what = "after a long contest" if level is None else f"after a {rules.describe_level(level)}"
    return _on_resource(
        community,
        actor=actor,
        resource=resource,
        kind=StepKind.PENALTY,
        summary=lambda r: f"Penalty to {r.name} {what}",
        rule=rule,
        reason=reason,
        contest_id=contest_id,
    )


@transaction.atomic
def community_concede(
    *,
    community: Community,
    actor: User,
    resource: Resource,
    contest_id: int | None = None,
    reason: str = "",
) -> CommunityStep:
    """The group conceded a contest by withdrawing: the resource is depleted as by a
    major defeat (§8.2.2, R17). GM only."""
    return _on_resource(
        community,
        actor=actor,
        resource=resource,
        kind=StepKind.WITHDRAWAL,
        summary=lambda r: f"Withdrew from a contest: {r.name} depleted as by a major defeat",
        rule=lambda state, name, why: state.withdraw(name, reason=why),
        reason=reason,
        contest_id=contest_id,
    )


@transaction.atomic
def community_bolster(
    *,
    community: Community,
    actor: User,
    resource: Resource,
    outcome_level: rules.OutcomeLike,
    contest_id: int | None = None,
    reason: str = "",
) -> CommunityStep:
    """A contest framed for the community's benefit was won: the benefits of victory go
    to the resource (§8.2.3), reversing any crisis (§8.2.5). GM only."""
    level = level_of(outcome_level)
    return _on_resource(
        community,
        actor=actor,
        resource=resource,
        kind=StepKind.BOLSTER,
        summary=lambda r: f"{r.name} bolstered after a {rules.describe_level(level)}",
        rule=lambda state, name, why: state.bolster(name, level, reason=why),
        reason=reason,
        contest_id=contest_id,
    )


@transaction.atomic
def community_cement(
    *,
    community: Community,
    actor: User,
    resource: Resource,
    contest_id: int | None = None,
    reason: str = "",
) -> CommunityStep:
    """The heroes overcame a major story obstacle to cement this interval's background
    bonus: it moves to the PC column (§8.2.6). GM only."""
    return _on_resource(
        community,
        actor=actor,
        resource=resource,
        kind=StepKind.CEMENT,
        summary=lambda r: f"{r.name}'s background bonus cemented",
        rule=lambda state, name, why: state.cement(name, reason=why),
        reason=reason,
        contest_id=contest_id,
    )


@transaction.atomic
def community_plot_event(
    *,
    community: Community,
    actor: User,
    resource: Resource,
    change: int,
    reason: str,
    contest_id: int | None = None,
) -> CommunityStep:
    """A remarkable triumph or catastrophe changes a rating directly (§8.4); the GM
    says why. A rating never drops below 1."""
    if isinstance(change, bool) or not isinstance(change, int) or change == 0:
        raise ValidationError(
            "A plot event changes the rating by a whole number, such as +3 or -2."
        )

    def check(resource: Resource) -> None:
        if resource.rating + change < 1:
            raise ValidationError(
                f"{resource.name} is {resource.rating_text}: a plot event can lower it to 1 "
                "at most."
            )

    return _on_resource(
        community,
        actor=actor,
        resource=resource,
        kind=StepKind.PLOT,
        summary=lambda r: f"Plot event: {r.name} {change:+d}",
        rule=lambda state, name, why: state.plot_event(name, change, reason=why),
        reason=reason,
        contest_id=contest_id,
        reason_required=True,
        check=check,
    )
