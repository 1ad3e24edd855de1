"""At the table, a GM resistance takes no modifier and no augment (R2, R18.3); a mob or
ganging up adjusts it before the contest starts (R9); a PC opponent takes modifiers."""

from __future__ import annotations

import pytest

from contests.core.table import Actor, load_flow

from .conftest import ability

pytestmark = pytest.mark.django_db


@pytest.fixture
def river(table, session, alice, tamsin):
    contest = table.frame(
        "scored", pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"}
    )
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    return contest


@pytest.mark.parametrize("kind", ["situational", "stretch", "flaw", "other"])
def test_a_modifier_on_the_resistance_is_refused_in_words(table, gm, river, kind):
    table.refused(
        river,
        gm,
        "modifier",
        "The Grey River is a resistance: a modifier applies to a PC's",
        side="opponent",
        kind=kind,
        value=-3,
    )


def test_an_augment_to_the_resistance_is_refused(table, gm, river):
    table.refused(
        river,
        gm,
        "augment",
        "The Grey River is a resistance: an augment applies",
        side="opponent",
        kind="plot",
        bonus=6,
    )


def test_a_mob_adjusts_the_resistance_before_the_contest_starts_only(table, gm, river):
    contest = table.act(river, gm, "modifier", side="opponent", kind="mob", value=6)
    assert load_flow(contest.state).target("opponent").rating.total == 20  # 14 + 6
    table.act(contest, gm, "roll", rolls=(5, 16))
    contest = table.act(contest, gm, "resolve")
    table.refused(
        contest,
        gm,
        "modifier",
        "its TN is set before the contest starts",
        side="opponent",
        kind="ganging_up",
        value=-3,
    )


def test_the_gm_is_offered_only_what_the_resistance_takes(gm, river):
    flow = load_flow(river.state)
    offered = {}
    for offer in flow.available_actions(Actor(user_id=gm.pk, role="gm")):
        if offer.action in ("modifier", "augment"):
            for side in (c.value for c in offer.input("side").choices):
                kinds = [c.value for c in offer.input("kind").choices]
                offered.setdefault((offer.action, side), []).extend(kinds)
    assert offered[("modifier", "opponent")] == ["mob", "ganging_up"]
    assert "situational" in offered[("modifier", "pc")]
    assert ("augment", "opponent") not in offered and ("augment", "pc") in offered


def test_a_pc_opponent_takes_modifiers(table, session, gm, tamsin, brannoc):
    contest = table.frame("scored", pc=tamsin, opponent={"character_id": brannoc.pk})
    contest = table.act(contest, gm, "modifier", side="opponent", kind="situational", value=-3)
    assert [m["value"] for m in contest.state["sides"]["opponent"]["modifiers"]] == [-3]
