"""`/healthz`: does this app process have what it needs to serve a table?

PostgreSQL (through the process's own connection pool) and Redis (the channel layer's,
and the rate limits' at REDIS_URL; with the in-memory layer and no REDIS_URL there is
none to ask). docker compose's health check and any load balancer read the status:
200 when both answer, 503 naming what did not. Each check waits at most
CHECK_TIMEOUT_S, so the answer comes well inside compose's 5 s health-check timeout
even when a service hangs instead of refusing.
"""

from __future__ import annotations

import logging
import math

import redis
from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.db import connection
from django.http import HttpRequest, JsonResponse

logger = logging.getLogger(__name__)

CHECK_TIMEOUT_S = 2.0
OK, UNAVAILABLE, NOT_USED = "ok", "unavailable", "not used"


def check_database() -> None:
    """One `SELECT 1` on a connection got the way requests get theirs, waiting for it
    at most CHECK_TIMEOUT_S (not DB_POOL_TIMEOUT: a health check must not queue for 30 s)."""
    pool = getattr(connection, "pool", None)  # psycopg's pool (Django's OPTIONS["pool"])
    if pool is not None:
        pool.open()  # a no-op once a request has opened it
        with pool.connection(timeout=CHECK_TIMEOUT_S) as conn:
            conn.execute("SELECT 1")
    elif connection.vendor == "postgresql":
        # No pool (DB_POOL_MAX_SIZE=0, behind pgbouncer): a connection of its own, which
        # libpq gives up on after connect_timeout rather than waiting on a silent host.
        params = connection.get_connection_params()
        params["connect_timeout"] = math.ceil(CHECK_TIMEOUT_S)
        # The backend's DB-API module (psycopg): django-stubs leaves `Database` off the
        # base wrapper, though every backend sets it.
        with connection.Database.connect(**params) as conn:  # type: ignore[attr-defined]
            conn.execute("SELECT 1")
    else:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")


def redis_urls() -> list[str]:
    """Every Redis this process talks to: REDIS_URL (rate limits) and the channel layer's."""
    urls = [settings.REDIS_URL] if settings.REDIS_URL else []
    for host in settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("hosts", []):
        address = host.get("address") if isinstance(host, dict) else host
        if isinstance(address, str) and address not in urls:
            urls.append(address)
    return urls


def check_redis(url: str) -> None:
    client = redis.Redis.from_url(
        url, socket_connect_timeout=CHECK_TIMEOUT_S, socket_timeout=CHECK_TIMEOUT_S
    )
    try:
        client.ping()
    finally:
        client.close()


@login_not_required
def healthz(request: HttpRequest) -> JsonResponse:
    """200 `{"status": "ok", "database": "ok", "redis": "ok"}` when the database and
    Redis answer ("not used" for Redis without one); 503 with "unavailable" for what
    did not. Why is logged, not shown: the page is public and hosts are nobody's business."""
    report = {"database": OK, "redis": OK if redis_urls() else NOT_USED}
    try:
        check_database()
    except Exception:
        logger.warning("Health check: the database did not answer", exc_info=True)
        report["database"] = UNAVAILABLE
    for url in redis_urls():
        try:
            check_redis(url)
        except Exception:
            logger.warning("Health check: Redis did not answer", exc_info=True)
            report["redis"] = UNAVAILABLE
    healthy = UNAVAILABLE not in report.values()
    return JsonResponse(
        {"status": OK if healthy else UNAVAILABLE, **report}, status=200 if healthy else 503
    )
