"""What each person may do now (`available_actions`), for every kind of contest, played
through its phases on the flows alone (no database).

The principle: an action listed is accepted with valid inputs, and an action not listed
is refused. Each scripted step asserts the listed actions of the GM, the controlling
player, another player and a spectator, and checks the principle on copies of the flow;
a seeded walk through each kind, taking listed actions at random, checks it at every
step."""

from __future__ import annotations

import copy
import itertools
import random

import pytest

from contests.core.rules import RulesError, fixed_rolls
from contests.core.table import (
    ActionInput,
    Actor,
    AvailableAction,
    GroupFlow,
    TableFlow,
    known_actions,
    load_flow,
)

GM = Actor(user_id=1, role="gm")
ALICE = Actor(user_id=2, role="player", character_ids=frozenset({1}))  # plays Tamsin
BOB = Actor(user_id=3, role="player", character_ids=frozenset({3}))  # plays Brannoc
WATCHER = Actor(user_id=4, role="spectator")
ACTORS = {"gm": GM, "alice": ALICE, "bob": BOB, "spectator": WATCHER}

TAMSIN = {"name": "Tamsin", "character_id": 1, "player_id": 2, "ability": "Boatcraft"}
BRANNOC = {"name": "Brannoc", "character_id": 3, "player_id": 3, "ability": "Sword", "rating": 15}
RIVER = {"name": "The Grey River", "rating": 14}
HEROES = [
    {"name": "Tamsin", "character_id": 1, "player_id": 2, "rating": 17},
    {"name": "Brannoc", "character_id": 3, "player_id": 3, "rating": 27},
]
RAIDERS = [
    {"name": "Raider", "side": "opponent", "rating": 15},
    {"name": "Chief", "side": "opponent", "rating": 19},
]
NEWCOMERS = itertools.count(1)


def play(flow, actor, action, *rolls, **data):
    flow.apply(action, data, actor, fixed_rolls(*rolls))
    return flow


def offered(flow) -> dict[str, list[AvailableAction]]:
    """What each person is offered now (the flow is unchanged: offers are read once)."""
    return {who: flow.available_actions(actor) for who, actor in ACTORS.items()}


def listed(flow, offers: dict[str, list[AvailableAction]] | None = None) -> dict[str, set[str]]:
    offers = offered(flow) if offers is None else offers
    return {who: {o.action for o in found} for who, found in offers.items()}


def sample(entry: ActionInput):
    """A valid value of one input (the first choice, 1 within the range, some text)."""
    if entry.kind == "choice":
        return entry.choices[0].value
    if entry.kind == "int":
        high = 1 if entry.maximum is None else min(entry.maximum, 1)
        return max(entry.minimum, high)
    if entry.kind == "rating":
        return "13"
    return f"Newcomer {next(NEWCOMERS)}" if entry.name == "name" else "in words"


def valid_data(offer: AvailableAction):
    """The offer's data with sample values, then each other choice and each end of
    each range in turn (a modifier changes the value or gives a bump)."""
    base = {i.name: sample(i) for i in offer.inputs if i.required or i.kind != "text"}
    yield base
    for entry in offer.inputs:
        others = [c.value for c in entry.choices[1:]]
        if entry.kind == "int":
            others = [v for v in (entry.minimum, entry.maximum) if v is not None]
        for value in others:
            data = {**base, entry.name: value}
            if data.get("value", 1) or data.get("bumps", 0):
                yield data


def attempt(flow, action: str, data: dict, actor: Actor) -> None:
    flow.apply(action, copy.deepcopy(data), actor, lambda: 10)


def check_principle(flow, offers: dict[str, list[AvailableAction]] | None = None) -> dict:
    """Each listed action is tried on a fresh copy of the flow; the refusals share one
    copy, as a refused action leaves the flow unchanged (`BaseFlow.apply` puts it back),
    and one that is not refused fails the test. Returns the offers (`offers`: as read
    already from this flow)."""
    offers = offered(flow) if offers is None else offers
    snapshot = flow.to_json()
    refusing = load_flow(snapshot)
    names = [p["name"] for p in flow.state.get("participants", [])]
    tried_by_gm: dict[str, list[dict]] = {}
    for offer in offers["gm"]:
        tried_by_gm.setdefault(offer.action, []).extend(list(valid_data(offer))[:3])
    for who, actor in ACTORS.items():
        for offer in offers[who]:
            for data in valid_data(offer):
                try:
                    attempt(load_flow(snapshot), offer.action, data, actor)
                except RulesError as error:
                    pytest.fail(f"{who}: listed {offer.action} {data} is refused: {error}")
        for action in sorted(known_actions() - {o.action for o in offers[who]}):
            candidates = [{}, {"side": "pc"}, {"side": "opponent"}]
            candidates += [{"participant": n} for n in names] + tried_by_gm.get(action, [])
            for data in candidates:
                with pytest.raises(RulesError):
                    attempt(refusing, action, data, actor)
    return offers


def step(flow, expected: dict[str, set[str]]) -> None:
    offers = offered(flow)
    assert listed(flow, offers) == {"spectator": set(), **expected}
    check_principle(flow, offers)


# -- one-on-one contests ---------------------------------------------------------------

PREPARING = {"augment", "choose_ability", "pyrrhic", "set_tactic"}
# The GM may rule that a player has no relevant ability before the contest starts (R18.10).
GM_PREPARING = PREPARING | {"no_relevant_ability"}


def test_a_simple_contest_through_its_phases():
    flow = TableFlow.frame({"kind": "simple", "pc": TAMSIN, "opponent": RIVER})
    # No roll before the PC has an ability; Bob may help Tamsin with an augment.
    step(flow, {"gm": GM_PREPARING | {"modifier"}, "alice": PREPARING, "bob": {"augment"}})
    play(flow, ALICE, "choose_ability", side="pc", ability="Boatcraft", rating=17)
    gm = {o.action: o for o in flow.available_actions(GM)}
    assert gm["roll"].primary and gm["pyrrhic"].confirm
    tactics = gm["set_tactic"].input("round_tactic")
    assert [c.value for c in tactics.choices] == ["normal"]
    assert [c.value for c in gm["set_tactic"].input("side").choices] == ["pc", "opponent"]
    mine = {o.action: o for o in flow.available_actions(ALICE)}
    assert [c.value for c in mine["set_tactic"].input("side").choices] == ["pc"]
    step(flow, {"gm": GM_PREPARING | {"modifier", "roll"}, "alice": PREPARING, "bob": {"augment"}})
    play(flow, GM, "roll", 5, 16)
    step(flow, {"gm": {"hero_point", "resolve"}, "alice": {"hero_point"}, "bob": set()})
    (hero,) = [o for o in flow.available_actions(ALICE) if o.action == "hero_point"]
    assert hero.label == "Spend a hero point" and hero.confirm
    # Tamsin has no hero point left: the service says so, the offer goes.
    assert "hero_point" not in {o.action for o in flow.available_actions(ALICE, {1: 0})}
    play(flow, GM, "resolve")
    step(flow, {"gm": {"apply_consequences", "escalate", "narrate"}, "alice": set(), "bob": set()})
    play(flow, GM, "apply_consequences")
    step(flow, {"gm": {"narrate"}, "alice": set(), "bob": set()})


def test_a_pyrrhic_and_a_costly_simple_contest():
    flow = TableFlow.frame(
        {"kind": "simple", "variant": "costly", "pc": {**TAMSIN, "rating": 17}, "opponent": RIVER}
    )
    play(flow, ALICE, "pyrrhic")
    step(
        flow,
        {
            "gm": GM_PREPARING - {"pyrrhic"} | {"modifier", "remove_modifier", "roll"},
            "alice": PREPARING - {"pyrrhic"},
            "bob": {"augment"},
        },
    )
    play(flow, GM, "roll", 5, 16)
    play(flow, GM, "resolve")
    # A costly victory does not escalate (§2.8.2).
    step(flow, {"gm": {"apply_consequences", "narrate"}, "alice": set(), "bob": set()})


def test_an_automatic_victory_needs_no_roll():
    flow = TableFlow.frame({"kind": "automatic", "pc": {**TAMSIN, "rating": 17}, "opponent": RIVER})
    step(
        flow,
        {
            "gm": GM_PREPARING | {"modifier", "automatic_victory"},
            "alice": PREPARING,
            "bob": {"augment"},
        },
    )
    play(flow, GM, "automatic_victory")
    step(flow, {"gm": {"apply_consequences", "narrate"}, "alice": set(), "bob": set()})


def test_a_scored_contest_between_two_players():
    flow = TableFlow.frame(
        {
            "kind": "scored",
            "pc": {**TAMSIN, "rating": 17},
            "opponent": BRANNOC,
            "physical_dice": True,
        }
    )
    both = PREPARING | {"enter_roll"}
    step(
        flow,
        {
            "gm": both | {"no_relevant_ability", "modifier", "roll"},
            "alice": both,
            "bob": both - {"pyrrhic"},
        },
    )
    (tactic,) = [o for o in flow.available_actions(BOB) if o.action == "set_tactic"]
    assert [c.value for c in tactic.input("side").choices] == ["opponent"]
    assert "risky_gambit" in [c.value for c in tactic.input("round_tactic").choices]
    play(flow, GM, "roll", 5, 16)
    step(flow, {"gm": {"hero_point", "resolve"}, "alice": {"hero_point"}, "bob": {"hero_point"}})
    play(flow, GM, "resolve")
    # Round two: abilities are set and augments are over once the contest has started.
    step(
        flow,
        {
            "gm": {"set_tactic", "modifier", "roll", "enter_roll"},
            "alice": {"set_tactic", "enter_roll"},
            "bob": {"set_tactic", "enter_roll"},
        },
    )


def test_an_extended_contest_takes_turns():
    flow = TableFlow.frame({"kind": "extended", "pc": {**TAMSIN, "rating": 17}, "opponent": RIVER})
    turn = {"bid", "disengage", "unrelated_action"}
    step(
        flow,
        {
            "gm": GM_PREPARING | turn | {"modifier", "roll"},
            "alice": PREPARING | turn,
            "bob": {"augment"},
        },
    )
    (bid,) = [o for o in flow.available_actions(ALICE) if o.action == "bid"]
    assert (bid.input("bid").minimum, bid.input("bid").maximum) == (1, 17)
    play(flow, ALICE, "bid", bid=5)
    play(flow, GM, "roll", 5, 16)
    step(flow, {"gm": {"hero_point", "resolve"}, "alice": {"hero_point"}, "bob": set()})
    play(flow, GM, "resolve")
    # The river's turn: the GM bids and rolls for it; Bob may give AP from outside.
    step(
        flow,
        {
            "gm": {"set_tactic", "modifier", "roll", "gift"} | turn,
            "alice": {"set_tactic"},
            "bob": {"gift"},
        },
    )


def test_a_chained_contest_and_an_escalation():
    flow = TableFlow.frame({"kind": "simple", "pc": {**TAMSIN, "rating": 17}, "opponent": RIVER})
    play(flow, GM, "roll", 5, 16)
    play(flow, GM, "resolve")
    (escalate,) = [o for o in flow.available_actions(GM) if o.action == "escalate"]
    assert [c.value for c in escalate.input("into").choices] == ["scored", "chained"]
    assert escalate.confirm
    play(flow, GM, "escalate", into="chained")
    assert flow.kind == "chained"
    step(
        flow,
        {"gm": {"set_tactic", "modifier", "roll"}, "alice": {"set_tactic"}, "bob": set()},
    )
    (tactic,) = [o for o in flow.available_actions(ALICE) if o.action == "set_tactic"]
    assert [c.value for c in tactic.input("round_tactic").choices] == ["normal", "disengage"]


# -- group contests ----------------------------------------------------------------------


def test_a_group_simple_contest():
    flow = GroupFlow.frame(
        {"kind": "group_simple", "participants": [*HEROES, {"name": "The flood", "rating": 14}]}
    )
    mine = {"augment", "boost", "choose_ability", "set_tactic"}
    step(
        flow,
        {
            "gm": mine | {"join", "modifier", "roll", "no_relevant_ability"},
            "alice": mine,
            "bob": mine,
        },
    )
    (boost,) = [o for o in flow.available_actions(ALICE) if o.action == "boost"]
    assert [c.value for c in boost.input("participant").choices] == ["Tamsin"]
    play(flow, GM, "roll", 5, 16, 5, 16)
    # Brannoc's critical cannot be raised: only Tamsin's player may spend a hero point.
    step(flow, {"gm": {"hero_point", "resolve"}, "alice": {"hero_point"}, "bob": set()})
    play(flow, GM, "resolve")
    step(flow, {"gm": {"apply_consequences", "narrate"}, "alice": set(), "bob": set()})


def test_a_group_scored_contest():
    follower = {"name": "Oro", "side": "pc", "role": "follower", "owner": "Tamsin", "rating": 12}
    flow = GroupFlow.frame({"kind": "group_scored", "participants": [*HEROES, *RAIDERS, follower]})
    mine = {"augment", "choose_ability", "set_tactic", "unrelated_action"}
    step(
        flow,
        # The GM's raiders may take Oro out before any pairing (§5.2.4).
        {
            "gm": mine | {"engage", "join", "modifier", "remove_follower", "no_relevant_ability"},
            "alice": mine,
            "bob": mine,
        },
    )
    play(flow, GM, "engage", pc="Tamsin", opponent="Raider")
    (engage,) = [
        o
        for o in flow.available_actions(GM)
        if o.action == "engage" and o.input("pc").choices[0].value == "Brannoc"
    ]
    # Two may gang up on one opponent (§5.2.1).
    assert [c.value for c in engage.input("opponent").choices] == ["Raider", "Chief"]
    gm = {o.action for o in flow.available_actions(GM)}
    assert {"play_round", "assist", "switch_ability"} <= gm
    check_principle(flow)
    play(flow, GM, "play_round", 5, 16, pairing=1)
    assert listed(flow)["alice"] <= {"hero_point"}
    check_principle(flow)


def test_a_group_extended_contest():
    flow = GroupFlow.frame(
        {
            "kind": "group_extended",
            "participants": [*HEROES, *RAIDERS],
            "roster": [{"character_id": 5, "player_id": 3, "name": "Ula"}],
        }
    )
    mine = {"augment", "choose_ability", "declare", "set_tactic"}
    step(
        flow,
        {"gm": mine | {"join", "modifier", "no_relevant_ability"}, "alice": mine, "bob": mine},
    )
    (declare,) = [o for o in flow.available_actions(ALICE) if o.action == "declare"]
    assert [c.value for c in declare.input("targets").choices] == ["Raider", "Chief"]
    assert declare.input("bid").maximum == 17  # a PC stakes up to their starting AP
    for name, target in (("Tamsin", "Raider"), ("Brannoc", "Chief"), ("Raider", "Tamsin")):
        actor = {"Tamsin": ALICE, "Brannoc": BOB}.get(name, GM)
        play(flow, actor, "declare", participant=name, targets=[target])
    play(flow, GM, "declare", participant="Chief", targets=["Brannoc"])
    acting = listed(flow)
    assert {"act", "gift"} <= acting["gm"] and "gift" not in acting["bob"]
    # Ula, outside the contest, may give AP for her player (§5.3.11).
    ula = Actor(user_id=3, role="player", character_ids=frozenset({3, 5}))
    (gift, *_) = [o for o in flow.available_actions(ula) if o.action == "gift"]
    assert [c.value for c in gift.input("helper_character_id").choices] == [5]
    check_principle(flow)


# -- the principle, on walks through every kind -------------------------------------------

FRAMINGS = {
    "simple": {"kind": "simple", "pc": TAMSIN, "opponent": RIVER},
    "automatic": {"kind": "automatic", "pc": TAMSIN, "opponent": BRANNOC},
    "scored": {"kind": "scored", "pc": TAMSIN, "opponent": BRANNOC, "stakes": "climax"},
    "extended": {"kind": "extended", "pc": TAMSIN, "opponent": BRANNOC},
    "chained": {"kind": "chained", "pc": TAMSIN, "opponent": RIVER},
    "group_simple": {
        "kind": "group_simple",
        "participants": [*HEROES, {"name": "The flood", "rating": 14}],
    },
    "group_scored": {
        "kind": "group_scored",
        "participants": [
            *HEROES,
            *RAIDERS,
            {"name": "Oro", "side": "pc", "role": "follower", "owner": "Tamsin", "rating": 12},
        ],
    },
    "group_extended": {
        "kind": "group_extended",
        "participants": [*HEROES, *RAIDERS],
        "roster": [{"character_id": 5, "player_id": 3, "name": "Ula"}],
    },
}


@pytest.mark.parametrize("kind", list(FRAMINGS))
@pytest.mark.parametrize("seed", [0, 1])
def test_every_listed_action_is_accepted_and_every_other_refused(kind, seed):
    rng = random.Random(seed)
    options = {"physical_dice": seed == 0, "hide_gm_rolls": seed == 1}
    flow = (GroupFlow if kind.startswith("group_") else TableFlow).frame(
        {**FRAMINGS[kind], **options}
    )
    for _ in range(12):
        by_person = check_principle(flow)
        offers = [(ACTORS[who], o) for who in ("gm", "alice", "bob") for o in by_person[who]]
        primary = [(a, o) for a, o in offers if o.primary]
        if not offers or flow.phase == "finished":
            break
        actor, offer = rng.choice(primary if primary and rng.random() < 0.5 else offers)
        data = rng.choice(list(valid_data(offer)))
        flow.apply(offer.action, data, actor, lambda: rng.randint(1, 20))


def test_the_resistance_is_offered_no_parting_shot_r18_2():
    """R18.2: a resistance that defeats the PC in an extended contest takes no parting
    shot; the GM is offered none (a PC winner is, §5.3.4)."""
    flow = TableFlow.frame({"kind": "extended", "pc": {**TAMSIN, "rating": 4}, "opponent": RIVER})
    play(flow, ALICE, "bid", bid=4)
    play(flow, GM, "roll", 20, 1)  # a fumble against a critical: Tamsin is out
    play(flow, GM, "resolve")
    assert flow.state["outcome"]["winner"] == "opponent"
    assert "parting_shot" not in {o.action for o in flow.available_actions(GM)}

    flow = TableFlow.frame({"kind": "extended", "pc": {**TAMSIN, "rating": 17}, "opponent": RIVER})
    play(flow, ALICE, "bid", bid=17)
    play(flow, GM, "roll", 1, 20)  # a critical against a fumble: the river is out
    play(flow, GM, "resolve")
    assert flow.state["outcome"]["winner"] == "pc"
    assert "parting_shot" in {o.action for o in flow.available_actions(ALICE)}


def test_an_input_offered_again_is_the_same_value_and_keeps_each_values_type():
    """A panel works out every actor's offers on every step; a choice offered again is
    the same (frozen) input, made once (issue 29). Values equal but of other types are
    other choices: a 1 stays 1 and True stays True, and a default of 0 is not False."""
    from contests.core.table.base import choice

    first = choice("side", "Who", [("pc", "Tamsin"), ("opponent", "The Grey River")])
    again = choice(
        "side", "Who", (option for option in [("pc", "Tamsin"), ("opponent", "The Grey River")])
    )
    assert again is first
    assert [(c.value, c.label) for c in again.choices] == [
        ("pc", "Tamsin"),
        ("opponent", "The Grey River"),
    ]
    number = choice("index", "Line", [(1, "one")])
    flag = choice("index", "Line", [(True, "one")])
    assert type(number.choices[0].value) is int and type(flag.choices[0].value) is bool
    assert choice("shift", "Shift", [(0, "none")], default=0).default is not False
    assert choice("shift", "Shift", [(0, "none")], default=False).default is False
    assert choice("tags", "Tags", [("a", "A")], default=["a"]).default == ["a"]  # unhashable
