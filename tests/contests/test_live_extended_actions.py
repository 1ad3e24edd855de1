"""One-on-one extended contests: parting shots, AP gifts, disengaging and unrelated
actions at the live table (§5.3.4, §5.3.7, §5.3.9, §5.3.11; issue 6)."""

from __future__ import annotations

import pytest

from contests import live
from contests.flows import TableFlow
from contests.models import ContestStatus
from contests.rules import fixed_rolls
from contests.services import ContestError, actor_for, contest_act, contest_frame

from .conftest import ability, key

pytestmark = pytest.mark.django_db


def frame(campaign, gm, tamsin):
    contest = contest_frame(
        campaign=campaign,
        user=gm,
        idempotency_key=key(),
        data={
            "kind": "extended",
            "prize": "hold the bridge",
            "pc": {"character_id": tamsin.pk, "ability_id": ability(tamsin, "Boatcraft").pk},
            "opponent": {"name": "Raiders", "rating": "14"},
        },
    ).contest
    return contest


def act(contest, user, action, rolls=(), **data):
    contest_act(
        contest_id=contest.pk,
        user=user,
        action=action,
        data=data,
        idempotency_key=key(),
        roller=fixed_rolls(*rolls),
    )
    contest.refresh_from_db()
    return contest


def refused(contest, user, action, message, rolls=(), **data):
    before = (contest.seq, contest.state)
    with pytest.raises(ContestError, match=message):
        act(contest, user, action, rolls=rolls, **data)
    contest.refresh_from_db()
    assert (contest.seq, contest.state) == before


def rebuilt(contest):
    events = list(contest.events.select_related("actor").order_by("seq"))[1:]
    return TableFlow.replay(
        contest.framing,
        [(e.type, e.payload["data"], actor_for(contest.campaign, e.actor)) for e in events],
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
    campaign, session, gm, alice, tamsin, wren
):
    contest = frame(campaign, gm, tamsin)
    act(contest, alice, "unrelated_action", side="pc", description="cuts the ropes")
    assert contest.state["machine"]["state"]["turn"] == "opponent"
    assert ap(contest) == (17, 14)
    assert contest.events.last().payload["totals"] == {"Tamsin": 17, "Raiders": 14}
    refused(contest, alice, "unrelated_action", "Raiders's turn", side="pc")
    # §5.3.11: Wren bids 5 from Rowing 15 against 10: 3 vs 15 is a minor victory.
    rowing = ability(wren, "Rowing")
    act(contest, alice, "gift", rolls=(3, 15), helper_ability_id=rowing.pk, recipient="pc", bid=5)
    assert ap(contest) == (22, 14)
    gift = contest.events.last().payload
    assert gift["data"]["helper"] == "Wren" and gift["data"]["rating"] == 15
    assert [r["roll"] for r in gift["rolls"]] == [3, 15]
    # The GM gives for a patron without a sheet; a failure feeds the other side.
    act(contest, gm, "gift", rolls=(18, 5), helper="Old Mab", rating="12", recipient="pc", bid=4)
    assert ap(contest) == (22, 18)
    # The opponent's turn goes on as usual.
    act(contest, gm, "roll", rolls=(16, 5))
    act(contest, gm, "resolve")
    assert contest.state["machine"]["state"]["turn"] == "pc"
    assert rebuilt(contest).state == contest.state


def test_gifts_are_refused_to_insiders_and_to_other_players(
    campaign, session, gm, alice, tamsin, brannoc, wren
):
    contest = frame(campaign, gm, tamsin)
    bob = brannoc.player
    refused(
        contest,
        alice,
        "gift",
        "under way",
        rolls=(3, 15),
        helper_ability_id=ability(wren, "Rowing").pk,
        recipient="pc",
        bid=5,
    )
    act(contest, alice, "unrelated_action", side="pc")
    refused(
        contest,
        bob,
        "gift",
        "only the giver's player",
        rolls=(3, 15),
        helper_ability_id=ability(wren, "Rowing").pk,
        recipient="pc",
        bid=5,
    )
    refused(
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
    refused(
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
    refused(
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
    campaign, session, gm, alice, sam, tamsin, brannoc
):
    contest = frame(campaign, gm, tamsin)
    refused(contest, brannoc.player, "disengage", "only Tamsin's player", side="pc")
    refused(contest, sam, "disengage", "spectators", side="pc")
    refused(contest, gm, "disengage", "Tamsin's turn", side="opponent")
    act(contest, alice, "disengage", rolls=(5, 16), side="pc")
    assert contest.state["phase"] == "rolled"
    act(contest, gm, "resolve")
    assert contest.status == ContestStatus.RESOLVING
    assert contest.state["outcome"] == {"winner": None, "degree": None, "disengaged": "pc"}
    assert (contest.winner, contest.outcome_level) == ("", 0)
    assert contest.state["suggested"] == []
    assert "Tamsin disengages" in live.render_contest(contest, "player")
    act(contest, gm, "apply_consequences")
    assert contest.status == ContestStatus.FINISHED
    assert rebuilt(contest).state == contest.state


def test_a_lost_disengagement_hands_ap_over_and_a_hero_point_can_save_it(
    campaign, session, gm, alice, tamsin
):
    contest = frame(campaign, gm, tamsin)
    act(contest, alice, "disengage", rolls=(18, 5), side="pc")  # failure vs success
    act(contest, alice, "hero_point", side="pc")  # success vs success: the higher roll
    act(contest, gm, "resolve")
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 2
    assert contest.state["outcome"]["disengaged"] == "pc"


def test_the_winner_takes_a_parting_shot_and_a_failed_one_revives_the_loser(
    campaign, session, gm, alice, sam, tamsin
):
    contest = frame(campaign, gm, tamsin)
    act(contest, alice, "bid", bid=14)
    act(contest, gm, "roll", rolls=(5, 16))  # success vs failure: the Raiders lose 14
    act(contest, gm, "resolve")
    assert contest.status == ContestStatus.RESOLVING and ap(contest) == (17, 0)
    refused(contest, sam, "parting_shot", "spectators")
    # A fumble against a critical (§5.3.4): the Raiders take 3x the bid back and fight on.
    act(contest, alice, "parting_shot", rolls=(20, 1), bid=3)
    act(contest, gm, "resolve")
    assert ap(contest) == (8, 9)
    assert contest.status == ContestStatus.RUNNING and contest.state["outcome"] is None
    assert contest.state["machine"]["state"]["turn"] == "opponent"
    assert rebuilt(contest).state == contest.state


def test_a_parting_shot_deepens_the_defeat(campaign, session, gm, alice, tamsin):
    contest = frame(campaign, gm, tamsin)
    act(contest, alice, "bid", bid=14)
    act(contest, gm, "roll", rolls=(5, 16))
    act(contest, gm, "resolve")
    act(contest, alice, "parting_shot", rolls=(5, 16), bid=12)
    act(contest, alice, "hero_point", side="pc")  # success -> critical: 2x the bid
    act(contest, gm, "resolve")
    assert ap(contest) == (41, -24)  # a critical takes 2x the bid from a failure
    assert (contest.winner, contest.degree) == ("pc", "major")
    assert contest.state["suggested"] == [{"side": "pc", "state": "invigorated"}]
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 2
    refused(contest, alice, "parting_shot", "right after the exchange", rolls=(5, 16))
    act(contest, gm, "apply_consequences")
    assert list(tamsin.conditions.values_list("state", flat=True)) == ["invigorated"]


def test_the_table_offers_the_extra_actions(campaign, session, gm, alice, tamsin, wren):
    contest = frame(campaign, gm, tamsin)
    player = live.render_contest(contest, "player")
    assert 'value="unrelated_action"' in player and 'value="disengage"' in player
    act(contest, alice, "unrelated_action", side="pc")
    gm_html = live.render_contest(contest, "gm")
    player = live.render_contest(contest, "player")
    assert 'aria-label="AP gift from Wren"' in player and f'data-for-user="{alice.pk}"' in player
    assert 'aria-label="AP gift from someone without a sheet"' in gm_html
    assert 'value="gift"' not in live.render_contest(contest, "spectator")
