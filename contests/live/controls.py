"""The panel's controls: each action a flow offers now, as the forms of the people
who may take it, placed as its declaration says (contests/core/actions `Place`,
`Pick`): under a side or participant, among the general controls, with a pick from a
sheet. Each control is tagged with its player (`for_user`), whose copy alone holds it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.safestring import mark_safe

from ..action_form import option_tags
from ..audience import contest_view, hidden_from_players
from ..core.actions import DECLARED_BY_NAME, Pick, Place
from ..core.table import BaseFlow
from ..core.table.base import ActionInput, Actor, AvailableAction


def players_with_forms(shared: dict[str, Any]) -> frozenset[int]:
    """The players who have forms on the panel now, each of whom gets a copy of their
    own (`shared` from `_shared_context`; their forms are worked out once, here, and
    the set once a rendering: every reader's context asks)."""
    if "with_forms" not in shared:
        controls = audience_controls(shared["flow"], "player", shared, None)
        shared["with_forms"] = frozenset(c.for_user for c in controls if c.for_user is not None)
    return shared["with_forms"]


def audience_controls(
    flow: BaseFlow, audience: str, shared: dict[str, Any], rows: list[dict[str, Any]] | None
) -> list[Control]:
    """`_controls` for an audience, worked out once per rendering (`shared`); `rows`
    None: this audience's view of the participants is read here."""
    cache = shared.setdefault("controls", {})
    if audience not in cache:
        if rows is None:
            rows = shared_view(flow, audience, shared)[1]["rows"]
        cache[audience] = _controls(flow, audience, shared, rows)
    return cache[audience]


def shared_view(
    flow: BaseFlow, audience: str, shared: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """`contest_view` for an audience, made once per rendering (`shared`): the GM's,
    and the one every other reader gets (players and spectators see the same contest;
    what differs between them is their forms)."""
    views = shared.setdefault("views", {})
    whose = "gm" if audience == "gm" else "others"
    if whose not in views:
        other = views.get("others" if whose == "gm" else "gm")
        if other is not None and not hidden_from_players(flow):
            # Nothing is kept from the players now: the GM sees the contest they see, and
            # every copy reads the one view (a copy of the state made once, not twice).
            views[whose] = other
        else:
            views[whose] = contest_view(flow, audience, shared["sides"], shared["rows"])
    return views[whose]


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


def cast_of(flow: BaseFlow, seen: dict[int, Any]) -> dict[str, Any]:
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


def by_participant(rows: list[dict], controls: list[Control]) -> list[tuple[dict, list[Control]]]:
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
    return [(a.id, a.label) for a in abilities]


def _expand(
    flow: BaseFlow, action: AvailableAction, user_id: int | None, shared: dict, cast: dict
) -> list[Control]:
    """One available action as its forms: a side's own action once per side it may
    name; an augment or AP gift of a character read from that character's sheet."""
    key = flow.KEY
    name = action.action
    holder = action.input(key)
    # The sides and helpers by key, made once a rendering (every action of every actor
    # is expanded: a dozen calls while abilities are chosen).
    if "sides_by_key" not in shared:
        shared["sides_by_key"] = {s["key"]: s for s in shared["sides"]}
        shared["helpers_by_id"] = {h["character"].pk: h for h in shared["helpers"]}
    sheets, helpers = shared["sides_by_key"], shared["helpers_by_id"]
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
