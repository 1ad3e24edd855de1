"""The table page's parts that follow the session: its notice, the chat panel (its form
comes and goes with the session) and the GM's frame panel (framing needs a session).

One context per part, used by the page (contests.views), by the page's reload of a part
when the session starts or ends, and by the full state a socket gets on every
(re)connect and resync (contests.consumers): so a page that comes back shows what a
page opened afresh shows (issue 27).
"""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string

from campaigns.models import Campaign
from characters.models import Ability, Character, Follower
from community.models import ResourceDraw
from questworlds_site.limits import CHAT_LINE

from . import live
from .choices import FRAME_CHOICES
from .models import ChatKind

# Blank rows of further participants in the frame form (group contests).
FRAME_ROWS = 5


def session_key(session) -> str:
    """What the page marks its session with (`data-session` on its notice): the open
    session's id, or nothing. The page compares it to tell a change of session."""
    return str(session.pk) if session is not None else ""


def chat_panel_context(campaign: Campaign, role: str, user, my_characters: list) -> dict:
    """What the chat panel shows this reader: the open session's lines they may see,
    and the form to write in it (not for spectators, not without a session)."""
    open_session = campaign.open_session()
    return {
        "campaign": campaign,
        "role": role,
        "user": user,
        "my_characters": my_characters,
        "open_session": open_session,
        "session_key": session_key(open_session),
        **live.chat_context(open_session, role, user.pk),
        "chat_kinds": ChatKind.choices,
        "chat_limit": CHAT_LINE,
    }


def frame_panel_context(campaign: Campaign, characters: list[Character]) -> dict[str, Any]:
    """What the GM's frame panel offers: with a session open, the frame form and its
    choices (the campaign's characters, library NPCs, sidekicks, approved draws)."""
    return {
        "campaign": campaign,
        "characters": characters,
        "npcs": list(campaign.npcs.all()),
        "sidekick_abilities": _sidekick_abilities(campaign),
        "draws": _approved_draws(campaign),
        "frame_rows": range(FRAME_ROWS),
        "frame_choices": FRAME_CHOICES,
    }


def campaign_characters(campaign: Campaign) -> list[Character]:
    return list(
        Character.objects.filter(campaign=campaign).select_related("player").order_by("name")
    )


def _sidekick_abilities(campaign: Campaign) -> list[Ability]:
    """The abilities of the campaign's sidekicks in service, for a follower row of the
    frame form (§5.2.4, §6.5.1); a lost sidekick's are not offered (§6.5.2)."""
    return list(
        Ability.objects.filter(
            character__campaign=campaign,
            follower__kind=Follower.Kind.SIDEKICK,
            follower__lost_at__isnull=True,
        )
        .select_related("follower", "character")
        .order_by("character__name", "follower_id", "position", "id")
    )


def _approved_draws(campaign: Campaign) -> list:
    """Approved draws on the community's resources, waiting for their contest (§8.2)."""
    return list(
        ResourceDraw.objects.filter(community__campaign=campaign, status="approved")
        .select_related("resource")
        .order_by("id")
    )


def render_session_parts(campaign_id: int, role: str, user) -> str:
    """The parts of the page that follow the session, for a full state: the notice (no
    news in it, as on a page opened now, but the session's mark), the chat panel whole
    and, for the GM, the frame panel, each as an out-of-band fragment. The page redraws
    the panels only when the session changed (static/js/table.js), so what someone is
    typing in them survives a resync."""
    campaign = Campaign.objects.get(pk=campaign_id)
    characters = campaign_characters(campaign)
    mine = [c for c in characters if c.player_id == user.pk]
    context = {**chat_panel_context(campaign, role, user, mine), "panel_oob": True}
    if role == "gm":
        context.update(frame_panel_context(campaign, characters))
    notice = render_to_string(
        "contests/table.html#session_notice", {"session_key": context["session_key"], "oob": True}
    )
    parts = render_to_string("contests/table.html#chat_panel", context)
    if role == "gm":
        parts += render_to_string("contests/table.html#frame_panel", context)
    return notice + parts
