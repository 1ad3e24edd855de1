from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from campaigns.access import get_campaign_for_user


def table(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """A campaign's live table; its content arrives over the websocket."""
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    return render(request, "contests/table.html", {"campaign": campaign, "role": role})
