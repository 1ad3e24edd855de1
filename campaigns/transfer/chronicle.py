"""The campaign as a readable Markdown document, as one viewer may see it.

Every value people wrote goes into the document through one place, `_line`'s
`format_field`: names, titles, the genre, prizes, summaries and chat are plain text,
shown as typed (HTML and Markdown escaped, on one line); recaps and descriptions are
Markdown their authors wrote (`Prose`), kept as Markdown with raw HTML stripped.
"""

from __future__ import annotations

import string

import nh3
from django.db.models import Prefetch

from characters.models import Character
from contests.core.rules.ratings import Rating
from contests.models import ChatMessage, Contest
from contests.selectors import visible_chat

from ..access import ArchiveViewer
from ..markdown import plain_text
from ..selectors import outcome_text, visible_events


class Prose(str):
    """Markdown people wrote (a recap, a campaign's description): its formatting is
    kept, but Markdown lets raw HTML through, so that is cleaned as the archive page
    cleans what it shows (nh3); `<`, `>` and `&` left in the words are escaped."""


class _Chronicle(string.Formatter):
    """`str.format` for the chronicle's lines: the one place values enter the document."""

    def format_field(self, value: object, format_spec: str) -> str:
        if isinstance(value, Prose):
            return nh3.clean(str(value), tags=set())
        return plain_text(format(value, format_spec))


_line = _Chronicle().format


# How the file names a contest's sides (people read words, not codes).
SIDE_WORDS = {"pc": "the PCs' side", "opponent": "opponents"}


def campaign_chronicle(viewer: ArchiveViewer) -> str:
    """The campaign as a readable Markdown document, as this viewer may see it."""
    campaign = viewer.campaign
    lines = [_line("# {}", campaign.name), ""]
    lines.append(_line("*{}* · GM: {}", campaign.genre or "No genre", campaign.gm.shown_name))
    lines.append("")
    if campaign.description:
        lines += [_line("{}", Prose(campaign.description)), ""]
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
            lines += [_line("## {}", session.season), ""]
            lines += [_line("Base resistance {}.", session.season.base_resistance), ""]
        heading = "### Session {}: {}" if session.title else "### Session {}"
        lines += [_line(heading, session.number, session.title), ""]
        when = session.started_at.strftime("%Y-%m-%d")
        attendees = ", ".join(c.name for c in session.attendees.all()) or "nobody recorded"
        lines += [_line("*{}* · Attendees: {}", when, attendees), ""]
        if session.recap and session.recap_published_at:  # a draft is the GM's alone
            lines += [_line("{}", Prose(session.recap)), ""]
        for contest in session.played:
            lines += _contest_chronicle(viewer, contest)
        if session.chat:
            lines += ["#### Chat", ""]
            # Chat is plain text: markup in it is shown as typed, never run by a reader.
            lines += [_line("- {}", line.as_text()) for line in session.chat]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _chat(viewer: ArchiveViewer):
    """The chat lines this viewer may read (whispers to the GM: the GM and their authors)."""
    lines = ChatMessage.objects.select_related("author", "character").order_by("created_at", "id")
    return visible_chat(lines, is_gm=viewer.is_gm, user_id=viewer.user_id)


def _contest_chronicle(viewer: ArchiveViewer, contest: Contest) -> list[str]:
    heading = "#### Contest {}: {} — {}" if contest.prize else "#### Contest {}: {}"
    lines = [_line(heading, contest.number, contest.get_kind_display(), contest.prize), ""]
    if contest.obstacle:
        lines.append(_line("- Obstacle: {}", contest.obstacle))
    if contest.resistance_name or contest.resistance_rating is not None:
        rating = contest.resistance_rating
        line = "- Resistance: {} ({})" if rating is not None else "- Resistance: {}"
        shown = Rating(rating) if rating is not None else None
        lines.append(_line(line, contest.resistance_name, shown))
    participants = list(contest.participants.all())
    for p in participants:
        about = SIDE_WORDS.get(p.side, p.side) + (f", {p.ability}" if p.ability else "")
        about += f" {Rating(p.rating)}" if p.rating is not None else ""
        lines.append(_line("- {} ({})", p.name, about))
    events = visible_events(viewer, list(contest.events.all()), participants)
    if events:
        lines.append("")
    for event in events:
        if not (event.summary or event.consequences):
            continue
        item = f"{event.seq}. "
        lines.append(_line("{}. {}", event.seq, event.summary or event.label))
        # Who took which consequence or benefit, on which ability, as the archive shows
        # them: a list nested in the event's item (indented past its number).
        indent = " " * max(4, len(item))
        lines += [indent + _line("- {}", row) for row in event.consequences]
    lines += ["", _line("**Outcome:** {}.", outcome_text(contest.outcome_level))]
    if contest.narration:
        lines.append(_line("{}", contest.narration))
    if viewer.is_gm and contest.gm_notes:
        lines.append(_line("*GM notes:* {}", contest.gm_notes))
    lines.append("")
    return lines
