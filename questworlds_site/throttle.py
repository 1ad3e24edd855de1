"""Rate limits shared by every server process: table actions, sign-in, sign-up, invitations.

One limiter (the `limits` library, a moving window) on the same Redis as the channel
layer, so a person's actions count once whether they come by htmx POST or by websocket
and whichever server process serves them. Without REDIS_URL (`make run` on a laptop, one
process) the counts live in the process's memory.

If Redis cannot be reached the limits are not enforced for that moment (logged): a rate
limit must never stop a table from playing.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage, RedisStorage, Storage
from limits.strategies import MovingWindowRateLimiter

logger = logging.getLogger(__name__)

View = Callable[..., HttpResponse]


@dataclass(frozen=True)
class Refusal:
    """A refused attempt: what to tell the person and when they may try again."""

    message: str
    retry_after: int


@functools.cache
def _limiter(url: str, prefix: str) -> tuple[MovingWindowRateLimiter, Storage]:
    if url:
        store: Storage = RedisStorage(url, key_prefix=f"{prefix}:limits", socket_timeout=2)
    else:
        store = MemoryStorage()
    return MovingWindowRateLimiter(store), store


def limiter() -> MovingWindowRateLimiter:
    return _limiter(settings.REDIS_URL, settings.CHANNEL_PREFIX)[0]


def reset() -> None:
    """Forget every count (tests start each from nothing)."""
    _limiter(settings.REDIS_URL, settings.CHANNEL_PREFIX)[1].reset()


@functools.cache
def _parsed(text: str) -> RateLimitItem:
    return parse(text)


def _retry_after(item: RateLimitItem, key: str) -> int:
    try:
        stats = limiter().get_window_stats(item, key)
    except Exception:  # the limiter's store failed: say "a moment"
        return 1
    return max(1, math.ceil(stats.reset_time - time.time()))


def hit(rate: str, key: str, message: str) -> Refusal | None:
    """Count one attempt against `rate` ("20/10 seconds") for `key`; a Refusal if over."""
    return _check(rate, key, message, count=True)


def blocked(rate: str, key: str, message: str) -> Refusal | None:
    """A Refusal if `key` has used up `rate` already (counts nothing)."""
    return _check(rate, key, message, count=False)


def _check(rate: str, key: str, message: str, *, count: bool) -> Refusal | None:
    item = _parsed(rate)
    try:
        allowed = limiter().hit(item, key) if count else limiter().test(item, key)
    except Exception:  # Redis down: play on, unlimited, and say so in the log
        logger.warning("Rate limit %s not checked for %s: the store failed", rate, key)
        return None
    if allowed:
        return None
    wait = _retry_after(item, key)
    return Refusal(message.format(wait=_seconds(wait)), wait)


def clear(rate: str, key: str) -> None:
    try:
        limiter().clear(_parsed(rate), key)
    except Exception:
        logger.warning("Rate limit %s not cleared for %s: the store failed", rate, key)


def _seconds(wait: int) -> str:
    if wait < 90:
        return f"{wait} second{'s' if wait != 1 else ''}"
    minutes = math.ceil(wait / 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


# -- the limits the app applies -----------------------------------------------------------


def table_action(user_id: int) -> Refusal | None:
    """Every table action a person makes, by either path, from any process."""
    return hit(
        settings.ACTION_RATE_LIMIT,
        f"action:{user_id}",
        "Too many actions at once: wait {wait} and try again. Nothing was done.",
    )


def client_address(request: HttpRequest) -> str:
    """The client's address (behind a trusted proxy, the one it reports: proxy.py)."""
    return request.META.get("REMOTE_ADDR") or "unknown"


def too_many(request: HttpRequest, refusal: Refusal) -> HttpResponse:
    """429 with a page that says what happened and when to try again."""
    response = render(request, "429.html", {"message": refusal.message}, status=429)
    response["Retry-After"] = str(refusal.retry_after)
    return response


def limit_posts(rate_setting: str, message: str) -> Callable[[View], View]:
    """Count every POST to the view per client address (sign-up)."""

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def limited(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if request.method == "POST":
                key = f"{view.__name__}:post:{client_address(request)}"
                refusal = hit(getattr(settings, rate_setting), key, message)
                if refusal is not None:
                    return too_many(request, refusal)
            return view(request, *args, **kwargs)

        return limited

    return decorate


def limit_misses(rate_setting: str, message: str) -> Callable[[View], View]:
    """Count the view's "no such thing" answers (404) per client address, and refuse the
    address once it has used up the rate: a link's token cannot be guessed by trying."""

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def limited(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            rate = getattr(settings, rate_setting)
            # One budget per address for every view guarded by the same rate.
            key = f"{rate_setting}:miss:{client_address(request)}"
            refusal = blocked(rate, key, message)
            if refusal is not None:
                return too_many(request, refusal)
            try:
                response = view(request, *args, **kwargs)
            except Http404:
                hit(rate, key, message)
                raise
            if response.status_code == 404:
                hit(rate, key, message)
            return response

        return limited

    return decorate
