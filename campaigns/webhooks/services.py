"""The GM's changes to a campaign's webhook: set it, remove it, send a test message;
and its status as the GM's page shows it.

Each checks, at the moment it runs, that the actor is the campaign's GM now (a GM who
handed the campaign over while the page was open is refused), and refuses with a
message for the GM, changing nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from questworlds_site.accounts.models import User

from ..models import Campaign, Webhook, WebhookKind
from . import delivery, texts
from .addresses import Refused, checked_for_saving, scrub
from .outbox import RELAY, waiting_count


def _require_gm_now(campaign: Campaign, actor: User, *, lock: bool = False) -> Campaign:
    """The campaign as it is now, if `actor` is its GM now; else PermissionDenied."""
    campaigns = Campaign.objects.select_for_update() if lock else Campaign.objects
    current = campaigns.filter(pk=campaign.pk).first()
    if current is None or current.gm_id != getattr(actor, "pk", None):
        raise PermissionDenied("Only the campaign's GM may change its webhook.")
    return current


def _checked_kinds(kinds: Iterable[str]) -> list[str]:
    chosen = set(kinds)
    unknown = chosen - set(WebhookKind.values)
    if unknown:
        raise ValidationError(f"Not something the webhook can relay: {', '.join(sorted(unknown))}.")
    return [kind for kind in WebhookKind.values if kind in chosen]  # in the form's order


@transaction.atomic
def webhook_set(*, campaign: Campaign, actor: User, url: str, kinds: Iterable[str]) -> Webhook:
    """Set the campaign's webhook and what it relays. A blank `url` keeps the one set; a
    URL this server may not send to (campaigns/webhooks/addresses.py) is refused. A new
    URL starts with a clean status."""
    campaign = _require_gm_now(campaign, actor, lock=True)
    chosen = _checked_kinds(kinds)
    webhook = Webhook.objects.filter(campaign=campaign).first()
    url = url.strip()
    if not url and webhook is None:
        raise ValidationError("Give the webhook's address (it starts with https://).")
    if url:
        try:
            checked_for_saving(url)
        except Refused as refusal:
            raise ValidationError(scrub(refusal.message, url)) from None
    if webhook is None:
        webhook = Webhook(campaign=campaign)
    if url and url != webhook.url:
        webhook.url = url
        webhook.last_success_at = webhook.last_error_at = None
        webhook.last_error = ""
    webhook.kinds = chosen
    webhook.full_clean()
    webhook.save()
    campaign.relayed_kinds = chosen
    campaign.save(update_fields=["relayed_kinds"])
    return webhook


@transaction.atomic
def webhook_remove(*, campaign: Campaign, actor: User) -> None:
    """Forget the webhook, and the messages still waiting for it."""
    campaign = _require_gm_now(campaign, actor, lock=True)
    Webhook.objects.filter(campaign=campaign).delete()
    campaign.relayed_kinds = []
    campaign.save(update_fields=["relayed_kinds"])


def webhook_test(*, campaign: Campaign, actor: User) -> delivery.Answer:
    """Send a test message now, the GM waiting for the answer (a short timeout: they
    asked for it); the webhook's status records it. No transaction is held meanwhile."""
    campaign = _require_gm_now(campaign, actor)
    webhook = Webhook.objects.filter(campaign=campaign).first()
    if webhook is None:
        return delivery.Answer(None, "no webhook is set: save one first.", refused=True)
    answer = delivery.post(
        webhook.url,
        texts.sample_message(campaign),
        timeout=settings.WEBHOOK_TEST_TIMEOUT_SECONDS,
    )
    now = timezone.now()
    if answer.delivered:
        Webhook.objects.filter(pk=webhook.pk).update(last_success_at=now)
    else:
        error = f"Test message: {answer.words}"[:300]
        Webhook.objects.filter(pk=webhook.pk).update(last_error=error, last_error_at=now)
    return answer


@dataclass(frozen=True)
class WebhookStatus:
    """What the GM's page shows of a webhook: never its URL, only `masked`."""

    masked: str
    kinds: list[str]
    kind_labels: list[str]
    last_success_at: datetime | None
    last_error: str
    last_error_at: datetime | None
    waiting: int


def webhook_status(campaign: Campaign) -> WebhookStatus | None:
    """The campaign's webhook as its page shows it; None without one. Messages left
    waiting (by a process that stopped) wake this process's relay."""
    webhook = Webhook.objects.filter(campaign=campaign).first()
    if webhook is None:
        return None
    waiting = waiting_count(webhook)
    if waiting:
        RELAY.wake()
    return WebhookStatus(
        masked=webhook.masked_url,
        kinds=list(webhook.kinds or []),
        kind_labels=webhook.kind_labels(),
        last_success_at=webhook.last_success_at,
        last_error=webhook.last_error,
        last_error_at=webhook.last_error_at,
        waiting=waiting,
    )
