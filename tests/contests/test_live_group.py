"""Group simple, scored and extended contests played through the services (issue 6)."""

from __future__ import annotations

import pytest

from contests import live
from contests.models import ContestParticipant, ContestStatus
from contests.services import ContestError
from tests.table import Table

from .conftest import ability, key

pytestmark = pytest.mark.django_db


def frame(table, kind, participants, **extra):
    """A group contest of `participants` for the causeway."""
    return table.frame(kind, prize="hold the causeway", participants=participants, **extra)


def pc(character, name):
    return {"character_id": character.pk, "ability_id": ability(character, name).pk}


# -- group simple (§4.2, §4.5, R7) -----------------------------------------------------


def test_a_group_simple_contest_with_a_boost_from_framing_to_consequences(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = frame(
        table,
        "group_simple",
        [
            {"character_id": tamsin.pk},
            pc(brannoc, "Temple singer"),
            {"name": "The Grey River", "level": "high"},
        ],
    )
    assert contest.kind == "group_simple" and contest.resistance_rating == 20
    assert list(contest.participants.values_list("name", "side")) == [
        ("Tamsin", "pc"),
        ("Brannoc", "pc"),
        ("The Grey River", "opponent"),
    ]
    table.act(
        contest,
        alice,
        "choose_ability",
        participant="Tamsin",
        ability_id=ability(tamsin, "Boatcraft").pk,
    )
    # Two heroes: a boost costs 1 hero point (§4.5.3); Alice pays it.
    table.act(contest, alice, "boost", participant="Tamsin")
    # Tamsin 10 vs 15: both succeed, the river's higher roll wins (1 OP to the river);
    # Brannoc 7M's mastery bumps his 5 to a critical vs the river's 18: 2 OP.
    table.act(contest, gm, "roll", rolls=(10, 15, 5, 18))
    assert contest.state["phase"] == "rolled"
    assert [p["outcome"]["describe"] for p in contest.state["pending"]["pairings"]] == [
        "marginal defeat",
        "minor victory",
    ]
    table.act(contest, alice, "hero_point", participant="Tamsin")  # success -> critical: 2 OP
    table.act(contest, gm, "resolve")
    outcome = contest.state["outcome"]
    assert (outcome["pc_points"], outcome["opponent_points"]) == (4, 0)
    # A difference of 4 is a major victory; the boost makes it complete (R7).
    assert (contest.winner, contest.degree, contest.outcome_level) == ("pc", "complete", 4)
    assert contest.status == ContestStatus.RESOLVING
    # §4.5.2: the benefit goes to the group; Brannoc (27) beat 20 by 6 or more (§2.11.2.1).
    assert contest.state["suggested"] == [{"participant": "Tamsin", "state": "heroic"}]
    table.act(contest, gm, "apply_consequences", narration="They ride the flood.")
    assert contest.status == ContestStatus.FINISHED
    tamsin.refresh_from_db()
    brannoc.refresh_from_db()
    assert (tamsin.hero_points, brannoc.hero_points) == (1, 3)  # the boost and the bump
    condition = tamsin.conditions.get()
    assert condition.state == "heroic" and condition.contest_id == contest.pk
    assert list(condition.abilities.values_list("name", flat=True)) == ["Boatcraft"]
    assert list(contest.events.values_list("type", flat=True)) == [
        "framed",
        "choose_ability",
        "boost",
        "roll",
        "hero_point",
        "resolve",
        "apply_consequences",
    ]
    rolled = contest.events.get(type="roll").payload
    assert rolled["data"]["dice"] == {
        "Tamsin": {"roll": 10, "resistance_roll": 15},
        "Brannoc": {"roll": 5, "resistance_roll": 18},
    }
    assert [r["roll"] for r in rolled["rolls"]] == [10, 15, 5, 18]
    resolved = contest.events.get(type="resolve").payload
    assert resolved["totals"] == {"Tamsin, Brannoc": 4, "The Grey River": 0}
    assert resolved["totals_kind"] == "OP"
    assert Table.rebuilt(contest).state == contest.state


def test_a_double_boost_takes_hero_points_from_any_mix_of_players(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = frame(
        table,
        "group_simple",
        [pc(tamsin, "Boatcraft"), pc(brannoc, "Temple singer"), {"name": "Wall", "rating": 14}],
    )
    table.act(contest, alice, "boost", participant="Tamsin")
    table.act(contest, bob, "boost", participant="Brannoc")
    table.refused(contest, alice, "boost", "double boost", participant="Tamsin")
    tamsin.refresh_from_db()
    brannoc.refresh_from_db()
    assert (tamsin.hero_points, brannoc.hero_points) == (2, 2)
    table.act(contest, gm, "roll", rolls=(12, 12, 12, 12))  # both tie on the same rolls: 0 OP
    table.act(contest, gm, "resolve")
    # A tie boosted twice is a minor victory (R7).
    assert (contest.winner, contest.degree) == ("pc", "minor")
    table.act(contest, gm, "undo")
    table.act(contest, gm, "undo")  # the roll
    table.act(contest, gm, "undo")  # Bob's point comes back
    brannoc.refresh_from_db()
    assert brannoc.hero_points == 3 and contest.state["boost"]["paid"] == ["Tamsin"]


@pytest.mark.parametrize(
    ("who", "action", "data", "message"),
    [
        (
            "alice",
            "set_tactic",
            {"participant": "Brannoc", "tactic": "sing the flood down"},
            "only Brannoc's player or the GM",
        ),
        ("bob", "boost", {"participant": "Tamsin"}, "only Tamsin's player or the GM"),
        ("sam", "boost", {"participant": "Tamsin"}, "spectators"),
        ("alice", "roll", {}, "only the GM can call for the roll"),
        ("alice", "hero_point", {"participant": "Tamsin"}, "after the roll"),
        ("gm", "boost", {"participant": "The Grey River"}, "only player characters"),
        ("gm", "engage", {"pc": "Tamsin", "opponent": "The Grey River"}, "another kind"),
        ("gm", "set_tactic", {"participant": "Nobody", "tactic": "x"}, "no participant named"),
    ],
)
def test_group_simple_checks_who_may_act_and_when(
    table, session, alice, bob, sam, tamsin, brannoc, who, action, data, message, request
):
    contest = frame(
        table,
        "group_simple",
        [
            pc(tamsin, "Boatcraft"),
            pc(brannoc, "Temple singer"),
            {"name": "The Grey River", "level": "high"},
        ],
    )
    table.refused(contest, request.getfixturevalue(who), action, message, **data)
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 3


def test_a_hero_point_is_for_ones_own_roll_and_never_on_a_critical(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = frame(
        table,
        "group_simple",
        [pc(tamsin, "Boatcraft"), pc(brannoc, "Temple singer"), {"name": "Wall", "rating": 14}],
    )
    table.refused(
        contest,
        alice,
        "choose_ability",
        "only Brannoc's player or the GM",
        participant="Brannoc",
        ability_id=ability(brannoc, "Temple singer").pk,
    )
    table.act(contest, gm, "roll", rolls=(1, 15, 12, 5))
    table.refused(contest, alice, "hero_point", "cannot raise a critical", participant="Tamsin")
    table.refused(contest, alice, "hero_point", "only Brannoc's player", participant="Brannoc")
    table.act(contest, bob, "hero_point", participant="Brannoc")
    table.refused(contest, bob, "hero_point", "one hero point per roll", participant="Brannoc")


def test_group_simple_framing_needs_one_resistance_against_a_group(table, session, tamsin):
    with pytest.raises(ContestError, match="exactly one opponent"):
        frame(table, "group_simple", [pc(tamsin, "Boatcraft")])
    with pytest.raises(ContestError, match="two participants or more"):
        frame(table, "group_simple", [pc(tamsin, "Boatcraft"), {"name": "W", "rating": 9}])


# -- group scored (§5.2, R12) ------------------------------------------------------------


def scored(table, tamsin, brannoc, **extra):
    return frame(
        table,
        "group_scored",
        [
            pc(tamsin, "Boatcraft"),
            pc(brannoc, "Temple singer"),
            {"name": "Oro", "rating": 13, "side": "pc", "role": "supporter", "owner": "Tamsin"},
            {"name": "Raider", "rating": 14},
            {"name": "Chief", "rating": 15},
        ],
        **extra,
    )


def test_a_group_scored_contest_in_pairings_to_its_consequences(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = scored(table, tamsin, brannoc)
    table.act(contest, gm, "engage", pc="Tamsin", opponent="Raider")
    table.act(contest, gm, "engage", pc="Brannoc", opponent="Chief")
    table.act(
        contest,
        alice,
        "set_tactic",
        participant="Tamsin",
        tactic="ram them",
        round_tactic="risky_gambit",
    )
    # Tamsin 5 vs 16: a minor victory, 2 RP + 1 for the winning gamble (§5.2.5).
    table.act(contest, gm, "play_round", rolls=(5, 16), pairing=1)
    assert contest.state["phase"] == "rolled"
    table.act(contest, alice, "hero_point", participant="Tamsin")  # success -> critical: major
    table.act(contest, gm, "resolve")
    pairings = contest.state["machine"]["state"]["pairings"]
    assert (pairings[0]["pc_points"], pairings[0]["opponent_points"]) == (4, 0)
    assert contest.state["participants"][0]["round_tactic"] == "normal"  # one round only
    table.refused(contest, gm, "play_round", "already played round 1", rolls=(5, 5), pairing=1)
    table.act(contest, gm, "play_round", rolls=(3, 18), pairing=2)  # Brannoc's critical: 3 RP
    table.act(contest, gm, "resolve")
    # Oro, not enmeshed, assists Tamsin against moderate resistance (§5.2.3).
    table.act(contest, alice, "assist", rolls=(3, 17), participant="Oro", recipient="Tamsin")
    assert contest.state["pending"]["heroes"] == {"hero_point": "Oro"}  # on Tamsin's points
    table.act(contest, gm, "resolve")
    assert contest.state["machine"]["state"]["log"][-1]["kind"] == "assist"
    table.act(contest, gm, "play_round", rolls=(1, 20), pairing=1)
    table.act(contest, gm, "resolve")
    assert contest.state["machine"]["state"]["parting_shots_open"] == ["Raider"]
    table.act(contest, gm, "play_round", rolls=(1, 20), pairing=2)
    table.act(contest, gm, "resolve")
    assert contest.status == ContestStatus.RESOLVING
    assert (contest.winner, contest.degree, contest.outcome_level) == ("pc", "complete", 4)
    # Brannoc (27) beat the weakest defeated opponent by 6 or more: no benefit.
    assert contest.state["suggested"] == [{"participant": "Tamsin", "state": "heroic"}]
    resolved = contest.events.filter(type="resolve").last().payload
    assert resolved["totals_kind"] == "RP against" and resolved["totals"]["Chief"] == 8
    table.act(contest, gm, "apply_consequences")
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 2
    assert list(tamsin.conditions.values_list("state", flat=True)) == ["heroic"]
    assert contest.state["applied"] == [
        {
            "participant": "Tamsin",
            "state": "heroic",
            "character_id": tamsin.pk,
            "ability": "Boatcraft",
        }
    ]
    assert Table.rebuilt(contest).state == contest.state


def test_group_scored_checks_turns_and_control(
    table, session, gm, alice, bob, sam, tamsin, brannoc
):
    contest = scored(table, tamsin, brannoc)
    table.refused(contest, alice, "engage", "only the GM can pair", pc="Tamsin", opponent="Raider")
    table.act(contest, gm, "engage", pc="Tamsin", opponent="Raider")
    table.refused(contest, alice, "play_round", "only the GM", rolls=(5, 5), pairing=1)
    table.refused(
        contest,
        bob,
        "set_tactic",
        "only Tamsin's player",
        participant="Tamsin",
        round_tactic="defensive",
    )
    table.refused(
        contest,
        bob,
        "assist",
        "only Oro's player",
        rolls=(3, 3),
        participant="Oro",
        recipient="Tamsin",
    )
    table.refused(
        contest, sam, "assist", "spectators", rolls=(3, 3), participant="Oro", recipient="Tamsin"
    )
    # Tamsin is enmeshed in a pairing: no unrelated action for her (§5.2.2).
    table.refused(
        contest, alice, "unrelated_action", "enmeshed", rolls=(3, 3), participant="Tamsin"
    )
    table.refused(
        contest,
        alice,
        "choose_ability",
        "switch abilities",
        participant="Tamsin",
        ability_id=ability(tamsin, "Sharp eyes").pk,
    )
    table.act(contest, gm, "play_round", rolls=(5, 16), pairing=1)
    table.refused(contest, bob, "hero_point", "only Tamsin's player", participant="Tamsin")
    table.refused(contest, bob, "hero_point", "no roll to raise", participant="Brannoc")
    table.refused(contest, alice, "resolve", "only the GM")


def test_joining_followers_and_switching_abilities_in_a_group_scored_contest(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = frame(
        table,
        "group_scored",
        [
            pc(tamsin, "Boatcraft"),
            {"name": "Oro", "rating": 13, "side": "pc", "role": "follower", "owner": "Tamsin"},
            {"name": "Raider", "rating": 14},
        ],
        stakes="climax",
    )
    table.act(contest, gm, "engage", pc="Tamsin", opponent="Raider")
    table.act(contest, gm, "join", name="Chief", rating=15, side="opponent")  # §5.2.7
    # The chief, not enmeshed, takes Oro out: 4 vs 18 is a minor victory, 2 + 2 RP.
    table.act(contest, gm, "remove_follower", rolls=(4, 18), participant="Chief", follower="Oro")
    assert contest.state["pending"]["heroes"] == {"follower_hero_point": "Oro"}
    table.act(contest, gm, "resolve")
    oro = next(p for p in contest.state["machine"]["state"]["participants"] if p["name"] == "Oro")
    assert oro["status"] == "defeated" and oro["points_against"] == 4
    table.act(
        contest,
        gm,
        "join",
        character_id=brannoc.pk,
        ability_id=ability(brannoc, "Temple singer").pk,
        side="pc",
    )
    assert ContestParticipant.objects.filter(contest=contest, character=brannoc).exists()
    table.act(contest, gm, "engage", pc="Brannoc", opponent="Chief")
    table.refused(
        contest, alice, "switch_ability", "rating", participant="Tamsin", pairing=1, rating=40
    )
    table.act(
        contest,
        alice,
        "switch_ability",
        participant="Tamsin",
        pairing=1,
        ability_id=ability(tamsin, "Sharp eyes").pk,
    )
    assert contest.state["machine"]["state"]["pairings"][0]["pc_rating"] == "15"
    assert contest.state["participants"][0]["ability"] == "Sharp eyes"
    table.act(contest, gm, "undo")
    table.act(contest, gm, "undo")
    table.act(contest, gm, "undo")  # Brannoc's joining
    assert not ContestParticipant.objects.filter(contest=contest, character=brannoc).exists()
    assert [p["name"] for p in contest.state["participants"]] == [
        "Tamsin",
        "Oro",
        "Raider",
        "Chief",
    ]
    assert Table.rebuilt(contest).state == contest.state


def test_a_parting_shot_in_a_group_scored_contest(table, session, gm, alice, bob, tamsin, brannoc):
    contest = scored(table, tamsin, brannoc)
    table.act(contest, gm, "engage", pc="Tamsin", opponent="Raider")
    table.act(contest, gm, "engage", pc="Brannoc", opponent="Chief")
    table.act(contest, gm, "play_round", rolls=(1, 20), pairing=1)  # complete: 5 RP, Raider out
    table.act(contest, gm, "resolve")
    table.act(contest, gm, "play_round", rolls=(10, 10), pairing=2)
    table.act(contest, gm, "resolve")
    # §5.1.4: Tamsin, free now, kicks the Raider while he is down.
    table.act(contest, alice, "parting_shot", rolls=(4, 18), participant="Tamsin", target="Raider")
    table.act(contest, gm, "resolve")
    assert contest.state["machine"]["state"]["pairings"][0]["pc_points"] == 7
    table.refused(
        contest,
        alice,
        "parting_shot",
        "not just knocked out",
        rolls=(4, 18),
        participant="Tamsin",
        target="Raider",
    )


# -- group extended (§5.3.3-§5.3.11, R13) ---------------------------------------------


def extended(table, tamsin, brannoc):
    """Tamsin and Brannoc (both at 10 for the fight) against a chief of 14."""
    return frame(
        table,
        "group_extended",
        [
            {"character_id": tamsin.pk, "side": "heroes"},
            {"character_id": brannoc.pk, "side": "heroes"},
            {"name": "Chief", "rating": 14, "side": "orcs"},
        ],
        pc_side="heroes",
        order="bid",
    )


def ready(table, contest, alice, bob, tamsin, brannoc, brawling=10):
    """Tamsin fights with Sharp eyes (10 for this fight) and Brannoc with Brawling: at 10
    from his sheet, or at 13 added as he goes (§3.1)."""
    from characters.models import Ability

    sharp_eyes = ability(tamsin, "Sharp eyes")
    sharp_eyes.rating = 10
    sharp_eyes.save()
    table.act(contest, alice, "choose_ability", participant="Tamsin", ability_id=sharp_eyes.pk)
    if brawling == 13:
        table.act(
            contest, bob, "choose_ability", participant="Brannoc", new_ability="Brawling", rating=13
        )
        assert brannoc.abilities.filter(name="Brawling", rating=13).exists()
    else:
        fists = Ability.objects.create(character=brannoc, name="Brawling", rating=brawling)
        table.act(contest, bob, "choose_ability", participant="Brannoc", ability_id=fists.pk)
    return contest


def test_a_group_extended_contest_with_bids_lending_and_a_final_action(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = ready(table, extended(table, tamsin, brannoc), alice, bob, tamsin, brannoc)
    table.act(contest, alice, "declare", participant="Tamsin", targets="Chief", bid=2)
    table.act(
        contest, bob, "declare", participant="Brannoc", targets="Chief", bid=4, daring="daring"
    )
    table.act(
        contest, gm, "declare", participant="Chief", targets="Brannoc", bid=6, daring="reckless"
    )
    assert contest.state["machine"]["state"]["order"] == ["Chief", "Brannoc", "Tamsin"]
    table.refused(contest, alice, "act", "Chief's turn", rolls=(5, 15), participant="Tamsin")
    table.act(contest, gm, "act", rolls=(1, 20), participant="Chief")  # 3x bid from Brannoc
    assert contest.state["pending"]["heroes"] == {"defender_hero_point": "Brannoc"}
    table.act(contest, gm, "resolve")
    assert contest.state["machine"]["state"]["ap"] == {"Tamsin": 10, "Brannoc": -8, "Chief": 32}
    # §5.3.5: a final action costs a hero point; a minor victory brings him back.
    table.act(contest, bob, "final_action", rolls=(4, 15), participant="Brannoc")
    table.act(contest, gm, "resolve")
    brannoc.refresh_from_db()
    assert brannoc.hero_points == 2
    table.act(contest, bob, "delay", participant="Brannoc")
    table.act(
        contest, alice, "lend", rolls=(5, 12), participant="Tamsin", target="Brannoc", amount=8
    )
    table.act(contest, gm, "resolve")
    assert contest.state["machine"]["state"]["ap"] == {"Tamsin": 2, "Brannoc": 11, "Chief": 32}
    table.act(contest, bob, "act", rolls=(1, 20), participant="Brannoc", bid=11)
    table.act(contest, gm, "resolve")
    assert contest.status == ContestStatus.RESOLVING
    assert (contest.winner, contest.degree, contest.outcome_level) == ("pc", "marginal", 1)
    # The winner's parting shot right after the knock-out (§5.3.4), with a hero point.
    table.act(contest, bob, "parting_shot", rolls=(12, 15), participant="Brannoc")
    table.act(contest, bob, "hero_point", participant="Brannoc")
    table.act(contest, gm, "resolve")
    assert contest.state["machine"]["state"]["ap"]["Chief"] == -4
    assert contest.state["suggested"] == [
        {"participant": "Tamsin", "state": "fresh"},
        {"participant": "Brannoc", "state": "hurt"},
        {"participant": "Brannoc", "state": "fresh"},
    ]
    table.act(contest, gm, "apply_consequences")
    brannoc.refresh_from_db()
    assert brannoc.hero_points == 1
    assert sorted(brannoc.conditions.values_list("state", flat=True)) == ["fresh", "hurt"]
    assert list(tamsin.conditions.values_list("state", flat=True)) == ["fresh"]
    exchange = contest.events.filter(type="resolve").first().payload
    assert exchange["totals_kind"] == "AP" and exchange["totals"]["Chief"] == 32
    assert Table.rebuilt(contest).state == contest.state


def test_group_extended_gifts_disengaging_and_unrelated_actions(
    campaign, table, session, gm, alice, bob, sam, tamsin, brannoc
):
    from characters.models import Ability, Character

    wren = Character.objects.create(name="Wren", player=alice, campaign=campaign)
    rowing = Ability.objects.create(character=wren, name="Rowing", rating=15)
    contest = ready(table, extended(table, tamsin, brannoc), alice, bob, tamsin, brannoc, 13)
    for name, target, user in (("Tamsin", "Chief", alice), ("Brannoc", "Chief", bob)):
        table.act(contest, user, "declare", participant=name, targets=target)
    table.refused(
        contest, bob, "declare", "only Tamsin's player", participant="Tamsin", targets="Chief"
    )
    table.act(contest, gm, "declare", participant="Chief", targets="Tamsin", bid=2)
    # Wren is outside the contest: her gift (§5.3.11), 3 vs 10 for a bid of 5, is a
    # minor victory: Tamsin gains the bid.
    table.refused(
        contest,
        bob,
        "gift",
        "only the giver's player",
        rolls=(3, 15),
        helper_ability_id=rowing.pk,
        recipient="Tamsin",
        opponent="Chief",
        bid=5,
    )
    table.refused(
        contest,
        alice,
        "gift",
        "outside the contest",
        rolls=(3, 15),
        helper_ability_id=ability(tamsin, "Boatcraft").pk,
        recipient="Brannoc",
        opponent="Chief",
        bid=5,
    )
    table.act(
        contest,
        alice,
        "gift",
        rolls=(3, 15),
        helper_ability_id=rowing.pk,
        recipient="Tamsin",
        opponent="Chief",
        bid=5,
    )
    assert contest.state["machine"]["state"]["ap"]["Tamsin"] == 15
    gift = contest.events.last().payload
    assert gift["data"]["helper_character_id"] == wren.pk and gift["totals"]["Tamsin"] == 15
    order = contest.state["machine"]["state"]["order"]
    assert order == ["Tamsin", "Brannoc", "Chief"]
    table.act(
        contest, alice, "unrelated_action", participant="Tamsin", description="signals the boats"
    )
    table.refused(
        contest,
        sam,
        "disengage",
        "spectators",
        rolls=(5, 16),
        participant="Brannoc",
        opponent="Chief",
    )
    table.act(contest, bob, "disengage", rolls=(5, 16), participant="Brannoc", opponent="Chief")
    table.act(contest, gm, "resolve")
    people = {p["name"]: p for p in contest.state["machine"]["state"]["participants"]}
    assert people["Brannoc"]["status"] == "withdrawn"
    table.act(contest, gm, "rejoin", participant="Brannoc", restore=2)
    assert contest.state["machine"]["state"]["ap"]["Brannoc"] == 15
    assert Table.rebuilt(contest).state == contest.state


def test_an_act_whose_declared_targets_are_all_out_is_refused_in_the_rules_words(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = ready(table, extended(table, tamsin, brannoc), alice, bob, tamsin, brannoc, 13)
    for name, user in (("Tamsin", alice), ("Brannoc", bob)):
        table.act(contest, user, "declare", participant=name, targets="Chief")
    table.act(contest, gm, "declare", participant="Chief", targets="Brannoc", bid=2)
    assert contest.state["machine"]["state"]["order"] == ["Tamsin", "Brannoc", "Chief"]
    table.act(contest, alice, "unrelated_action", participant="Tamsin", description="waits")
    table.act(contest, bob, "disengage", rolls=(5, 16), participant="Brannoc", opponent="Chief")
    table.act(contest, gm, "resolve")
    # §5.3.3: the Chief's only declared target has left; the GM must name another.
    table.refused(
        contest, gm, "act", "declared targets are all out", rolls=(5, 15), participant="Chief"
    )


# -- the table shows group contests --------------------------------------------------


@pytest.mark.parametrize("kind", ["group_simple", "group_scored", "group_extended"])
def test_the_table_renders_each_group_contest_for_each_audience(
    table, session, gm, alice, bob, tamsin, brannoc, kind
):
    participants = [
        pc(tamsin, "Boatcraft"),
        pc(brannoc, "Temple singer"),
        {"name": "Wall", "rating": 14},
    ]
    contest = frame(table, kind, participants)
    if kind == "group_scored":
        table.act(contest, gm, "engage", pc="Tamsin", opponent="Wall")
    gm_html = live.render_contest(contest, "gm")
    alices, bobs = (live.render_contest(contest, "player", reader=u.pk) for u in (alice, bob))
    spectator_html = live.render_contest(contest, "spectator")
    assert 'data-participant="Tamsin"' in gm_html and "TN <strong" in gm_html
    # Each player's copy has the actions under their own participant, no one else's.
    assert '<details class="participant-actions" data-participant="Tamsin"' in alices
    assert '<details class="participant-actions" data-participant="Brannoc"' not in alices
    assert '<details class="participant-actions" data-participant="Brannoc"' in bobs
    assert '<details class="participant-actions" data-participant="Tamsin"' not in bobs
    assert 'name="action" value="resolve"' not in alices + bobs
    assert "data-action-form" not in spectator_html
    first = {"group_simple": "roll", "group_scored": "play_round", "group_extended": "declare"}[
        kind
    ]
    assert f'name="action" value="{first}"' in gm_html


def test_npcs_named_items_and_values_show_their_bids_like_anyone(table, session, gm, alice, tamsin):
    """The panel lists each participant's declaration by its name. NPCs the GM calls
    "items" and "values" (the names of a dict's methods, which the panel's templates read
    their records with) show their bids like anyone's."""
    contest = frame(
        table,
        "group_extended",
        [
            {"character_id": tamsin.pk, "side": "heroes"},
            {"name": "items", "rating": 14, "side": "orcs"},
            {"name": "values", "rating": 12, "side": "orcs"},
        ],
        pc_side="heroes",
        order="bid",
    )
    table.act(
        contest,
        alice,
        "choose_ability",
        participant="Tamsin",
        ability_id=ability(tamsin, "Boatcraft").pk,
    )
    table.act(contest, gm, "declare", participant="items", targets="Tamsin", bid=3)
    table.act(contest, gm, "declare", participant="values", targets="Tamsin", bid=2)
    for html in (live.render_contest(contest, "gm"), live.render_contest(contest, "spectator")):
        rows = {
            name: html.split(f'data-participant="{name}"', 1)[1].split("</tr>", 1)[0]
            for name in ("items", "values", "Tamsin")
        }
        assert "· bids 3 vs Tamsin" in rows["items"], rows["items"]
        assert "· bids 2 vs Tamsin" in rows["values"], rows["values"]
        assert "· bids" not in rows["Tamsin"]


def test_the_frame_form_frames_a_group_of_ticked_characters(
    client, campaign, session, gm, tamsin, brannoc
):
    """The table's form sends `pc`, the ticked `characters` and one `opponent`."""
    from django.urls import reverse

    client.force_login(gm)
    response = client.post(
        reverse("table_act", args=[campaign.pk]),
        {
            "action": "frame",
            "key": key(),
            "kind": "group_scored",
            "prize": "the causeway",
            "pc.character_id": str(tamsin.pk),
            "characters": [str(tamsin.pk), str(brannoc.pk)],
            "opponent.name": "Raiders",
            "opponent.level": "moderate",
            "order": "daring",
        },
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    contest = campaign.contests.get()
    assert contest.kind == "group_scored"
    assert list(contest.participants.values_list("name", "side", "rating")) == [
        ("Tamsin", "pc", None),
        ("Brannoc", "pc", None),
        ("Raiders", "opponent", 14),
    ]
    # Pairing waits for ratings (the flow offers no engage yet); abilities come first,
    # as the broadcast shows every page (the answer itself only acknowledges).
    from contests import live

    assert 'data-acked="1"' in response.content.decode()
    assert 'name="action" value="choose_ability"' in live.render_contest(contest, "gm")
