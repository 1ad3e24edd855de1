"""The campaign as a readable Markdown document, as one viewer may see it."""

from __future__ import annotations

import html

import nh3
from django.db.models import Prefetch

from characters.models import Character
from contests.models import ChatMessage, Contest
from contests.rules.ratings import Rating
from contests.selectors import visible_chat

from ..access import ArchiveViewer
from ..selectors import outcome_text, visible_events


def _plain(text: str) -> str:
    """Text people wrote, without raw HTML: Markdown lets markup through, so the file
    is cleaned as the archive page cleans what it shows (nh3); `<`, `>` and `&` left in
    the words are escaped, which Markdown shows as typed."""
    return nh3.clean(str(text), tags=set())


def _md_line(text: str) -> str:
    return " ".join(_plain(text).split())


# How the file names a contest's sides (people read words, not codes).
SIDE_WORDS = {"pc": "the PCs' side", "opponent": "opponents"}


def campaign_chronicle(viewer: ArchiveViewer) -> str:
    """The campaign as a readable Markdown document, as this viewer may see it."""
    campaign = viewer.campaign
    lines = [f"# {campaign.name}", ""]
    lines.append(f"*{campaign.genre or 'No genre'}* · GM: {campaign.gm.shown_name}")
    lines.append("")
    if campaign.description:
        lines += [_plain(campaign.description), ""]
    sessions = (
        campaign.sessions.select_related("season")
        .prefetch_related(
            Prefetch("attendees", queryset=Character.objects.only("id", "name")),
            Prefetch(
                "contests",
                queryset=Contest.objects.prefetch_related("participants", "events").order_by(
                    "number"
                ),
                to_attr="played",
            ),
            Prefetch("chat_messages", queryset=_chat(viewer), to_attr="chat"),
        )
        .order_by("number")
    )
    season_number = None
    for session in sessions:
        if session.season and session.season.number != season_number:
            season_number = session.season.number
            lines += [f"## {session.season}", ""]
            lines += [f"Base resistance {session.season.base_resistance}.", ""]
        title = f"Session {session.number}" + (f": {session.title}" if session.title else "")
        lines += [f"### {title}", ""]
        when = session.started_at.strftime("%Y-%m-%d")
        attendees = ", ".join(c.name for c in session.attendees.all()) or "nobody recorded"
        lines += [f"*{when}* · Attendees: {attendees}", ""]
        if session.recap:
            lines += [_plain(session.recap), ""]
        for contest in session.played:
            lines += _contest_chronicle(viewer, contest)
        if session.chat:
            lines += ["#### Chat", ""]
            # Chat is plain text: markup in it is shown as typed, never run by a reader.
            lines += [
                f"- {html.escape(' '.join(line.as_text().split()), quote=False)}"
                for line in session.chat
            ]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _chat(viewer: ArchiveViewer):
    """The chat lines this viewer may read (whispers to the GM: the GM and their authors)."""
    lines = ChatMessage.objects.select_related("author", "character").order_by("created_at", "id")
    return visible_chat(lines, is_gm=viewer.is_gm, user_id=viewer.user_id)


def _contest_chronicle(viewer: ArchiveViewer, contest: Contest) -> list[str]:
    heading = f"#### Contest {contest.number}: {contest.get_kind_display()}"
    if contest.prize:
        heading += f" — {_md_line(contest.prize)}"
    lines = [heading, ""]
    if contest.obstacle:
        lines.append(f"- Obstacle: {_md_line(contest.obstacle)}")
    if contest.resistance_name or contest.resistance_rating is not None:
        rating = contest.resistance_rating
        rating = f" ({Rating(rating)})" if rating is not None else ""
        lines.append(f"- Resistance: {_md_line(contest.resistance_name)}{rating}")
    participants = list(contest.participants.all())
    for p in participants:
        ability = f", {p.ability}" if p.ability else ""
        rating = f" {Rating(p.rating)}" if p.rating is not None else ""
        side = SIDE_WORDS.get(p.side, _md_line(p.side))
        lines.append(f"- {_md_line(p.name)} ({side}{_md_line(ability)}{rating})")
    events = visible_events(viewer, list(contest.events.all()), participants)
    if events:
        lines.append("")
    for event in events:
        if not (event.summary or event.consequences):
            continue
        item = f"{event.seq}. "
        lines.append(f"{item}{_md_line(event.summary or event.label)}")
        # Who took which consequence or benefit, on which ability, as the archive shows
        # them: a list nested in the event's item (indented past its number).
        indent = " " * max(4, len(item))
        lines += [f"{indent}- {_md_line(str(row))}" for row in event.consequences]
    lines += ["", f"**Outcome:** {outcome_text(contest.outcome_level)}."]
    if contest.narration:
        lines.append(f"{_md_line(contest.narration)}")
    if viewer.is_gm and contest.gm_notes:
        lines.append(f"*GM notes:* {_md_line(contest.gm_notes)}")
    lines.append("")
    return lines
