"""What the table records of a contest for the GM and the archive: the wounds a chained
contest leaves to confirm (§5.4), who spent a hero point on the deciding roll, and who
used which ability at what rating (the participant records)."""

from __future__ import annotations

import uuid

import pytest

from contests.core.rules import fixed_rolls
from contests.core.table import Actor, TableFlow
from contests.services import contest_act, contest_frame

GM = Actor(user_id=1, role="gm")
ALICE = Actor(user_id=2, role="player", character_ids=frozenset({1}))
TAMSIN = {"name": "Tamsin", "character_id": 1, "player_id": 2, "ability": "Knife", "rating": 14}


def fight(opponent: dict, rounds) -> TableFlow:
    flow = TableFlow.frame({"kind": "chained", "pc": TAMSIN, "opponent": opponent})
    for pc_roll, opponent_roll in rounds:
        flow.apply("roll", {}, GM, fixed_rolls(pc_roll, opponent_roll))
        flow.apply("resolve", {}, GM, fixed_rolls())
    return flow


def test_a_wounded_winner_of_a_chained_contest_is_offered_the_wound_and_the_benefit():
    """R18.6: the winner of a chained contest gains the benefit of its victory level;
    the wound it took on the way stays too (the GM may net them out, §2.11.5)."""
    brannoc = {
        "name": "Brannoc",
        "character_id": 3,
        "player_id": 4,
        "ability": "Bold",
        "rating": 15,
    }
    # Tamsin is hurt in round one, then hurts Brannoc and leaves him dying.
    flow = fight(brannoc, [(16, 5), (3, 18), (1, 20)])
    assert flow.state["outcome"] == {"winner": "pc", "degree": "complete"}
    assert flow.state["suggested"] == [
        {"side": "pc", "state": "hurt"},
        {"side": "pc", "state": "heroic"},
        {"side": "opponent", "state": "dying"},
    ]


def test_an_unharmed_winner_of_a_chained_contest_keeps_the_benefit_of_victory():
    flow = fight({"name": "Raiders", "rating": 14}, [(5, 16)] * 3)
    assert flow.state["outcome"] == {"winner": "pc", "degree": "complete"}
    assert flow.state["suggested"] == [{"side": "pc", "state": "heroic"}]


def test_the_deciding_roll_says_who_spent_a_hero_point_on_it():
    flow = TableFlow.frame(
        {"kind": "simple", "pc": TAMSIN, "opponent": {"name": "Ford", "rating": 14}}
    )
    flow.apply("roll", {}, GM, fixed_rolls(15, 10))  # a failure against a success
    flow.apply("hero_point", {"side": "pc"}, ALICE, fixed_rolls())
    rolls = flow.apply("resolve", {}, GM, fixed_rolls())["rolls"]
    assert [(row["result"], row["hero_point"]) for row in rolls] == [
        ("success", True),
        ("success", False),
    ]


@pytest.mark.django_db
def test_the_participant_records_follow_the_ability_chosen_at_the_table(
    campaign, session, gm, alice, tamsin
):
    framing = {
        "kind": "simple",
        "pc": {"character_id": tamsin.pk},
        "opponent": {"name": "The Grey River", "level": "moderate"},
    }
    contest = contest_frame(
        campaign=campaign, user=gm, data=framing, idempotency_key=uuid.uuid4().hex
    ).contest

    def act(user, action, **data):
        contest_act(
            contest_id=contest.pk,
            user=user,
            action=action,
            data=data,
            idempotency_key=uuid.uuid4().hex,
        )
        return contest.participants.get(side="pc")

    boatcraft = tamsin.abilities.get(name="Boatcraft")
    row = act(alice, "choose_ability", side="pc", ability_id=boatcraft.pk)
    assert (row.name, row.ability, row.rating) == ("Tamsin", "Boatcraft", 17)
    assert contest.participants.get(side="opponent").rating == 14
    row = act(gm, "undo")  # the records follow the undo too
    assert (row.ability, row.rating) == ("", None)
