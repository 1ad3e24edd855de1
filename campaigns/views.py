from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from .access import campaigns_for_user, get_campaign_for_user


@login_not_required
def landing(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    return render(request, "landing.html")


def home(request: HttpRequest) -> HttpResponse:
    """The signed-in front page: the campaigns you run or play in."""
    campaigns = campaigns_for_user(request.user)
    return render(request, "campaigns/home.html", {"campaigns": campaigns})


def campaign_detail(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    members = campaign.memberships.select_related("user")
    characters = campaign.characters.select_related("player")
    context = {"campaign": campaign, "role": role, "members": members, "characters": characters}
    return render(request, "campaigns/detail.html", context)
