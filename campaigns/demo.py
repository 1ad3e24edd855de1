"""The demo campaign `make run` loads into an empty database."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from characters.models import Character
from community.models import Community

from .models import Campaign, Membership, Role

DEMO_PASSWORD = "questworlds"
DEMO_LOGINS = (
    ("gm", "Gwen the GM", "game master"),
    ("alice", "Alice", "player"),
    ("bob", "Bob", "player"),
)


def database_is_empty() -> bool:
    return not get_user_model().objects.exists()


@transaction.atomic
def demo_campaign_create() -> Campaign:
    """A GM, two players, three characters and one community, ready to play."""
    User = get_user_model()
    users = {
        username: User.objects.create_user(
            username=username, password=DEMO_PASSWORD, display_name=display
        )
        for username, display, _ in DEMO_LOGINS
    }
    campaign = Campaign.objects.create(
        name="The Sunken Crown",
        genre="Bronze-age fantasy",
        description="The river city of Ashfen bargains with drowned gods for one more harvest.",
        gm=users["gm"],
    )
    for username in ("alice", "bob"):
        Membership.objects.create(campaign=campaign, user=users[username], role=Role.PLAYER)
    Character.objects.create(
        name="Tamsin Reedwalker",
        concept="Stubborn river guide",
        player=users["alice"],
        campaign=campaign,
    )
    Character.objects.create(
        name="Oro", concept="Loyal heron-sidekick", player=users["alice"], campaign=campaign
    )
    Character.objects.create(
        name="Brannoc Ironmouth",
        concept="Disgraced temple singer",
        player=users["bob"],
        campaign=campaign,
    )
    Community.objects.create(
        campaign=campaign,
        name="Ashfen",
        description="A city of stilts and ferries on the Grey River.",
        interval_name="season",
    )
    return campaign
