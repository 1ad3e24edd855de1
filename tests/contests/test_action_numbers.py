"""Every value that decides a roll is read on the server (issue 12, item 0).

A player's message may name an ability, a helper, a target, a choice the rules give
the player, or how much of their own AP to stake; never a rating, a bonus, a
resistance, a modifier's size, a state or the campaign's rounding. Those come from the
sheet, the NPC library, the GM's framing or the campaign's options.

The fields are read from the action models themselves (each field's kind from its
validator, nested rows included), so a new number cannot be added to an action
without being classified here; then every action is sent by Alice, whose Tamsin sits
at a table of each kind that plays it, carrying each number, and each is refused with
a readable message and nothing stored.
"""

from __future__ import annotations

import random
import typing
from collections.abc import Iterator
from typing import Any

import pytest
from django.db.models import Count
from pydantic import BaseModel
from pydantic.functional_validators import PlainValidator

from campaigns.services import campaign_options_update
from contests.core import actions
from contests.core.actions import ACTIONS, DATA_MODELS, LABELS
from contests.core.actions.fields import SERVER_KEYS
from contests.core.rules import dice
from contests.core.table import FLOW_CLASSES
from contests.models import Contest

from .conftest import ability

pytestmark = pytest.mark.django_db

# -- the fields of every action, from the models -----------------------------------------

# What a field's validator says it holds (contests/core/actions/fields.py).
NUMBER_KINDS = {"Whole", "_rating"}
DECIDING_KINDS = NUMBER_KINDS | {"OneOf", "_flag"}
# Text fields that name a state of adversity or fortune, which sets a penalty (§2.11).
STATE_FIELDS = {
    "states[]",
    "state",
    "edit.pc",
    "edit.opponent",
    "edit.pc_benefit",
    "edit.opponent_benefit",
    "consequences[].state",
}


def _validator(metadata) -> Any:
    return next((m.func for m in metadata if isinstance(m, PlainValidator)), None)


def _leaves(annotation) -> Iterator[tuple[Any, bool]]:
    """(a validator or a nested model, inside a list) for each type in `annotation`."""
    if typing.get_origin(annotation) is typing.Annotated:
        base, *metadata = typing.get_args(annotation)
        found = _validator(metadata)
        if found is not None:
            yield found, False
            return
        annotation = base
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation, False
        return
    listed = typing.get_origin(annotation) is list
    for arg in typing.get_args(annotation):
        for leaf, inner in _leaves(arg):
            yield leaf, inner or listed


def fields_of(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, str, Any]]:
    """(path, kind, validator) of every field of `model`, nested rows as "opponent.rating"
    and "participants[].rating"; kind is the validator's maker: Whole, Text, OneOf, ..."""
    for name, info in model.model_fields.items():
        own = _validator(info.metadata)
        for leaf, listed in [(own, False)] if own else _leaves(info.annotation):
            path = prefix + name + ("[]" if listed else "")
            if isinstance(leaf, type):
                yield from fields_of(leaf, path + ".")
            else:
                yield path, leaf.__qualname__.split(".")[0], leaf


def bounds(validator) -> dict[str, Any]:
    """The values a field type was made with (Whole's minimum and maximum, OneOf's
    allowed), read from its validator's closure."""
    cells = validator.__closure__ or ()
    return dict(zip(validator.__code__.co_freevars, (c.cell_contents for c in cells), strict=True))


def deciding_fields(action: str) -> dict[str, str]:
    """The fields of `action` that may decide a roll: numbers, choices, flags, states."""
    return {
        path: kind
        for path, kind, _ in fields_of(DATA_MODELS[action])
        if kind in DECIDING_KINDS or path in STATE_FIELDS
    }


# -- the audit: who gives each of them -----------------------------------------------------

# Actions only the GM takes (their flows or the framing service refuse a player), so
# every number they carry is the GM's by definition.
GM_ACTIONS = {
    "frame",
    "undo",
    "modifier",
    "remove_modifier",
    "roll",
    "reveal",
    "resolve",
    "apply_consequences",
    "narrate",
    "automatic_victory",
    "escalate",
    "engage",
    "play_round",
    "join",
    "rejoin",
}
# Which one, not how much: an id is checked against the campaign (the sheet's rating is
# read for it), a pairing or a modifier's place against the contest's own lists.
REFERENCES = {"ability_id", "helper_ability_id", "pairing"}
# The rules give these choices to the player (the side they act for; §2.4 the kind of
# augment, a plot augment being the GM's in the flow; §5.2.5 round tactics; §5.3.2.1
# how daring a bid is; a giver's wish to see the roll before a hero point, R5.3).
PLAYERS_CHOICES = {"side", "kind", "round_tactic", "daring", "wait_for_hero_point"}
# The player's own numbers, each bounded by the flow against what is theirs.
PLAYERS_OWN = {
    ("enter_roll", "entered"): "a physical d20 they rolled, with the campaign's option on",
    ("bid", "bid"): "§5.3.2.1: the AP they stake, at most the side's AP",
    ("parting_shot", "bid"): "§5.3.4: the AP they stake, at most their AP",
    ("declare", "bid"): "§5.3.3: the AP they stake, at most their AP",
    ("act", "bid"): "§5.3.3: a change of the declared stake, at most their AP",
    ("gift", "bid"): "§5.3.11: the giver's bid, at most their sheet's rating",
    ("lend", "amount"): "§5.3.10: the AP they try to lend, at most their AP",
    ("shift_points", "points"): "§5.2.4: RP moved onto their own follower, at most those scored",
}


def gm_only(action: str) -> frozenset[str]:
    return DATA_MODELS[action].model_construct().gm_only()


def test_every_number_of_every_action_is_classified():
    """A new numeric (or choice, flag or state) field fails here until it is classified:
    the GM's (GM_ONLY on its model, or an action only the GM takes), a reference, a
    choice the rules give the player, or the player's own bounded number."""
    assert set(DATA_MODELS) == ACTIONS
    played = {a for cls in FLOW_CLASSES.values() for a in dir(cls) if a.startswith("_do_")}
    assert {f"_do_{a}" for a in ACTIONS - {"frame", "undo"}} <= played
    unclassified, numbers = [], set()
    for action in sorted(ACTIONS - GM_ACTIONS):
        for path, kind in deciding_fields(action).items():
            if kind in NUMBER_KINDS:
                numbers.add((action, path))
            if not (
                path.removesuffix("[]") in gm_only(action)
                or path in REFERENCES
                or path in PLAYERS_CHOICES
                or (action, path) in PLAYERS_OWN
            ):
                unclassified.append(f"{action}.{path} ({kind})")
    assert unclassified == []
    # No stale entry: each player's own number is still a number of its action.
    assert set(PLAYERS_OWN) <= numbers
    # And every GM-only field is one its model has.
    for action in ACTIONS:
        assert gm_only(action) <= set(DATA_MODELS[action].model_fields), action


def test_the_gm_only_numbers_cover_ratings_bonuses_resistances_and_rounding():
    fields = {name for action in ACTIONS - GM_ACTIONS for name in gm_only(action)}
    assert {"rating", "states", "bonus", "base_resistance", "rounding"} <= fields
    assert {"resistance_level", "resistance_shift"} <= fields
    assert {"value", "bumps"} <= gm_only("modifier")
    assert {"rating", "level", "npc_id", "states"} <= gm_only("join")
    assert gm_only("rejoin") == {"restore"}


# -- the tables ---------------------------------------------------------------------------

KINDS = tuple(FLOW_CLASSES)


def kinds_playing(action: str) -> list[str]:
    if action in ("frame", "undo"):
        return ["simple"]
    return [k for k, cls in FLOW_CLASSES.items() if hasattr(cls, f"_do_{action}")]


def frame(table, kind: str, tamsin, brannoc) -> Contest:
    """A contest of `kind` with Tamsin (Boatcraft 17) on the PCs' side, framed by the GM."""
    tamsin_row = {"character_id": tamsin.pk, "ability_id": ability(tamsin, "Boatcraft").pk}
    river = {"name": "The Grey River", "level": "moderate"}
    if not kind.startswith("group_"):
        return table.frame(kind, pc=tamsin_row, opponent=river)
    brannoc_row = {"character_id": brannoc.pk, "ability_id": ability(brannoc, "Temple singer").pk}
    rows = [tamsin_row, brannoc_row, {**river, "side": "opponent"}]
    if kind != "group_simple":  # one resistance against every PC (§4.2)
        rows.append({"name": "Chief", "rating": "19", "side": "opponent"})
    return table.frame(kind, prize="hold the causeway", participants=rows)


def base_data(action: str, kind: str) -> dict[str, Any]:
    """Alice's message for `action` at a table of `kind`, with no number of its own:
    the holder (Tamsin) and a sample of each required field."""
    group = kind.startswith("group_")
    model = DATA_MODELS[action]
    data: dict[str, Any] = {}
    if "side" in model.model_fields and not group:
        data["side"] = "pc"
    if "participant" in model.model_fields and group:
        data["participant"] = "Tamsin"
    required = {
        "recipient": "Tamsin" if group else "pc",
        "pc": "Tamsin",
        "opponent": "The Grey River",
        "narration": "They ride the flood.",
        "state": "hurt",
        "into": "scored",
        "entered": 5,
        "bid": 1,
        "index": 0,
        "pairing": 1,
        "participant": "Tamsin",
    }
    for name, info in model.model_fields.items():
        if info.is_required():
            assert name in required, f"give {action}.{name} a sample in base_data"
            data[name] = required[name]
    return data


def sample(path: str, kind: str, validator) -> Any:
    """A valid value of a field: within its range, its first choice, a rating, a state."""
    if path in STATE_FIELDS:
        return "hurt"
    made = bounds(validator)
    if kind == "Whole":
        return max(made["minimum"], min(1, made["maximum"]))
    if kind == "_rating":
        return 17
    if kind == "OneOf":
        return made["allowed"][-1]
    if kind == "_flag":
        return True
    raise AssertionError(f"no sample for {path} ({kind})")


def with_value(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """`data` with `value` at a nested path ("opponent.rating", "participants[].rating")."""
    data = dict(data)
    head, _, rest = path.partition(".")
    if not rest:
        name = head.removesuffix("[]")
        data[name] = [value] if head.endswith("[]") else value
        return data
    if head.endswith("[]"):
        rows = data.get(head[:-2]) or [{}]
        data[head[:-2]] = [with_value(rows[0], rest, value)]
    else:
        data[head] = with_value(data.get(head) or {}, rest, value)
    return data


def stored(contest: Contest) -> tuple:
    """The contest's step, state and count of events as stored (one query)."""
    return (
        Contest.objects.filter(pk=contest.pk)
        .annotate(logged=Count("events"))
        .values_list("seq", "state", "logged")
        .get()
    )


def assert_readable(error: str, *named: str) -> None:
    """One sentence a person reads: no traceback, no pydantic dump, and it says so."""
    assert error, "accepted"
    assert "Nothing was done" in error or "nothing was done" in error, error
    for noise in ("Traceback", "\n", "pydantic", "{'", "Error("):
        assert noise not in error, error
    for name in named:
        assert name in error, (name, error)


@pytest.fixture(autouse=True)
def _every_action_counts(settings):
    settings.ACTION_RATE_LIMIT = "100000/minute"  # hundreds of refusals in a test


@pytest.fixture
def seated(table, session, tamsin, brannoc):
    """A table of a kind, framed by the GM, with Tamsin (Alice's) taking part."""
    return lambda kind: frame(table, kind, tamsin, brannoc)


@pytest.fixture
def same_dice(monkeypatch):
    """The server's dice from one seed, reset for each of two runs to compare."""

    def reset() -> None:
        monkeypatch.setattr(dice, "_SYSTEM_RANDOM", random.Random(12))

    reset()
    return reset


def refused_or_no_effect(table, seated, same_dice, contest, user, action, data, extra) -> str:
    """Send `action` with `extra` (the numbers under test): either it is refused with a
    readable message and nothing is stored, or the contest it leaves has the same
    event and state as the same action without them at a twin table (the same dice).
    Returns the refusal, or "" for no effect."""
    kind = contest.kind
    before = stored(contest)
    same_dice()
    reply = table.perform(contest, user, action, **data, **extra)
    if reply.error:
        assert stored(contest) == before
        return reply.error
    twin = seated(kind)
    same_dice()
    bare = table.perform(twin, user, action, **data)
    assert not bare.error, f"accepted with {extra}, refused without: {bare.error}"
    # The stored event (its data included: a replay reads it) and the state are the
    # same to the last number and word.
    event, twin_event = (c.events.order_by("seq").last() for c in (contest, twin))
    assert event.payload == twin_event.payload, extra
    assert stored(contest)[:2] == stored(twin)[:2], extra
    return ""


# -- a player's message never carries a number that decides a roll ------------------------


def cases(*rows: tuple[str, ...]) -> list:
    return [pytest.param(*row, id="-".join(row)) for row in rows]


def players(action: str, path: str) -> bool:
    """Whether the player may give this field (a reference, a choice, their own AP)."""
    return path in REFERENCES or path in PLAYERS_CHOICES or (action, path) in PLAYERS_OWN


# Every other field that may decide a roll, at every kind of table that plays the action.
SERVERS_CASES = cases(
    *(
        (kind, action, path.removesuffix("[]"))
        for action in sorted(ACTIONS - GM_ACTIONS)
        for path in sorted(deciding_fields(action))
        if not players(action, path)
        for kind in kinds_playing(action)
    )
)


@pytest.mark.parametrize(("kind", "action", "path"), SERVERS_CASES)
def test_a_players_roll_deciding_number_is_refused(
    table, seated, same_dice, alice, kind, action, path
):
    data = base_data(action, kind)
    found = {p.removesuffix("[]"): (p, k, v) for p, k, v in fields_of(DATA_MODELS[action])}
    number = {path: with_value({}, found[path][0], sample(*found[path]))[path]}
    message = {"action": action, "contest": 1, "key": "k", "data": {**data, **number}}
    actions.parse(message)  # a well-formed message: only who sends it is wrong
    contest = seated(kind)
    error = refused_or_no_effect(table, seated, same_dice, contest, alice, action, data, number)
    if error or path in gm_only(action):
        assert_readable(error, LABELS[path], "only the GM gives a number that decides a roll")
    # The same action without the number is not refused for it (whatever else it needs).
    reply = table.perform(contest, alice, action, **data)
    assert "only the GM gives a number" not in reply.error


# Numbers the server fills in or reads elsewhere, sent under names an action does not take.
SERVERS_NUMBERS = sorted(
    SERVER_KEYS
    | {
        "tn",
        "target_number",
        "resistance",
        "modifier",
        "modifiers",
        "penalty",
        "bonus",
        "rating",
        "level",
        "base_resistance",
        "rounding",
        "quick_augment_rounding",
        "better_roll",
        "physical_dice",
        "value",
        "bumps",
        "hero_points",
        "helper_character_id",
        "character_id",
        "player_id",
        "result",
        "outcome",
    }
)


@pytest.mark.parametrize(
    ("kind", "action"), cases(*((k, a) for a in sorted(ACTIONS) for k in kinds_playing(a)))
)
def test_a_player_cannot_send_a_number_the_server_fills_in(
    table, seated, same_dice, alice, kind, action
):
    data = base_data(action, kind)
    taken = set(DATA_MODELS[action].model_fields)
    contest = seated(kind)
    for name in SERVERS_NUMBERS:
        if name in taken:
            continue  # a field of this action: classified and tested above
        error = refused_or_no_effect(
            table, seated, same_dice, contest, alice, action, data, {name: 5}
        )
        # Named by its label when the table knows one (another action's field).
        assert_readable(error, LABELS.get(name, name))
        assert "not something this action takes" in error or "server's to fill in" in error


@pytest.mark.parametrize(
    ("kind", "action"), cases(*((k, a) for a in sorted(GM_ACTIONS) for k in kinds_playing(a)))
)
def test_a_player_cannot_take_an_action_of_the_gms_with_its_numbers(
    table, seated, same_dice, alice, kind, action
):
    data = base_data(action, kind)
    for path, field_kind, validator in fields_of(DATA_MODELS[action]):
        if field_kind in DECIDING_KINDS or path in STATE_FIELDS:
            data = with_value(data, path, sample(path, field_kind, validator))
    if action == "frame":
        data["kind"] = kind
    actions.parse({"action": action, "contest": 1, "key": "k", "data": data})
    contest = seated(kind)
    error = refused_or_no_effect(table, seated, same_dice, contest, alice, action, data, {})
    assert_readable(error)
    assert "GM" in error, error


# -- a player's own numbers are bounded by what is theirs ---------------------------------


def test_a_players_die_is_refused_without_the_campaigns_physical_dice(table, seated, alice):
    for kind in KINDS:
        reply = table.perform(seated(kind), alice, "enter_roll", **base_data("enter_roll", kind))
        assert_readable(reply.error, "physical dice are off")


def test_a_players_declared_bid_is_at_most_their_ap(table, seated, alice):
    contest = seated("group_extended")
    reply = table.perform(contest, alice, "declare", participant="Tamsin", targets="Chief", bid=999)
    assert_readable(reply.error, "999")
    assert not table.perform(contest, alice, "declare", participant="Tamsin", targets="Chief").error


# -- what the server reads instead ----------------------------------------------------------


def test_a_new_ability_as_you_go_keeps_the_players_rating(table, seated, alice, tamsin):
    """§3.1: a player adding an ability as they go rates it (their creation budget
    bounds it): that rating is theirs to give, only when choosing an ability."""
    contest = seated("simple")
    data = {"side": "pc", "new_ability": "Swim like an otter", "rating": 13}
    reply = table.perform(contest, alice, "choose_ability", **data)
    assert "only the GM gives a number" not in reply.error
    for action in ("switch_ability", "final_action"):
        reply = table.perform(
            seated("group_extended"), alice, action, **{**data, "participant": "Tamsin"}
        )
        assert_readable(reply.error, "Rating: only the GM")


@pytest.mark.parametrize(("rounding", "bonus"), [("down", 3), ("up", 4)])
def test_a_players_quick_augment_follows_the_campaigns_rounding(
    campaign, table, seated, gm, alice, tamsin, rounding, bonus
):
    """R8: 17 / 5 is 3.4, a +3 rounded down (2.2) or +4 rounded up (1e), as the
    campaign's option says; the player's message names only the augmenting ability."""
    campaign_options_update(campaign=campaign, actor=gm, quick_augment_rounding=rounding)
    contest = seated("simple")
    boatcraft = ability(tamsin, "Boatcraft")  # 17
    reply = table.perform(
        contest, alice, "augment", side="pc", kind="quick", helper_ability_id=boatcraft.pk
    )
    assert reply.created, reply.error
    contest.refresh_from_db()
    assert [a["bonus"] for a in contest.state["sides"]["pc"]["augments"]] == [bonus]


def test_a_players_rolled_augment_meets_the_campaigns_base_resistance(
    campaign, table, seated, gm, alice, tamsin, same_dice
):
    """§2.3.3, R8: a rolled augment is against a moderate resistance from the campaign's
    base resistance (10 here), not one the message names."""
    campaign_options_update(campaign=campaign, actor=gm, base_resistance=10)
    contest = seated("simple")
    boatcraft = ability(tamsin, "Boatcraft")
    reply = table.perform(
        contest, alice, "augment", side="pc", kind="rolled", helper_ability_id=boatcraft.pk
    )
    assert reply.created, reply.error
    contest.refresh_from_db()
    (augment,) = contest.state["sides"]["pc"]["augments"]
    assert (augment["tn"], augment["resistance"]) == ("17", "10")


def test_a_players_unrelated_action_is_against_a_moderate_resistance(table, seated, alice, gm):
    """§5.2.2: the GM sets an unrelated action's resistance; a player's form has none
    to pick, and their action is rolled against a moderate one."""
    from contests.core.table import load_flow

    contest = seated("group_scored")
    flow = load_flow(contest.state)
    alices = [
        a
        for a in flow.available_actions(actor_of(alice, contest))
        if a.action == "unrelated_action"
    ]
    gms = [
        a for a in flow.available_actions(actor_of(gm, contest)) if a.action == "unrelated_action"
    ]
    assert alices and gms
    assert all(i.name != "resistance_level" for a in alices for i in a.inputs)
    assert any(i.name == "resistance_level" for a in gms for i in a.inputs)
    reply = table.perform(contest, alice, "unrelated_action", participant="Tamsin")
    assert reply.created, reply.error
    contest.refresh_from_db()
    assert contest.state["pending"]["args"]["resistance_level"] == "moderate"


def actor_of(user, contest):
    from contests.services import actor_for

    return actor_for(contest.campaign, user)
