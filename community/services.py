"""Every change to a community and its resources (§8).

Each service checks who acts (views check first; this is the last line), runs the rule
through the rules engine's `Community` (contests.rules.community: depletion,
fluctuation, crisis tests, bolstering, cementing, the interval's end, plot events),
stores what the engine changed as `ResourceChange` rows under one `CommunityStep`, and
broadcasts the re-rendered notation table to the campaign's table once the transaction
commits. Bad input raises `ValidationError` with a message for the person who tried,
and changes nothing.

For the live table (contests), the community side of drawing on a resource:

- `community_draw_start(...)`: the lobbying contest (§8.2), rolled here; returns the
  `ResourceDraw` (approved on a victory, else refused).
- `community_draw_settle(...)`: once the contest that used the resource is decided,
  the depletion (Resource Depletion Table); returns a `SettledDraw` whose
  `social_penalty` the table applies to the character's social abilities.
- `community_penalty_from_defeat(...)`, `community_bolster(...)`, `community_concede(...)`
  after other contests (§8.2.2, §8.2.3).

Dice: every rolling service takes `roller` (default `contests.rules.d20`); tests pass
`contests.rules.fixed_rolls(...)`. Rolls are drawn in resource order, each resource's
own roll first and then its resistance's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from campaigns.access import campaign_role
from campaigns.models import Campaign, Role, Session
from characters.models import Ability, AbilityKind, Character
from contests.models import Contest
from contests.rules import Roller, d20
from contests.rules import community as rules
from contests.rules.errors import RulesError
from contests.rules.modifiers import Modifier, target_number
from contests.rules.ratings import Rating, normalise_level, resistance
from contests.rules.simple import simple_contest
from contests.services import ability_rating, ability_states

from .models import (
    Answer,
    AnswerMode,
    Choice,
    Community,
    CommunityStep,
    DrawStatus,
    IntervalRecord,
    Question,
    RequiredResourceUse,
    Resource,
    ResourceChange,
    ResourceDraw,
    StepKind,
    UsedAs,
    rating_text,
)

MAX_CHOICES = 6

RulesAction = Callable[[rules.Community], list[rules.ResourceChange]]


@dataclass(frozen=True)
class SettledDraw:
    """What `community_draw_settle` did: the draw (now settled), the step holding the
    depletion, and the penalty (0 or negative) the character's social and community
    abilities take with community members until the interval ends (§8.2)."""

    draw: ResourceDraw
    step: CommunityStep
    social_penalty: int


# --------------------------------------------------------------------- helpers


def _invalid(exc: RulesError) -> ValidationError:
    return ValidationError(str(exc))


def _require_gm(campaign: Campaign, actor) -> None:
    if campaign_role(campaign, actor) != Role.GM:
        raise PermissionDenied("Only the campaign's GM may do that.")


def _lock(community: Community) -> Community:
    """Reload the community and hold its row until commit: one change at a time."""
    return Community.objects.select_for_update().select_related("campaign").get(pk=community.pk)


def _resources(community: Community) -> list[Resource]:
    return list(community.resources.order_by("position", "id"))


def _resource_of(community: Community, resource: Resource) -> Resource:
    if resource is None or resource.community_id != community.pk:
        raise ValidationError(f"That is not one of {community.name}'s resources.")
    return Resource.objects.get(pk=resource.pk)


def open_session(campaign: Campaign) -> Session | None:
    return Session.objects.filter(campaign=campaign, ended_at__isnull=True).first()


def _require_session(community: Community, what: str) -> Session:
    session = open_session(community.campaign)
    if session is None:
        raise ValidationError(f"{what} happens in play: start a session first.")
    return session


def _contest(community: Community, contest_id: int | None) -> Contest | None:
    if contest_id in (None, ""):
        return None
    contest = Contest.objects.filter(pk=contest_id, campaign_id=community.campaign_id).first()
    if contest is None:
        raise ValidationError(f"There is no contest {contest_id} in {community.campaign.name}.")
    return contest


def _level(outcome_level) -> int:
    try:
        return rules.outcome_level(outcome_level)
    except RulesError as exc:
        raise _invalid(exc) from exc


def _text(value: str, what: str, max_length: int, *, required: bool = True) -> str:
    text = (value or "").strip()
    if required and not text:
        raise ValidationError(f"Give {what}.")
    if len(text) > max_length:
        raise ValidationError(f"{what[0].upper()}{what[1:]} is too long (at most {max_length}).")
    return text


def _rating(value: int | str, name: str) -> int:
    """A resource rating from `14`, `12W`, `7M` or a total; at least 1."""
    try:
        total = Rating.parse(value.strip() if isinstance(value, str) else value).total
    except (RulesError, TypeError) as exc:
        raise ValidationError(f"{name}: {exc}") from exc
    if total < 1:
        raise ValidationError(f"{name}: a resource's rating is at least 1, not {total}.")
    return total


def _check_with_rules(pairs: Sequence[tuple[str, int]]) -> None:
    """Let the rules engine judge a set of resources: at most five (§8.1.1), named,
    no two alike."""
    try:
        rules.Community(list(pairs))
    except RulesError as exc:
        raise _invalid(exc) from exc


def has_play_history(community: Community) -> bool:
    """Play has begun once anything but setup happened: ratings then change only
    through the rules (§8.3) or plot events (§8.4)."""
    return community.steps.exclude(kind=StepKind.SETUP).exists()


def _require_setup(community: Community) -> None:
    if has_play_history(community):
        raise ValidationError(
            f"Play with {community.name} has begun: its ratings now change through play "
            "and plot events (§8.4), not setup."
        )


def _step(community: Community, *, actor, kind: str, summary: str, **fields) -> CommunityStep:
    """Record one action on the community (in the current interval unless told)."""
    step = CommunityStep(
        community=community,
        interval=fields.pop("interval", community.interval_number),
        kind=kind,
        summary=summary[:300],
        actor=actor,
        session=fields.pop("session", None) or open_session(community.campaign),
        **fields,
    )
    step.full_clean()
    step.save()
    return step


def _record(
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


def _run(
    community: Community,
    *,
    actor,
    kind: str,
    summary: str | Callable[[rules.Community], str],
    action: RulesAction,
    **fields,
) -> CommunityStep:
    """Apply one rule to the community through the rules engine and record it: the
    step, each change the engine reports, and the new columns."""
    resources = _resources(community)
    if not resources:
        raise ValidationError(f"{community.name} has no resources yet: the GM sets them up first.")
    state = community.to_rules(resources, better_roll=community.campaign.rules_options.better_roll)
    interval = community.interval_number
    try:
        changes = action(state)
    except RulesError as exc:
        raise _invalid(exc) from exc
    community.apply_rules(state, resources)
    community.save(update_fields=["interval_number", "background_done"])
    Resource.objects.bulk_update(resources, [*Resource.COLUMNS, "crisis_note"])
    # The step belongs to the interval it happened in (an interval's end included).
    step = _step(
        community,
        actor=actor,
        kind=kind,
        summary=summary(state) if callable(summary) else summary,
        interval=interval,
        rolls=state.tests,
        **fields,
    )
    _record(step, resources, changes)
    return step


def _broadcast(community: Community) -> None:
    # Imported here: rendering pulls in templates, which services need not load.
    from .live import broadcast_community

    broadcast_community(community)


# --------------------------------------------------------------------- the community


@transaction.atomic
def community_create(
    *,
    campaign: Campaign,
    actor,
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
    _require_gm(campaign, actor)
    if Community.objects.filter(campaign=campaign).exists():
        raise ValidationError(
            f"{campaign.name} already tracks a community; other communities are "
            "relationship abilities (§8)."
        )
    community = Community(
        campaign=campaign,
        name=_text(name, "the community a name", 120),
        description=(description or "").strip(),
        interval_name=_text(interval_name, "the interval a name (season, voyage…)", 40),
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
    actor,
    name: str,
    description: str = "",
    interval_name: str = "season",
    answer_mode: str = AnswerMode.CONSENSUS,
    social_penalties_linger: bool = False,
) -> Community:
    community = _lock(community)
    _require_gm(community.campaign, actor)
    community.name = _text(name, "the community a name", 120)
    community.description = (description or "").strip()
    community.interval_name = _text(interval_name, "the interval a name (season, voyage…)", 40)
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
    _broadcast(community)
    return community


# --------------------------------------------------------------------- resources (setup)


def _setup_step(
    community: Community, actor, summary: str, changed: Sequence[tuple[Resource, int | None]]
) -> CommunityStep:
    """Record a setup change of ratings: (resource, rating before or None if new)."""
    step = _step(community, actor=actor, kind=StepKind.SETUP, summary=summary)
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
def community_found(*, community: Community, actor, ranked_names: Sequence[str]) -> list[Resource]:
    """Five resources with the §8.1.3 spread, highest first: 12W, 9W, 18, 18, 12.
    Only for a community without resources."""
    community = _lock(community)
    _require_gm(community.campaign, actor)
    if community.resources.exists():
        raise ValidationError(
            f"{community.name} already has resources: rank them to assign the spread instead."
        )
    names = [(name or "").strip() for name in ranked_names]
    try:
        founded = rules.Community.founded(names)
    except RulesError as exc:
        raise _invalid(exc) from exc
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
    _broadcast(community)
    return resources


@transaction.atomic
def resource_add(*, community: Community, actor, name: str, rating: int | str) -> Resource:
    """A new resource (at most five, §8.1.1), rated `14`, `12W` or `9W`."""
    community = _lock(community)
    _require_gm(community.campaign, actor)
    name = _text(name, "the resource a name", 60)
    total = _rating(rating, name)
    resources = _resources(community)
    _check_with_rules([*((r.name, r.rating) for r in resources), (name, total)])
    used = {r.position for r in resources}
    position = min(p for p in range(1, rules.MAX_RESOURCES + 1) if p not in used)
    resource = Resource(community=community, name=name, position=position, rating=total)
    resource.full_clean()
    resource.save()
    _setup_step(community, actor, f"{name} added at {resource.rating_text}", [(resource, None)])
    _broadcast(community)
    return resource


@transaction.atomic
def resource_update(
    *, resource: Resource, actor, name: str, rating: int | str | None = None
) -> Resource:
    """Rename a resource (any time) or correct its rating (during setup only; in play,
    ratings change through the rules or a plot event)."""
    community = _lock(resource.community)
    _require_gm(community.campaign, actor)
    resource = _resource_of(community, resource)
    name = _text(name, "the resource a name", 60)
    total = resource.rating if rating in (None, "") else _rating(rating, name)
    if total != resource.rating:
        _require_setup(community)
    others = [(r.name, r.rating) for r in _resources(community) if r.pk != resource.pk]
    _check_with_rules([*others, (name, total)])
    before = resource.rating
    old_name, resource.name, resource.rating = resource.name, name, total
    resource.full_clean()
    resource.save(update_fields=["name", "rating"])
    if total != before:
        _setup_step(community, actor, f"{name} set to {resource.rating_text}", [(resource, before)])
    elif name != old_name:
        _step(community, actor=actor, kind=StepKind.SETUP, summary=f"{old_name} renamed {name}")
    _broadcast(community)
    return resource


@transaction.atomic
def resource_remove(*, resource: Resource, actor) -> None:
    """Remove a resource during setup (in play its history must stay)."""
    community = _lock(resource.community)
    _require_gm(community.campaign, actor)
    resource = _resource_of(community, resource)
    _require_setup(community)
    resource.delete()
    _step(community, actor=actor, kind=StepKind.SETUP, summary=f"{resource.name} removed")
    _broadcast(community)


def _assign_spread(community: Community, actor, ranked: Sequence[Resource], why: str) -> None:
    resources = _resources(community)
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
        raise _invalid(exc) from exc
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
    *, community: Community, actor, ranked: Sequence[Resource]
) -> Community:
    """Give five resources the §8.1.3 spread in the GM's order, highest first."""
    community = _lock(community)
    _require_gm(community.campaign, actor)
    _require_setup(community)
    _assign_spread(community, actor, ranked, "Ratings assigned (§8.1.3)")
    _broadcast(community)
    return community


@transaction.atomic
def required_use_add(
    *, community: Community, actor, resource: Resource, action: str
) -> RequiredResourceUse:
    """Setting design (§8.2.1): `action` always requires drawing on `resource`."""
    community = _lock(community)
    _require_gm(community.campaign, actor)
    resource = _resource_of(community, resource)
    use = RequiredResourceUse(
        community=community, resource=resource, action=_text(action, "the action", 120)
    )
    use.full_clean()
    use.save()
    return use


@transaction.atomic
def required_use_remove(*, required_use: RequiredResourceUse, actor) -> None:
    community = _lock(required_use.community)
    _require_gm(community.campaign, actor)
    required_use.delete()


# --------------------------------------------------------------------- questionnaire


@transaction.atomic
def question_add(
    *,
    community: Community,
    actor,
    text: str,
    choices: Sequence[tuple[str, Mapping[int, int]]],
) -> Question:
    """A multiple-choice question (§8.1.3). Each choice is (text, {resource id: points});
    the points stay the GM's secret."""
    community = _lock(community)
    _require_gm(community.campaign, actor)
    _require_setup(community)
    resource_ids = set(community.resources.values_list("pk", flat=True))
    cleaned = []
    for choice_text, scores in choices:
        choice_text = (choice_text or "").strip()
        if not choice_text:
            continue
        for resource_id, points in scores.items():
            if resource_id not in resource_ids:
                raise ValidationError("A choice scores a resource the community does not have.")
            if isinstance(points, bool) or not isinstance(points, int) or not -9 <= points <= 9:
                raise ValidationError("A choice gives each resource -9 to 9 points.")
        cleaned.append((choice_text, {str(k): v for k, v in scores.items() if v}))
    if len(cleaned) < 2:
        raise ValidationError("A multiple-choice question needs at least two answers.")
    if len(cleaned) > MAX_CHOICES:
        raise ValidationError(f"A question has at most {MAX_CHOICES} answers.")
    position = (community.questions.aggregate(n=Max("position"))["n"] or 0) + 1
    question = Question(
        community=community, position=position, text=_text(text, "the question", 300)
    )
    question.full_clean()
    question.save()
    for index, (choice_text, scores) in enumerate(cleaned, start=1):
        choice = Choice(question=question, position=index, text=choice_text[:200], scores=scores)
        choice.full_clean()
        choice.save()
    return question


@transaction.atomic
def question_remove(*, question: Question, actor) -> None:
    community = _lock(question.community)
    _require_gm(community.campaign, actor)
    _require_setup(community)
    question.delete()


@transaction.atomic
def questionnaire_answer(*, question: Question, actor, choice: Choice) -> Answer:
    """A player answers (their own answer, or the group's when the community takes
    one answer per question); the GM may record the group's answer too."""
    community = _lock(question.community)
    role = campaign_role(community.campaign, actor)
    consensus = community.answer_mode == AnswerMode.CONSENSUS
    if role not in (Role.PLAYER, Role.GM) or (role == Role.GM and not consensus):
        raise PermissionDenied("Only the players answer the questionnaire.")
    _require_setup(community)
    if choice.question_id != question.pk:
        raise ValidationError("That is not one of this question's answers.")
    if consensus:
        question.answers.exclude(user=actor).delete()
    try:
        with transaction.atomic():
            answer, _ = Answer.objects.update_or_create(
                question=question, user=actor, defaults={"choice": choice}
            )
    except IntegrityError as exc:
        raise ValidationError("That answer was just changed; try again.") from exc
    return answer


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


@transaction.atomic
def community_spread_from_questionnaire(*, community: Community, actor) -> Community:
    """Rank the resources by their questionnaire scores (ties: in the order listed) and
    give them the §8.1.3 spread, highest score highest rating."""
    community = _lock(community)
    _require_gm(community.campaign, actor)
    _require_setup(community)
    if not Answer.objects.filter(question__community=community).exists():
        raise ValidationError("Nobody has answered the questionnaire yet.")
    scores = questionnaire_scores(community)
    ranked = sorted(_resources(community), key=lambda r: (-scores[r.pk], r.position))
    _assign_spread(community, actor, ranked, "Ratings assigned from the questionnaire (§8.1.3)")
    _broadcast(community)
    return community


# --------------------------------------------------------------------- drawing (§8.2)


@transaction.atomic
def community_draw_start(
    *,
    community: Community,
    actor,
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
    community = _lock(community)
    campaign = community.campaign
    role = campaign_role(campaign, actor)
    own = role == Role.PLAYER and character is not None and character.player_id == actor.pk
    if role != Role.GM and not own:
        raise PermissionDenied("Only the GM or the character's player may draw on a resource.")
    session = _require_session(community, "Drawing on a resource")
    resource = _resource_of(community, resource)
    if character is None or character.campaign_id != campaign.pk:
        raise ValidationError(f"Choose a character of {campaign.name}.")
    if (
        ability is None
        or ability.character_id != character.pk
        or ability.follower_id is not None
        or ability.kind == AbilityKind.FLAW
    ):
        raise ValidationError(f"Choose one of {character.name}'s own abilities to lobby with.")
    purpose = _text(purpose, "what the resource is for", 300)
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
        raise _invalid(exc) from exc
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
    _step(
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
    _broadcast(community)
    return draw


@transaction.atomic
def community_draw_settle(
    *, draw: ResourceDraw, actor, outcome_level, contest_id: int | None = None
) -> SettledDraw:
    """The contest that used the resource is decided: deplete the resource by the
    Resource Depletion Table (§8.2; it replaces the usual consequences of defeat).

    `outcome_level` is the contest's outcome for the PC side (-4..4, an `Outcome` or
    words). Returns a `SettledDraw`; its `social_penalty` (negative when the prize was
    not secured, else 0) applies to the character's social and community abilities with
    community members until the interval ends. GM only; needs an open session; a
    draw settles once, in the interval it was approved in.
    """
    community = _lock(draw.community)
    _require_gm(community.campaign, actor)
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
    _require_session(community, "Drawing on a resource")
    if draw.interval != community.interval_number:
        raise ValidationError(
            f"This draw was approved in {community.interval_name} {draw.interval}, which has "
            "ended: it lapsed with its interval."
        )
    level = _level(outcome_level)
    contest = _contest(community, contest_id)
    draw.outcome_level = level
    draw.depletion = rules.depletion_penalty(level)
    draw.social_penalty = rules.social_penalty(level)
    draw.status = DrawStatus.SETTLED
    draw.contest = contest
    draw.settled_at = timezone.now()
    draw.full_clean()
    draw.save()
    step = _run(
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
    _broadcast(community)
    return SettledDraw(draw=draw, step=step, social_penalty=draw.social_penalty)


# --------------------------------------------------------------------- penalties, bolstering


ResourceRule = Callable[[rules.Community, str, str], list[rules.ResourceChange]]


def _on_resource(
    community: Community,
    *,
    actor,
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
    community = _lock(community)
    _require_gm(community.campaign, actor)
    resource = _resource_of(community, resource)
    reason = _text(reason, "the reason", 200, required=reason_required)
    if check is not None:
        check(resource)
    contest = _contest(community, contest_id)
    step = _run(
        community,
        actor=actor,
        kind=kind,
        summary=summary(resource),
        action=lambda state: rule(state, resource.name, reason),
        note=reason,
        contest=contest,
    )
    _broadcast(community)
    return step


@transaction.atomic
def community_penalty_from_defeat(
    *,
    community: Community,
    actor,
    resource: Resource,
    outcome_level=None,
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
    level = None if states else _level(outcome_level)

    def rule(state: rules.Community, name: str, why: str) -> list[rules.ResourceChange]:
        if level is None:
            return state.penalize_after_long_contest(name, list(states), reason=why)
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
    actor,
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
    actor,
    resource: Resource,
    outcome_level,
    contest_id: int | None = None,
    reason: str = "",
) -> CommunityStep:
    """A contest framed for the community's benefit was won: the benefits of victory go
    to the resource (§8.2.3), reversing any crisis (§8.2.5). GM only."""
    level = _level(outcome_level)
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
    actor,
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
    actor,
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


# --------------------------------------------------------------------- the interval cycle


def _rolls(names: Sequence[str], roller: Roller) -> dict[str, tuple[int, int]]:
    """Two rolls per resource, in order: its own, then the resistance's."""
    return {name: (roller(), roller()) for name in names}


@transaction.atomic
def community_background_events(
    *, community: Community, actor, roller: Roller = d20
) -> CommunityStep:
    """Each resource rolls against the average of all resources, once per interval,
    without augments or hero points; the Resource Fluctuation Table's modifier goes to
    its Total column (§8.2.4). GM only."""
    community = _lock(community)
    _require_gm(community.campaign, actor)

    def summary(state: rules.Community) -> str:
        return (
            f"Background events of {community.interval_name} {state.interval}, against the "
            f"average {rating_text(state.average().total)}"
        )

    step = _run(
        community,
        actor=actor,
        kind=StepKind.BACKGROUND,
        summary=summary,
        action=lambda state: state.background_events(_rolls(list(state.resources), roller)),
    )
    _broadcast(community)
    return step


@transaction.atomic
def community_crisis_tests(*, community: Community, actor, roller: Roller = d20) -> CommunityStep:
    """At a session's start, each resource with a penalty rolls against the average of
    all resources; a defeat starts a crisis, or worsens it (§8.2.5). Once per session.
    GM only."""
    community = _lock(community)
    _require_gm(community.campaign, actor)
    session = _require_session(community, "A crisis test")
    if community.crisis_tests_session_id == session.pk:
        raise ValidationError(f"The crisis tests of {session} are done already.")

    def action(state: rules.Community) -> list[rules.ResourceChange]:
        if not state.penalized():
            raise RulesError("no resource carries a penalty: no crisis test is due (§8.2.5)")
        return state.crisis_tests(_rolls(state.penalized(), roller))

    step = _run(
        community,
        actor=actor,
        kind=StepKind.CRISIS,
        summary=f"Crisis tests at the start of {session}",
        action=action,
        session=session,
    )
    community.crisis_tests_session = session
    community.save(update_fields=["crisis_tests_session"])
    _broadcast(community)
    return step


@transaction.atomic
def community_crisis_narrate(
    *, community: Community, actor, resource: Resource, text: str
) -> Resource:
    """The GM narrates what the crisis in a resource looks like (§8.2.5); the page
    shows it until the crisis is reversed or the interval ends."""
    community = _lock(community)
    _require_gm(community.campaign, actor)
    resource = _resource_of(community, resource)
    if not resource.crisis:
        raise ValidationError(f"{resource.name} is not in crisis.")
    resource.crisis_note = _text(text, "what the community suffers", 500)
    resource.save(update_fields=["crisis_note"])
    _step(
        community,
        actor=actor,
        kind=StepKind.CRISIS_NOTE,
        summary=f"Crisis in {resource.name}: {resource.crisis_note}",
    )
    _broadcast(community)
    return resource


@transaction.atomic
def community_interval_end(*, community: Community, actor, interval: int) -> CommunityStep | None:
    """End interval `interval` (§8.3): PC-column bonuses raise ratings (+1 per 3, at
    most +3), Total penalties lower them (-1 per 3, at most -2), every modifier resets
    and the next interval's notation table starts (its background events come next).

    Idempotent: ending an interval that already ended changes nothing and returns None
    (a resent form, a double click). GM only.
    """
    community = _lock(community)
    _require_gm(community.campaign, actor)
    if isinstance(interval, bool) or not isinstance(interval, int):
        raise ValidationError("Say which interval ends, by its number.")
    if interval < community.interval_number:
        return None
    resources = _resources(community)
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
    step = _run(
        community,
        actor=actor,
        kind=StepKind.INTERVAL_END,
        summary=f"End of {label}: ratings change (§8.3) and modifiers reset",
        action=lambda state: state.end_interval(interval),
    )
    IntervalRecord.objects.create(community=community, number=interval, rows=rows, ended_by=actor)
    _broadcast(community)
    return step
