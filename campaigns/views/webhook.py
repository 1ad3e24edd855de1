"""The GM's page of the campaign's webhook (the Discord relay): set it and choose what
it relays, send a test message, remove it, and read how the latest deliveries went.

Every POST asks again whether the person is the GM (`get_campaign_for_gm`, and the
service itself, at the moment it runs): a GM who handed the campaign over while the
page was open is refused."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from questworlds_site import throttle
from questworlds_site.requests import AuthenticatedRequest

from ..access import get_campaign_for_gm
from ..forms import WebhookForm
from ..models import WebhookKind
from ..webhooks.services import webhook_remove, webhook_set, webhook_status, webhook_test

# What a new webhook relays until the GM chooses otherwise: the evening's news.
DEFAULT_KINDS = [
    WebhookKind.SESSION_STARTED,
    WebhookKind.SESSION_ENDED,
    WebhookKind.CONTEST_OUTCOME,
    WebhookKind.RECAP_PUBLISHED,
]


def campaign_webhook(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    status = webhook_status(campaign)
    initial = {"kinds": status.kinds if status else DEFAULT_KINDS}
    form = WebhookForm(
        request.POST if request.method == "POST" else None,
        initial=initial,
        has_webhook=status is not None,
    )
    if request.method == "POST" and form.is_valid():
        try:
            webhook_set(
                campaign=campaign,
                actor=request.user,
                url=form.cleaned_data["url"],
                kinds=form.cleaned_data["kinds"],
            )
        except ValidationError as exc:
            form.add_error("url" if form.cleaned_data["url"] else None, exc)
        else:
            messages.success(request, "The webhook is saved.")
            return redirect("campaign_webhook", campaign.pk)
    context = {"campaign": campaign, "form": form, "status": status}
    return render(request, "campaigns/webhook.html", context, status=400 if form.errors else 200)


@require_POST
def campaign_webhook_remove(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    webhook_remove(campaign=campaign, actor=request.user)
    messages.success(request, "The webhook is removed: nothing is relayed any more.")
    return redirect("campaign_webhook", campaign.pk)


@require_POST
def campaign_webhook_test(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """Send a test message and show the receiver's answer in words (htmx: the status
    part of the page; a plain form post: the page again, with the answer on top)."""
    campaign = get_campaign_for_gm(request.user, campaign_id)
    refusal = throttle.hit(
        settings.WEBHOOK_TEST_LIMIT,
        f"webhook-test:{request.user.pk}",
        "Too many test messages: wait {wait} and try again. Nothing was sent.",
    )
    if refusal is not None and not request.htmx:
        return throttle.too_many(request, refusal)
    if refusal is not None:
        words, ok, code = refusal.message, False, 400
    else:
        answer = webhook_test(campaign=campaign, actor=request.user)
        words, ok, code = answer.words, answer.delivered, 200
    if not request.htmx:
        (messages.success if ok else messages.error)(request, words)
        return redirect("campaign_webhook", campaign.pk)
    context = {
        "campaign": campaign,
        "status": webhook_status(campaign),
        "answer": words,
        "delivered": ok,
    }
    return render(request, "campaigns/webhook.html#status", context, status=code)
