"""The setup questionnaire (§8.1.3): the GM's questions, the players' answers and the
spread assigned from them."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from campaigns.models import Role
from questworlds_site import inputs
from questworlds_site.requests import AuthenticatedRequest

from .. import forms, selectors, services
from ..models import Question
from .base import attempt, community_for_gm, community_for_user, resources_of
from .page import page_response


@require_GET
def questionnaire(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    return _questionnaire_page(request, campaign_id)


def _questionnaire_page(
    request: AuthenticatedRequest, campaign_id: int, status: int = 200
) -> HttpResponse:
    """The questionnaire; with status 400, after a refused action (its messages)."""
    campaign, role, community = community_for_user(request.user, campaign_id)
    context = {
        "campaign": campaign,
        "community": community,
        "role": role,
        "in_setup": not selectors.has_play_history(community),
        **selectors.questionnaire_context(community, request.user, role),
    }
    if role == Role.GM:
        context["question_form"] = forms.QuestionForm(resources=resources_of(community))
    return render(request, "community/questionnaire.html", context, status=status)


@require_POST
def question_add(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    form = forms.QuestionForm(request.POST, resources=resources_of(community))

    def act() -> str:
        services.question_add(
            community=community,
            actor=request.user,
            text=form.cleaned_data["text"],
            choices=form.choices(),
        )
        return "Question added."

    if attempt(request, form, act):
        return redirect("community:questionnaire", campaign_id)
    return _questionnaire_page(request, campaign_id, status=400)


@require_POST
def question_remove(
    request: AuthenticatedRequest, campaign_id: int, question_id: int
) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)
    question = get_object_or_404(Question, pk=question_id, community=community)

    def act() -> str:
        services.question_remove(question=question, actor=request.user)
        return "Question removed."

    if attempt(request, None, act):
        return redirect("community:questionnaire", campaign_id)
    return _questionnaire_page(request, campaign_id, status=400)


@require_POST
def answer(request: AuthenticatedRequest, campaign_id: int, question_id: int) -> HttpResponse:
    campaign, role, community = community_for_user(request.user, campaign_id)
    if role not in (Role.GM, Role.PLAYER):
        raise PermissionDenied("Only the players answer the questionnaire.")
    question = get_object_or_404(Question, pk=question_id, community=community)
    choice_id = inputs.an_id(request.POST.get("choice"))
    choice = question.choices.filter(pk=choice_id).first() if choice_id else None

    def act() -> str:
        if choice is None:
            raise ValidationError("Choose one of the answers.")
        services.questionnaire_answer(question=question, actor=request.user, choice=choice)
        return "Answer saved."

    if attempt(request, None, act):
        return redirect("community:questionnaire", campaign_id)
    return _questionnaire_page(request, campaign_id, status=400)


@require_POST
def questionnaire_assign(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    community = community_for_gm(request.user, campaign_id)

    def act() -> str:
        services.community_spread_from_questionnaire(community=community, actor=request.user)
        return "Ratings assigned from the questionnaire."

    if attempt(request, None, act):
        return redirect("community:page", campaign_id)
    return page_response(request, campaign_id, status=400)
