"""The setup questionnaire (§8.1.3): the GM's multiple-choice questions, whose
points stay secret, the players' (or the group's) answers, and the spread assigned from
the scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max

from campaigns.access import campaign_role
from campaigns.models import Role
from questworlds_site.accounts.models import User

from ..live import broadcast_community
from ..models import Answer, AnswerMode, Choice, Community, Question
from ..selectors import questionnaire_scores
from .base import clean_text, lock, require_gm, require_setup, resources_of
from .setup import assign_spread

MAX_CHOICES = 6


@transaction.atomic
def question_add(
    *,
    community: Community,
    actor: User,
    text: str,
    choices: Sequence[tuple[str, Mapping[int, int]]],
) -> Question:
    """A multiple-choice question (§8.1.3). Each choice is (text, {resource id: points});
    the points stay the GM's secret."""
    community = lock(community)
    require_gm(community.campaign, actor)
    require_setup(community)
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
        community=community, position=position, text=clean_text(text, "the question", 300)
    )
    question.full_clean()
    question.save()
    for index, (label, points_by_id) in enumerate(cleaned, start=1):
        choice = Choice(question=question, position=index, text=label[:200], scores=points_by_id)
        choice.full_clean()
        choice.save()
    return question


@transaction.atomic
def question_remove(*, question: Question, actor: User) -> None:
    community = lock(question.community)
    require_gm(community.campaign, actor)
    require_setup(community)
    question.delete()


@transaction.atomic
def questionnaire_answer(*, question: Question, actor: User, choice: Choice) -> Answer:
    """A player answers (their own answer, or the group's when the community takes
    one answer per question); the GM may record the group's answer too."""
    community = lock(question.community)
    role = campaign_role(community.campaign, actor)
    consensus = community.answer_mode == AnswerMode.CONSENSUS
    if role not in (Role.PLAYER, Role.GM) or (role == Role.GM and not consensus):
        raise PermissionDenied("Only the players answer the questionnaire.")
    require_setup(community)
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


@transaction.atomic
def community_spread_from_questionnaire(*, community: Community, actor: User) -> Community:
    """Rank the resources by their questionnaire scores (ties: in the order listed) and
    give them the §8.1.3 spread, highest score highest rating."""
    community = lock(community)
    require_gm(community.campaign, actor)
    require_setup(community)
    if not Answer.objects.filter(question__community=community).exists():
        raise ValidationError("Nobody has answered the questionnaire yet.")
    scores = questionnaire_scores(community)
    ranked = sorted(resources_of(community), key=lambda r: (-scores[r.pk], r.position))
    assign_spread(community, actor, ranked, "Ratings assigned from the questionnaire (§8.1.3)")
    broadcast_community(community)
    return community
