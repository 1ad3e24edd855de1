"""Read-side helpers of the campaign archive.

Every page here runs a fixed number of queries whatever the size of the campaign
(tests/campaigns/test_archive_scale.py counts each page's queries on a small campaign
and on one many pages long: the same count at both sizes): lists are paginated,
related rows come in one prefetch per relation, and what a viewer may not see (GM-only
events, hidden rolls, GM notes) is left out here, so no template can show it by
mistake.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.core.paginator import Page, Paginator
from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet
from django.http import Http404

from characters.models import Ability, Character, Condition
from contests.core.rules.simple import describe_level
from contests.events import EVENT_WORDS, visible
from contests.models import ChatMessage, Contest, ContestEvent, ContestKind, ContestParticipant
from contests.selectors import chat_lines
from questworlds_site import inputs

from .access import ArchiveViewer
from .models import Season, Session

SESSIONS_PER_PAGE = 10
CONTESTS_PER_PAGE = 25
SEARCH_SESSIONS_PER_PAGE = 10

# The outcome filter, from the PC side (`Contest.outcome_level`, +4 .. -4).
OUTCOME_FILTERS: dict[str, tuple[str, Q]] = {
    "victory": ("Any victory", Q(outcome_level__gt=0)),
    "tie": ("Tie", Q(outcome_level=0)),
    "defeat": ("Any defeat", Q(outcome_level__lt=0)),
    **{
        describe_level(level).replace(" ", "_"): (
            describe_level(level).capitalize(),
            Q(outcome_level=level),
        )
        for level in (4, 3, 2, 1, -1, -2, -3, -4)
    },
    "unfinished": ("Not finished", Q(outcome_level__isnull=True)),
}

# What a contest row in a list needs (no framing/state JSON, no GM notes).
CONTEST_LIST_FIELDS = (
    "id",
    "number",
    "session_id",
    "kind",
    "status",
    "prize",
    "obstacle",
    "resistance_name",
    "winner",
    "degree",
    "outcome_level",
)


def outcome_text(level: int | None) -> str:
    """A contest's result in words, from the PC side ("minor victory", "tie")."""
    return "not finished" if level is None else describe_level(level)


def _page(queryset, number: Any, per_page: int) -> Page:
    """One page of `queryset` (a bad or too large page number gives the nearest page)."""
    return Paginator(queryset, per_page).get_page(inputs.page_number(number))


def _contest_rows(viewer: ArchiveViewer) -> QuerySet[Contest]:
    return Contest.objects.filter(campaign=viewer.campaign).only(*CONTEST_LIST_FIELDS)


# --------------------------------------------------------------------- timeline


def timeline_page(viewer: ArchiveViewer, page_number: Any) -> Page:
    """A page of sessions in play order, each with its season, attendees and contests
    in order (three queries besides the count)."""
    sessions = (
        Session.objects.filter(campaign=viewer.campaign)
        .select_related("season")
        .prefetch_related(
            Prefetch("attendees", queryset=Character.objects.only("id", "name")),
            Prefetch(
                "contests", queryset=_contest_rows(viewer).order_by("number"), to_attr="played"
            ),
        )
        .order_by("number")
    )
    return _page(sessions, page_number, SESSIONS_PER_PAGE)


def seasons_of(viewer: ArchiveViewer) -> list[Season]:
    return list(viewer.campaign.seasons.order_by("number"))


def session_for_viewer(viewer: ArchiveViewer, number: int) -> Session:
    session = (
        Session.objects.filter(campaign=viewer.campaign, number=number)
        .select_related("season")
        .prefetch_related(Prefetch("attendees", queryset=Character.objects.only("id", "name")))
        .first()
    )
    if session is None:
        raise Http404("No such session")
    return session


def session_contests_page(viewer: ArchiveViewer, session: Session, page_number: Any) -> Page:
    contests = (
        _contest_rows(viewer)
        .filter(session=session)
        .prefetch_related(
            Prefetch(
                "participants",
                queryset=ContestParticipant.objects.only("id", "contest_id", "name", "side"),
            )
        )
        .order_by("number")
    )
    return _page(contests, page_number, CONTESTS_PER_PAGE)


def session_chat(viewer: ArchiveViewer, session: Session) -> list[ChatMessage]:
    """The session's table chat as this viewer may see it (a whisper to the GM: the GM
    and its author only; the public link none), oldest first, in one query."""
    return chat_lines(session, is_gm=viewer.is_gm, user_id=viewer.user_id)


# --------------------------------------------------------------------- contest list and search


@dataclass(frozen=True)
class ContestFilters:
    """The archive's filters, read from a query string; unknown values are ignored."""

    character: int | None = None
    kind: str = ""
    outcome: str = ""
    q: str = ""

    @classmethod
    def from_query(cls, query) -> ContestFilters:
        character = query.get("character", "")
        kind = query.get("kind", "")
        outcome = query.get("outcome", "")
        return cls(
            character=inputs.an_id(character),
            kind=kind if kind in ContestKind.values else "",
            outcome=outcome if outcome in OUTCOME_FILTERS else "",
            q=query.get("q", "").strip()[:200],
        )

    @property
    def active(self) -> bool:
        return bool(self.character or self.kind or self.outcome or self.q)

    def as_query(self) -> str:
        pairs = {
            "character": self.character or "",
            "kind": self.kind,
            "outcome": self.outcome,
            "q": self.q,
        }
        return urlencode({k: v for k, v in pairs.items() if v})


def _contest_search(viewer: ArchiveViewer, q: str) -> Q:
    """Words in a contest's framing (prize, obstacle, resistance, narration); the GM's
    search also reads the GM notes."""
    match = (
        Q(prize__icontains=q)
        | Q(obstacle__icontains=q)
        | Q(resistance_name__icontains=q)
        | Q(narration__icontains=q)
    )
    if viewer.is_gm:
        match |= Q(gm_notes__icontains=q)
    return match


def contest_list_page(viewer: ArchiveViewer, filters: ContestFilters, page_number: Any) -> Page:
    """A page of the campaign's contests in play order, filtered, with their sessions."""
    contests = _contest_rows(viewer).select_related("session").order_by("number")
    if filters.character:
        contests = contests.filter(
            Exists(
                ContestParticipant.objects.filter(
                    contest=OuterRef("pk"), character_id=filters.character
                )
            )
        )
    if filters.kind:
        contests = contests.filter(kind=filters.kind)
    if filters.outcome:
        contests = contests.filter(OUTCOME_FILTERS[filters.outcome][1])
    if filters.q:
        contests = contests.filter(_contest_search(viewer, filters.q))
    contests = contests.only(*CONTEST_LIST_FIELDS, "session__number", "session__title")
    return _page(contests, page_number, CONTESTS_PER_PAGE)


def filter_characters(viewer: ArchiveViewer) -> list[Character]:
    """Characters for the filter: the campaign's, and any who left but played here."""
    played = ContestParticipant.objects.filter(
        contest__campaign=viewer.campaign, character=OuterRef("pk")
    )
    return list(
        Character.objects.filter(Q(campaign=viewer.campaign) | Q(Exists(played)))
        .only("id", "name")
        .order_by("name", "id")
    )


def session_search_page(viewer: ArchiveViewer, q: str, page_number: Any) -> Page:
    """Sessions whose title or recap mention `q` (a draft recap only for the GM)."""
    in_recap = Q(recap__icontains=q)
    if not viewer.is_gm:
        in_recap &= Q(recap_published_at__isnull=False)
    sessions = (
        Session.objects.filter(campaign=viewer.campaign)
        .filter(Q(title__icontains=q) | in_recap)
        .select_related("season")
        .order_by("number")
    )
    return _page(sessions, page_number, SEARCH_SESSIONS_PER_PAGE)


# --------------------------------------------------------------------- one contest


@dataclass(frozen=True)
class ConsequenceRow:
    """One consequence or benefit a contest applied: who, which state, on which ability."""

    who: str
    state: str
    ability: str

    def __str__(self) -> str:
        text = f"{self.who}: {self.state}"
        return f"{text} ({self.ability})" if self.ability else text


@dataclass
class ArchivedEvent:
    """One event as this viewer may see it (hidden rolls left out)."""

    seq: int
    type: str
    summary: str
    rolls: list[dict]
    augments: list[dict]
    totals: dict[str, Any]
    totals_kind: str
    hidden_rolls: int
    consequences: list[ConsequenceRow]

    @property
    def label(self) -> str:
        """The event type in words ("apply_consequences" -> "Confirmed the consequences")."""
        if self.type in EVENT_WORDS:
            return EVENT_WORDS[self.type].capitalize()
        return self.type.replace("_", " ").capitalize()


@dataclass
class ChartSeries:
    name: str
    points: str
    colour: str
    last: Any
    dots: list[tuple[float, float, Any]] = field(default_factory=list)


@dataclass
class Chart:
    """The RP/AP progression, as coordinates for an inline SVG."""

    kind: str
    width: int
    height: int
    series: list[ChartSeries]
    zero_y: float
    top: Any
    bottom: Any
    steps: int


CHART_COLOURS = ("#7a2e12", "#1a5fb4", "#1e6b34", "#8a5a00", "#6b2e8a", "#444444")


def consequence_rows(payload: dict[str, Any], side_names: dict[str, str]) -> list[ConsequenceRow]:
    """The consequences and benefits of an `apply_consequences` event, as rows to show.

    The table's flows write them under `applied`, each with its `state`, the `ability`
    it lands on and the `character_id`, and name who took it in one of two ways:
    one-on-one contests (contests/core/table/one_on_one.py) by `side` ("pc" or
    "opponent"), whose name `side_names` gives; group contests
    (contests/core/table/group.py) by `participant` name.
    """
    applied = payload.get("applied")
    if not isinstance(applied, list):
        return []
    rows = []
    for item in applied:
        if not isinstance(item, dict) or not item.get("state"):
            continue
        if item.get("participant"):
            who = str(item["participant"])
        else:
            side = str(item.get("side") or "")
            who = side_names.get(side) or side
        rows.append(
            ConsequenceRow(
                who=who, state=str(item["state"]), ability=str(item.get("ability") or "")
            )
        )
    return rows


def visible_events(
    viewer: ArchiveViewer,
    events: list[ContestEvent],
    participants: Iterable[ContestParticipant],
) -> list[ArchivedEvent]:
    """The events as this viewer may see them (`contests.events.visible`): hidden GM
    rolls are for the GM alone (never for players, spectators or the public link). The contest's
    `participants` name the sides its consequences were applied to."""
    side_names = {p.side: p.name for p in participants}
    shown = []
    for event in events:
        stored = event.payload if isinstance(event.payload, dict) else {}
        payload = visible(stored, "gm" if viewer.is_gm else "public")
        hidden = [r for r in stored.get("rolls") or [] if isinstance(r, dict) and r.get("hidden")]
        totals = payload.get("totals")
        shown.append(
            ArchivedEvent(
                seq=event.seq,
                type=event.type,
                summary=str(payload.get("summary", "")),
                rolls=[r for r in payload.get("rolls") or [] if isinstance(r, dict)],
                augments=[a for a in payload.get("augments") or [] if isinstance(a, dict)],
                totals=totals if isinstance(totals, dict) else {},
                totals_kind=str(payload.get("totals_kind", "")),
                hidden_rolls=len(hidden),
                consequences=consequence_rows(payload, side_names),
            )
        )
    return shown


def totals_chart(events: list[ArchivedEvent], width: int = 480, height: int = 180) -> Chart | None:
    """A line per side of its RP or AP after each event that reports totals."""
    steps = [e for e in events if e.totals]
    if not steps:
        return None
    names: list[str] = []
    for event in steps:
        names += [n for n in event.totals if n not in names]
    values = [v for e in steps for v in e.totals.values() if isinstance(v, int | float)] or [0]
    top, bottom = max(max(values), 1), min(min(values), 0)
    pad = 24
    span_x = max(len(steps), 2) - 1
    span_y = top - bottom

    def xy(i: int, value: float) -> tuple[float, float]:
        x = pad + i * (width - 2 * pad) / span_x
        y = pad + (top - value) * (height - 2 * pad) / span_y
        return round(x, 1), round(y, 1)

    series = []
    for n, name in enumerate(names):
        dots, last = [], None
        for i, event in enumerate(steps):
            value = event.totals.get(name)
            if isinstance(value, int | float):
                dots.append((*xy(i, value), value))
                last = value
        series.append(
            ChartSeries(
                name=name,
                points=" ".join(f"{x},{y}" for x, y, _ in dots),
                colour=CHART_COLOURS[n % len(CHART_COLOURS)],
                last=last,
                dots=dots,
            )
        )
    return Chart(
        kind=steps[-1].totals_kind or "points",
        width=width,
        height=height,
        series=series,
        zero_y=xy(0, 0)[1],
        top=top,
        bottom=bottom,
        steps=len(steps),
    )


@dataclass
class ContestView:
    contest: Contest
    participants: list[ContestParticipant]
    events: list[ArchivedEvent]
    chart: Chart | None
    conditions: list[Condition]
    tactics: list[tuple[str, str]]
    outcome: str
    gm_notes: str


def _tactics(contest: Contest) -> list[tuple[str, str]]:
    """Each side's declared tactic, from the cached state or the framing."""
    found = []
    for source in (contest.state, contest.framing):
        sides = source.get("sides") if isinstance(source, dict) else None
        if isinstance(sides, dict):
            for side in sides.values():
                if isinstance(side, dict) and side.get("tactic"):
                    found.append((str(side.get("name", "")), str(side["tactic"])))
        if found:
            return found
    tactic = contest.framing.get("tactic") if isinstance(contest.framing, dict) else None
    return [("", str(tactic))] if tactic else []


def contest_view(viewer: ArchiveViewer, number: int) -> ContestView:
    """Everything the contest page shows, in five queries."""
    contest = (
        Contest.objects.filter(campaign=viewer.campaign, number=number)
        .select_related("session", "session__season")
        .first()
    )
    if contest is None:
        raise Http404("No such contest")
    participants = list(contest.participants.all())
    events = visible_events(viewer, list(contest.events.all()), participants)
    conditions = list(
        Condition.objects.filter(contest_id=contest.pk)
        .select_related("character")
        .prefetch_related(Prefetch("abilities", queryset=Ability.objects.only("id", "name")))
        .order_by("created_at", "id")
    )
    return ContestView(
        contest=contest,
        participants=participants,
        events=events,
        chart=totals_chart(events),
        conditions=conditions,
        tactics=_tactics(contest),
        outcome=outcome_text(contest.outcome_level),
        gm_notes=contest.gm_notes if viewer.is_gm else "",
    )
