"""Replay and undo read each event's stored data (`payload["data"]`) back through its
action's model: rows as the table stores them, with the sheet's fields the service
filled in and the dice rolled for them, rebuild the contest; a row whose data the
model refuses is refused with a readable reason."""

from __future__ import annotations

import pytest

from contests.core.actions import completed, stored
from contests.core.rules import RulesError, fixed_rolls
from contests.core.table import Actor, GroupFlow, TableFlow

GM = Actor(user_id=1, role="gm")
ALICE = Actor(user_id=2, role="player", character_ids=frozenset({1}))
WHO = {"gm": GM, "alice": ALICE}

# Each event's data as stored today (payload["data"]): what the browser sent, completed
# by the service (the sheet's ability, rating, states and penalties; the helper), with
# the dice the flow rolled for it.
SIMPLE = {
    "kind": "simple",
    "physical_dice": True,
    "pc": {"name": "Tamsin", "character_id": 1, "player_id": 2},
    "opponent": {"name": "The Grey River", "rating": 14},
}
SIMPLE_EVENTS = [
    (
        "alice",
        "choose_ability",
        {
            "side": "pc",
            "ability": "Boatcraft",
            "rating": 17,
            "states": ["hurt"],
            "sheet_penalties": [{"label": "social penalty: drawing on the Ferry", "value": -3}],
        },
    ),
    ("alice", "set_tactic", {"side": "pc", "tactic": "Ride the current", "round_tactic": "normal"}),
    (
        "gm",
        "augment",
        {
            "side": "pc",
            "kind": "rolled",
            "helper": "Brannoc",
            "helper_character_id": 3,
            "ability": "Strong",
            "rating": 15,
            "roll": 4,
            "resistance_roll": 12,
        },
    ),
    ("gm", "modifier", {"side": "pc", "kind": "situational", "value": -2, "label": "spring flood"}),
    ("alice", "enter_roll", {"side": "pc", "entered": 6}),
    ("gm", "roll", {"pc_roll": 6, "opponent_roll": 15}),
    ("alice", "hero_point", {"side": "pc"}),
    ("gm", "resolve", {}),
    ("gm", "apply_consequences", {"narration": "Across."}),
]
EXTENDED = {
    "kind": "extended",
    "pc": {
        "name": "Tamsin",
        "character_id": 1,
        "player_id": 2,
        "ability": "Boatcraft",
        "rating": 17,
    },
    "opponent": {"name": "The Grey River", "rating": 14},
}
EXTENDED_EVENTS = [
    ("alice", "bid", {"bid": 5}),
    ("gm", "roll", {"pc_roll": 5, "opponent_roll": 16}),
    ("gm", "resolve", {}),
    (
        "gm",
        "gift",
        {
            "recipient": "pc",
            "helper": "Brannoc",
            "helper_character_id": 3,
            "ability": "Strong",
            "rating": 15,
            "bid": 2,
            "roll": 3,
            "resistance_roll": 11,
        },
    ),
]
GROUP_SIMPLE = {
    "kind": "group_simple",
    "participants": [
        {"name": "Tamsin", "character_id": 1, "player_id": 2, "rating": 17},
        {"name": "Brannoc", "character_id": 3, "player_id": 3, "rating": 27},
        {"name": "The flood", "rating": 14},
    ],
}
GROUP_SIMPLE_EVENTS = [
    (
        "alice",
        "choose_ability",
        {
            "participant": "Tamsin",
            "ability": "Boatcraft",
            "ability_id": 11,
            "rating": 17,
            "states": [],
        },
    ),
    (
        "gm",
        "join",
        {
            "name": "Ula",
            "character_id": 5,
            "player_id": 3,
            "ability": "Swim",
            "ability_id": 12,
            "rating": 13,
            "states": [],
            "side": "pc",
        },
    ),
    (
        "gm",
        "roll",
        {
            "dice": {
                "Tamsin": {"roll": 3, "resistance_roll": 12},
                "Brannoc": {"roll": 8, "resistance_roll": 9},
                "Ula": {"roll": 10, "resistance_roll": 11},
            }
        },
    ),
    ("gm", "resolve", {}),
]
GROUP_SCORED = {
    "kind": "group_scored",
    "participants": [
        {"name": "Tamsin", "character_id": 1, "player_id": 2, "rating": 17},
        {"name": "Brannoc", "character_id": 3, "player_id": 3, "rating": 27},
        {"name": "Raider", "side": "opponent", "rating": 15},
        {"name": "Chief", "side": "opponent", "rating": 19},
    ],
}
GROUP_SCORED_EVENTS = [
    ("gm", "engage", {"pc": "Tamsin", "opponent": "Raider"}),
    ("gm", "engage", {"pc": "Brannoc", "opponent": "Chief"}),
    ("gm", "play_round", {"pairing": 1, "dice": {"pc_roll": 4, "opponent_roll": 15}}),
    ("gm", "resolve", {}),
]


def replayed(family, framing, events):
    return family.replay(framing, [(action, data, WHO[who]) for who, action, data in events])


def played(family, framing, events):
    """The same contest played live, each action given the dice its row records."""
    flow = family.frame(framing)
    for who, action, data in events:
        dice = [v for k, v in data.items() if k in ("pc_roll", "opponent_roll", "roll")]
        flow.apply(action, data, WHO[who], fixed_rolls(*dice))
    return flow


def test_a_simple_contest_is_rebuilt_from_rows_with_the_sheets_fields_and_dice():
    flow = replayed(TableFlow, SIMPLE, SIMPLE_EVENTS)
    assert flow.phase == "finished"
    assert flow.state["outcome"]["winner"] == "pc" and flow.state["outcome"]["degree"] == "major"
    pc = flow.side("pc")
    assert (pc["ability"], pc["rating"], pc["states"]) == ("Boatcraft", 17, ["hurt"])
    # The community penalty the service read, and the rolled augment's recorded dice.
    assert {"label": "social penalty: drawing on the Ferry", "value": -3, "bumps": 0} in [
        {k: m[k] for k in ("label", "value", "bumps")} for m in pc["modifiers"]
    ]
    (augment,) = pc["augments"]
    assert (augment["roll"], augment["resistance_roll"], augment["helper_character_id"]) == (
        4,
        12,
        3,
    )
    # The physical d20 entered is the recorded roll.
    assert flow.state["rounds"][0]["pc_roll"] == 6
    assert flow.state["rounds"][0]["pc_hero_point"] is True
    assert flow.state["narration"] == "Across."


def test_an_extended_contest_is_rebuilt_with_its_gifts_dice():
    flow = replayed(TableFlow, EXTENDED, EXTENDED_EVENTS)
    machine = flow.state["machine"]["state"]
    assert (machine["pc_ap"], machine["opponent_ap"]) == (19, 9)
    gift = machine["exchanges"][-1]
    assert (gift["kind"], gift["roll"], gift["resistance_roll"]) == ("gift", 3, 11)


def test_group_contests_are_rebuilt_with_dice_by_participant_and_by_roller():
    simple = replayed(GroupFlow, GROUP_SIMPLE, GROUP_SIMPLE_EVENTS)
    assert simple.phase == "resolved"
    pairings = simple.state["outcome"]["pairings"]
    assert [(p["participant"], p["roll"], p["resistance_roll"]) for p in pairings] == [
        ("Tamsin", 3, 12),
        ("Brannoc", 8, 9),
        ("Ula", 10, 11),
    ]
    assert simple.participant("Ula")["character_id"] == 5
    assert simple.participant("Tamsin")["ability_id"] == 11
    scored = replayed(GroupFlow, GROUP_SCORED, GROUP_SCORED_EVENTS)
    assert scored.phase == "preparing"
    assert scored.state["machine"] is not None


@pytest.mark.parametrize(
    ("family", "framing", "events"),
    [
        (TableFlow, SIMPLE, SIMPLE_EVENTS),
        (TableFlow, EXTENDED, EXTENDED_EVENTS),
        (GroupFlow, GROUP_SIMPLE, GROUP_SIMPLE_EVENTS),
        (GroupFlow, GROUP_SCORED, GROUP_SCORED_EVENTS),
    ],
)
def test_each_row_is_what_the_flow_stores_and_replays_to_the_live_state(family, framing, events):
    """The completed data of each row, as the flow hands it to the event, is the row
    itself: the stored shape is unchanged; and the replay is the live contest."""
    for _, action, data in events:
        assert completed(action, data).model_dump(exclude_unset=True) == data
    assert replayed(family, framing, events).state == played(family, framing, events).state


def test_a_row_written_before_a_field_was_dropped_still_replays():
    # A key the model no longer declares is ignored, as the flows always ignored it.
    old = [(who, action, {**data, "retired_key": 1}) for who, action, data in SIMPLE_EVENTS]
    assert (
        replayed(TableFlow, SIMPLE, old).state == replayed(TableFlow, SIMPLE, SIMPLE_EVENTS).state
    )
    assert "retired_key" not in stored("hero_point", {"side": "pc", "retired_key": 1}).model_dump()


@pytest.mark.parametrize(
    ("action", "data", "message"),
    [
        ("roll", {"pc_roll": 21, "opponent_roll": 5}, "must be a whole number from 1 to 20"),
        ("roll", {"pc_roll": "6"}, "must be a whole number"),
        ("choose_ability", {"side": "pc", "ability": "Boatcraft", "rating": []}, "rating"),
        ("set_tactic", {"side": "both", "tactic": "x"}, "must be one of pc or opponent"),
    ],
)
def test_a_stored_row_the_model_refuses_is_refused_with_its_reason(action, data, message):
    with pytest.raises(RulesError, match=message):
        stored(action, data)


def test_a_recorded_action_missing_its_roll_is_refused_on_replay():
    events = [("gm", "roll", {"pc_roll": 6})]
    framing = {**SIMPLE, "pc": {**SIMPLE["pc"], "ability": "Boatcraft", "rating": 17}}
    with pytest.raises(RulesError, match="missing its roll"):
        replayed(TableFlow, framing, events)
