"""Read-side helpers for the community page, each in a fixed number of queries however
long the community's history grows (the page shows one interval's changes at a time)."""

from __future__ import annotations

from typing import Any

from django.db.models import Case, Prefetch, Q, When

from characters.models import Ability, AbilityKind
from contests.core.rules import community as rules
from contests.core.rules.errors import RulesError

from .charts import resource_charts
from .models import (
    Answer,
    AnswerMode,
    Choice,
    Community,
    CommunityStep,
    DrawStatus,
    Question,
    Resource,
    ResourceChange,
    ResourceDraw,
    StepKind,
    rating_text,
)


def has_play_history(community: Community) -> bool:
    """Play has begun once anything but setup happened: ratings then change only
    through the rules (§8.3) or plot events (§8.4)."""
    return community.steps.exclude(kind=StepKind.SETUP).exists()


def questionnaire_scores(community: Community) -> dict[int, int]:
    """Each resource's questionnaire score: the points of every answer given."""
    scores = {pk: 0 for pk in community.resources.values_list("pk", flat=True)}
    for choice_scores in Answer.objects.filter(question__community=community).values_list(
        "choice__scores", flat=True
    ):
        for resource_id, points in choice_scores.items():
            if int(resource_id) in scores:
                scores[int(resource_id)] += points
    return scores


def _steps(community: Community, interval: int) -> list[CommunityStep]:
    """One interval's steps, newest first, with their changes (two queries)."""
    changes = ResourceChange.objects.select_related("resource").order_by("id")
    return list(
        community.steps.filter(interval=interval)
        .select_related("actor", "contest", "session")
        .prefetch_related(Prefetch("changes", queryset=changes))
        .order_by("-created_at", "-id")
    )


def notation_context(community: Community) -> dict[str, Any]:
    """The live notation table (§8.1.4): the same for every member, so one rendering
    can be broadcast to all of them."""
    resources = list(community.resources.all())
    now = community.interval_number
    # This interval's draws, and with §8.2's optional rule the earlier failed ones whose
    # social penalty may still linger: one query either way.
    wanted = Q(interval=now)
    if community.social_penalties_linger:
        wanted |= Q(interval__lt=now, social_penalty__lt=0)
    draws = list(
        community.draws.filter(wanted)
        .select_related("resource", "contest")
        .order_by("interval", "created_at", "id")
    )
    social_penalties = []
    for draw in draws:
        draw.penalty_in_force = rules.social_penalty_in_force(
            draw.social_penalty, draw.interval, now, linger=community.social_penalties_linger
        )
        if draw.penalty_in_force:
            social_penalties.append(draw)
    return {
        "community": community,
        "campaign_id": community.campaign_id,
        "resources": resources,
        "average": rating_text(rules.average_rating([r.rating for r in resources]).total)
        if resources
        else "",
        "crises": [r for r in resources if r.crisis],
        "steps": _steps(community, community.interval_number),
        "social_penalties": social_penalties,
        "approved_draws": [
            d for d in draws if d.interval == now and d.status == DrawStatus.APPROVED
        ],
    }


def chart_context(community: Community, resources: list[Resource] | None = None) -> dict:
    resources = list(community.resources.all()) if resources is None else resources
    records = list(community.intervals.all())
    return {
        "community": community,
        "interval_records": records,
        "charts": resource_charts(
            resources, records, community.interval_number, community.interval_name
        )
        if resources
        else [],
    }


def interval_end_preview(community: Community, resources: list[Resource]) -> list[str]:
    """What ending the interval now would do (§8.3), computed by the rules engine on a
    copy: one line per rating that would change."""
    if not resources:
        return []
    state = community.to_rules(resources, better_roll=community.campaign.rules_options.better_roll)
    try:
        changes = state.end_interval(community.interval_number)
    except RulesError:
        return []
    return [
        f"{c.resource}: {rating_text(c.before)} → {rating_text(c.after)} ({c.reason})"
        for c in changes
        if c.column == "rating"
    ]


def past_interval_context(community: Community, number: int) -> dict[str, Any] | None:
    """A finished interval's notation table as it ended, and its changes."""
    record = community.intervals.filter(number=number).first()
    if record is None:
        return None
    return {"record": record, "steps": _steps(community, number)}


def questionnaire_context(community: Community, user, role: str) -> dict[str, Any]:
    """The questions with their choices, each player's (or the group's) answer, and for
    the GM the secret scores and each resource's total."""
    questions = list(
        community.questions.prefetch_related(
            Prefetch("choices", queryset=Choice.objects.order_by("position", "id")),
            Prefetch("answers", queryset=Answer.objects.select_related("user", "choice")),
        )
    )
    consensus = community.answer_mode == AnswerMode.CONSENSUS
    for question in questions:
        answers = list(question.answers.all())
        question.group_answer = answers[0] if consensus and answers else None
        question.my_answer = next((a for a in answers if a.user_id == user.pk), None)
        question.answer_list = answers
    context: dict[str, Any] = {"questions": questions, "consensus": consensus}
    if role == "gm":
        resources = list(community.resources.all())
        names = {str(r.pk): r.name for r in resources}
        for question in questions:
            for choice in question.choices.all():
                choice.score_text = ", ".join(
                    f"{names.get(k, '?')} {v:+d}" for k, v in choice.scores.items()
                )
        scores = questionnaire_scores(community)
        context["scores"] = [(r, scores.get(r.pk, 0)) for r in resources]
    return context


def draw_abilities(community: Community) -> list[Ability]:
    """The campaign's characters' own abilities that can lobby (not flaws, not a
    sidekick's), relationships first, with their characters."""
    relationships_first = Case(When(kind=AbilityKind.RELATIONSHIP, then=0), default=1)
    return list(
        Ability.objects.filter(character__campaign_id=community.campaign_id, follower=None)
        .exclude(kind=AbilityKind.FLAW)
        .select_related("character", "keyword")
        .order_by("character__name", "character_id", relationships_first, "position", "id")
    )


def page_context(
    community: Community, *, role: str, user, interval: int | None = None
) -> dict[str, Any]:
    """Everything the community page shows to one member."""
    context = notation_context(community)
    resources = context["resources"]
    context.update(chart_context(community, resources))
    context["records"] = [record.number for record in context["interval_records"]]
    context["selected"] = (
        past_interval_context(community, interval)
        if interval and interval != community.interval_number
        else None
    )
    context["role"] = role
    context["in_setup"] = not has_play_history(community)
    context["question_count"] = Question.objects.filter(community=community).count()
    if role == "gm":
        session = community.campaign.open_session()
        context["open_session"] = session
        context["crisis_due"] = (
            session is not None
            and community.crisis_tests_session_id != session.pk
            and any(r.total < 0 for r in resources)
        )
        context["preview"] = interval_end_preview(community, resources)
        context["cementable"] = [r for r in resources if r.background > 0]
    return context


def draws_context(community: Community) -> dict[str, Any]:
    """The GM's page for drawing on resources by hand: this interval's draws."""
    return {
        "draws": list(
            ResourceDraw.objects.filter(community=community, interval=community.interval_number)
            .select_related("resource", "contest", "session")
            .order_by("-created_at", "-id")
        ),
        "open_session": community.campaign.open_session(),
    }


# How many of the interval's draws the live table lists (newest first).
TABLE_DRAWS = 12


def table_draws_context(community: Community) -> dict[str, Any]:
    """What every page at the live table shows of the community's draws (§8.2): this
    interval's, newest first, with their lobbying and, once used, their depletion; and
    the approved ones the GM's frame form offers (the draws page shows the same to all
    members, so one copy serves every reader)."""
    draws = list(
        community.draws.filter(interval=community.interval_number)
        .select_related("resource", "contest")
        .order_by("-id")[:TABLE_DRAWS]
    )
    return {
        "community": community,
        "table_draws": draws,
        "draws": list(
            community.draws.filter(status=DrawStatus.APPROVED)
            .select_related("resource")
            .order_by("id")
        ),
    }


def lobbying_abilities(community: Community, user, *, gm: bool) -> list[Ability]:
    """The abilities `user` may lobby with at the table (§8.2): the GM any character's,
    a player their own characters' (`draw_abilities` keeps out flaws and sidekicks')."""
    abilities = draw_abilities(community)
    return abilities if gm else [a for a in abilities if a.character.player_id == user.pk]
