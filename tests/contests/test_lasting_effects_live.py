"""R18.4-R18.6 at the live table, played through the services as browsers do: a
stretch caps what a victory brings, lasting bumps count in every round of a long
contest, and the winner of a scored or chained contest is offered its benefit."""

from __future__ import annotations

import pytest

from contests.models import ContestStatus

from .conftest import ability

pytestmark = pytest.mark.django_db


def framed(table, tamsin, alice, kind):
    """Tamsin (Boatcraft 17) holds the bridge against Raiders (14)."""
    contest = table.frame(
        kind, pc=tamsin, prize="hold the bridge", opponent={"name": "Raiders", "rating": "14"}
    )
    return table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )


def stretch(table, contest, gm):
    return table.act(
        contest, gm, "modifier", side="pc", kind="stretch", value=-6, label="a stretch"
    )


def round_of(table, contest, gm, pc_roll, opponent_roll):
    table.act(contest, gm, "roll", rolls=(pc_roll, opponent_roll))
    return table.act(contest, gm, "resolve")


def test_a_stretched_critical_against_a_fumble_is_a_minor_victory_2_10(
    table, session, gm, alice, tamsin
):
    contest = stretch(table, framed(table, tamsin, alice, "simple"), gm)
    table.act(contest, gm, "roll", rolls=(1, 20))
    contest.refresh_from_db()
    assert contest.state["pending"]["outcome"]["describe"] == "minor victory"
    contest = table.act(contest, gm, "resolve")
    assert (contest.winner, contest.degree) == ("pc", "minor")
    # A minor victory's benefit (pumped), not a complete one's (heroic).
    assert {"side": "pc", "state": "pumped"} in contest.state["suggested"]


def test_a_stretch_caps_every_round_of_a_scored_contest(table, session, gm, alice, tamsin):
    contest = stretch(table, framed(table, tamsin, alice, "scored"), gm)
    contest = round_of(table, contest, gm, 1, 20)  # critical v fumble: 5 RP uncapped
    assert contest.state["machine"]["state"]["pc"]["points"] == 2  # a minor victory's


def test_a_pyrrhic_victorys_bump_counts_in_every_round_of_a_scored_contest(
    table, session, gm, alice, tamsin
):
    """R18.5: the bump up of a pyrrhic victory (§2.17) holds for the whole contest."""
    contest = framed(table, tamsin, alice, "scored")
    contest = table.act(contest, alice, "pyrrhic")
    points = []
    for _ in range(2):
        # 10 against 17 and 14: both successes; the bump makes Tamsin's a critical.
        contest = round_of(table, contest, gm, 10, 10)
        points.append(contest.state["machine"]["state"]["pc"]["points"])
    assert points == [2, 4]  # a minor victory each round, not a tie


def test_a_state_taken_between_rounds_changes_the_next_round_of_a_chained_contest(
    table, session, gm, alice, tamsin
):
    contest = framed(table, tamsin, alice, "chained")
    contest = round_of(table, contest, gm, 10, 16)  # success v failure: Raiders hurt
    contest = stretch(table, contest, gm)
    contest = round_of(table, contest, gm, 1, 20)  # critical v fumble, stretched
    effect = contest.state["machine"]["state"]["rounds"][-1]["effect"]
    assert effect == {"side": "opponent", "before": "hurt", "after": "injured"}  # not dying


def test_the_winner_of_a_scored_contest_is_offered_the_benefit_r18_6(
    table, session, gm, alice, tamsin
):
    contest = framed(table, tamsin, alice, "scored")
    while contest.status == ContestStatus.RUNNING:
        contest = round_of(table, contest, gm, 5, 16)  # success v failure
    assert (contest.winner, contest.degree) == ("pc", "major")  # 6-0
    assert contest.state["suggested"] == [{"side": "pc", "state": "invigorated"}]
    table.act(contest, gm, "apply_consequences")
    assert set(tamsin.conditions.values_list("state", flat=True)) == {"invigorated"}


def won_wounded(table, tamsin, alice, gm):
    """Tamsin wins a chained contest hurt: Raiders hurt her, then she leaves them dying."""
    contest = framed(table, tamsin, alice, "chained")
    contest = round_of(table, contest, gm, 18, 5)  # failure v success: Tamsin hurt
    contest = round_of(table, contest, gm, 1, 20)  # critical v fumble: Raiders dying
    assert (contest.winner, contest.degree) == ("pc", "complete")
    return contest


def test_a_wounded_winner_confirms_both_the_wound_and_the_benefit(
    table, session, gm, alice, tamsin
):
    contest = won_wounded(table, tamsin, alice, gm)
    assert contest.state["suggested"] == [
        {"side": "pc", "state": "hurt"},
        {"side": "pc", "state": "heroic"},
    ]
    contest = table.act(
        contest, gm, "apply_consequences", edit={"pc": "hurt", "pc_benefit": "heroic"}
    )
    assert sorted(tamsin.conditions.values_list("state", flat=True)) == ["heroic", "hurt"]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"pc": "heroic"}, "'heroic' is not a state of adversity for Tamsin"),
        ({"pc_benefit": "hurt"}, "'hurt' is not a state of fortune for Tamsin"),
    ],
)
def test_a_state_in_the_wrong_box_is_refused_and_nothing_changes(
    table, session, gm, alice, tamsin, edit, message
):
    contest = won_wounded(table, tamsin, alice, gm)
    table.refused(contest, gm, "apply_consequences", message, edit=edit)
    assert not tamsin.conditions.exists()


def test_a_stretch_caps_a_pairings_round_of_a_group_scored_contest(
    table, session, gm, alice, bob, tamsin, brannoc
):
    """R18.4 in a group scored contest: a stretched Tamsin's complete victory in her
    pairing's round scores a minor victory's RP."""
    contest = table.frame(
        "group_scored",
        prize="hold the causeway",
        participants=[
            {"character_id": tamsin.pk, "ability_id": ability(tamsin, "Boatcraft").pk},
            {"character_id": brannoc.pk, "ability_id": ability(brannoc, "Temple singer").pk},
            {"name": "Raider", "rating": 14},
            {"name": "Chief", "rating": 15},
        ],
    )
    table.act(
        contest, gm, "modifier", participant="Tamsin", kind="stretch", value=-6, label="a stretch"
    )
    table.act(contest, gm, "engage", pc="Tamsin", opponent="Raider")
    table.act(contest, gm, "engage", pc="Brannoc", opponent="Chief")
    table.act(contest, gm, "play_round", rolls=(1, 20), pairing=1)  # critical v fumble
    if contest.state["phase"] == "rolled":
        table.act(contest, gm, "resolve")
    pairing = contest.state["machine"]["state"]["pairings"][0]
    assert pairing["pc_points"] == 2  # a minor victory's, not a complete one's 5
