"""Security headers on every response (issue 12).

- Content-Security-Policy: scripts and styles from the app's own origin only (htmx
  comes from django-htmx's files, served as static files), no inline script or style,
  sockets to the same host, never framed.
- Cache-Control: no-store on anything served to a logged-in person and on every download
  (exports), so a shared computer's back button or a proxy keeps no copy.
- Referrer-Policy and X-Content-Type-Options come from Django's SecurityMiddleware
  (SECURE_REFERRER_POLICY, SECURE_CONTENT_TYPE_NOSNIFF), X-Frame-Options from
  XFrameOptionsMiddleware.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers

POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self' ws: wss:",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)


class SecurityHeadersMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # Django's own debug pages (DEBUG only: a 404 or 500 with the traceback) style
        # themselves inline; every page of the app is held to the policy.
        if not (settings.DEBUG and response.status_code in (404, 500)):
            response.headers.setdefault("Content-Security-Policy", POLICY)
        user = getattr(request, "user", None)
        download = "attachment" in response.headers.get("Content-Disposition", "")
        if download or (user is not None and user.is_authenticated):
            add_never_cache_headers(response)
            response.headers["Cache-Control"] = "no-store, no-cache, must-revalidate, private"
        return response
