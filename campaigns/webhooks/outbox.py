"""The outbox: messages written once their action has committed, sent by one thread per
server process, retried with backoff, given up after `WEBHOOK_MAX_ATTEMPTS`.

Why a thread and a table, not Celery or Redis queues: the relay sends a few messages an
evening per campaign, and must work from a fresh clone with `make run` (SQLite, no
Redis). A row per message survives a crash or a restart: whichever process's relay runs
next sends what another left due (a message being sent holds a lease on its row, so a
process that dies mid-send leaves it due again once the lease ends; the message may
then arrive twice, never not at all). The messages of one webhook go one at a time in
the order they were written, so "Session 3 has begun" never arrives after the first
contest of session 3, and a receiver asking to slow down (429) holds its queue alone.

A table action never waits for any of it: `announce` only registers what to do after
commit; the row is written then (a failure is logged, the action stands) and the thread
is woken; the network is the thread's.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from ..models import WEBHOOK_TEXT_MAX, Campaign, Webhook, WebhookKind, WebhookMessage
from . import delivery

logger = logging.getLogger(__name__)

# With nothing due, the thread looks again this often: for messages a process that
# stopped left behind.
IDLE_SECONDS = 60.0
BATCH = 20
# A message being sent is not due again before its lease ends (a dead process's lease).
LEASE_MARGIN_SECONDS = 30.0
# Messages sent or given up are kept this long (what the relay did, for an administrator).
KEPT_FOR = timedelta(days=30)
WAITING = Q(sent_at__isnull=True, gave_up_at__isnull=True)


def announce(campaign: Campaign | int, kind: str, text: str) -> None:
    """Relay `text` to the campaign's webhook, if it has one that relays `kind`
    (a `WebhookKind`), once the current transaction commits (at once outside one).

    Nothing happens if the transaction rolls back. The outbox row is written after the
    commit, and a failure there is logged, never raised into the action; the sending is
    the relay thread's, off the request. Given the campaign as read in the action (its
    `relayed_kinds`), a kind it does not relay costs nothing: no callback, no query."""
    if kind not in WebhookKind.values:
        raise ValueError(f"not a kind of webhook message: {kind!r}")
    if isinstance(campaign, Campaign) and kind not in (campaign.relayed_kinds or []):
        return
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    transaction.on_commit(functools.partial(_enqueue, campaign_id, kind, text), robust=True)


def clipped(text: str) -> str:
    """At most Discord's 2,000 characters."""
    return text if len(text) <= WEBHOOK_TEXT_MAX else text[: WEBHOOK_TEXT_MAX - 1] + "…"


def _enqueue(campaign_id: int, kind: str, text: str) -> None:
    webhook = Webhook.objects.filter(campaign_id=campaign_id).only("id", "kinds").first()
    if webhook is None or not webhook.relays(kind):
        return
    now = timezone.now()
    WebhookMessage.objects.create(webhook=webhook, kind=kind, text=clipped(text), next_try_at=now)
    webhook.messages.filter(created_at__lt=now - KEPT_FOR).exclude(WAITING).delete()
    RELAY.wake()


def waiting_count(webhook: Webhook) -> int:
    return webhook.messages.filter(WAITING).count()


# --------------------------------------------------------------------- sending


def backoff(attempts: int) -> float:
    """Seconds before the next try after `attempts` tries: the base, doubled each time."""
    base: float = settings.WEBHOOK_RETRY_SECONDS
    return base * 2.0 ** max(0, attempts - 1)


def deliver_due() -> float:
    """Send every message due now (each webhook's oldest first, one at a time); the
    seconds until the next one is due (`IDLE_SECONDS` at most)."""
    while batch := _claim():
        for message in batch:
            # No connection is held while a receiver takes its time (PostgreSQL's are
            # shared by everything; the pool lends one again for the record).
            connection.close()
            answer = delivery.post(
                message.webhook.url, message.text, timeout=settings.WEBHOOK_TIMEOUT_SECONDS
            )
            _record(message, answer)
    upcoming = (
        WebhookMessage.objects.filter(WAITING)
        .order_by("next_try_at")
        .values_list("next_try_at", flat=True)
        .first()
    )
    if upcoming is None:
        return IDLE_SECONDS
    return min(IDLE_SECONDS, max(0.0, (upcoming - timezone.now()).total_seconds()))


def _claim() -> list[WebhookMessage]:
    """The messages due now that no other process is sending, each its webhook's oldest
    waiting one; leased (not due again until the lease ends) and their try counted."""
    now = timezone.now()
    earlier = WebhookMessage.objects.filter(
        WAITING, webhook=OuterRef("webhook"), pk__lt=OuterRef("pk")
    )
    due = (
        WebhookMessage.objects.filter(WAITING, next_try_at__lte=now)
        .exclude(Exists(earlier))
        .order_by("next_try_at", "pk")
    )
    timeout: float = settings.WEBHOOK_TIMEOUT_SECONDS
    claimed: list[int] = []
    with transaction.atomic():
        if connection.features.has_select_for_update_skip_locked:
            # PostgreSQL: rows another process is claiming are skipped, not waited for.
            due = due.select_for_update(skip_locked=True)
        for pk, was_due in list(due.values_list("pk", "next_try_at")[:BATCH]):
            # Sent one after another: the nth waits for the n-1 before it.
            lease = now + timedelta(seconds=timeout * (len(claimed) + 1) + LEASE_MARGIN_SECONDS)
            # Only if nobody moved it meanwhile (SQLite has no row locks: this is the
            # claim there, in a transaction that holds the database's write lock).
            taken = WebhookMessage.objects.filter(pk=pk, next_try_at=was_due).update(
                next_try_at=lease, attempts=F("attempts") + 1
            )
            if taken:
                claimed.append(pk)
    messages = WebhookMessage.objects.filter(pk__in=claimed).select_related("webhook")
    by_id = {message.pk: message for message in messages}
    return [by_id[pk] for pk in claimed if pk in by_id]  # in the order of their leases


def _record(message: WebhookMessage, answer: delivery.Answer) -> None:
    """What came of a try: sent, tried again later, or given up; the webhook's status
    (last success, last error) follows, and the error, scrubbed of the URL, is logged."""
    now = timezone.now()
    webhook = message.webhook
    if answer.delivered:
        with transaction.atomic():  # the message and the status change together
            WebhookMessage.objects.filter(pk=message.pk).update(sent_at=now, last_error="")
            Webhook.objects.filter(pk=webhook.pk).update(last_success_at=now)
        RELAY.changed()
        return
    tries = f"try {message.attempts} of {settings.WEBHOOK_MAX_ATTEMPTS}"
    if answer.worth_retrying and message.attempts < settings.WEBHOOK_MAX_ATTEMPTS:
        wait = backoff(message.attempts)
        if answer.retry_after is not None:
            wait = max(wait, answer.retry_after)  # the receiver's Retry-After is honoured
        error = f"{answer.words} Trying again in {wait:.3g} s ({tries})."
        changes = {"next_try_at": now + timedelta(seconds=wait)}
    else:
        error = f"{answer.words} Gave up ({tries})."
        changes = {"gave_up_at": now}
    error = error[:300]
    with transaction.atomic():
        WebhookMessage.objects.filter(pk=message.pk).update(last_error=error, **changes)
        Webhook.objects.filter(pk=webhook.pk).update(last_error=error, last_error_at=now)
    logger.warning("Webhook of campaign %s, %s: %s", webhook.campaign_id, message.kind, error)
    RELAY.changed()


# --------------------------------------------------------------------- the thread


class Relay:
    """The process's relay thread: started by the first message, woken by each new
    one, and otherwise asleep until the next retry is due (a minute at most)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._progress = threading.Condition()
        self._thread: threading.Thread | None = None

    def wake(self) -> None:
        """Start the thread if it is not running, and have it look at the outbox now."""
        with self._lock:
            self._idle.clear()
            self._wake.set()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="webhook-relay", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                pause = deliver_due()
            except Exception:
                logger.exception("The webhook relay failed; it looks again in a minute")
                pause = IDLE_SECONDS
            finally:
                # PostgreSQL's connections are shared by everything: none kept while asleep.
                connection.close()
            with self._lock:
                if not self._wake.is_set():
                    self._idle.set()
            self._wake.wait(pause)
            self._idle.clear()

    def changed(self) -> None:
        """A message was sent, retried or given up: whoever waits for it looks again."""
        with self._progress:
            self._progress.notify_all()

    def wait_for(self, done: Callable[[], bool], timeout: float) -> bool:
        """Wait until `done()` (asked again after each try the thread records), or
        `timeout` seconds; whether it is done. For tests and the management command."""
        with self._progress:
            return self._progress.wait_for(done, timeout)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until the thread has nothing due now (or is not running)."""
        return self._idle.wait(timeout)


RELAY = Relay()
