"""A campaign's seasons and sessions: starting them, ending a session, and its title
and recap (drafted from the table's events, edited and published by the GM)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from questworlds_site.requests import AuthenticatedRequest

from .. import services
from ..access import get_campaign_for_gm
from ..forms import SeasonStartForm, SessionEditForm, SessionEndForm, SessionStartForm
from ..models import Session
from ..recap import draft_recap
from .campaign import _form_page, _posted


def season_start(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    form = SeasonStartForm(
        _posted(request), initial={"progression": campaign.resistance_progression}
    )
    if request.method == "POST" and form.is_valid():
        try:
            season = services.season_start(
                campaign=campaign, actor=request.user, **form.cleaned_data
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, f"{season} begins; base resistance {season.base_resistance}.")
            return redirect("campaign_detail", campaign.pk)
    intro = (
        f"The base resistance is now {campaign.rules_options.base_resistance}. "
        "In a new season it usually rises, and last season's opposition become mooks (§2.9)."
    )
    return _form_page(
        request, form, campaign=campaign, title="Start a new season", intro=intro, submit="Start"
    )


def session_start(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    form = SessionStartForm(_posted(request), campaign=campaign)
    if request.method == "POST" and form.is_valid():
        try:
            session = services.session_start(
                campaign=campaign,
                actor=request.user,
                title=form.cleaned_data["title"],
                attendees=form.cleaned_data["attendees"],
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, f"{session} has started; hero points are refreshed.")
            return redirect("campaign_detail", campaign.pk)
    economy = campaign.rules_options.hero_point_economy
    intro = (
        "Each attending character gains 1 hero point (advances economy, §7.1)."
        if economy == "advances"
        else "Each attending character gets 3 hero points (classic economy, 1e §6)."
    )
    return _form_page(
        request, form, campaign=campaign, title="Start a session", intro=intro, submit="Start"
    )


def _session(campaign, number: int) -> Session:
    return get_object_or_404(Session, campaign=campaign, number=number)


def session_end(request: AuthenticatedRequest, campaign_id: int, number: int) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    session = _session(campaign, number)
    form = SessionEndForm(_posted(request), initial={"recap": session.recap})
    if request.method == "POST" and form.is_valid():
        try:
            services.session_end(
                session=session, actor=request.user, recap=form.cleaned_data["recap"]
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(
                request,
                f"{session} has ended. Its recap is drafted below: edit it and publish it "
                "when it reads right; the players see nothing of it until then.",
            )
            return redirect("session_edit", campaign.pk, session.number)
    economy = campaign.rules_options.hero_point_economy
    intro = (
        "Unspent hero points become experience (advances, §7.1)"
        if economy == "advances"
        else "Unspent hero points are lost (classic, 1e §6)"
    ) + (
        "; hurt and fresh states wane (§2.11.4). Leave the recap empty and it is drafted "
        "from what happened at the table; either way you edit it and publish it next."
    )
    return _form_page(
        request, form, campaign=campaign, title=f"End {session}", intro=intro, submit="End it"
    )


# What each of the recap page's buttons does once the title and recap are saved.
RECAP_SAVED = {
    SessionEditForm.SAVE: "The session is saved.",
    SessionEditForm.PUBLISH: "The recap is published: the players and the archive show it.",
    SessionEditForm.WITHDRAW: "The recap is a draft again: the players no longer see it.",
}


def session_edit(request: AuthenticatedRequest, campaign_id: int, number: int) -> HttpResponse:
    """The session's title and recap: saved, published, taken back to a draft, or drafted
    again from the session's events with the chat lines the GM picks (issue 30)."""
    campaign = get_campaign_for_gm(request.user, campaign_id)
    session = _session(campaign, number)
    form = SessionEditForm(
        _posted(request), session=session, initial={"title": session.title, "recap": session.recap}
    )
    redrafted = False
    if request.method == "POST" and form.is_valid():
        intent = form.cleaned_data["intent"] or SessionEditForm.SAVE
        chat = form.cleaned_data["chat"]
        if intent == SessionEditForm.REDRAFT:
            # Nothing is saved: the new draft replaces the text on the page only, so
            # what the GM wrote is lost only if they save over it.
            recap = draft_recap(session, chat=chat)
            initial = {"title": form.cleaned_data["title"], "recap": recap, "chat": chat}
            form = SessionEditForm(session=session, initial=initial)
            redrafted = True
        else:
            try:
                _save_recap(request, session, form.cleaned_data, intent)
            except ValidationError as exc:
                form.add_error(None, exc)
            else:
                messages.success(request, RECAP_SAVED[intent])
                return redirect("archive_session", campaign.pk, session.number)
    session.refresh_from_db()
    status = 400 if form.is_bound and form.errors else 200
    context = {"form": form, "campaign": campaign, "session": session, "redrafted": redrafted}
    return render(request, "campaigns/session_recap.html", context, status=status)


@transaction.atomic
def _save_recap(request: AuthenticatedRequest, session: Session, data: dict, intent: str) -> None:
    services.session_update(
        session=session, actor=request.user, title=data["title"], recap=data["recap"]
    )
    if intent == SessionEditForm.PUBLISH:
        services.session_recap_publish(session=session, actor=request.user)
    elif intent == SessionEditForm.WITHDRAW:
        services.session_recap_withdraw(session=session, actor=request.user)
