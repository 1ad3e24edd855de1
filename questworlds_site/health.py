"""Liveness for docker compose and the load balancer (issue 16)."""

from __future__ import annotations

import redis
from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse

# A balancer asks often: an answer within a second or a failure, never a hang.
REDIS_TIMEOUT_S = 1.0


@login_not_required
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when this process can serve a table: PostgreSQL answers, and so does the
    Redis its channel layer and rate limits use (when REDIS_URL names one; the embedded
    default has none). 503 naming what failed otherwise, so a balancer or compose takes
    the process out of rotation rather than sending people to a table that cannot work."""
    checks: dict[str, str] = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        checks["database"] = "ok"
    except DatabaseError as error:
        checks["database"] = f"failed: {type(error).__name__}"
    if settings.REDIS_URL:
        try:
            client = redis.Redis.from_url(
                settings.REDIS_URL,
                socket_connect_timeout=REDIS_TIMEOUT_S,
                socket_timeout=REDIS_TIMEOUT_S,
            )
            try:
                client.ping()
            finally:
                client.close()
            checks["redis"] = "ok"
        except (redis.RedisError, OSError) as error:
            checks["redis"] = f"failed: {type(error).__name__}"
    healthy = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "failing", **checks}, status=200 if healthy else 503
    )
