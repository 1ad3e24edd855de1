"""Input the database cannot store gets a clear answer before any view runs."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from .limits import POSTED_VALUE_MAX, QUERY_VALUE_MAX

NUL_REFUSED = (
    "The request contains a NUL character (\\0), which no field of QuestWorlds Table "
    "accepts. Nothing was done."
)


def _has_nul(values) -> bool:
    return any("\x00" in key or any("\x00" in value for value in items) for key, items in values)


def _too_long(values, limit: int) -> str | None:
    for key, items in values:
        if len(key) > 200 or any(len(value) > limit for value in items):
            return key[:40]
    return None


def _refuse(text: str) -> HttpResponse:
    return HttpResponse(text, status=400, content_type="text/plain; charset=utf-8")


class RejectNulMiddleware:
    """Answer 400 to a NUL character, or a value longer than any field takes, in the
    path, the query string or a posted form (uploaded files are read by their forms).

    PostgreSQL stores no NUL in text, so such a value would otherwise fail deep in a
    view (a search, a token lookup, a save) with a server error; here it is refused,
    with a message, before any view runs, and changes nothing. Each form still checks
    its own fields' limits (questworlds_site/limits.py) and says which one.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path or _has_nul(request.GET.lists()):
            return _refuse(NUL_REFUSED)
        long_query = _too_long(request.GET.lists(), QUERY_VALUE_MAX)
        if long_query is not None:
            return _refuse(
                f"The query value {long_query!r} is too long (at most {QUERY_VALUE_MAX:,} "
                "characters). Nothing was done."
            )
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        # A view that reads its input through a typed boundary of its own (the table's
        # actions) answers in its own words; every other form is guarded here.
        if request.method != "POST" or getattr(view_func, "checks_its_own_input", False):
            return None
        posted = list(request.POST.lists())
        if _has_nul(posted):
            return _refuse(NUL_REFUSED)
        long_field = _too_long(posted, POSTED_VALUE_MAX)
        if long_field is not None:
            return _refuse(
                f"The field {long_field!r} is longer than any field takes "
                f"({POSTED_VALUE_MAX:,} characters). Nothing was done."
            )
        return None


def checks_its_own_input(view):
    """Mark a view whose input a typed boundary of its own checks (contests/core/actions/)."""
    view.checks_its_own_input = True
    return view
