"""R18.10: the GM's table options, played through the services as the table does:
each is the GM's alone, offered only when it can apply, and recorded as an event."""

from __future__ import annotations

import pytest

from contests.core.table.registry import load_flow
from contests.live import render_contest
from contests.services import actor_for
from tests.table import Table

from .conftest import ability

pytestmark = pytest.mark.django_db


def offered(contest, user, name):
    """Whether the table offers `user` the action now (what their controls show)."""
    flow = load_flow(contest.state)
    return name in {a.action for a in flow.available_actions(actor_for(contest.campaign, user))}


def tied(table, gm, alice, tamsin, **framing):
    """Tamsin (Boatcraft 17) and the Weir (17) both succeed on a 9: a tie (R6)."""
    contest = table.frame(
        "simple", pc=tamsin, opponent={"name": "The Weir", "rating": 17}, **framing
    )
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(9, 9))
    return table.act(contest, gm, "resolve")


def test_the_gm_rules_a_confusing_tie_a_marginal_victory(table, session, gm, alice, tamsin):
    contest = tied(table, gm, alice, tamsin)
    assert not contest.winner
    assert offered(contest, gm, "confusing_tie") and not offered(contest, alice, "confusing_tie")
    table.refused(contest, alice, "confusing_tie", "only the GM")
    contest = table.act(contest, gm, "confusing_tie")
    assert (contest.winner, contest.degree) == ("pc", "marginal")
    assert contest.state["suggested"] == [{"side": "pc", "state": "fresh"}]
    assert "A confusing tie, ruled a marginal victory (§2.3.5.2)." in render_contest(
        contest, "player"
    )
    event = contest.events.filter(type="confusing_tie").get()
    assert "rules the tie a marginal victory for Tamsin" in event.payload["summary"]
    assert not offered(contest, gm, "confusing_tie")  # once
    table.refused(contest, gm, "confusing_tie", "already ruled")


def test_no_confusing_tie_ruling_without_a_tie_or_between_two_pcs(
    table, session, gm, alice, tamsin, brannoc
):
    contest = table.frame("simple", pc=tamsin, opponent={"name": "The Weir", "rating": 14})
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.refused(contest, gm, "confusing_tie", "resolved|phase|decided")
    table.act(contest, gm, "roll", rolls=(5, 16))
    contest = table.act(contest, gm, "resolve")
    assert not offered(contest, gm, "confusing_tie")
    table.refused(contest, gm, "confusing_tie", "only a tie")
    duel = table.frame("simple", pc=tamsin, opponent={"character_id": brannoc.pk})
    table.act(duel, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk)
    table.act(
        duel,
        brannoc.player,
        "choose_ability",
        side="opponent",
        ability_id=ability(brannoc, "Temple singer").pk,
    )
    table.act(duel, gm, "modifier", side="opponent", kind="other", value=-10, label="weary")
    table.act(duel, gm, "roll", rolls=(20, 20))
    duel = table.act(duel, gm, "resolve")
    assert not duel.winner and not offered(duel, gm, "confusing_tie")
    table.refused(duel, gm, "confusing_tie", "two player characters")


def test_no_relevant_ability_gives_a_base_tn_of_6(table, session, gm, alice, tamsin):
    contest = table.frame("simple", pc=tamsin, opponent={"name": "The Weir", "rating": 14})
    assert offered(contest, gm, "no_relevant_ability")
    assert not offered(contest, alice, "no_relevant_ability")
    table.refused(contest, alice, "no_relevant_ability", "only the GM", side="pc")
    table.refused(contest, gm, "no_relevant_ability", "is a resistance", side="opponent")
    contest = table.act(contest, gm, "no_relevant_ability", side="pc")
    pc = contest.state["sides"]["pc"]
    assert (pc["ability"], pc["rating"], pc["states"]) == ("No relevant ability", 6, [])
    table.act(contest, gm, "modifier", side="pc", kind="situational", value=3, label="rope")
    table.act(contest, gm, "roll", rolls=(9, 16))  # 9 against TN 9: a success
    contest.refresh_from_db()
    assert contest.state["pending"]["outcome"]["pc_result"] == "success"


def test_a_double_fumble_in_a_group_simple_contest_is_ruled_a_marginal_defeat(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = table.frame(
        "group_simple",
        prize="hold the causeway",
        participants=[
            {"character_id": tamsin.pk, "ability_id": ability(tamsin, "Boatcraft").pk},
            {"character_id": brannoc.pk, "ability_id": ability(brannoc, "Temple singer").pk},
            {"name": "The Grey River", "rating": 14},
        ],
    )
    table.act(contest, gm, "roll", rolls=(20, 20, 3, 15))  # Tamsin and the river fumble
    assert contest.state["phase"] == "rolled"  # hero points may still come
    assert not offered(contest, gm, "both_fumble")
    table.refused(contest, gm, "both_fumble", "once the contest is decided", participant="Tamsin")
    contest = table.act(contest, gm, "resolve")
    decided = {k: v for k, v in contest.state["outcome"].items() if k != "both_fumbled"}
    others = [s for s in contest.state["suggested"] if s["participant"] != "Tamsin"]
    assert offered(contest, gm, "both_fumble") and not offered(contest, alice, "both_fumble")
    table.refused(contest, gm, "both_fumble", "both contestants fumbled", participant="Brannoc")
    table.refused(contest, alice, "both_fumble", "only the GM", participant="Tamsin")
    contest = table.act(contest, gm, "both_fumble", participant="Tamsin")
    tamsin_suggested = [s for s in contest.state["suggested"] if s["participant"] == "Tamsin"]
    assert tamsin_suggested == [{"participant": "Tamsin", "state": "hurt"}]
    assert contest.events.filter(type="both_fumble").exists()
    assert "The GM ruled a marginal defeat for Tamsin, who fumbled as The Grey River did" in (
        render_contest(contest, "spectator")
    )
    # The pairing's points and the group's outcome stand; only Tamsin's state is hers.
    assert {k: v for k, v in contest.state["outcome"].items() if k != "both_fumbled"} == decided
    assert [s for s in contest.state["suggested"] if s["participant"] != "Tamsin"] == others
    table.refused(contest, gm, "both_fumble", "already ruled", participant="Tamsin")


def test_no_relevant_ability_is_recorded_and_undone_by_choosing_an_ability(
    table, session, gm, alice, tamsin
):
    contest = table.frame("simple", pc=tamsin, opponent={"name": "The Weir", "rating": 14})
    contest = table.act(contest, gm, "no_relevant_ability", side="pc")
    event = contest.events.filter(type="no_relevant_ability").get()
    assert "Tamsin has no relevant ability: a base TN of 6" in event.payload["summary"]
    # Choosing an ability from the sheet again sets the ruling aside.
    contest = table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    pc = contest.state["sides"]["pc"]
    assert (pc["ability"], pc["rating"]) == ("Boatcraft", 17)
    contest = table.act(contest, gm, "no_relevant_ability", side="pc")
    assert Table.rebuilt(contest).state == contest.state
    # Once rolled, the ruling is neither offered nor taken.
    table.act(contest, gm, "roll", rolls=(3, 16))
    contest.refresh_from_db()
    assert not offered(contest, gm, "no_relevant_ability")
    table.refused(contest, gm, "no_relevant_ability", "only be done before the roll", side="pc")


def test_no_relevant_ability_for_a_group_participant(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = table.frame(
        "group_simple",
        prize="hold the causeway",
        participants=[
            {"character_id": tamsin.pk, "ability_id": ability(tamsin, "Boatcraft").pk},
            {"character_id": brannoc.pk, "ability_id": ability(brannoc, "Temple singer").pk},
            {"name": "The Grey River", "rating": 14},
        ],
    )
    assert offered(contest, gm, "no_relevant_ability")
    assert not offered(contest, alice, "no_relevant_ability")
    table.refused(contest, alice, "no_relevant_ability", "only the GM", participant="Tamsin")
    table.refused(contest, gm, "no_relevant_ability", "is the GM's", participant="The Grey River")
    contest = table.act(contest, gm, "no_relevant_ability", participant="Tamsin")
    row = next(p for p in contest.state["participants"] if p["name"] == "Tamsin")
    assert (row["ability"], row["rating"], row["ability_id"]) == ("No relevant ability", 6, None)
    event = contest.events.filter(type="no_relevant_ability").get()
    assert "Tamsin has no relevant ability" in event.payload["summary"]
    assert Table.rebuilt(contest).state == contest.state
    # Tamsin's player picks an ability again: the ruling is set aside.
    contest = table.act(
        contest,
        alice,
        "choose_ability",
        participant="Tamsin",
        ability_id=ability(tamsin, "Sharp eyes").pk,
    )
    row = next(p for p in contest.state["participants"] if p["name"] == "Tamsin")
    assert (row["ability"], row["rating"]) == ("Sharp eyes", 15)
    table.act(contest, gm, "roll", rolls=(5, 16, 3, 15))
    contest.refresh_from_db()
    assert not offered(contest, gm, "no_relevant_ability")
    table.refused(
        contest, gm, "no_relevant_ability", "only be done before the roll", participant="Tamsin"
    )


def test_a_ruled_tie_is_replayed_undone_and_closed_by_the_consequences(
    table, session, gm, alice, tamsin
):
    contest = tied(table, gm, alice, tamsin)
    contest = table.act(contest, gm, "confusing_tie")
    assert Table.rebuilt(contest).state == contest.state
    contest = table.act(contest, gm, "undo")
    assert not contest.winner and offered(contest, gm, "confusing_tie")
    contest = table.act(contest, gm, "confusing_tie")
    assert (contest.winner, contest.degree) == ("pc", "marginal")
    contest = table.act(contest, gm, "apply_consequences")
    assert not offered(contest, gm, "confusing_tie")
    table.refused(contest, gm, "confusing_tie", "once the contest is decided; the contest is after")


def test_a_tie_left_standing_is_not_ruled_after_the_consequences(table, session, gm, alice, tamsin):
    contest = tied(table, gm, alice, tamsin)
    contest = table.act(contest, gm, "apply_consequences")
    assert not contest.winner and not offered(contest, gm, "confusing_tie")
    table.refused(contest, gm, "confusing_tie", "once the contest is decided; the contest is after")


def test_no_double_fumble_ruling_once_the_consequences_are_confirmed(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = table.frame(
        "group_simple",
        prize="hold the causeway",
        participants=[
            {"character_id": tamsin.pk, "ability_id": ability(tamsin, "Boatcraft").pk},
            {"character_id": brannoc.pk, "ability_id": ability(brannoc, "Temple singer").pk},
            {"name": "The Grey River", "rating": 14},
        ],
    )
    contest = table.act(contest, gm, "roll", rolls=(20, 20, 3, 15))
    assert contest.state["phase"] == "rolled"  # hero points may still come
    contest = table.act(contest, gm, "resolve")
    contest = table.act(contest, gm, "both_fumble", participant="Tamsin")
    assert Table.rebuilt(contest).state == contest.state
    contest = table.act(contest, gm, "apply_consequences")
    assert not offered(contest, gm, "both_fumble")
    table.refused(
        contest,
        gm,
        "both_fumble",
        "once the contest is decided; the contest is after",
        participant="Tamsin",
    )
