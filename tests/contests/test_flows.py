"""The table's contest flows on their own: framed from a resolved framing, played with
fixed dice and replayed, with no database (the services and sockets are tested beside)."""

from __future__ import annotations

import pytest

from contests.core.rules import RulesError, fixed_rolls
from contests.core.table import Actor, GroupFlow, TableFlow, load_flow

GM = Actor(user_id=1, role="gm")
ALICE = Actor(user_id=2, role="player", character_ids=frozenset({1}))
BOB = Actor(user_id=3, role="player", character_ids=frozenset({3}))
TAMSIN = {"name": "Tamsin", "character_id": 1, "player_id": 2, "ability": "Boatcraft"}
RIVER = {"name": "The Grey River", "rating": 14}


def play(flow, actor, action, *rolls, **data):
    flow.apply(action, data, actor, fixed_rolls(*rolls))
    return flow


def test_a_simple_contest_from_framing_to_consequences():
    """§2.2: a success (5 against 17) beats a failure (16 against 14): minor victory."""
    flow = TableFlow.frame({"kind": "simple", "prize": "the ford", "pc": TAMSIN, "opponent": RIVER})
    with pytest.raises(RulesError, match="no ability or rating"):
        play(flow, GM, "roll", 5, 16)
    play(flow, ALICE, "choose_ability", side="pc", ability="Boatcraft", rating=17)
    play(flow, GM, "roll", 5, 16)
    assert flow.phase == "rolled"
    assert flow.state["pending"]["outcome"]["describe"] == "minor victory"
    play(flow, GM, "resolve")
    assert flow.state["outcome"] == {"winner": "pc", "degree": "minor"}
    play(flow, GM, "apply_consequences")
    assert flow.phase == "finished"


def test_only_the_gm_calls_for_the_roll_and_a_player_acts_only_for_their_own():
    flow = TableFlow.frame({"kind": "simple", "pc": {**TAMSIN, "rating": 17}, "opponent": RIVER})
    with pytest.raises(RulesError, match="GM"):
        play(flow, ALICE, "roll", 5, 16)
    with pytest.raises(RulesError):
        play(flow, BOB, "set_tactic", side="pc", tactic="quietly")
    assert flow.phase == "preparing"


def test_a_scored_contest_ends_at_five_resolution_points():
    """§5.1, R12: success against failure is a minor victory, 2 RP a round; 6 > 5 wins."""
    flow = TableFlow.frame({"kind": "scored", "pc": {**TAMSIN, "rating": 17}, "opponent": RIVER})
    points = []
    for _ in range(3):
        play(flow, GM, "roll", 5, 16)
        play(flow, GM, "resolve")
        points.append(flow.state["machine"]["state"]["pc"]["points"])
    assert points == [2, 4, 6]
    assert flow.state["outcome"]["winner"] == "pc"


def test_an_extended_contest_is_rebuilt_by_replaying_its_actions():
    framing = {"kind": "extended", "pc": {**TAMSIN, "rating": 17}, "opponent": RIVER}
    steps = [
        (ALICE, "bid", {"bid": 5}, (5, 16)),
        (GM, "roll", {}, (5, 16)),
        (GM, "resolve", {}, ()),
    ]
    flow = TableFlow.frame(framing)
    recorded = []
    for actor, action, data, rolls in steps:
        # The service stores each action's data as the flow completed it: dice included.
        payload = flow.apply(action, data, actor, fixed_rolls(*rolls))
        recorded.append((action, payload["data"], actor))
    # The opponent lost the exchange: it pays the PC's bid of 5 AP (§5.3.1).
    machine = flow.state["machine"]["state"]
    assert machine["opponent"]["ap"] == machine["opponent"]["starting_ap"] - 5
    assert TableFlow.replay(framing, recorded).state == flow.state
    assert load_flow(flow.to_json()).state == flow.state


def test_a_group_simple_contest_pairs_each_pc_with_the_resistance():
    flow = GroupFlow.frame(
        {
            "kind": "group_simple",
            "participants": [
                {"name": "Tamsin", "character_id": 1, "player_id": 2, "rating": 17},
                {"name": "Brannoc", "character_id": 3, "player_id": 3, "rating": 27},
                {"name": "The flood", "rating": 14},
            ],
        }
    )
    play(flow, GM, "roll", 5, 16, 5, 16)
    pairings = flow.state["pending"]["pairings"]
    # Tamsin's success beats a failure (minor); Brannoc's 27 is 7W, a bump up: his
    # success becomes a critical, a major victory (§2.2, §2.5).
    assert [(p["participant"], p["outcome"]["describe"]) for p in pairings] == [
        ("Tamsin", "minor victory"),
        ("Brannoc", "major victory"),
    ]
