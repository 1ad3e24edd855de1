"""Input the database cannot store gets a clear answer before any view runs."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

NUL_REFUSED = (
    "The request contains a NUL character (\\0), which no field of QuestWorlds Table "
    "accepts. Nothing was done."
)


def _has_nul(values) -> bool:
    return any("\x00" in key or any("\x00" in value for value in items) for key, items in values)


class RejectNulMiddleware:
    """Answer 400 to a NUL character in the path or the query string.

    PostgreSQL stores no NUL in text, so such a value would otherwise fail deep in a
    view (a search, a token lookup) with a server error; here it is refused, with a
    message, and changes nothing. Posted forms are checked where they are read: Django's
    form fields refuse NUL, and the table's actions (contests/actions/) answer in the
    table's own error line.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path or _has_nul(request.GET.lists()):
            return HttpResponse(NUL_REFUSED, status=400, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
