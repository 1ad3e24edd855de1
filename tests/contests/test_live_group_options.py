"""Group contests with the table's options: hidden GM rolls, physical dice, augments and
modifier lines per participant, and the forms for the GM's calls (issue 6)."""

from __future__ import annotations

import re

import pytest

from contests import live
from contests.core.table import Actor, load_flow
from tests.table import Table

from .conftest import ability, key
from .test_live_group import extended, frame, pc, ready, scored

pytestmark = pytest.mark.django_db


@pytest.fixture
def wren(campaign, alice):
    """Alice's second character, outside the contests: Rowing 15."""
    from characters.models import Ability, Character

    character = Character.objects.create(name="Wren", player=alice, campaign=campaign)
    Ability.objects.create(character=character, name="Rowing", rating=15)
    return character


@pytest.fixture
def hidden_rolls(campaign):
    campaign.roll_visibility = "gm_hidden"
    campaign.save()
    return campaign


def views(contest, player):
    """The GM's copy, `player`'s own and the spectators'."""
    return {
        "gm": live.render_contest(contest, "gm"),
        "player": live.render_contest(contest, "player", reader=player.pk),
        "spectator": live.render_contest(contest, "spectator"),
    }


def as_player(user, character):
    return Actor(user_id=user.pk, role="player", character_ids=frozenset({character.pk}))


def river(table, tamsin, brannoc, **resistance):
    """Tamsin (Boatcraft 17) and Brannoc (Temple singer 7M) against one resistance."""
    return frame(
        table,
        "group_simple",
        [
            pc(tamsin, "Boatcraft"),
            pc(brannoc, "Temple singer"),
            {"name": "The Grey River", **(resistance or {"level": "high"})},
        ],
    )


def declared(table, contest, alice, bob, gm, chief_target="Brannoc", chief_bid=6):
    """Everyone declares (order by bid): the Chief, Brannoc, Tamsin."""
    table.act(contest, alice, "declare", participant="Tamsin", targets="Chief", bid=2)
    table.act(
        contest, bob, "declare", participant="Brannoc", targets="Chief", bid=4, daring="daring"
    )
    table.act(contest, gm, "declare", participant="Chief", targets=chief_target, bid=chief_bid)
    return contest


# -- hidden GM rolls ----------------------------------------------------------------------

SECRETS = ("rolled 16", "rolled 19", ">16</strong>", ">19</strong>", "against 16", "against 19")


def test_a_group_simple_hides_the_resistances_rolls_until_the_gm_reveals_them(
    table, hidden_rolls, session, gm, alice, bob, tamsin, brannoc
):
    contest = river(table, tamsin, brannoc)
    # Tamsin 10 vs the river's 16 (both succeed: marginal defeat); Brannoc's 5 is bumped
    # to a critical against 19 (minor victory). The river's dice are the GM's.
    table.act(contest, gm, "roll", rolls=(10, 16, 5, 19))
    rolled = contest.events.get(type="roll").payload
    assert [row["hidden"] for row in rolled["rolls"]] == [False, True, False, True]
    assert "16" not in rolled["summary"] and "against 16" in rolled["gm_summary"]
    shown = views(contest, alice)
    for audience in ("player", "spectator"):
        html = shown[audience]
        assert not any(secret in html for secret in SECRETS), audience
        assert "marginal defeat" not in html and "minor victory" not in html
        assert 'Tamsin rolled <strong class="roll die die-success">10</strong> (success)' in html
        assert "the GM rolled for The Grey River" in html
    assert ">16</strong>" in shown["gm"] and "marginal defeat" in shown["gm"]
    assert "Reveal my roll" in shown["gm"] and "Reveal my roll" not in shown["player"]
    assert "Tamsin: spend a hero point to raise the result a step" in shown["player"]

    table.act(contest, alice, "hero_point", participant="Tamsin")  # success -> critical
    spent = contest.events.last().payload
    assert spent["summary"] == "Tamsin spends a hero point: success becomes critical"
    assert spent["gm_summary"].endswith("marginal defeat becomes minor victory")
    player = live.render_contest(contest, "player", reader=alice.pk)
    assert not any(secret in player for secret in SECRETS) and "minor victory" not in player

    table.refused(contest, alice, "reveal", "only the GM")
    table.act(contest, gm, "reveal")
    player = live.render_contest(contest, "player", reader=alice.pk)
    assert ">16</strong>" in player and "The GM reveals the rolls" in player
    assert "Reveal my roll" not in live.render_contest(contest, "gm")
    table.refused(contest, gm, "reveal", "already shown")
    table.act(contest, gm, "resolve")
    assert (contest.winner, contest.degree) == ("pc", "major")  # 4 OP to 0
    assert Table.rebuilt(contest).state == contest.state


def test_a_long_group_contest_hides_the_npcs_roll_and_the_outcome_so_far(
    table, hidden_rolls, session, gm, alice, bob, tamsin, brannoc
):
    contest = ready(table, extended(table, tamsin, brannoc), alice, bob, tamsin, brannoc)
    declared(table, contest, alice, bob, gm)
    # The Chief (14) rolls 13, a success; Brannoc (10) 11, a failure: he loses the bid.
    table.act(contest, gm, "act", rolls=(13, 11), participant="Chief")
    pending = contest.state["pending"]
    assert pending["revealed"] is False
    assert [(r["who"], r["hidden"]) for r in pending["rolls"]] == [
        ("Chief", True),
        ("Brannoc", False),
    ]
    shown = views(contest, bob)
    for audience in ("player", "spectator"):
        html = shown[audience]
        assert ">13</strong>" not in html and "rolled 13" not in html, audience
        assert "success vs failure" not in html
        assert 'Brannoc rolled <strong class="roll">11</strong>' in html
        assert "the GM rolled for Chief" in html
        # The AP wait for the resolution: no total gives the roll away.
        assert 'aria-label="Brannoc: 10 AP"' in html
    assert "success vs failure" in shown["gm"] and "Reveal my roll" in shown["gm"]

    table.act(contest, bob, "hero_point", participant="Brannoc")  # failure -> success
    spent = contest.events.last().payload
    assert spent["summary"] == "Brannoc spends a hero point; the GM's roll stays secret"
    assert "success vs success" in spent["gm_summary"]
    assert "rolled 13" not in live.render_contest(contest, "player")
    table.act(contest, gm, "resolve")  # the worse roll loses half the bid (R13)
    assert contest.state["machine"]["state"]["ap"] == {"Tamsin": 10, "Brannoc": 7, "Chief": 14}
    resolved = live.render_contest(contest, "player")
    assert "Chief acts against Brannoc (bid 6): success vs success" in resolved
    assert Table.rebuilt(contest).state == contest.state


def test_without_hidden_rolls_there_is_nothing_to_reveal(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = river(table, tamsin, brannoc)
    table.act(contest, gm, "roll", rolls=(10, 16, 5, 19))
    assert contest.state["pending"]["revealed"] is True
    assert ">16</strong>" in live.render_contest(contest, "player")
    table.refused(contest, gm, "reveal", "already shown")


def test_a_one_on_one_hero_point_keeps_the_gm_roll_secret(
    table, hidden_rolls, session, gm, alice, tamsin
):
    """The shared hiding also covers the hero point spent on a hidden roll."""
    contest = table.frame(
        pc={"character_id": tamsin.pk, "ability_id": ability(tamsin, "Boatcraft").pk},
        opponent={"name": "The Grey River", "level": "moderate"},
        prize="",
    )
    table.act(contest, gm, "roll", rolls=(9, 13))
    table.act(contest, alice, "hero_point", side="pc")
    spent = contest.events.last().payload
    assert spent["summary"] == "Tamsin spends a hero point; the GM's roll stays secret"
    assert "becomes" in spent["gm_summary"] and spent["rolls"][1]["hidden"]
    player = live.render_contest(contest, "player")
    assert "rolled 13" not in player and ">13</strong>" not in player


# -- physical dice ------------------------------------------------------------------------


def test_players_enter_physical_dice_for_their_group_participants(
    campaign, table, session, gm, alice, bob, tamsin, brannoc
):
    contest = river(table, tamsin, brannoc, rating=14)
    table.refused(
        contest, alice, "enter_roll", "physical dice are off", participant="Tamsin", entered=7
    )
    campaign.physical_dice = True
    campaign.save()
    contest = river(table, tamsin, brannoc, rating=14)
    assert 'name="action" value="enter_roll"' in live.render_contest(
        contest, "player", reader=alice.pk
    )
    table.refused(
        contest, bob, "enter_roll", "only Tamsin's player", participant="Tamsin", entered=7
    )
    table.refused(contest, alice, "enter_roll", "from 1 to 20", participant="Tamsin", entered=21)
    table.act(contest, alice, "enter_roll", participant="Tamsin", entered=7)
    assert "Physical roll entered for the next roll: 7" in live.render_contest(
        contest, "player", reader=alice.pk
    )
    table.act(contest, gm, "roll", rolls=(15, 5, 18))  # the server rolls only the other dice
    assert [(p["roll"], p["resistance_roll"]) for p in contest.state["pending"]["pairings"]] == [
        (7, 15),
        (5, 18),
    ]
    assert contest.events.get(type="roll").payload["data"]["dice"]["Tamsin"] == {
        "roll": 7,
        "resistance_roll": 15,
    }
    assert "entered_roll" not in contest.state["participants"][0]
    assert Table.rebuilt(contest).state == contest.state


def test_a_physical_roll_is_the_participants_next_roll_in_a_long_contest(
    campaign, table, session, gm, alice, tamsin
):
    campaign.physical_dice = True
    campaign.save()
    contest = frame(
        table, "group_scored", [pc(tamsin, "Boatcraft"), {"name": "Raider", "rating": 14}]
    )
    table.act(contest, gm, "engage", pc="Tamsin", opponent="Raider")
    table.act(contest, alice, "enter_roll", participant="Tamsin", entered=3)
    table.act(contest, gm, "play_round", rolls=(16,), pairing=1)
    args = contest.state["pending"]["args"]
    assert (args["pc_roll"], args["opponent_roll"]) == (3, 16)
    assert Table.rebuilt(contest).state == contest.state


# -- augments and modifier lines -------------------------------------------------------------


def test_an_augment_raises_one_participants_tn_and_turns_the_outcome(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = river(table, tamsin, brannoc, rating=14)
    assert 'name="action" value="augment"' in live.render_contest(
        contest, "player", reader=alice.pk
    )
    sharp_eyes = ability(tamsin, "Sharp eyes").pk
    # §2.4.2: a quick augment adds Sharp eyes 15 // 5 = +3 to Tamsin's Boatcraft 17.
    table.act(
        contest, alice, "augment", participant="Tamsin", kind="quick", helper_ability_id=sharp_eyes
    )
    tamsin_row = load_flow(contest.state).rows[0]
    assert (tamsin_row["tn"], tamsin_row["tn_lines"]) == (
        "20",
        "17 +3 (quick augment: Tamsin's Sharp eyes) = 20",
    )
    assert "17 +3 (quick augment: Tamsin&#39;s Sharp eyes) = 20" in live.render_contest(
        contest, "player", reader=alice.pk
    )
    table.refused(
        contest,
        alice,
        "augment",
        "already tried",
        participant="Tamsin",
        kind="quick",
        helper_ability_id=sharp_eyes,
    )
    table.refused(
        contest, alice, "augment", "only the GM", participant="Brannoc", kind="plot", bonus=6
    )
    # 19 is a success only at 20: with the river's 10 Tamsin wins, by the better roll.
    table.act(contest, gm, "roll", rolls=(19, 10, 5, 12))
    outcomes = [p["outcome"]["describe"] for p in contest.state["pending"]["pairings"]]
    assert outcomes == ["marginal victory", "minor victory"]
    table.refused(contest, alice, "augment", "before the roll", participant="Tamsin", kind="quick")
    table.act(contest, gm, "resolve")
    assert (contest.winner, contest.degree) == ("pc", "major")  # 3 OP to 0, not a tie
    assert Table.rebuilt(contest).state == contest.state


def test_augments_come_before_a_long_group_contest_starts(table, session, gm, alice, tamsin):
    contest = frame(
        table, "group_scored", [pc(tamsin, "Boatcraft"), {"name": "Raider", "rating": 14}]
    )
    table.act(contest, gm, "augment", participant="Tamsin", kind="plot", bonus=6)
    table.act(contest, gm, "engage", pc="Tamsin", opponent="Raider")
    assert contest.state["machine"]["state"]["pairings"][0]["pc_rating"] == "3M"  # 23
    table.refused(
        contest, gm, "augment", "before the contest starts", participant="Tamsin", kind="plot"
    )


def test_a_situational_modifier_lasts_one_group_round(table, session, gm, alice, tamsin):
    contest = frame(
        table, "group_scored", [pc(tamsin, "Boatcraft"), {"name": "Raider", "rating": 14}]
    )
    table.act(contest, gm, "engage", pc="Tamsin", opponent="Raider")
    table.refused(
        contest, alice, "modifier", "only the GM", participant="Tamsin", kind="situational", value=3
    )
    table.act(contest, gm, "modifier", participant="Tamsin", kind="situational", value=3)
    assert "Remove situational +3 from Tamsin" in live.render_contest(contest, "gm")
    # Tamsin at 20 rolls 19 against the Raider's 10: both succeed, the better roll wins.
    table.act(contest, gm, "play_round", rolls=(19, 10), pairing=1)
    table.act(contest, gm, "resolve")
    pairing = contest.state["machine"]["state"]["pairings"][0]
    assert (pairing["pc_points"], pairing["opponent_points"]) == (1, 0)
    # The group round is over: the situational modifier has lapsed (R9).
    assert contest.state["participants"][0]["modifiers"] == []
    table.act(contest, gm, "play_round", rolls=(19, 10), pairing=1)  # at 17, 19 fails
    table.act(contest, gm, "resolve")
    pairing = contest.state["machine"]["state"]["pairings"][0]
    assert (pairing["pc_points"], pairing["opponent_points"]) == (1, 2)
    rounds = [a for a in contest.state["machine"]["actions"] if a.get("move") == "play_round"]
    assert [r.get("pc_modifier") for r in rounds] == [3, None]
    assert Table.rebuilt(contest).state == contest.state


def test_lasting_modifiers_and_their_removal(table, session, gm, tamsin, brannoc):
    contest = river(table, tamsin, brannoc, rating=14)
    table.act(contest, gm, "modifier", participant="The Grey River", kind="mob", value=6)
    table.act(
        contest, gm, "modifier", participant="Tamsin", kind="stretch", value=-6, label="rowing"
    )
    rows = {row["name"]: row for row in load_flow(contest.state).rows}
    assert (rows["The Grey River"]["tn"], rows["Tamsin"]["tn"]) == ("20", "11")
    table.act(contest, gm, "remove_modifier", participant="Tamsin", index=0)
    table.refused(contest, gm, "remove_modifier", "no such modifier", participant="Tamsin", index=0)
    assert load_flow(contest.state).rows[0]["tn"] == "17"


def test_a_group_extended_contest_modifies_pcs_but_never_a_started_resistance(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = ready(table, extended(table, tamsin, brannoc), alice, bob, tamsin, brannoc)
    table.refused(
        contest, gm, "modifier", "is a resistance", participant="Chief", kind="situational", value=3
    )
    table.act(contest, gm, "modifier", participant="Chief", kind="mob", value=3)  # §2.14
    table.act(contest, alice, "declare", participant="Tamsin", targets="Chief", bid=5)
    table.refused(
        contest, gm, "modifier", "is a resistance", participant="Chief", kind="mob", value=3
    )
    table.refused(contest, gm, "remove_modifier", "is a resistance", participant="Chief", index=0)
    table.act(contest, gm, "modifier", participant="Tamsin", kind="situational", value=-3)
    table.act(contest, bob, "declare", participant="Brannoc", targets="Chief", bid=2)
    table.act(contest, gm, "declare", participant="Chief", targets="Brannoc", bid=1)
    assert contest.state["machine"]["state"]["ap"] == {"Tamsin": 10, "Brannoc": 10, "Chief": 17}
    # Tamsin at 7 fails with 9 against the Chief's 17 (a success at 17): she loses her bid.
    table.act(contest, alice, "act", rolls=(9, 17), participant="Tamsin")
    table.act(contest, gm, "resolve")
    assert contest.state["machine"]["state"]["ap"]["Tamsin"] == 5
    *_, exchange, settled = contest.state["machine"]["actions"]
    assert exchange["move"] == "act" and exchange["actor_modifier"] == -3
    assert settled == {"action": "settle"}
    assert Table.rebuilt(contest).state == contest.state


# -- the GM's calls, with their forms ------------------------------------------------------


def test_the_gm_changes_an_acts_target_and_bid(table, session, gm, alice, bob, tamsin, brannoc):
    contest = declared(
        table,
        ready(table, extended(table, tamsin, brannoc), alice, bob, tamsin, brannoc),
        alice,
        bob,
        gm,
    )
    gm_html, player_html = (live.render_contest(contest, a) for a in ("gm", "player"))
    assert '<option value="">as declared</option>' in gm_html
    assert '<option value="">as declared</option>' not in player_html
    table.act(contest, gm, "act", rolls=(13, 11), participant="Chief", target="Tamsin", bid=2)
    table.act(contest, gm, "resolve")
    assert contest.state["machine"]["state"]["ap"] == {"Tamsin": 8, "Brannoc": 10, "Chief": 14}


def test_the_gm_may_have_both_lose_half_the_bid_on_a_both_fumble_tie(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = declared(
        table,
        ready(table, extended(table, tamsin, brannoc), alice, bob, tamsin, brannoc),
        alice,
        bob,
        gm,
    )
    table.act(contest, gm, "act", rolls=(20, 20), participant="Chief")
    assert contest.state["pending"]["both_fumble"] is True
    assert 'name="both_lose_half"' in live.render_contest(contest, "gm")
    assert 'name="both_lose_half"' not in live.render_contest(contest, "player")
    table.act(contest, gm, "resolve", both_lose_half=True)  # §5.3.1 footnote: half of 6 each
    assert contest.state["machine"]["state"]["ap"] == {"Tamsin": 10, "Brannoc": 7, "Chief": 11}
    assert "both lose 1/2x bid" in contest.events.last().payload["summary"]
    assert Table.rebuilt(contest).state == contest.state


def test_both_lose_half_is_only_for_a_both_fumble_exchange(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = declared(
        table,
        ready(table, extended(table, tamsin, brannoc), alice, bob, tamsin, brannoc),
        alice,
        bob,
        gm,
    )
    table.act(contest, gm, "act", rolls=(13, 11), participant="Chief")
    assert contest.state["pending"]["both_fumble"] is False
    assert 'name="both_lose_half"' not in live.render_contest(contest, "gm")
    table.refused(contest, gm, "resolve", "both-fumble tie", both_lose_half=True)


def test_the_gm_shifts_an_assists_resistance(table, session, gm, alice, bob, tamsin, brannoc):
    contest = scored(table, tamsin, brannoc)
    table.act(contest, gm, "engage", pc="Tamsin", opponent="Raider")
    assert 'name="resistance_shift"' in live.render_contest(contest, "gm")
    assert 'name="resistance_shift"' not in live.render_contest(contest, "player")
    table.refused(
        contest,
        alice,
        "assist",
        "only the GM can shift",
        rolls=(3, 17),
        participant="Oro",
        recipient="Tamsin",
        resistance_shift=-1,
    )
    table.act(
        contest,
        gm,
        "assist",
        rolls=(3, 17),
        participant="Oro",
        recipient="Tamsin",
        resistance_shift=-1,
    )
    table.act(contest, gm, "resolve")
    assert contest.state["machine"]["state"]["log"][-1]["resistance"] == "low"


def test_a_gifter_may_spend_their_own_hero_point(
    table, session, gm, alice, bob, tamsin, brannoc, wren
):
    rowing = ability(wren, "Rowing")
    contest = declared(
        table,
        ready(table, extended(table, tamsin, brannoc), alice, bob, tamsin, brannoc),
        alice,
        bob,
        gm,
    )
    assert 'name="wait_for_hero_point"' in live.render_contest(contest, "player", reader=alice.pk)
    # Wren bids 5 (resistance 10): 12 against 5, both succeed, her better roll wins.
    gift = {"helper_ability_id": rowing.pk, "recipient": "Brannoc", "opponent": "Chief", "bid": 5}
    table.act(contest, alice, "gift", rolls=(12, 5), wait_for_hero_point=True, **gift)
    flow = load_flow(contest.state)
    assert flow.phase == "rolled"
    assert flow.hero_point_offers == [{"participant": "Wren", "player_id": alice.pk}]
    assert "Wren: spend a hero point" in live.render_contest(contest, "player", reader=alice.pk)
    table.refused(contest, bob, "hero_point", "only Wren's player", participant="Wren")
    table.act(contest, alice, "hero_point", participant="Wren")
    table.act(contest, gm, "resolve")
    wren.refresh_from_db()
    assert wren.hero_points == 2
    # The engine held the gift's roll; the gifter's point (outside the contest) raised it.
    assert contest.state["machine"]["actions"][-2:] == [
        {"action": "hero_point", "name": None},
        {"action": "settle"},
    ]
    gifted = contest.state["machine"]["state"]["exchanges"][-1]
    assert gifted["hero_point"] is True and gifted["outcome"] == "minor victory"
    assert Table.rebuilt(contest).state == contest.state


# -- more participants before the start: further sides and followers -----------------------


def test_the_gm_adds_a_third_side_before_a_group_extended_contest_starts(
    table, session, gm, alice, bob, tamsin, brannoc, wren
):
    rowing = ability(wren, "Rowing")
    contest = extended(table, tamsin, brannoc)
    assert "Add a participant" in live.render_contest(contest, "gm")
    table.act(contest, gm, "join", name="Wolves", rating=12, side="beasts")
    table.act(contest, gm, "join", ability_id=rowing.pk)  # a character joins the PCs' side
    flow = load_flow(contest.state)
    assert flow.side_labels == ["heroes", "orcs", "beasts"]
    assert flow.participant("Wren")["side"] == "heroes"
    assert '<option value="beasts">' in live.render_contest(contest, "gm")
    assert list(contest.participants.values_list("name", "side")) == [
        ("Tamsin", "heroes"),
        ("Brannoc", "heroes"),
        ("Chief", "orcs"),
        ("Wolves", "beasts"),
        ("Wren", "heroes"),
    ]
    ready(table, contest, alice, bob, tamsin, brannoc)
    table.act(contest, alice, "choose_ability", participant="Wren", ability_id=rowing.pk)
    table.act(contest, gm, "declare", participant="Wolves", targets=["Chief", "Tamsin"], bid=2)
    table.refused(contest, gm, "join", "once under way", name="Bear", rating=15, side="beasts")
    assert Table.rebuilt(contest).state == contest.state


def test_the_gm_adds_followers_before_a_group_scored_contest_starts(
    table, session, gm, alice, tamsin
):
    contest = frame(
        table, "group_scored", [pc(tamsin, "Boatcraft"), {"name": "Raider", "rating": 14}]
    )
    html = live.render_contest(contest, "gm")
    assert "Add a participant" in html and 'name="owner"' in html
    table.act(
        contest, gm, "join", name="Oro", rating=13, side="pc", role="follower", owner="Tamsin"
    )
    table.act(contest, gm, "engage", pc="Oro", opponent="Raider")  # §5.2.4: a follower contends
    people = {p["name"]: p for p in contest.state["machine"]["state"]["participants"]}
    assert people["Oro"]["role"] == "follower" and people["Oro"]["owner"] == "Tamsin"
    assert load_flow(contest.state).controls(as_player(alice, tamsin), "Oro")  # her follower


def test_a_group_simple_contest_keeps_its_one_resistance(table, session, gm, tamsin, brannoc):
    contest = river(table, tamsin, brannoc)
    table.refused(contest, gm, "join", "exactly one opponent", name="Eddy", rating=10)
    table.act(contest, gm, "join", name="Ferryman", rating=13, side="pc")
    assert [p["name"] for p in contest.state["participants"]][-1] == "Ferryman"


def test_the_new_forms_post_through_the_table_view(
    client, campaign, table, session, gm, alice, bob, tamsin, brannoc
):
    """The field names the forms use reach the actions as they expect (contests/core/actions/)."""
    from django.urls import reverse

    contest = ready(table, extended(table, tamsin, brannoc), alice, bob, tamsin, brannoc)
    client.force_login(gm)

    def post(action, **fields):
        response = client.post(
            reverse("table_act", args=[campaign.pk]),
            {"action": action, "contest": contest.pk, "key": key(), **fields},
            HTTP_HX_REQUEST="true",
        )
        assert response.status_code == 200
        error = re.search(r'id="table-error"[^>]*>([^<]*)</p>', response.content.decode())
        assert error.group(1) == ""
        contest.refresh_from_db()

    post("join", name="7", rating="12", side="1")  # names and sides that look like numbers
    post("modifier", participant="7", kind="mob", value="3", label="the pack")
    post("remove_modifier", participant="7", index="0")
    post("augment", participant="Tamsin", kind="plot", bonus="3")
    flow = load_flow(contest.state)
    assert flow.participant("7")["side"] == "1" and flow.participant("7")["modifiers"] == []
    assert flow.rows[0]["tn"] == "13"
    table.act(contest, gm, "declare", participant="7", targets="Chief", bid=1)
    declared(table, contest, alice, bob, gm)
    post("act", participant="Chief", target="", bid="")  # empty fields: as declared
    assert contest.state["pending"]["args"]["name"] == "Chief"
