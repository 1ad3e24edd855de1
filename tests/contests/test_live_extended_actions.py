"""One-on-one extended contests: parting shots, AP gifts, disengaging and unrelated
actions at the live table (§5.3.4, §5.3.7, §5.3.9, §5.3.11; issue 6)."""

from __future__ import annotations

import pytest

from contests import live
from contests.models import ContestStatus
from tests.table import Table

from .conftest import ability

pytestmark = pytest.mark.django_db


def frame(table, tamsin):
    """Tamsin (Boatcraft 17) holds the bridge against Raiders (14), AP against AP."""
    boatcraft = ability(tamsin, "Boatcraft")
    return table.frame(
        "extended",
        pc={"character_id": tamsin.pk, "ability_id": boatcraft.pk},
        prize="hold the bridge",
        opponent={"name": "Raiders", "rating": "14"},
    )


def ap(contest):
    machine = contest.state["machine"]["state"]
    return machine["pc_ap"], machine["opponent_ap"]


@pytest.fixture
def wren(campaign, alice):
    """Alice's second character, who is not in the contest: Rowing 15."""
    from characters.models import Ability, Character

    character = Character.objects.create(name="Wren", player=alice, campaign=campaign)
    Ability.objects.create(character=character, name="Rowing", rating=15)
    return character


def test_an_unrelated_action_gives_up_the_turn_and_a_gift_comes_from_outside(
    table, session, gm, alice, tamsin, wren
):
    contest = frame(table, tamsin)
    table.act(contest, alice, "unrelated_action", side="pc", description="cuts the ropes")
    assert contest.state["machine"]["state"]["turn"] == "opponent"
    assert ap(contest) == (17, 14)
    assert contest.events.last().payload["totals"] == {"Tamsin": 17, "Raiders": 14}
    table.refused(contest, alice, "unrelated_action", "Raiders's turn", side="pc")
    # §5.3.11: Wren bids 5 from Rowing 15 against 10: 3 vs 15 is a minor victory.
    rowing = ability(wren, "Rowing")
    table.act(
        contest, alice, "gift", rolls=(3, 15), helper_ability_id=rowing.pk, recipient="pc", bid=5
    )
    assert ap(contest) == (22, 14)
    gift = contest.events.last().payload
    assert gift["data"]["helper"] == "Wren" and gift["data"]["rating"] == 15
    assert [r["roll"] for r in gift["rolls"]] == [3, 15]
    # The GM gives for a patron without a sheet; a failure feeds the other side.
    table.act(
        contest, gm, "gift", rolls=(18, 5), helper="Old Mab", rating="12", recipient="pc", bid=4
    )
    assert ap(contest) == (22, 18)
    # The opponent's turn goes on as usual.
    table.act(contest, gm, "roll", rolls=(16, 5))
    table.act(contest, gm, "resolve")
    assert contest.state["machine"]["state"]["turn"] == "pc"
    assert Table.rebuilt(contest).state == contest.state


def test_gifts_are_refused_to_insiders_and_to_other_players(
    table, session, alice, tamsin, brannoc, wren
):
    contest = frame(table, tamsin)
    bob = brannoc.player
    table.refused(
        contest,
        alice,
        "gift",
        "under way",
        rolls=(3, 15),
        helper_ability_id=ability(wren, "Rowing").pk,
        recipient="pc",
        bid=5,
    )
    table.act(contest, alice, "unrelated_action", side="pc")
    table.refused(
        contest,
        bob,
        "gift",
        "only the giver's player",
        rolls=(3, 15),
        helper_ability_id=ability(wren, "Rowing").pk,
        recipient="pc",
        bid=5,
    )
    table.refused(
        contest,
        alice,
        "gift",
        "outside the contest",
        rolls=(3, 15),
        helper_ability_id=ability(tamsin, "Sharp eyes").pk,
        recipient="pc",
        bid=5,
    )
    # A browser cannot claim a helper: without a sheet ability only the GM gives.
    table.refused(
        contest,
        alice,
        "gift",
        "only the GM",
        rolls=(3, 15),
        helper="Wren",
        helper_character_id=wren.pk,
        rating="40",
        recipient="pc",
        bid=5,
    )
    table.refused(
        contest,
        alice,
        "gift",
        "at most|never exceeds|bid",
        rolls=(3, 15),
        helper_ability_id=ability(wren, "Rowing").pk,
        recipient="pc",
        bid=16,
    )


def test_a_won_disengagement_ends_the_contest_with_no_winner(
    table, session, gm, alice, sam, tamsin, brannoc
):
    contest = frame(table, tamsin)
    table.refused(contest, brannoc.player, "disengage", "only Tamsin's player", side="pc")
    table.refused(contest, sam, "disengage", "spectators", side="pc")
    table.refused(contest, gm, "disengage", "Tamsin's turn", side="opponent")
    table.act(contest, alice, "disengage", rolls=(5, 16), side="pc")
    assert contest.state["phase"] == "rolled"
    table.act(contest, gm, "resolve")
    assert contest.status == ContestStatus.RESOLVING
    assert contest.state["outcome"] == {"winner": None, "degree": None, "disengaged": "pc"}
    assert (contest.winner, contest.outcome_level) == ("", 0)
    assert contest.state["suggested"] == []
    assert "Tamsin disengages" in live.render_contest(contest, "player")
    table.act(contest, gm, "apply_consequences")
    assert contest.status == ContestStatus.FINISHED
    assert Table.rebuilt(contest).state == contest.state


def test_a_lost_disengagement_hands_ap_over_and_a_hero_point_can_save_it(
    table, session, gm, alice, tamsin
):
    contest = frame(table, tamsin)
    table.act(contest, alice, "disengage", rolls=(18, 5), side="pc")  # failure vs success
    table.act(contest, alice, "hero_point", side="pc")  # success vs success: the higher roll
    table.act(contest, gm, "resolve")
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 2
    assert contest.state["outcome"]["disengaged"] == "pc"


def test_the_winner_takes_a_parting_shot_and_a_failed_one_revives_the_loser(
    table, session, gm, alice, sam, tamsin
):
    contest = frame(table, tamsin)
    table.act(contest, alice, "bid", bid=14)
    table.act(contest, gm, "roll", rolls=(5, 16))  # success vs failure: the Raiders lose 14
    table.act(contest, gm, "resolve")
    assert contest.status == ContestStatus.RESOLVING and ap(contest) == (17, 0)
    table.refused(contest, sam, "parting_shot", "spectators")
    # A fumble against a critical (§5.3.4): the Raiders take 3x the bid back and fight on.
    table.act(contest, alice, "parting_shot", rolls=(20, 1), bid=3)
    table.act(contest, gm, "resolve")
    assert ap(contest) == (8, 9)
    assert contest.status == ContestStatus.RUNNING and contest.state["outcome"] is None
    assert contest.state["machine"]["state"]["turn"] == "opponent"
    assert Table.rebuilt(contest).state == contest.state


def test_a_parting_shot_deepens_the_defeat(table, session, gm, alice, tamsin):
    contest = frame(table, tamsin)
    table.act(contest, alice, "bid", bid=14)
    table.act(contest, gm, "roll", rolls=(5, 16))
    table.act(contest, gm, "resolve")
    table.act(contest, alice, "parting_shot", rolls=(5, 16), bid=12)
    table.act(contest, alice, "hero_point", side="pc")  # success -> critical: 2x the bid
    table.act(contest, gm, "resolve")
    assert ap(contest) == (41, -24)  # a critical takes 2x the bid from a failure
    assert (contest.winner, contest.degree) == ("pc", "major")
    assert contest.state["suggested"] == [{"side": "pc", "state": "invigorated"}]
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 2
    table.refused(contest, alice, "parting_shot", "right after the exchange", rolls=(5, 16))
    table.act(contest, gm, "apply_consequences")
    assert list(tamsin.conditions.values_list("state", flat=True)) == ["invigorated"]


def test_the_table_offers_the_extra_actions(table, session, alice, tamsin, wren):
    contest = frame(table, tamsin)
    player = live.render_contest(contest, "player", reader=alice.pk)
    assert 'value="unrelated_action"' in player and 'value="disengage"' in player
    table.act(contest, alice, "unrelated_action", side="pc")
    gm_html = live.render_contest(contest, "gm")
    player = live.render_contest(contest, "player", reader=alice.pk)
    assert 'aria-label="AP gift from Wren"' in player
    assert 'aria-label="AP gift from someone without a sheet"' in gm_html
    assert 'value="gift"' not in live.render_contest(contest, "spectator")
