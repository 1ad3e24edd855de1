"""The table's fragments for each audience (the panel, the bar, the roll log), the
copies a broadcast renders, and the broadcast after a contest's commit."""

from __future__ import annotations

import functools
import re
from typing import Any, cast

from django.db.models import Case, IntegerField, QuerySet, Value, When
from django.template.loader import render_to_string
from django.urls import get_script_prefix, get_urlconf
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from characters.models import CreationMethod
from questworlds_site.sql import PreparedRead

from ..audience import header
from ..broadcast import PackedCopies, send_to_table_sync
from ..choices import FRAME_CHOICES
from ..core.actions import DECLARED_BY_NAME, SHEETS_KEPT, Pick
from ..core.rules import ADVERSITY, FORTUNE
from ..core.rules.odds import outcome_percentages
from ..core.table import SIDES, BaseFlow, GroupFlow, load_flow
from ..core.table.long import LongFlow
from ..events import visible
from ..models import Contest, ContestEvent, ContestStatus
from . import engine
from .controls import audience_controls, by_participant, cast_of, players_with_forms, shared_view
from .moves import Move, moves, waiting_on
from .sheets import card, read_sheets

LOG_LENGTH = 30
# What the GM may record at the end of a contest (§2.11): adversity, then fortune.
CONSEQUENCE_OPTIONS = tuple(s.value for s in (*ADVERSITY, *FORTUNE))
ADVERSITY_OPTIONS = tuple(s.value for s in ADVERSITY)
FORTUNE_OPTIONS = tuple(s.value for s in FORTUNE)


def _table_contests(campaign: int) -> QuerySet[Contest]:
    """The campaign's contests, the open ones first, each group the latest first."""
    over = Case(
        When(status__in=[ContestStatus.FINISHED, ContestStatus.ABANDONED], then=Value(1)),
        default=Value(0),
        output_field=IntegerField(),
    )
    return Contest.objects.filter(campaign_id=campaign).order_by(over, "-number")[:1]


# Read on every page's reload of its sheet and every full state: built once (issue 29).
_CURRENT = PreparedRead(_table_contests)


def current_contest(campaign_id: int) -> Contest | None:
    """The contest on the table: the latest one not yet finished, else the latest."""
    found = cast("list[Contest]", _CURRENT.objects(campaign_id))
    return found[0] if found else None


def _shared_context(
    contest: Contest,
    *,
    log: bool = True,
    flow: BaseFlow | None = None,
    events: list[ContestEvent] | None = None,
    states: bool = False,
) -> dict[str, Any]:
    """What every audience's rendering reads from the database, fetched once. Without
    `log` the roll log is left out (a broadcast appends just the new entry). `flow`: the
    contest's flow as the action that just changed it left it (else read from the
    contest's state). With `states`, the sheets' read brings the characters' active
    conditions too (`shared["states"]`), for the players' cards (`sheet_cards`)."""
    flow = load_flow(contest.state) if flow is None else flow
    seen: dict[int, Any] = {}
    # The sides' characters, and every character taking part in a group contest: their
    # hero points decide who is offered one (a follower's are its owner's, §2.3.5.5).
    playing = [flow.side(s)["character_id"] for s in SIDES]
    playing += [p.get("character_id") for p in flow.state.get("participants") or []]
    held: dict[int, list[str]] | None = {} if states else None
    helpers, sheets = read_sheets(contest, flow, list(dict.fromkeys(playing)), seen, held)
    sides = []
    for side in SIDES:
        info = flow.side(side)
        tn = flow.target(side)
        sides.append({"key": side, **info, "tn": tn, "sheet": sheets.get(info["character_id"], [])})
    preparing = flow.phase == "preparing"
    odds = flow.odds() if preparing else None
    return {
        "flow": flow,
        "sides": sides,
        # A group contest's participants with their TN, sheet and odds, read once.
        "rows": flow.rows if isinstance(flow, GroupFlow) else [],
        # The log up to the step this contest row is at: an action committed since the
        # row was read is not in it either (its broadcast brings both), so a page never
        # shows a step's entry beside the step before's panel (static/js/table.js drops
        # an entry it has, and with it that step's panel).
        "events": events
        if events is not None
        else list(
            contest.events.filter(seq__lte=contest.seq)
            .select_related("actor")
            .order_by("-seq")[:LOG_LENGTH]
        )
        if log
        else [],
        "totals": flow.standing() if isinstance(flow, LongFlow) else None,
        "odds": odds["summary"].to_json() if odds else None,
        "odds_table": outcome_percentages(odds["outcomes"]) if odds else [],
        "helpers": helpers,
        "cast": cast_of(flow, seen),
        # Who may name a new ability as they pick one: characters made as you go (§3.1).
        "as_you_go": {
            pk for pk, c in seen.items() if c.creation_method == CreationMethod.AS_YOU_GO
        },
        "sheet_players": _players_in(flow),
        # The sheets read, for a player's picks beside their sheet.
        "sheets": sheets,
        "states": held,
    }


def _players_in(flow: BaseFlow) -> str:
    """The users who play a character in the contest (its sides, participants and
    roster; a follower's owner is a participant too), as the panel's
    `data-sheet-players`: only their own sheets at the table can change with its steps
    (hero points, conditions, the ability the table waits on them to pick), so only
    their pages reload them (static/js/table.js), not the whole table's (issue 16)."""
    state = flow.state
    records = [
        *(state.get("sides") or {}).values(),
        *(state.get("participants") or []),
        *(state.get("roster") or []),
    ]
    ids = {r["player_id"] for r in records if isinstance(r.get("player_id"), int)}
    return " ".join(str(i) for i in sorted(ids))


def contest_context(
    contest: Contest | None,
    audience: str,
    shared: dict[str, Any] | None = None,
    *,
    reader: int | None = None,
) -> dict[str, Any]:
    """Everything the contest panel and roll log show to one audience: the GM, a
    player (`reader`, their user id: the copy holds their own forms and no one else's)
    or a spectator. A player with no forms now, or without `reader`, gets the public
    copy (the spectators'). Pass the same `shared` dict when rendering several copies,
    so the queries run once."""
    if contest is None:
        return {"contest": None, "audience": audience, "events": [], "seq": 0}
    if shared is None:
        shared = {}
    if not shared:
        shared.update(_shared_context(contest))
    flow = shared["flow"]
    if "header" not in shared:
        shared["header"] = header(contest)
    if audience == "player" and reader not in players_with_forms(shared):
        audience = "spectator"  # the public copy
    # The templates get this audience's view, never the flow or its state (audience.py).
    sides, view = shared_view(flow, audience, shared)
    if audience == "gm":
        controls = audience_controls(flow, "gm", shared, view["rows"])
    elif audience == "player":
        every = audience_controls(flow, "player", shared, view["rows"])
        controls = [c for c in every if c.for_user == reader]
    else:
        controls = []
    mine = moves(flow, controls)
    if "moves" not in shared:
        # Whom the table waits on is the same for every audience: from the GM's and the
        # players' moves, worked out once (spectators see it too).
        everyone: list[Move] = []
        for other in ("gm", "player"):
            rows = view["rows"] if other == audience else None
            everyone += moves(flow, audience_controls(flow, other, shared, rows))
        shared["moves"] = everyone
    # Whom the table waits on, but for this reader's own moves (their "your move" lines).
    besides = None if audience == "gm" else reader if audience == "player" else "nobody"
    waiting = waiting_on(shared["moves"], besides=besides)
    events = [_log_entry(event, audience) for event in shared["events"]]
    return {
        "choices": FRAME_CHOICES,
        "contest": shared["header"],
        "view": view,
        "sides": sides,
        "odds": shared["odds"],
        "odds_table": shared["odds_table"],
        "hero_point_offer": _hero_point_offer(flow, audience, shared),
        "audience": audience,
        "consequence_options": CONSEQUENCE_OPTIONS,
        "adversity_options": ADVERSITY_OPTIONS,
        "fortune_options": FORTUNE_OPTIONS,
        "events": events,
        "seq": contest.seq,
        "sheet_players": shared["sheet_players"],
        "totals": shared["totals"],
        "controls": [c for c in controls if not c.in_bar],
        "bar_controls": [c for c in controls if c.in_bar],
        "moves": mine,
        "waiting": waiting,
        "participant_controls": by_participant(view["rows"], [c for c in controls if not c.in_bar]),
    }


def _hero_point_offer(flow: Any, audience: str, shared: dict[str, Any]) -> str | None:
    """The hero point's words for an audience (the GM's, or everyone else's: only the
    GM reads a hidden roll's), worked out once a rendering, not for every copy."""
    offers = shared.setdefault("hero_point_offers", {})
    whose = "gm" if audience == "gm" else "others"
    if whose not in offers:
        offers[whose] = flow.hero_point_offer(audience)
    return offers[whose]


def _log_entry(event: ContestEvent, audience: str) -> dict[str, Any]:
    """One roll-log line as this audience may see it: only what the log shows, with the
    summary `visible` gives them (not the action's data or its hidden dice)."""
    summary = visible(event.payload, audience).get("summary", "")
    actor = event.actor.shown_name if event.actor else ""
    return {
        "seq": event.seq,
        "type": event.type,
        "actor_name": actor,
        "summary": summary,
        # Whether a player's sheet may have changed with this step (the action's
        # declaration): the pages reload their sheets after those alone.
        "sheets": "kept" if event.type in SHEETS_KEPT else "may-change",
    }


def render_contest(
    contest: Contest | None,
    audience: str,
    *,
    reader: int | None = None,
    oob: bool = True,
    shared: dict | None = None,
    new_event: ContestEvent | None = None,
) -> str:
    """The contest panel, the "your move" bar and the roll log, as out-of-band
    fragments, for one audience (a player's own copy with `reader`, see
    `contest_context`).

    With `new_event` (the one event since the state the browser has), the log is not
    sent whole: that event's entry, as this audience may read it, goes on top of it.
    """
    if shared is None:
        shared = {}
    context = {**contest_context(contest, audience, shared, reader=reader), "oob": oob}
    panel = engine.panel_and_bar({**context, "reader": context})
    panel += _log_html(shared, context, audience, new_event)
    if audience == "gm":
        return panel
    if contest is None:
        return panel + engine.render("picks.jinja", {"picks": [], "oob": True})
    # A player's own picks, or (spectators, a player with no forms now) none.
    own = reader if context["audience"] == "player" else None
    return panel + _picks_html(contest, shared, own)


def _log_html(
    shared: dict[str, Any],
    context: dict[str, Any],
    audience: str,
    new_event: ContestEvent | None,
) -> str:
    """The roll log of a copy (or with `new_event`, its one new entry). Every copy but
    the GM's reads the same log: rendered once per broadcast."""
    logs = shared.setdefault("log_html", {})
    whose = "gm" if audience == "gm" else "others"
    if whose not in logs:
        if new_event is None:
            logs[whose] = engine.log(context["events"], oob=context.get("oob", False))
        else:
            logs[whose] = engine.log_append(_log_entry(new_event, audience))
    return logs[whose]


def page_fragments(context: dict[str, Any]) -> dict[str, SafeString]:
    """The bar, the contest panel and the roll log as the table page shows them when it
    opens (templates/contests/table.html), for the reader of `context`
    (`contest_context`)."""
    page = {**context, "oob": False, "reader": context}
    return {
        "bar_html": engine.render("bar.jinja", page),
        "contest_html": engine.render("contest.jinja", page),
        "log_html": engine.log(context["events"], oob=False),
    }


# The public copy of a broadcast, and the key of each player's own (`render_audiences`).
PUBLIC = "public"


def own_copy(user_id: int) -> str:
    return f"player:{user_id}"


def render_audiences(
    contest: Contest,
    new_event: ContestEvent | None = None,
    flow: BaseFlow | None = None,
    log: list[ContestEvent] | None = None,
) -> dict[str, str]:
    """The contest's fragments for every reader at the table: the GM's copy, the public
    one (spectators, players with no forms now) and one for each player with forms
    (`own_copy(user_id)`), from one shared context (no query a player). A broadcast
    sends them packed (`pack`): the same text once, however many copies hold it."""
    return {key: "".join(pieces) for key, pieces in _copies(contest, new_event, flow, log).items()}


def _copies(
    contest: Contest,
    new_event: ContestEvent | None,
    flow: BaseFlow | None,
    log: list[ContestEvent] | None,
) -> dict[str, list[str]]:
    """Each reader's copy (`render_audiences`) as the pieces it is put together from:
    the texts every copy shares are the same strings in each.

    The panel is the same for every reader but for their forms and their bar (the
    template's `per_audience` parts): it is rendered once, each reader's parts in the
    same pass, and each copy put together from them. When the GM's dice are hidden the
    GM's view of the contest differs from the others', and is rendered apart."""
    # A step that may change a sheet (its declaration) brings its players' cards.
    changed = new_event is not None and new_event.type not in SHEETS_KEPT
    shared = _shared_context(contest, log=new_event is None, flow=flow, events=log, states=changed)
    readers: dict[str, tuple[str, int | None]] = {"gm": ("gm", None), PUBLIC: ("spectator", None)}
    for user_id in sorted(players_with_forms(shared)):
        readers[own_copy(user_id)] = ("player", user_id)
    contexts = {
        key: contest_context(contest, audience, shared, reader=reader)
        for key, (audience, reader) in readers.items()
    }
    # Readers who see the same contest (its view and sides) share one rendering.
    groups: list[list[str]] = []
    for key, context in contexts.items():
        same = next((g for g in groups if _same_view(contexts[g[0]], context)), None)
        if same is None:
            groups.append([key])
        else:
            same.append(key)
    copies: dict[str, list[str]] = {}
    for group in groups:
        parts: list[dict[str, str]] = []
        context = {
            **contexts[group[0]],
            "oob": True,
            "copies": {key: contexts[key] for key in group},
            "copy_parts": parts,
        }
        pieces = _COPY_PART.split(engine.panel_and_bar(context))
        for key in group:
            copies[key] = [
                parts[int(piece)][key] if i % 2 else piece for i, piece in enumerate(pieces)
            ]
    for key, (audience, reader) in readers.items():
        copies[key].append(_log_html(shared, {**contexts[key], "oob": True}, audience, new_event))
        if audience != "gm":
            # Each player's picks beside their sheet; the public copy clears them.
            copies[key].append(_picks_html(contest, shared, reader))
    if shared["states"] is not None:
        # The step may have changed the sheets of those who play in the contest: each
        # of them gets the cards of their characters in it, as it left them, with
        # their copy (a copy of their own if they have no forms now).
        for user_id, cards in sheet_cards(contest, shared).items():
            key = own_copy(user_id)
            copies[key] = [*copies.get(key, copies[PUBLIC]), cards]
    return copies


def pack(copies: dict[str, list[str]]) -> PackedCopies:
    """Copies as a broadcast carries them: each distinct text once (`texts`), each copy
    the texts it is made of, in order (`copies`: their places in `texts`). A step's
    copies are one panel with each reader's forms in it, nine of them while abilities
    are chosen: whole, they were 42 kB a message, which Redis carried and every socket's
    consumer read whole (issue 29); packed, the panel's shared text is in it once."""
    texts: list[str] = []
    places: dict[str, int] = {}
    packed: dict[str, list[int]] = {}
    for key, pieces in copies.items():
        order = []
        for piece in pieces:
            if not piece:
                continue
            place = places.get(piece)
            if place is None:
                place = places[piece] = len(texts)
                texts.append(piece)
            order.append(place)
        packed[key] = order
    return {"texts": texts, "copies": packed}


def unpack(packed: PackedCopies) -> dict[str, str]:
    """Every copy of a packed broadcast, whole."""
    texts = packed["texts"]
    return {key: "".join([texts[i] for i in order]) for key, order in packed["copies"].items()}


def sheet_cards(contest: Contest, shared: dict[str, Any]) -> dict[int, str]:
    """For each player who plays a character in the contest, the cards of those
    characters at the table (templates/contests/_my_character.html `card`, as the
    player's page shows them: hero points, conditions, abilities) swapped in by id, and
    the step they were drawn at (`sheet_at`), from the sheets this broadcast read with
    their states (no query of their own). Their pages then reload no sheet after the
    step (static/js/table.js). A player one of whose characters has no ability read
    here gets none: their page reloads its sheet, as it would without this."""
    flow: BaseFlow = shared["flow"]
    sheets: dict[int, list[Any]] = shared["sheets"]
    states: dict[int, list[str]] = shared["states"]
    records = [
        *(flow.state.get("sides") or {}).values(),
        *(flow.state.get("participants") or []),
        *(flow.state.get("roster") or []),
    ]
    theirs: dict[int, list[int]] = {}
    incomplete: set[int] = set()
    for record in records:
        player, character_id = record.get("player_id"), record.get("character_id")
        if not isinstance(player, int) or character_id is None:
            continue
        abilities = sheets.get(character_id)
        if not abilities or abilities[0].character.player_id != player:
            incomplete.add(player)
        elif character_id not in theirs.setdefault(player, []):
            theirs[player].append(character_id)
    at = {"contest": {"id": contest.pk, "seq": contest.seq}, "oob": True}
    mark = render_to_string("contests/_my_character.html#sheet_at", at)
    cards: dict[int, str] = {}
    for player, ids in theirs.items():
        if player in incomplete:
            continue
        html: list[str] = [mark]
        for character_id in ids:
            character = sheets[character_id][0].character
            row = (character.pk, character.name, character.hero_points)
            held = tuple(states.get(character_id, ()))
            where = (get_language(), get_script_prefix(), get_urlconf())
            html.append(_card_html(row, tuple(sheets[character_id]), held, where))
        cards[player] = "".join(html)
    return cards


@functools.lru_cache(maxsize=1024)
def _card_html(
    row: tuple[int, str, int],
    abilities: tuple[Any, ...],
    states: tuple[str, ...],
    where: tuple[str | None, str, str | None],
) -> str:
    """A character's card (`sheet_cards`), the same markup for the same character, sheet
    and conditions (the language and the URLs' prefix in `where`): a step that may
    change a sheet mostly leaves it as it was, and the card is a Django template."""
    one = card(row, list(abilities), list(states))
    return render_to_string("contests/_my_character.html#card", {"card": one, "oob": True})


_COPY_PART = re.compile(engine.COPY_PART.format(r"(\d+)"))


def _same_view(one: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether two readers see the same contest (only the GM's view may differ)."""
    if one["view"] is other["view"]:
        return True
    return one["view"] == other["view"] and one["sides"] == other["sides"]


def copy_for(packed: PackedCopies, role: str | None, user_id: int) -> str:
    """The copy of a broadcast (`pack`) one socket receives: by its role now and its user."""
    copies = packed["copies"]
    if role == "gm":
        order = copies["gm"]
    elif role == "player" and own_copy(user_id) in copies:
        order = copies[own_copy(user_id)]
    else:
        order = copies[PUBLIC]
    texts = packed["texts"]
    return "".join([texts[i] for i in order])


def broadcast_contest(contest: Contest, event: ContestEvent, flow: BaseFlow | None = None) -> None:
    """Send the contest's new state to everyone at its table, each the copy they may
    read (`render_audiences`, `copy_for`).

    Called after the action's commit with the objects the action used (no reload). The
    message carries the panel and the new log entry; a browser that missed a message
    sees a gap in `seq` and asks for the full state (static/js/table.js). A new contest
    (its framing) replaces the log whole.
    """
    # A new contest's log is its framing alone: sent whole, with no query for it.
    first = event.seq == 1
    html = pack(_copies(contest, None if first else event, flow, [event] if first else None))
    send_to_table_sync(
        contest.campaign_id,
        {"type": "table.contest", "contest_id": contest.pk, "seq": event.seq, "html": html},
    )


def _picks_of(contest: Contest, shared: dict[str, Any], user_id: int) -> list[dict[str, Any]]:
    """For each of a player's characters the table waits on to choose an ability now,
    the sheet's abilities as one click each (`contests/_my_character.html#picks`): the
    form's fixed fields (the contest, the side or participant) and the abilities from
    the sheets the panel read. No step number: the flow itself refuses a pick that no
    longer fits (the holder has chosen, the contest has ended)."""
    flow = shared["flow"]
    mine = set(shared["cast"]["players"].get(user_id, ()))
    # The actions the panel offers this player already (their forms): not asked again.
    offered = {
        id(c.action): c.action
        for c in audience_controls(flow, "player", shared, None)
        if c.for_user == user_id
    }
    picks: dict[int, dict[str, Any]] = {}
    for action in offered.values():
        holder = action.input(flow.KEY)
        if DECLARED_BY_NAME[action.action].pick is not Pick.ABILITY or holder is None:
            continue
        for option in holder.choices:
            record = flow.holder(option.value)
            character_id = record.get("character_id")
            if character_id in mine and not record.get("ability"):
                picks[character_id] = {
                    "character_id": character_id,
                    "contest": contest.pk,
                    "key": flow.KEY,
                    "value": option.value,
                    "name": record.get("name", ""),
                    "abilities": shared["sheets"].get(character_id, []),
                }
    return list(picks.values())


def _picks_html(contest: Contest, shared: dict[str, Any], user_id: int | None) -> str:
    """A player's picks (`_picks_of`; none for a reader with no forms now), swapped in
    out of band beside the sheet at the table."""
    picks = [] if user_id is None else _picks_of(contest, shared, user_id)
    if not picks and "no_picks" in shared:
        return shared["no_picks"]
    context = {"picks": picks, "oob": True, "act_url": shared["header"].act_url}
    html = engine.render("picks.jinja", context)
    if not picks:
        shared["no_picks"] = html
    return html


def render_error(text: str, kind: str = "error") -> str:
    return render_to_string("contests/table.html#error", {"error": text, "kind": kind})


def render_ack(seq: int) -> str:
    """The acknowledgement of an action taken: the step it made (`#table-ack`)."""
    return render_to_string("contests/table.html#ack", {"seq": seq})
