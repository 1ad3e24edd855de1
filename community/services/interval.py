"""The interval cycle: background events (§8.2.4), crisis tests at a session's start
and their narration (§8.2.5), and the interval's end (§8.3).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.db import transaction

from campaigns.models import Campaign
from contests.core.rules import Roller, d20
from contests.core.rules import community as rules
from contests.core.rules.errors import RulesError
from questworlds_site.accounts.models import User

from ..live import broadcast_community
from ..models import Community, CommunityStep, IntervalRecord, Resource, StepKind, rating_text
from .base import (
    clean_text,
    lock,
    record_step,
    require_gm,
    require_session,
    resource_of,
    resources_of,
    run_rule,
)


def _rolls(names: Sequence[str], roller: Roller) -> dict[str, tuple[int, int]]:
    """Two rolls per resource, in order: its own, then the resistance's."""
    return {name: (roller(), roller()) for name in names}


@transaction.atomic
def community_background_events(
    *, community: Community, actor: User, roller: Roller = d20
) -> CommunityStep:
    """Each resource rolls against the average of all resources, once per interval,
    without augments or hero points; the Resource Fluctuation Table's modifier goes to
    its Total column (§8.2.4). GM only."""
    community = lock(community)
    require_gm(community.campaign, actor)

    def summary(state: rules.Community) -> str:
        return (
            f"Background events of {community.interval_name} {state.interval}, against the "
            f"average {rating_text(state.average().total)}"
        )

    step = run_rule(
        community,
        actor=actor,
        kind=StepKind.BACKGROUND,
        summary=summary,
        action=lambda state: state.background_events(_rolls(list(state.resources), roller)),
    )
    broadcast_community(community)
    return step


@transaction.atomic
def community_crisis_tests(
    *, community: Community, actor: User, roller: Roller = d20
) -> CommunityStep:
    """At a session's start, each resource with a penalty rolls against the average of
    all resources; a defeat starts a crisis, or worsens it (§8.2.5). Once per session.
    GM only."""
    community = lock(community)
    require_gm(community.campaign, actor)
    session = require_session(community, "A crisis test")
    if community.crisis_tests_session_id == session.pk:
        raise ValidationError(f"The crisis tests of {session} are done already.")

    def action(state: rules.Community) -> list[rules.ResourceChange]:
        if not state.penalized():
            raise RulesError("no resource carries a penalty: no crisis test is due (§8.2.5)")
        return state.crisis_tests(_rolls(state.penalized(), roller))

    step = run_rule(
        community,
        actor=actor,
        kind=StepKind.CRISIS,
        summary=f"Crisis tests at the start of {session}",
        action=action,
        session=session,
    )
    community.crisis_tests_session = session
    community.save(update_fields=["crisis_tests_session"])
    broadcast_community(community)
    return step


def community_session_start(
    *, campaign: Campaign, actor: User, roller: Roller = d20
) -> CommunityStep | None:
    """What the campaign's community does as a session starts (§8.2.5): when a resource
    carries a penalty, the crisis tests. None when the campaign tracks no community or
    no test is due. `campaigns.services.session_start` calls it, inside its transaction,
    once the new session is open; it is the one way campaigns reach the community."""
    community = Community.objects.filter(campaign=campaign).first()
    if community is None or not community.resources.filter(total__lt=0).exists():
        return None
    return community_crisis_tests(community=community, actor=actor, roller=roller)


@transaction.atomic
def community_crisis_narrate(
    *, community: Community, actor: User, resource: Resource, text: str
) -> Resource:
    """The GM narrates what the crisis in a resource looks like (§8.2.5); the page
    shows it until the crisis is reversed or the interval ends."""
    community = lock(community)
    require_gm(community.campaign, actor)
    resource = resource_of(community, resource)
    if not resource.crisis:
        raise ValidationError(f"{resource.name} is not in crisis.")
    resource.crisis_note = clean_text(text, "what the community suffers", 500)
    resource.save(update_fields=["crisis_note"])
    record_step(
        community,
        actor=actor,
        kind=StepKind.CRISIS_NOTE,
        summary=f"Crisis in {resource.name}: {resource.crisis_note}",
    )
    broadcast_community(community)
    return resource


@transaction.atomic
def community_interval_end(
    *, community: Community, actor: User, interval: int
) -> CommunityStep | None:
    """End interval `interval` (§8.3): PC-column bonuses raise ratings (+1 per 3, at
    most +3), Total penalties lower them (-1 per 3, at most -2), every modifier resets
    and the next interval's notation table starts (its background events come next).

    Idempotent: ending an interval that already ended changes nothing and returns None
    (a resent form, a double click). GM only.
    """
    community = lock(community)
    require_gm(community.campaign, actor)
    if isinstance(interval, bool) or not isinstance(interval, int):
        raise ValidationError("Say which interval ends, by its number.")
    if interval < community.interval_number:
        return None
    resources = resources_of(community)
    rows = [
        {
            "id": r.pk,
            "name": r.name,
            "rating": r.rating,
            "rating_text": r.rating_text,
            "effective_text": r.effective_text,
            **{column: getattr(r, column) for column in ("total", "pc", "background", "crisis")},
        }
        for r in resources
    ]
    label = f"{community.interval_name} {interval}"
    step = run_rule(
        community,
        actor=actor,
        kind=StepKind.INTERVAL_END,
        summary=f"End of {label}: ratings change (§8.3) and modifiers reset",
        action=lambda state: state.end_interval(interval),
    )
    IntervalRecord.objects.create(community=community, number=interval, rows=rows, ended_by=actor)
    broadcast_community(community)
    return step
