"""A doomed PC at the live table (§2.11.1.5): refused until a won contest of
wherewithal, then rolling with a bump down on the related ability (R5.4, R10)."""

from __future__ import annotations

import pytest

from characters import services

from .conftest import ability

pytestmark = pytest.mark.django_db


@pytest.fixture
def doomed(gm, tamsin):
    dying = services.character_condition_apply(
        character=tamsin,
        actor=gm,
        state="dying",
        abilities=[ability(tamsin, "Boatcraft")],
        cause="the weir",
    )
    return services.character_condition_heal(
        character=tamsin, actor=gm, condition=dying, outcome=-1
    )


def choose(table, contest, alice, tamsin):
    return table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )


def test_a_doomed_pc_acts_only_after_a_won_contest_of_wherewithal(
    table, session, gm, alice, tamsin, doomed
):
    contest = table.frame("simple", pc=tamsin, opponent={"name": "The Weir", "rating": 14})
    table.refused(
        contest,
        alice,
        "choose_ability",
        "a dying character takes no actions",
        side="pc",
        ability_id=ability(tamsin, "Boatcraft").pk,
    )
    services.character_wherewithal(character=tamsin, actor=gm, condition=doomed, outcome=2)
    contest = choose(table, contest, alice, tamsin)
    assert contest.state["sides"]["pc"]["states"] == ["dying", "final action"]
    table.act(contest, gm, "roll", rolls=(5, 16))  # a success, bumped down to a failure
    contest.refresh_from_db()
    assert contest.state["pending"]["outcome"]["pc_result"] == "failure"


def test_a_waived_bump_leaves_the_final_action_unhindered(
    table, session, gm, alice, tamsin, doomed
):
    services.character_wherewithal(
        character=tamsin, actor=gm, condition=doomed, outcome=3, waive_bump=True
    )
    contest = table.frame("simple", pc=tamsin, opponent={"name": "The Weir", "rating": 14})
    contest = choose(table, contest, alice, tamsin)
    table.act(contest, gm, "roll", rolls=(5, 16))
    contest.refresh_from_db()
    assert contest.state["pending"]["outcome"]["pc_result"] == "success"


def test_a_lost_contest_of_wherewithal_leaves_no_final_action(
    table, session, gm, alice, tamsin, doomed
):
    services.character_wherewithal(character=tamsin, actor=gm, condition=doomed, outcome=-1)
    contest = table.frame("simple", pc=tamsin, opponent={"name": "The Weir", "rating": 14})
    table.refused(
        contest,
        alice,
        "choose_ability",
        "a dying character takes no actions",
        side="pc",
        ability_id=ability(tamsin, "Boatcraft").pk,
    )
