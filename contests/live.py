"""Rendering the live table for its audiences, and broadcasting contest changes.

A broadcast renders the contest's fragments once per copy, not once per socket: the
GM's; the public copy (spectators, and players with nothing to do now), which holds
nobody's forms; and each player's own copy, for each player who has forms now (their
sheets' abilities, augments, hero points): nobody's browser receives another person's
forms (issue 27). The consumer sends each socket the copy for its user and role
(`copy_for`); the server checks every action anyway.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import F
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from characters.models import Ability, CreationMethod

from .action_form import option_tags
from .audience import contest_view, header
from .broadcast import send_to_table_sync
from .choices import FRAME_CHOICES
from .core.actions import DECLARED_BY_NAME, SHEETS_KEPT, Pick, Place
from .core.rules import ADVERSITY, FORTUNE, RulesError
from .core.rules.odds import outcome_percentages
from .core.table import SIDES, BaseFlow, GroupFlow, load_flow
from .core.table.base import ActionInput, Actor, AvailableAction
from .core.table.long import LongFlow
from .events import visible
from .models import ChatKind, ChatMessage, Contest, ContestEvent, ContestStatus
from .selectors import CHAT_LENGTH, chat_lines

LOG_LENGTH = 30
# What the GM may record at the end of a contest (§2.11): adversity, then fortune.
CONSEQUENCE_OPTIONS = tuple(s.value for s in (*ADVERSITY, *FORTUNE))
ADVERSITY_OPTIONS = tuple(s.value for s in ADVERSITY)
FORTUNE_OPTIONS = tuple(s.value for s in FORTUNE)


def current_contest(campaign_id: int) -> Contest | None:
    """The contest on the table: the latest one not yet finished, else the latest."""
    open_contest = (
        Contest.objects.filter(campaign_id=campaign_id)
        .exclude(status__in=[ContestStatus.FINISHED, ContestStatus.ABANDONED])
        .order_by("-number")
        .first()
    )
    if open_contest:
        return open_contest
    return Contest.objects.filter(campaign_id=campaign_id).order_by("-number").first()


def _shared_context(contest: Contest, *, log: bool = True) -> dict[str, Any]:
    """What every audience's rendering reads from the database, fetched once. Without
    `log` the roll log is left out (a broadcast appends just the new entry)."""
    flow = load_flow(contest.state)
    seen: dict[int, Any] = {}
    # The sides' characters, and every character taking part in a group contest: their
    # hero points decide who is offered one (a follower's are its owner's, §2.3.5.5).
    playing = [flow.side(s)["character_id"] for s in SIDES]
    playing += [p.get("character_id") for p in flow.state.get("participants") or []]
    helpers, sheets = _abilities(contest, flow, list(dict.fromkeys(playing)), seen)
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
        "events": list(
            contest.events.filter(seq__lte=contest.seq)
            .select_related("actor")
            .order_by("-seq")[:LOG_LENGTH]
        )
        if log
        else [],
        "totals": flow.standing() if isinstance(flow, LongFlow) else None,
        "odds": odds["summary"].to_json() if odds else None,
        "odds_table": _odds_table(flow) if preparing else [],
        "helpers": helpers,
        "cast": _cast(flow, seen),
        # Who may name a new ability as they pick one: characters made as you go (§3.1).
        "as_you_go": {
            pk for pk, c in seen.items() if c.creation_method == CreationMethod.AS_YOU_GO
        },
        "sheet_players": _players_in(flow),
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
    if audience == "player" and reader not in players_with_forms(shared):
        audience = "spectator"  # the public copy
    # The templates get this audience's view, never the flow or its state (audience.py).
    sides, view = contest_view(flow, audience, shared["sides"], shared["rows"])
    if audience == "gm":
        controls = _audience_controls(flow, "gm", shared, view["rows"])
    elif audience == "player":
        every = _audience_controls(flow, "player", shared, view["rows"])
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
            everyone += moves(flow, _audience_controls(flow, other, shared, rows))
        shared["moves"] = everyone
    # Whom the table waits on, but for this reader's own moves (their "your move" lines).
    besides = None if audience == "gm" else reader if audience == "player" else "nobody"
    waiting = waiting_on(shared["moves"], besides=besides)
    events = [_log_entry(event, audience) for event in shared["events"]]
    return {
        "choices": FRAME_CHOICES,
        "contest": header(contest),
        "view": view,
        "sides": sides,
        "odds": shared["odds"],
        "odds_table": shared["odds_table"],
        "hero_point_offer": flow.hero_point_offer(audience),
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
        "participant_controls": _by_participant(
            view["rows"], [c for c in controls if not c.in_bar]
        ),
    }


# -- the action forms: what `available_actions` offers the audience ----------------------


def players_with_forms(shared: dict[str, Any]) -> set[int]:
    """The players who have forms on the panel now, each of whom gets a copy of their
    own (`shared` from `_shared_context`; their forms are worked out once, here)."""
    controls = _audience_controls(shared["flow"], "player", shared, None)
    return {c.for_user for c in controls if c.for_user is not None}


def _audience_controls(
    flow: BaseFlow, audience: str, shared: dict[str, Any], rows: list[dict[str, Any]] | None
) -> list[Control]:
    """`_controls` for an audience, worked out once per rendering (`shared`); `rows`
    None: this audience's view of the participants is read here."""
    cache = shared.setdefault("controls", {})
    if audience not in cache:
        if rows is None:
            rows = contest_view(flow, audience, shared["sides"], shared["rows"])[1]["rows"]
        cache[audience] = _controls(flow, audience, shared, rows)
    return cache[audience]


@dataclass
class Control:
    """One form on the contest panel: an available action, for one player's browser
    (`for_user`; None: the GM's copy), under one side (None: the general controls), with
    the inputs it fixes (`hidden`), the ones it shows, and, when the service reads a
    rating from a sheet, the sheet's abilities to pick from (`sheet_name`)."""

    action: AvailableAction
    for_user: int | None = None
    side: str | None = None
    hidden: dict[str, Any] = field(default_factory=dict)
    inputs: tuple[ActionInput, ...] = ()
    sheet_name: str = ""
    sheet: list[tuple[Any, str]] = field(default_factory=list)
    sheet_label: str = ""
    aria_label: str = ""
    css: str = ""
    sheet_selected: Any = None
    text: str = ""  # the button's text when not the action's label
    row: dict[str, Any] | None = None  # a group participant the form acts for
    # In the "your move" bar rather than the panel: the move the table waits on from
    # this person (`needed`), or a choice that will not wait (a hero point on a roll).
    in_bar: bool = False
    needed: bool = False

    @property
    def name(self) -> str:
        return self.action.action

    @property
    def sheet_options(self) -> str:
        """The sheet's abilities as the select's <option>s, the chosen one selected.

        Built here rather than by a template loop: while abilities are chosen a panel
        holds a hundred of them (every helper's sheet), and the loop cost a third of
        the panel's rendering (issue 16). Escaped as the template would."""
        return mark_safe(option_tags(self.sheet, lambda value: value == self.sheet_selected))


def _cast(flow: BaseFlow, seen: dict[int, Any]) -> dict[str, Any]:
    """Who plays which character (for each player's actions) and the hero points left
    (which drop a hero point action), without a query of their own: from the contest's
    state (its sides, participants and roster) and the characters whose abilities the
    sheets' query read (`seen`). A character not read there keeps its hero point actions
    (the server checks the points anyway)."""
    state = flow.state
    records = [
        *(state.get("sides") or {}).values(),
        *(state.get("participants") or []),
        *(state.get("roster") or []),
    ]
    players: dict[int, set[int]] = {}
    for record in records:
        if record.get("character_id") is not None and record.get("player_id") is not None:
            players.setdefault(record["player_id"], set()).add(record["character_id"])
    for character in seen.values():
        if character.player_id is not None:
            players.setdefault(character.player_id, set()).add(character.pk)
    hero_points = {pk: character.hero_points for pk, character in seen.items()}
    return {"players": players, "hero_points": hero_points}


def _controls(
    flow: BaseFlow, audience: str, shared: dict[str, Any], rows: list[dict[str, Any]]
) -> list[Control]:
    """The forms of this audience: the GM's actions, or every player's, each tagged
    with its player (`for_user`: only that player's own copy holds it). Spectators get
    none. A group contest's forms go under the participants of `rows` (this audience's
    view of them)."""
    cast = shared.get("cast") or {"players": {}, "hero_points": {}}
    if audience == "gm":
        actors = [(None, Actor(user_id=0, role="gm"))]
    elif audience == "player":
        actors = [
            (user_id, Actor(user_id=user_id, role="player", character_ids=frozenset(ids)))
            for user_id, ids in sorted(cast["players"].items())
        ]
    else:
        return []
    controls: list[Control] = []
    for user_id, actor in actors:
        for action in flow.available_actions(actor, cast["hero_points"]):
            controls += _expand(flow, action, user_id, shared, cast)
    if flow.KEY == "participant":
        by_name = {row["name"]: row for row in rows}
        as_you_go = shared.get("as_you_go", set())
        controls = [c for control in controls for c in _group_control(control, by_name, as_you_go)]
    return controls


# -- whose move it is -----------------------------------------------------------------


@dataclass(frozen=True)
class Move:
    """One line of the "your move" bar: what `for_user` (None: the GM) is to do now,
    in words ("choose an ability for Ysolde"); `needed`: the table waits on it."""

    for_user: int | None
    text: str
    needed: bool
    who: str = ""  # whom the table waits on, for those who wait ("Ysolde's player")


def _needs(flow: BaseFlow, control: Control) -> bool:
    """Whether the table waits on this form: what the flow marks `primary` (the GM's
    roll, resolve and confirm; the bid of the side whose turn it is and a group extended
    declaration, each until made), or choosing an ability for a side or participant
    that has neither an ability nor a rating (an NPC framed with a rating is ready)."""
    if control.action.primary:
        return True
    if DECLARED_BY_NAME[control.name].pick is not Pick.ABILITY:
        return False
    record = _holder_record(flow, control)
    return record is not None and not record.get("ability") and record.get("rating") is None


def _players_own(flow: BaseFlow, control: Control) -> bool:
    record = _holder_record(flow, control)
    return record is not None and bool(record.get("character_id"))


def _holder_record(flow: BaseFlow, control: Control) -> dict[str, Any] | None:
    """The side or participant a form acts for (fixed, or the only choice), if one."""
    held = control.hidden.get(flow.KEY, control.side)
    if held is None:
        picked = control.action.input(flow.KEY)
        if picked is None or len(picked.choices) != 1:
            return None
        held = picked.choices[0].value
    try:
        return flow._holder({flow.KEY: held})[1]
    except RulesError:
        return None


def _named(flow: BaseFlow, control: Control) -> str:
    """Who a form acts for, by name ("Ysolde"), or "" when it names no one."""
    held = control.hidden.get(flow.KEY, control.side)
    if held is None:
        picked = control.action.input(flow.KEY)
        if picked is None or not picked.choices:
            return ""
        return ", ".join(c.label for c in picked.choices)
    if flow.KEY == "side":
        return flow.side(held)["name"]
    return str(held)


def _move_text(flow: BaseFlow, control: Control) -> str:
    label = control.text or control.action.label
    named = _named(flow, control)
    if named and label.startswith(named):
        return label  # "Chief declares": a name keeps its capital
    text = label[:1].lower() + label[1:]
    if named and named not in label:
        text += f" for {named}"
    return text


def moves(flow: BaseFlow, controls: list[Control]) -> list[Move]:
    """The "your move" lines from this audience's forms, marking the forms that belong in
    the bar. One line per form the table waits on, plus the hero point offers."""
    out: list[Move] = []
    for control in controls:
        if control.for_user is None and _players_own(flow, control):
            continue  # the GM may act for a player's character; the move is the player's
        needed = _needs(flow, control)
        # Choices that do not hold the table up but are gone once the GM goes on (a hero
        # point on a roll) are in the bar too.
        if not needed and not DECLARED_BY_NAME[control.name].in_bar:
            continue
        control.needed, control.in_bar = needed, True
        named = _named(flow, control)
        who = (
            "the GM" if control.for_user is None else (f"{named}'s player" if named else "a player")
        )
        out.append(Move(control.for_user, _move_text(flow, control), needed, who))
    return out


def waiting_on(all_moves: list[Move], *, besides: Any = "nobody") -> list[str]:
    """Whom the table waits on, in words, leaving out the moves of `besides` (a user id,
    or None for the GM), who sees them as their own: "the GM (roll)", "Ysolde's player
    (choose an ability for Ysolde)"."""
    seen: dict[str, list[str]] = {}
    for move in all_moves:
        if move.needed and move.for_user != besides:
            texts = seen.setdefault(move.who, [])
            if move.text not in texts:
                texts.append(move.text)
    return [f"{who} ({'; '.join(texts)})" for who, texts in seen.items()]


def _by_participant(rows: list[dict], controls: list[Control]) -> list[tuple[dict, list[Control]]]:
    """A group contest's forms under the participant each acts for, in table order."""
    return [(row, mine) for row in rows if (mine := [c for c in controls if c.side == row["name"]])]


def _group_control(
    control: Control, rows: dict[str, dict[str, Any]], as_you_go: set[int]
) -> list[Control]:
    """A group contest's form placed under the participant it names (when it names
    one), with the sheet to pick from where the service reads a character's ability, a
    hero point or modifier button naming whom it is for, and one removal per line."""
    name = control.hidden.get("participant")
    if name is None:
        picked = next((i for i in control.inputs if i.name == "participant"), None)
        if picked is not None and len(picked.choices) == 1:
            name = picked.choices[0].value
    if name is None:
        return [control]
    row = rows.get(name)
    declared = DECLARED_BY_NAME[control.name]
    if declared.place is Place.EACH_LINE:
        # Not under the participant: the GM's general controls, one button a line.
        index = control.action.input("index")
        lines = (row or {}).get("modifiers") or []
        out = []
        for option in index.choices if index else ():
            line = lines[option.value] if option.value < len(lines) else {}
            text = f"Remove {line.get('label', option.label)} "
            text += f"{line.get('value', 0):+d} from {name}"
            out.append(
                Control(
                    control.action,
                    control.for_user,
                    None,
                    {"participant": name, "index": option.value},
                    text=text,
                )
            )
        return out
    if declared.in_bar:  # a hero point: under the pending roll, naming whose
        control.text = f"{name}: {control.action.label[:1].lower()}{control.action.label[1:]}"
        return [control]
    if declared.place is Place.GENERAL:
        return [control]
    control.side, control.row = name, row
    sheet = [
        (a["ability_id"], f"{a.get('shown', a['name'])} {a['rating']}")
        for a in (row or {}).get("sheet", [])
    ]
    # A row played by a character, whose sheet the pickers offer.
    played = row if row is not None and row.get("character_id") is not None else None
    if declared.pick is Pick.ABILITY and played is not None:
        chosen = [a["ability_id"] for a in played["sheet"] if a["name"] == played.get("ability")]
        _ability_picker(control, sheet, chosen, played["character_id"] in as_you_go)
    elif declared.pick is Pick.SWITCH and played is not None:
        control.sheet_name, control.sheet_label, control.sheet = "ability_id", "To", sheet
        control.inputs = tuple(i for i in control.inputs if i.name not in ("ability", "rating"))
    elif declared.pick is Pick.FINAL and played is not None:
        control.sheet_name, control.sheet_label = "ability_id", "With"
        others = [(v, label) for v, label in sheet if not label.startswith(f"{played['ability']} ")]
        control.sheet = [("", played.get("ability") or "the same ability"), *others]
    return [control]


NEW_ABILITY_CHOICE = ("", "— new ability (as you go) —")


def _ability_picker(
    control: Control, sheet: list[tuple[Any, str]], chosen: list[Any], as_you_go: bool
) -> None:
    """The choose-ability form of a character's side or row: the sheet's abilities,
    the one chosen already selected, else the sheet's first (a finished character's
    player presses Choose and uses a real ability). A character made as you go (§3.1),
    or one with nothing on the sheet yet, may name a new ability instead, after them."""
    control.sheet_name, control.sheet_label = "ability_id", "Ability"
    control.sheet_selected = chosen[0] if chosen else None
    if as_you_go or not sheet:
        control.sheet = [*sheet, NEW_ABILITY_CHOICE]
        control.inputs = (
            ActionInput("new_ability", "text", "New ability", limit=120, required=False),
            ActionInput("rating", "rating", "Rating", required=False),
        )
    else:
        control.sheet, control.inputs = list(sheet), ()


def _sheet_choices(abilities: list[Any]) -> list[tuple[Any, str]]:
    return [(a.id, f"{a.shown_name} {a.rating_text}") for a in abilities]


def _expand(
    flow: BaseFlow, action: AvailableAction, user_id: int | None, shared: dict, cast: dict
) -> list[Control]:
    """One available action as its forms: a side's own action once per side it may
    name; an augment or AP gift of a character read from that character's sheet."""
    key = flow.KEY
    name = action.action
    holder = action.input(key)
    sheets = {s["key"]: s for s in shared["sides"]}
    helpers = {h["character"].pk: h for h in shared["helpers"]}
    rest = tuple(i for i in action.inputs if i.name != key)
    declared = DECLARED_BY_NAME[name]
    if declared.place is Place.FLOW and key == "side" and action.under is not None:
        return [Control(action, user_id, action.under, {}, action.inputs)]
    if declared.place is Place.HOLDER and holder is not None:
        out = []
        for option in holder.choices:
            control = Control(action, user_id, option.value, {key: option.value}, rest)
            side = sheets.get(option.value, {})
            if declared.pick is Pick.ABILITY and side.get("character_id"):
                chosen = [a.id for a in side["sheet"] if a.name == side.get("ability")]
                made_as_you_go = side["character_id"] in shared.get("as_you_go", set())
                _ability_picker(control, _sheet_choices(side["sheet"]), chosen, made_as_you_go)
            out.append(control)
        return out
    if declared.pick is Pick.HELPER and action.input("rating") is not None:
        sheet_only = ("helper_character_id", "helper", "ability", "rating")
        shown = tuple(i for i in action.inputs if i.name not in sheet_only)
        who = action.input("helper_character_id")
        if who is not None:
            out = []
            for option in who.choices:
                helper = helpers.get(option.value)
                if helper is None:
                    continue  # no ability to help with
                name_of = helper["character"].name
                out.append(
                    Control(
                        action,
                        user_id,
                        None,
                        {},
                        shown,
                        "helper_ability_id",
                        _sheet_choices(helper["abilities"]),
                        "with",
                        f"Augment as {name_of}",
                        "augment-form",
                    )
                )
            return out
        out = []
        for option in holder.choices if holder else ():
            character_id = sheets.get(option.value, {}).get("character_id")
            if character_id is None:
                out.append(Control(action, user_id, option.value, {key: option.value}, rest))
            elif character_id in helpers:
                out.append(
                    Control(
                        action,
                        user_id,
                        option.value,
                        {key: option.value},
                        tuple(i for i in rest if i.name not in sheet_only),
                        "helper_ability_id",
                        _sheet_choices(helpers[character_id]["abilities"]),
                        "With",
                    )
                )
        return out
    giver_input = action.input("helper_character_id")
    if declared.pick is Pick.GIVER and giver_input is not None:
        sheet_only = ("helper_character_id", "helper", "ability", "rating")
        shown = tuple(i for i in action.inputs if i.name not in sheet_only)
        roster = {o.get("character_id"): o for o in flow.state.get("roster", [])}
        out = []
        for option in giver_input.choices:
            giver = roster.get(option.value)
            if giver is None:
                continue
            choices = [
                (a["ability_id"], f"{a.get('shown', a['name'])} {a['rating']}")
                for a in giver["abilities"]
            ]
            out.append(
                Control(
                    action,
                    user_id,
                    None,
                    {},
                    shown,
                    "helper_ability_id",
                    choices,
                    f"{giver['name']} gives AP with",
                    f"AP gift from {giver['name']}",
                )
            )
        return out
    if declared.pick is Pick.GIVER:
        return [
            Control(
                action,
                user_id,
                None,
                {},
                action.inputs,
                aria_label="AP gift from someone without a sheet",
            )
        ]
    return [Control(action, user_id, None, {}, action.inputs)]


# The columns the table reads of the sheets (`_abilities`): the ability, whose it is, the
# sidekick it belongs to, and the hero points that decide who is offered one. Read as
# rows, not models: a table's sheets are a hundred abilities, read on every broadcast
# while abilities are chosen, and a model instance (three, with the character and the
# sidekick) per row cost more than the query (issue 16).
SHEET_COLUMNS = (
    "id",
    "character_id",
    "name",
    "kind",
    "rating",
    "follower__name",
    "character__name",
    "character__player_id",
    "character__hero_points",
    "character__creation_method",
)


@dataclass(frozen=True, slots=True)
class SheetCharacter:
    """A character as the table's sheets read it: its name, player and hero points."""

    pk: int
    name: str
    player_id: int | None
    hero_points: int
    creation_method: str


@dataclass(frozen=True, slots=True)
class SheetAbility:
    """One ability of a sheet, with what a pick list shows of it (`Ability.shown_name`,
    `Ability.rating_text`) and its character."""

    id: int
    name: str
    kind: str
    rating: int
    shown_name: str
    rating_text: str
    character: SheetCharacter

    @property
    def character_id(self) -> int:
        return self.character.pk


def _abilities(
    contest: Contest, flow: BaseFlow, character_ids: list[int | None], seen: dict[int, Any]
) -> tuple[list[dict[str, Any]], dict[int, list[SheetAbility]]]:
    """The helpers who may offer an augment now (§2.4), and the sheets the contest's
    characters pick abilities from, in one query.

    Helpers are characters with an ability rated above 0 that is not a flaw; each form
    is shown only in its player's browser. There are none once the roll is made or in
    a long contest (whose augments are part of its own actions). `seen` collects the
    characters read with the abilities (their players and hero points).
    """

    wanted = [c for c in character_ids if c is not None]
    sheets: dict[int, list[SheetAbility]] = {c: [] for c in wanted}
    with_helpers = flow.phase == "preparing" and not flow.state.get("machine")
    if not wanted and not with_helpers:
        return [], sheets
    # A sidekick's abilities in service are its owner's to use (§6.5.1).
    abilities = Ability.objects.filter(Ability.usable_as_own()).order_by(
        "character_id", F("follower_id").asc(nulls_first=True), "position", "id"
    )
    if with_helpers:
        abilities = abilities.filter(character__campaign_id=contest.campaign_id)
    else:
        abilities = abilities.filter(character_id__in=wanted)
    helpers: dict[int, dict[str, Any]] = {}
    for pk, character_id, name, kind, rating, sidekick, *whose in abilities.values_list(
        *SHEET_COLUMNS
    ):
        character = seen.get(character_id)
        if character is None:
            character = seen[character_id] = SheetCharacter(character_id, *whose)
        ability = SheetAbility(
            pk,
            name,
            kind,
            rating,
            Ability.name_shown(name, sidekick),
            Ability.text_of_rating(kind, rating),
            character,
        )
        if character_id in sheets:
            sheets[character_id].append(ability)
        if not with_helpers or kind == "flaw" or rating <= 0:
            continue
        if character_id not in helpers:
            helpers[character_id] = {
                "character": character,
                "player_id": character.player_id,
                "abilities": [],
            }
        helpers[character_id]["abilities"].append(ability)
    return list(helpers.values()), sheets


def _odds_table(flow: BaseFlow) -> list[tuple[str, float]]:
    """Every outcome of the coming roll for the PC side, with its exact chance in %."""
    odds = flow.odds()
    return outcome_percentages(odds["outcomes"]) if odds else []


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
    panel = render_to_string("contests/table.html#contest", context)
    panel += render_to_string("contests/table.html#moves", context)
    # Every copy but the GM's reads the same log: rendered once per broadcast.
    logs = shared.setdefault("log_html", {})
    whose = "gm" if audience == "gm" else "others"
    if whose not in logs:
        if new_event is None:
            logs[whose] = render_to_string("contests/table.html#log", context)
        else:
            entry = _log_entry(new_event, audience)
            logs[whose] = render_to_string("contests/table.html#log_append", {"event": entry})
    return panel + logs[whose]


# The public copy of a broadcast, and the key of each player's own (`render_audiences`).
PUBLIC = "public"


def own_copy(user_id: int) -> str:
    return f"player:{user_id}"


def render_audiences(contest: Contest, new_event: ContestEvent | None = None) -> dict[str, str]:
    """The contest's fragments for every reader at the table, rendered once per copy:
    the GM's, the public one (spectators, players with no forms now) and one for each
    player with forms (`own_copy(user_id)`), from one shared context (no query a player).
    """
    shared = _shared_context(contest, log=new_event is None)
    copies = {
        "gm": render_contest(contest, "gm", shared=shared, new_event=new_event),
        PUBLIC: render_contest(contest, "spectator", shared=shared, new_event=new_event),
    }
    for user_id in sorted(players_with_forms(shared)):
        copies[own_copy(user_id)] = render_contest(
            contest, "player", reader=user_id, shared=shared, new_event=new_event
        )
    return copies


def copy_for(copies: dict[str, str], role: str | None, user_id: int) -> str:
    """The copy of a broadcast one socket receives: by its role now and its user."""
    if role == "gm":
        return copies["gm"]
    if role == "player":
        return copies.get(own_copy(user_id), copies[PUBLIC])
    return copies[PUBLIC]


def broadcast_contest(contest: Contest, event: ContestEvent) -> None:
    """Send the contest's new state to everyone at its table, each the copy they may
    read (`render_audiences`, `copy_for`).

    Called after the action's commit with the objects the action used (no reload). The
    message carries the panel and the new log entry; a browser that missed a message
    sees a gap in `seq` and asks for the full state (static/js/table.js). A new contest
    (its framing) replaces the log whole.
    """
    html = render_audiences(contest, new_event=None if event.seq == 1 else event)
    send_to_table_sync(
        contest.campaign_id,
        {"type": "table.contest", "contest_id": contest.pk, "seq": event.seq, "html": html},
    )


def ability_picks(
    contest: Contest | None, user_id: int, character_ids: list[int]
) -> dict[int, dict[str, Any]]:
    """For each of a player's characters the table waits on to choose an ability now:
    the form's fixed fields (action, contest, the side or participant), so the sheet at
    the table can offer each ability as one click. No step number: the page keeps the
    sheet through steps that change no sheet, and the flow itself refuses a pick that no
    longer fits (the holder has chosen, the contest has ended)."""
    if contest is None or not character_ids:
        return {}
    flow = load_flow(contest.state)
    actor = Actor(user_id=user_id, role="player", character_ids=frozenset(character_ids))
    picks: dict[int, dict[str, Any]] = {}
    for action in flow.available_actions(actor):
        holder = action.input(flow.KEY)
        if action.action != "choose_ability" or holder is None:
            continue
        for option in holder.choices:
            record = flow._holder({flow.KEY: option.value})[1]
            character_id = record.get("character_id")
            if character_id in character_ids and not record.get("ability"):
                picks[character_id] = {
                    "contest": contest.pk,
                    "key": flow.KEY,
                    "value": option.value,
                    "name": record.get("name", ""),
                }
    return picks


def render_error(text: str, kind: str = "error") -> str:
    return render_to_string("contests/table.html#error", {"error": text, "kind": kind})


def render_ack(seq: int) -> str:
    """The acknowledgement of an action taken: the step it made (`#table-ack`)."""
    return render_to_string("contests/table.html#ack", {"seq": seq})


# -- table chat -----------------------------------------------------------------------------


def chat_context(session, role: str, user_id: int | None) -> dict[str, Any]:
    """The open session's latest chat lines as this reader may see them."""
    lines = chat_lines(session, is_gm=role == "gm", user_id=user_id, last=CHAT_LENGTH)
    return {"chat_lines": lines, "chat_session": session}


def render_chat(session, role: str, user_id: int | None) -> str:
    """The chat list for one reader, as an out-of-band fragment (a full state)."""
    context = {**chat_context(session, role, user_id), "oob": True}
    return render_to_string("contests/_chat.html#chat_log", context)


def broadcast_chat(message: ChatMessage) -> None:
    """Add a new chat line at the bottom of every chat list at the table, after its
    commit. The line is rendered once: a whisper to the GM goes to the GM's sockets
    and its author's only (the consumer reads `whisper_from`)."""
    html = render_to_string("contests/_chat.html#chat_append", {"line": message})
    whisper_from = message.author_id if message.kind == ChatKind.WHISPER else None
    send_to_table_sync(
        message.campaign_id, {"type": "table.chat", "html": html, "whisper_from": whisper_from}
    )
