"""The request types the views are written against, for the type checker.

LoginRequiredMiddleware sends every visitor who is not signed in to the sign-in page
before a view runs (only views marked `login_not_required` see anonymous visitors), so
a view's `request.user` is a real account: `AuthenticatedRequest` says so, where
Django's own `HttpRequest` allows an AnonymousUser. Both carry django-htmx's
`request.htmx` (HtmxMiddleware)."""

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails

from questworlds_site.accounts.models import User


class HtmxRequest(HttpRequest):
    """Any request, signed in or not, as HtmxMiddleware leaves it."""

    htmx: HtmxDetails


class AuthenticatedRequest(HtmxRequest):
    """A request from a signed-in person (any view not marked `login_not_required`)."""

    user: User
