"""Group contests show each participant the exact odds of the roll they are about to
make, as the one-on-one table does: every outcome of `simple_odds` for their TN against
what they roll against, updated as abilities, modifier lines and augments change."""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contests import live
from contests.core.rules import Result, simple_odds
from contests.core.rules.odds import OUTCOME_KEYS, outcome_percentages
from contests.core.rules.simple import compare_results
from contests.core.table import Actor, GroupFlow, load_flow
from tests.table import ability

from .test_live_group import extended, ready, scored
from .test_live_group_options import river

GM = Actor(user_id=0, role="gm")


@pytest.fixture
def hidden_rolls(campaign):
    campaign.roll_visibility = "gm_hidden"
    campaign.save()
    return campaign


ODDS = re.compile(
    r"<caption>Odds for (?P<name>[^<(]+) \((?P<tn>[^)]+)\) against (?P<against>[^<(]+) "
    r"\((?P<against_tn>[^)]+)\)<br>.*?</caption>\s*<tbody>(?P<rows>.*?)</tbody>",
    re.S,
)
ROW = re.compile(r'<tr><th scope="row">([^<]+)</th><td>([^<]+)%</td></tr>')


def shown(contest, audience="player"):
    """The odds tables of the rendered contest panel: {(name, against): (tn, against_tn,
    [(label, percent)...])}."""
    html = live.render_contest(contest, audience)
    tables = {}
    for match in ODDS.finditer(html):
        rows = [(label, float(percent)) for label, percent in ROW.findall(match["rows"])]
        key = (match["name"], match["against"])
        assert key not in tables, f"{key} shown twice"
        tables[key] = (match["tn"], match["against_tn"], rows)
    return tables


def odds_table(pc, opponent, **bumps):
    return outcome_percentages(simple_odds(pc, opponent, **bumps))


def no_dice() -> int:
    raise AssertionError("every die of these rolls is given")


def assert_sums_to_100(tables):
    for _tn, _against_tn, rows in tables.values():
        assert len(rows) == 9
        # Nine chances, each rounded to two decimals: off by at most 9 x 0.005.
        assert sum(percent for _, percent in rows) == pytest.approx(100, abs=0.05)


# -- what each kind shows, and how it follows the TNs ---------------------------------------


def test_group_simple_shows_each_pc_their_odds_against_the_resistance(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = river(table, tamsin, brannoc, rating=14)
    odds = shown(contest)
    # Brannoc's 7M against 14: his mastery is a bump up, which simple_odds applies.
    assert odds == {
        ("Tamsin", "The Grey River"): ("17", "14", odds_table(17, 14)),
        ("Brannoc", "The Grey River"): ("7M", "14", odds_table(27, 14)),
    }
    assert_sums_to_100(odds)
    # The flow gives the exact fractions, for every roll, from each side: the resistance's
    # are the mirror of the PCs' and are not shown (TNs are public, nothing more is).
    coming = load_flow(contest.state).coming_odds()
    assert coming["Tamsin"][0]["outcomes"] == simple_odds(17, 14)
    assert [entry["against"] for entry in coming["The Grey River"]] == ["Tamsin", "Brannoc"]
    assert coming["The Grey River"][1]["outcomes"] == simple_odds(14, 27)
    assert sum(coming["Brannoc"][0]["outcomes"].values()) == 1

    # Modifier lines, bumps and augments move the odds at once.
    table.act(contest, gm, "modifier", participant="Tamsin", kind="situational", value=-3)
    # A resistance takes only a mob's or ganging-up's adjustment (R9, R18.3): a mob +3.
    table.act(contest, gm, "modifier", participant="The Grey River", kind="mob", value=3)
    table.act(contest, gm, "augment", participant="Brannoc", kind="plot", bonus=6)
    odds = shown(contest)
    assert odds == {
        ("Tamsin", "The Grey River"): ("14", "17", odds_table(14, 17)),
        ("Brannoc", "The Grey River"): ("13M", "17", odds_table(33, 17)),
    }
    assert odds == shown(contest, "gm") == shown(contest, "spectator")
    assert_sums_to_100(odds)

    # Once rolled, the odds are gone: the dice speak.
    table.act(contest, gm, "roll", rolls=(10, 15, 5, 18))
    assert shown(contest) == {} and load_flow(contest.state).coming_odds() == {}


def test_group_scored_shows_the_odds_of_each_pairing_still_to_roll(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = scored(table, tamsin, brannoc)
    assert shown(contest) == {}  # nobody is paired yet
    table.act(contest, gm, "engage", pc="Tamsin", opponent="Raider")
    assert shown(contest) == {("Tamsin", "Raider"): ("17", "14", odds_table(17, 14))}
    coming = load_flow(contest.state).coming_odds()
    assert coming["Raider"][0]["outcomes"] == simple_odds(14, 17)
    assert "Oro" not in coming and "Brannoc" not in coming  # a supporter; not paired

    # A situational modifier reaches the round's roll as the change from the engine's TN.
    table.act(contest, gm, "modifier", participant="Tamsin", kind="situational", value=3)
    table.act(contest, gm, "modifier", participant="Tamsin", kind="other", value=0, bumps=-1)
    table.act(contest, gm, "engage", pc="Brannoc", opponent="Chief")
    odds = shown(contest)
    assert odds == {
        ("Tamsin", "Raider"): ("20", "14", odds_table(20, 14, pc_bumps=-1)),
        ("Brannoc", "Chief"): ("7M", "15", odds_table(27, 15)),
    }
    assert_sums_to_100(odds)

    # The round is rolled with exactly the TNs shown; a pairing that has played its round
    # shows no odds until the next group round.
    table.act(contest, gm, "play_round", rolls=(5, 16), pairing=1)
    table.act(contest, gm, "resolve")
    entry = contest.state["machine"]["state"]["log"][-1]
    assert (entry["pc_rating"], entry["opponent_rating"]) == ("20", "14")
    assert set(shown(contest)) == {("Brannoc", "Chief")}


def test_group_extended_shows_the_odds_of_each_exchange_to_come(
    table, session, gm, alice, bob, tamsin, brannoc
):
    contest = ready(table, extended(table, tamsin, brannoc), alice, bob, tamsin, brannoc)
    assert shown(contest) == {}  # no target before the declarations
    table.act(contest, alice, "declare", participant="Tamsin", targets="Chief", bid=2)
    assert shown(contest) == {("Tamsin", "Chief"): ("10", "14", odds_table(10, 14))}
    table.act(contest, gm, "modifier", participant="Tamsin", kind="situational", value=-3)
    assert shown(contest) == {("Tamsin", "Chief"): ("7", "14", odds_table(7, 14))}

    table.act(contest, bob, "declare", participant="Brannoc", targets="Chief", bid=4)
    table.act(contest, gm, "declare", participant="Chief", targets="Brannoc", bid=6)
    # The Chief acts against Brannoc and Brannoc against the Chief: the same roll for
    # Brannoc, shown once.
    odds = shown(contest)
    assert odds == {
        ("Tamsin", "Chief"): ("7", "14", odds_table(7, 14)),
        ("Brannoc", "Chief"): ("10", "14", odds_table(10, 14)),
    }
    assert_sums_to_100(odds)
    coming = load_flow(contest.state).coming_odds()
    # In the order of action (the Chief acts first), the same on every database.
    assert [entry["against"] for entry in coming["Chief"]] == ["Brannoc", "Tamsin"]
    assert len(coming["Brannoc"]) == 1

    table.act(contest, gm, "act", rolls=(10, 10), participant="Chief")  # order: Chief first
    table.act(contest, gm, "resolve")
    table.act(contest, bob, "act", rolls=(10, 10), participant="Brannoc")
    table.act(contest, gm, "resolve")
    # Only Tamsin is still to act this round, with the TNs the exchange then uses.
    assert set(shown(contest)) == {("Tamsin", "Chief")}
    table.act(contest, alice, "act", rolls=(9, 17), participant="Tamsin")
    table.act(contest, gm, "resolve")
    exchange = contest.state["machine"]["state"]["exchanges"][-1]
    assert (exchange["actor_tn"], exchange["defender_tn"]) == ("7", "14")


def test_the_odds_give_nothing_away_while_the_gms_rolls_are_hidden(
    table, hidden_rolls, session, gm, alice, bob, tamsin, brannoc
):
    contest = river(table, tamsin, brannoc, rating=14)
    # Before the roll the odds come from the TNs every audience sees, and are the same
    # in every copy; while a hidden roll waits there are none (they would not change).
    assert shown(contest, "player") == shown(contest, "gm") == shown(contest, "spectator")
    assert shown(contest, "player")
    table.act(contest, gm, "roll", rolls=(10, 15, 5, 18))
    assert all(shown(contest, audience) == {} for audience in ("gm", "player", "spectator"))


ONE_ON_ONE_ODDS = re.compile(r'<table class="odds-table"><tbody>(.*?)</tbody>', re.S)


def test_the_labels_and_rounding_are_the_one_on_one_tables(table, session, gm, alice, tamsin):
    """The one-on-one panel's "every outcome" table is the same rounding of the same
    exact odds (Boatcraft 17 against a resistance of 14)."""
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "rating": "14"})
    contest = table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    html = live.render_contest(contest, "spectator")
    (rows,) = ONE_ON_ONE_ODDS.findall(html)
    one_on_one = [(label, float(percent)) for label, percent in ROW.findall(rows)]
    assert one_on_one == [(label, float(p)) for label, p in odds_table(17, 14)]
    assert [label for label, _ in one_on_one][3:6] == ["marginal victory", "tie", "marginal defeat"]


# -- the odds are those of the rolls the table makes -----------------------------------------


def tally(state, action, data, outcome) -> dict:
    """The chance of each outcome over all 400 pairs of d20s, played through the flow:
    `data(a, b)` is the action's data with those dice, `outcome(flow)` reads the result."""
    counts: Counter = Counter()
    for first in range(1, 21):
        for second in range(1, 21):
            flow = load_flow(state)
            flow.apply(action, data(first, second), GM, no_dice)
            if action != "roll" and flow.phase == "rolled":
                flow.apply("resolve", {}, GM, no_dice)
            counts[outcome(flow)] += 1
    return {key: Fraction(counts[key], 400) for key in OUTCOME_KEYS}


def test_a_group_simple_pcs_odds_are_those_of_their_pairing(table, session, gm, tamsin, brannoc):
    contest = river(table, tamsin, brannoc, rating=27)
    table.act(contest, gm, "modifier", participant="Tamsin", kind="situational", value=-2, bumps=1)
    (entry,) = load_flow(contest.state).coming_odds()["Tamsin"]
    played = tally(
        contest.state,
        "roll",
        lambda a, b: {
            "dice": {
                "Tamsin": {"roll": a, "resistance_roll": b},
                "Brannoc": {"roll": 10, "resistance_roll": 10},
            }
        },
        lambda flow: tuple(
            flow.state["pending"]["pairings"][0]["outcome"][k] for k in ("winner", "degree")
        ),
    )
    assert entry["outcomes"] == played == simple_odds(15, 27, pc_bumps=1)


def test_a_pairings_odds_are_those_of_its_round(table, session, gm, tamsin, brannoc):
    contest = scored(table, tamsin, brannoc)
    table.act(contest, gm, "engage", pc="Brannoc", opponent="Chief")
    table.act(contest, gm, "modifier", participant="Brannoc", kind="situational", value=-9)
    table.act(contest, gm, "modifier", participant="Brannoc", kind="other", value=0, bumps=-2)
    (entry,) = load_flow(contest.state).coming_odds()["Brannoc"]
    played = tally(
        contest.state,
        "play_round",
        lambda a, b: {"pairing": 1, "dice": {"pc_roll": a, "opponent_roll": b}},
        lambda flow: tuple(
            flow.state["machine"]["state"]["log"][-1][k] for k in ("winner", "degree")
        ),
    )
    assert entry["outcomes"] == played == simple_odds(18, 15, pc_bumps=-2)


def test_an_exchanges_odds_are_those_of_its_rolls(table, session, gm, alice, bob, tamsin, brannoc):
    contest = ready(table, extended(table, tamsin, brannoc), alice, bob, tamsin, brannoc)
    table.act(contest, gm, "modifier", participant="Brannoc", kind="other", value=0, bumps=1)
    table.act(contest, alice, "declare", participant="Tamsin", targets="Chief", bid=1)
    table.act(contest, bob, "declare", participant="Brannoc", targets="Chief", bid=6)
    table.act(contest, gm, "declare", participant="Chief", targets="Tamsin", bid=1)
    table.act(contest, gm, "modifier", participant="Brannoc", kind="situational", value=4)
    (entry,) = load_flow(contest.state).coming_odds()["Brannoc"]

    def outcome(flow):
        exchange = flow.state["machine"]["state"]["exchanges"][-1]
        final = compare_results(
            Result[exchange["actor_result"].upper()],
            Result[exchange["defender_result"].upper()],
            exchange["actor_roll"],
            exchange["defender_roll"],
        )
        return final.winner, final.degree

    played = tally(
        contest.state,
        "act",
        lambda a, b: {"participant": "Brannoc", "dice": {"actor_roll": a, "defender_roll": b}},
        outcome,
    )
    assert entry["outcomes"] == played == simple_odds(14, 14, pc_bumps=1)


# -- the rules behind it ---------------------------------------------------------------------

ratings = st.integers(min_value=-5, max_value=60)


@given(
    pcs=st.lists(ratings, min_size=2, max_size=4),
    against=ratings,
    value=st.integers(min_value=-40, max_value=40),
    bumps=st.integers(min_value=-3, max_value=3),
)
def test_every_pc_sees_simple_odds_of_their_tn_against_the_resistance(pcs, against, value, bumps):
    flow = GroupFlow.frame(
        {
            "kind": "group_simple",
            "participants": [
                *(
                    {"name": f"PC {i}", "character_id": i + 1, "rating": rating}
                    for i, rating in enumerate(pcs)
                ),
                {"name": "Resistance", "rating": against},
            ],
        }
    )
    if value or bumps:
        modifier = {"participant": "PC 0", "kind": "other", "value": value, "bumps": bumps}
        flow.apply("modifier", modifier, GM, no_dice)
    coming = flow.coming_odds()
    for i, rating in enumerate(pcs):
        (entry,) = coming[f"PC {i}"]
        mine = rating + value if i == 0 else rating
        expected = simple_odds(mine, against, pc_bumps=bumps if i == 0 else 0)
        assert entry["against"] == "Resistance" and entry["outcomes"] == expected
        assert sum(entry["outcomes"].values()) == 1
        assert [label for label, _ in entry["rows"]] == [label for label, _ in odds_table(14, 14)]
        assert sum(percent for _, percent in entry["rows"]) == pytest.approx(100, abs=0.05)
