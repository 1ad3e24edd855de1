"""Read the environment in one place, and fail loudly on values we cannot read."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

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


def database_from_url(url: str, base_dir: Path) -> dict[str, Any]:
    """Django DATABASES['default'] from `sqlite:///path` or `postgres://user@host:port/name`."""
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        # sqlite:///relative.sqlite3 or sqlite:////absolute/path.sqlite3
        path = unquote(parts.path[1:]) if parts.path.startswith("/") else unquote(parts.path)
        if not path:
            raise ImproperlyConfigured(f"DATABASE_URL={url!r} names no SQLite file")
        name = Path(path) if Path(path).is_absolute() else base_dir / path
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": str(name)}
    if parts.scheme in ("postgres", "postgresql"):
        name = unquote(parts.path.lstrip("/"))
        if not name:
            raise ImproperlyConfigured(f"DATABASE_URL={url!r} names no database")
        options: dict[str, Any] = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        pool = database_pool_from_env()
        if pool:
            options["pool"] = pool
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": name,
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(parts.port or ""),
            # Under ASGI a persistent connection is kept per thread (Django's docs: turn
            # them off); connections are borrowed from the pool for each request instead.
            "CONN_MAX_AGE": 0,
            "OPTIONS": options,
        }
    raise ImproperlyConfigured(
        f"DATABASE_URL={url!r}: only sqlite:///file and "
        "postgres://user@host:port/name are supported"
    )


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
