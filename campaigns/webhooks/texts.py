"""The words each kind of news is relayed in: what every player at the table may know,
never more (no GM notes, no resistance's rating, no hidden roll, no whisper), with the
names and labels people read, never codes.

What people typed (names, prizes) goes in as plain text: Discord's Markdown is escaped,
so a prize cannot turn into a link or bold the rest of the line, and the message asks
Discord to parse no mention (delivery.body), so "@everyone" pings nobody.
"""

from __future__ import annotations

import re
from typing import Any

from contests.core.rules.simple import describe_level

from ..models import Campaign, Session

# What makes Discord's Markdown inside a line: emphasis, code, spoilers, masked links
# ([text](url)) and <@mentions>, <t:timestamps>.
_MARKUP = re.compile(r"([\\*_~`|\[\]<])")


def plain(value: object) -> str:
    """`value` as Discord shows it as typed, on one line."""
    return _MARKUP.sub(r"\\\1", " ".join(str(value).split()))


def _headed(campaign: Campaign, line: str) -> str:
    return f"**{plain(campaign.name)}** — {line}"


def _session_name(session: Session) -> str:
    name = f"Session {session.number}"
    return f"{name} ({plain(session.title)})" if session.title else name


def session_started(session: Session) -> str:
    """ "**The Sunken Crown** — Session 3 (Low water) has begun." """
    return _headed(session.campaign, f"{_session_name(session)} has begun.")


def session_ended(session: Session) -> str:
    return _headed(session.campaign, f"{_session_name(session)} has ended.")


# Room for the recap in one Discord message (2,000 characters) after its heading line.
RECAP_ROOM = 1_800


def recap_published(session: Session) -> str:
    """The heading, then the recap as the GM published it (player-safe by then: the
    players read the same text), cut at a line if it would not fit, saying so."""
    line = _headed(session.campaign, f"the recap of {_session_name(session)}:")
    recap = session.recap.strip()
    if len(recap) > RECAP_ROOM:
        recap = recap[: recap.rfind("\n", 0, RECAP_ROOM) + 1 or RECAP_ROOM].rstrip()
        recap += "\n… (the rest is in the campaign's archive)"
    return f"{line}\n{recap}"


def _pc_side(framing: dict[str, Any]) -> tuple[str, bool]:
    """Who the contest is for: the PC's name, or the names on the PCs' side of a group;
    and whether they are several."""
    if isinstance(framing.get("pc"), dict) and framing["pc"].get("name"):
        return plain(framing["pc"]["name"]), False
    side = framing.get("pc_side") or "pc"
    names = [
        plain(p["name"])
        for p in framing.get("participants") or []
        if isinstance(p, dict) and p.get("side") == side and p.get("name") and not p.get("owner")
    ]
    if not names:
        return "the PCs", True
    if len(names) == 1:
        return names[0], False
    return f"{', '.join(names[:-1])} and {names[-1]}", True


def _aim(who: str, several: bool, prize: str, obstacle: str) -> str:
    if prize:
        return f"{who} {'want' if several else 'wants'} {plain(prize)}"
    if obstacle:
        return f"{who} {'face' if several else 'faces'} {plain(obstacle)}"
    return f"a contest for {who}"


def contest_framed(
    campaign: Campaign, *, kind_label: str, prize: str, obstacle: str, framing: dict[str, Any]
) -> str:
    """ "Contest framed: Tamsin wants to cross the ford before dusk (simple contest)." """
    who, several = _pc_side(framing)
    aim = _aim(who, several, prize, obstacle)
    return _headed(campaign, f"Contest framed: {aim} ({kind_label.lower()}).")


def contest_outcome(
    campaign: Campaign,
    *,
    prize: str,
    obstacle: str,
    framing: dict[str, Any],
    level: int | None,
    automatic: bool,
) -> str:
    """ "Contest outcome: Tamsin wants to cross the ford — minor victory for Tamsin." The
    outcome from the PCs' side (§2.10), as the archive words it."""
    who, several = _pc_side(framing)
    if automatic:
        result = f"an automatic victory for {who}"
    elif level is None:
        result = "decided"
    elif level == 0:
        result = "a tie"
    else:
        result = f"{describe_level(level)} for {who}"
    aim = _aim(who, several, prize, obstacle)
    return _headed(campaign, f"Contest outcome: {aim} — {result}.")


def sample_message(campaign: Campaign) -> str:
    return _headed(
        campaign,
        "a test message from QuestWorlds Table: the table's news will arrive here.",
    )
