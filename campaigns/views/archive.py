"""The campaign's archive, for its members and on its public link: the timeline, each
session, the contests (filtered and paged), each contest, and the search."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponse
from django.shortcuts import render

from contests import selectors as table_selectors
from contests.models import ContestKind
from questworlds_site.requests import AuthenticatedRequest, HtmxRequest

from .. import selectors
from ..access import ArchiveViewer, get_archive_for_public_link, get_archive_for_user

# A search is a few words (RejectNulMiddleware refuses any query value past 1,000).
SEARCH_MAX = 200


def _archive_context(viewer: ArchiveViewer, **context) -> dict:
    return {"viewer": viewer, "campaign": viewer.campaign, "role": viewer.role, **context}


def _timeline(request: HtmxRequest, viewer: ArchiveViewer) -> HttpResponse:
    context = _archive_context(
        viewer,
        page=selectors.timeline_page(viewer, request.GET.get("page")),
        seasons=selectors.seasons_of(viewer),
    )
    return render(request, "archive/timeline.html", context)


def _session_page(request: HtmxRequest, viewer: ArchiveViewer, number: int) -> HttpResponse:
    session = selectors.session_for_viewer(viewer, number)
    page = selectors.session_contests_page(viewer, session, request.GET.get("page"))
    chat = selectors.session_chat(viewer, session)
    # The players' proposals and what became of them, in words (issue 30).
    proposals = [
        table_selectors.proposal_words(p) for p in table_selectors.session_proposals(session)
    ]
    context = _archive_context(viewer, session=session, page=page, chat=chat, proposals=proposals)
    return render(request, "archive/session.html", context)


def _search_problem(request: HtmxRequest) -> str:
    """Why the searched words are refused (too long), or ""."""
    q = request.GET.get("q", "").strip()
    if len(q) <= SEARCH_MAX:
        return ""
    return (
        f"The search is {len(q):,} characters long: search for at most {SEARCH_MAX} (a few words)."
    )


def _contests(request: HtmxRequest, viewer: ArchiveViewer) -> HttpResponse:
    filters = selectors.ContestFilters.from_query(request.GET)
    problem = _search_problem(request)
    page = None
    if not problem:
        page = selectors.contest_list_page(viewer, filters, request.GET.get("page"))
    context = _archive_context(
        viewer,
        filters=filters,
        page=page,
        characters=selectors.filter_characters(viewer),
        kinds=ContestKind.choices,
        outcomes=[(k, label) for k, (label, _) in selectors.OUTCOME_FILTERS.items()],
        query=filters.as_query(),
        show_session=True,
        search_max=SEARCH_MAX,
        problem=problem,
    )
    template = "archive/contests.html#results" if request.htmx else "archive/contests.html"
    return render(request, template, context, status=400 if problem else 200)


def _contest_page(request: HtmxRequest, viewer: ArchiveViewer, number: int) -> HttpResponse:
    view = selectors.contest_view(viewer, number)
    context = _archive_context(viewer, view=view, contest=view.contest)
    return render(request, "archive/contest.html", context)


def _search(request: HtmxRequest, viewer: ArchiveViewer) -> HttpResponse:
    problem = _search_problem(request)
    if problem:
        context = _archive_context(viewer, q="", search_max=SEARCH_MAX, problem=problem)
        return render(request, "archive/search.html", context, status=400)
    q = request.GET.get("q", "").strip()
    context = _archive_context(viewer, q=q, search_max=SEARCH_MAX)
    if q:
        filters = selectors.ContestFilters(q=q)
        context |= {
            "sessions": selectors.session_search_page(viewer, q, request.GET.get("spage")),
            "page": selectors.contest_list_page(viewer, filters, request.GET.get("page")),
            "filters": filters,
            "search_query": urlencode({"q": q}),
        }
    return render(request, "archive/search.html", context)


def archive_timeline(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    return _timeline(request, get_archive_for_user(request.user, campaign_id))


def archive_session(request: AuthenticatedRequest, campaign_id: int, number: int) -> HttpResponse:
    return _session_page(request, get_archive_for_user(request.user, campaign_id), number)


def archive_contests(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    return _contests(request, get_archive_for_user(request.user, campaign_id))


def archive_contest(request: AuthenticatedRequest, campaign_id: int, number: int) -> HttpResponse:
    return _contest_page(request, get_archive_for_user(request.user, campaign_id), number)


def archive_search(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    return _search(request, get_archive_for_user(request.user, campaign_id))


# The public link: the same pages, read-only, with nothing GM-only.


@login_not_required
def public_timeline(request: HtmxRequest, token: str) -> HttpResponse:
    return _timeline(request, get_archive_for_public_link(token))


@login_not_required
def public_session(request: HtmxRequest, token: str, number: int) -> HttpResponse:
    return _session_page(request, get_archive_for_public_link(token), number)


@login_not_required
def public_contests(request: HtmxRequest, token: str) -> HttpResponse:
    return _contests(request, get_archive_for_public_link(token))


@login_not_required
def public_contest(request: HtmxRequest, token: str, number: int) -> HttpResponse:
    return _contest_page(request, get_archive_for_public_link(token), number)


@login_not_required
def public_search(request: HtmxRequest, token: str) -> HttpResponse:
    return _search(request, get_archive_for_public_link(token))
