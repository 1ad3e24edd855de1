"""A session's recap drafted from what happened at the table (issue 30, part 2).

The draft is the player-safe cut: it reads only what every player could see at the
table. Contests come with their prize, who took part with which ability, the outcome
in words and the consequences and benefits applied, read through the same filter as
the archive's public pages (`contests.events.visible`), so a hidden GM roll never
enters; a resistance's rating and the GM's notes are left out; hero points spent and
advances come from the characters' ledgers (steps undone are left out); the
community's changes from its steps in the session; the chat only as the lines the GM
picked, and only said in character or as an emote (never a whisper, never out of
character). Every value people typed goes in as plain text (`plain_text`), so a prize
cannot turn the recap's Markdown into something else.

The GM edits the draft and publishes it (`services.session_recap_publish`); until
then players see nothing of it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import Prefetch
from django.utils import timezone

from characters.models import LedgerEntry, LedgerReason, LedgerStep
from community.models import CommunityStep, ResourceChange
from contests.events import visible
from contests.models import ChatKind, ChatMessage, Contest, ContestEvent, ContestStatus
from questworlds_site.limits import RECAP

from .markdown import plain_text
from .models import Session
from .selectors import consequence_rows, outcome_text

# What the GM may pick from the chat for the recap: what the characters said and did.
PICKABLE_CHAT = (ChatKind.IN_CHARACTER, ChatKind.EMOTE)

# The ledger steps that are advances (§7.1, 1e §6, §6.5.2): a rating or a new ability.
ADVANCE_REASONS = (
    LedgerReason.ADVANCE,
    LedgerReason.CATCH_UP,
    LedgerReason.DIRECTED,
    LedgerReason.CLASSIC_IMPROVEMENT,
    LedgerReason.SIDEKICK_IMPROVEMENT,
)

SIDE_NAMES = {"pc": "the PCs", "opponent": "the opposition"}


def pickable_chat(session: Session):
    """The session's lines the GM may pick for its recap, oldest first."""
    return (
        ChatMessage.objects.filter(session=session, kind__in=PICKABLE_CHAT)
        .select_related("author", "character")
        .order_by("created_at", "id")
    )


@dataclass
class _Contest:
    contest: Contest
    consequences: list[str] = field(default_factory=list)


def _contests(session: Session) -> list[_Contest]:
    contests = (
        Contest.objects.filter(session=session)
        .only(
            "id", "number", "kind", "prize", "obstacle", "resistance_name", "outcome_level",
            "narration", "status", "session_id", "campaign_id",
        )
        .prefetch_related(
            "participants",
            Prefetch("events", queryset=ContestEvent.objects.order_by("seq"), to_attr="log"),
        )
        .order_by("number")
    )  # fmt: skip
    found = []
    for contest in contests:
        participants = list(contest.participants.all())
        side_names = {p.side: p.name for p in participants}
        undone = {e.payload.get("undoes") for e in contest.log if e.type == "undone" and e.payload}
        rows = []
        for event in contest.log:
            if event.seq in undone or not isinstance(event.payload, dict):
                continue
            rows += consequence_rows(visible(event.payload, "public"), side_names)
        found.append(_Contest(contest, [str(row) for row in rows]))
    return found


def _contest_lines(played: _Contest) -> list[str]:
    contest = played.contest
    participants = list(contest.participants.all())
    heading = f"**Contest {contest.number}, {contest.get_kind_display().lower()}"
    heading += f": {plain_text(contest.prize)}.**" if contest.prize else ".**"
    sides: dict[str, list[str]] = defaultdict(list)
    for p in participants:
        # A character's ability; a resistance (no character) is named alone.
        shown = p.ability and p.character_id is not None
        who = plain_text(p.name) + (f" ({plain_text(p.ability)})" if shown else "")
        sides[p.side].append(who)
    pcs = sides.pop("pc", [])
    others = [who for names in sides.values() for who in names]
    if not others and contest.resistance_name:
        others = [plain_text(contest.resistance_name)]
    who = ", ".join(pcs) or "The PCs"
    line = f"- {heading} {who}"
    line += f" against {', '.join(others)}." if others else "."
    if contest.obstacle:
        line += f" The obstacle: {plain_text(contest.obstacle)}."
    if contest.status == ContestStatus.ABANDONED:
        line += " It was abandoned."
    elif contest.outcome_level is not None:
        line += f" Outcome for {', '.join(_names(participants, 'pc')) or 'the PCs'}: "
        line += f"**{outcome_text(contest.outcome_level)}**."
        if contest.status == ContestStatus.RESOLVING:
            line += " Its consequences were not applied at the table."
    else:
        line += " It was left unfinished."
    if contest.narration:
        line += f" {plain_text(contest.narration)}"
    lines = [line]
    lines += [f"  - {plain_text(text)}" for text in played.consequences]
    return lines


def _names(participants, side: str) -> list[str]:
    return [plain_text(p.name) for p in participants if p.side == side]


def _steps(session: Session, reasons: Iterable[str]) -> list[LedgerStep]:
    until = session.ended_at or timezone.now()
    return list(
        LedgerStep.objects.filter(
            character__campaign_id=session.campaign_id,
            reason__in=list(reasons),
            undone_at__isnull=True,
            created_at__gte=session.started_at,
            created_at__lte=until,
        )
        .select_related("character")
        .prefetch_related(
            Prefetch("entries", queryset=LedgerEntry.objects.select_related("ability"))
        )
        .order_by("created_at", "id")
    )


def _hero_point_lines(session: Session) -> list[str]:
    spent: dict[str, int] = defaultdict(int)
    for step in _steps(session, [LedgerReason.HERO_POINT_SPEND]):
        for entry in step.entries.all():
            if entry.field == LedgerEntry.Field.HERO_POINTS and entry.before is not None:
                spent[step.character.name] += max(entry.before - (entry.after or 0), 0)
    return [
        f"- {plain_text(name)} spent {n} hero point{'s' if n != 1 else ''}."
        for name, n in spent.items()
        if n
    ]


def _advance_lines(session: Session) -> list[str]:
    lines = []
    for step in _steps(session, ADVANCE_REASONS):
        changes = [
            f"{plain_text(entry.ability_name or entry.get_field_display())} {entry.change_text}"
            for entry in step.entries.all()
            if entry.field in (LedgerEntry.Field.RATING, LedgerEntry.Field.NEW_ABILITY)
        ]
        if changes:
            what = step.get_reason_display().lower()
            lines.append(f"- {plain_text(step.character.name)} ({what}): {'; '.join(changes)}.")
    return lines


def _community_lines(session: Session) -> list[str]:
    steps = (
        CommunityStep.objects.filter(community__campaign_id=session.campaign_id, session=session)
        .prefetch_related(
            Prefetch("changes", queryset=ResourceChange.objects.select_related("resource"))
        )
        .order_by("created_at", "id")
    )
    lines = []
    for step in steps:
        changes = [
            f"{plain_text(c.resource.name)} {c.get_column_display().lower()} "
            f"{c.before_text} → {c.after_text}"
            for c in step.changes.all()
        ]
        if changes:
            lines.append(f"- {plain_text(step.summary)}: {'; '.join(changes)}.")
    return lines


def draft_recap(session: Session, *, chat: Iterable[ChatMessage] = ()) -> str:
    """The session's recap drafted from its events, in Markdown within the recap's
    limit; `chat` the lines the GM picked (anything not pickable is left out)."""
    attendees = ", ".join(plain_text(c.name) for c in session.attendees.order_by("name"))
    parts = [f"*With {attendees}.*", ""] if attendees else []
    contests = _contests(session)
    sections = (
        ("Contests", [line for played in contests for line in _contest_lines(played)]),
        ("Hero points", _hero_point_lines(session)),
        ("Advances", _advance_lines(session)),
        ("The community", _community_lines(session)),
        (
            "Said at the table",
            [
                f"> {plain_text(line.as_text())}\n"
                for line in chat
                if line.kind in PICKABLE_CHAT and line.session_id == session.pk
            ],
        ),
    )
    if not contests:
        parts += ["No contest was played.", ""]
    for heading, lines in sections:
        if lines:
            parts += [f"### {heading}", "", *lines, ""]
    return _within_limit("\n".join(parts).strip() + "\n")


CUT_NOTE = "\n*(The draft stops here: the rest would not fit in a recap.)*\n"


def _within_limit(text: str) -> str:
    """The draft whole, or cut at the last line that fits with a note saying so."""
    if len(text) <= RECAP:
        return text
    kept = text[: RECAP - len(CUT_NOTE)]
    return kept[: kept.rfind("\n") + 1] + CUT_NOTE
