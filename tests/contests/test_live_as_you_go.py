"""An as-you-go character adds an ability on the spot when a contest needs it (§3.1)."""

from __future__ import annotations

import pytest

from contests.live import render_contest
from contests.services import ContestError

pytestmark = pytest.mark.django_db


@pytest.fixture
def contest(table, session, tamsin):
    return table.frame(
        pc=tamsin, prize="calm the horse", opponent={"name": "A spooked horse", "level": "moderate"}
    )


def test_a_new_ability_goes_on_the_sheet_and_into_the_contest(table, contest, alice, tamsin):
    table.act(
        contest, alice, "choose_ability", side="pc", new_ability="Way with Horses", rating="13"
    )
    assert tamsin.abilities.filter(name="Way with Horses", rating=13).exists()
    assert contest.state["sides"]["pc"]["ability"] == "Way with Horses"
    assert "Way with Horses" in render_contest(contest, "gm")


def test_only_the_characters_player_adds_to_the_sheet(table, contest, make_user, campaign, tamsin):
    from campaigns.models import Membership, Role

    mallory = make_user("mallory")
    Membership.objects.create(campaign=campaign, user=mallory, role=Role.PLAYER)
    with pytest.raises(ContestError):
        table.act(
            contest, mallory, "choose_ability", side="pc", new_ability="Sabotage", rating="13"
        )
    assert not tamsin.abilities.filter(name="Sabotage").exists()


def test_a_bad_rating_is_refused_and_adds_nothing(table, contest, alice, tamsin):
    with pytest.raises(ContestError, match="rating"):
        table.act(
            contest,
            alice,
            "choose_ability",
            side="pc",
            new_ability="Way with Horses",
            rating="lots",
        )
    assert not tamsin.abilities.filter(name="Way with Horses").exists()
