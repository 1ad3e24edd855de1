"""Read the environment in one place, and fail loudly on values we cannot read."""

from __future__ import annotations

import ipaddress
import os
import re
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def envbool(name: str, default: bool) -> bool:
    """A boolean setting: 1/true/yes/on or 0/false/no/off, anything else is an error."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r}: use true or false (1/0, yes/no, on/off)")


def envlist(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def envnetworks(name: str) -> list[str]:
    """Comma-separated IP addresses or networks; one that is neither is an error."""
    entries = envlist(name, [])
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ImproperlyConfigured(
                f"{name}: {entry!r} is neither an IP address nor a network"
            ) from None
    return entries


# The engines this app ships drivers for (psycopg; sqlite3 is in Python), by URL scheme.
DATABASE_SCHEMES = {"sqlite", "postgres", "postgresql", "pgsql"}


def _without_password(url: str) -> str:
    """The URL as an error message may show it: a password never reaches a log."""
    return re.sub(r"(://[^/@:]*:)[^/@]*@", r"\1***@", url)


def database_from_url(url: str, base_dir: Path) -> dict[str, Any]:
    """Django DATABASES['default'] from `sqlite:///path` or `postgres://user@host:port/name`.

    dj-database-url reads the URL (percent-encoded parts, a socket directory as the host,
    query parameters as OPTIONS); around it, what this app needs: only the engines it has
    drivers for, a name that is there, an error that says which value is wrong (without
    its password), a relative SQLite file beside the code, and psycopg's pool.
    """
    shown = _without_password(url)
    scheme = url.partition("://")[0] if "://" in url else ""
    if scheme not in DATABASE_SCHEMES:
        raise ImproperlyConfigured(
            f"DATABASE_URL={shown!r}: only sqlite:///file and "
            "postgres://user@host:port/name are supported"
        )
    try:
        database: dict[str, Any] = dict(dj_database_url.parse(url))
    except ValueError:
        # dj-database-url's message does not say which part; the usual ones are a port
        # that is not a number or a password with an unquoted @, / or :.
        raise ImproperlyConfigured(
            f"DATABASE_URL={shown!r} cannot be read: check the port is a number and "
            "percent-encode any @, / or : in the user name or password"
        ) from None
    if scheme == "sqlite":
        # sqlite:///relative.sqlite3 (beside the code) or sqlite:////absolute/path.sqlite3;
        # never dj-database-url's in-memory fallback, which threads cannot share.
        if not database.get("NAME") or database["NAME"] == ":memory:":
            raise ImproperlyConfigured(f"DATABASE_URL={shown!r} names no SQLite file")
        name = Path(database["NAME"])
        return {"ENGINE": database["ENGINE"], "NAME": str(base_dir / name)}
    if not database.get("NAME"):
        raise ImproperlyConfigured(f"DATABASE_URL={shown!r} names no database")
    options = database.setdefault("OPTIONS", {})
    # Parameters bound by the server, not written into the SQL text: the same
    # statement is then the same text on every run, whatever its values.
    options.setdefault("server_side_binding", True)
    pool = database_pool_from_env()
    if pool:
        options["pool"] = pool
        # A statement run a fifth time on a pooled connection is prepared there
        # (psycopg's threshold; Django turns preparing off unless asked): PostgreSQL
        # parses and plans each of the app's statements once per connection, not on
        # every run. Written with every value in it, no two runs of a statement were the
        # same text, and each was planned anew: the app's joins and subqueries planned
        # longer than they ran, and PostgreSQL's time an action halved without it
        # (docs/benchmarks.md, issue 29). Without the app's pool (behind pgbouncer,
        # whose transaction mode would lose a connection's prepared statements), a
        # connection lasts one request and nothing is prepared.
        options.setdefault("prepare_threshold", 5)
    # Under ASGI a persistent connection is kept per thread (Django's docs: turn them
    # off); connections are borrowed from the pool for each request instead.
    database["CONN_MAX_AGE"] = 0
    database["PORT"] = str(database.get("PORT") or "")
    return database


def envint(name: str, default: int, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r}: a whole number is needed") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name}={raw!r}: at least {minimum}")
    return value


def envfloat(name: str, default: float, minimum: float = 0.0) -> float:
    """A number of seconds (or any decimal): anything else is an error."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r}: a number is needed") from None
    if not value >= minimum:  # also refuses nan
        raise ImproperlyConfigured(f"{name}={raw!r}: at least {minimum}")
    return value


def database_pool_from_env() -> dict[str, Any] | None:
    """psycopg's connection pool for one server process (docs/deploy.md sizes it).

    DB_POOL_MAX_SIZE (10) connections at most, DB_POOL_MIN_SIZE (1) kept open; a request
    that finds them all busy waits up to DB_POOL_TIMEOUT seconds (30) for one rather than
    failing. DB_POOL_MAX_SIZE=0 turns the pool off (behind pgbouncer, say).
    """
    max_size = envint("DB_POOL_MAX_SIZE", 10)
    if max_size == 0:
        return None
    min_size = min(envint("DB_POOL_MIN_SIZE", 1), max_size)
    timeout = envint("DB_POOL_TIMEOUT", 30, minimum=1)
    return {"min_size": min_size, "max_size": max_size, "timeout": timeout}


CHANNEL_LAYER_BACKENDS = {
    "core": "channels_redis.core.RedisChannelLayer",
    "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
}


def channel_layer_from_env(
    redis_url: str | None, flavour: str, prefix: str = "asgi"
) -> dict[str, Any]:
    """The channel layer: in-memory without REDIS_URL, else channels_redis (core or pubsub)."""
    if not redis_url:
        return {"BACKEND": "channels.layers.InMemoryChannelLayer"}
    if flavour not in CHANNEL_LAYER_BACKENDS:
        choices = ", ".join(CHANNEL_LAYER_BACKENDS)
        raise ImproperlyConfigured(f"CHANNEL_LAYER={flavour!r}: choose one of {choices}")
    # redis-py 8 defaults to a 5 s socket timeout, the same as the core layer's blocking
    # wait for messages, which then fails and drops idle sockets; and to a pool of 100
    # connections, which many sockets closing at once exhaust (make bench showed both).
    host = {"address": redis_url, "socket_timeout": None, "max_connections": 10_000}
    config: dict[str, Any] = {"hosts": [host], "prefix": prefix}
    if flavour == "core":
        # A table's fan-out is small; more capacity keeps bursts from being dropped.
        config.update({"capacity": 1500, "expiry": 30})
    return {"BACKEND": CHANNEL_LAYER_BACKENDS[flavour], "CONFIG": config}
