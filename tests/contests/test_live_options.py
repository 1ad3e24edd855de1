"""Campaign options at the live table: hidden GM rolls, physical dice, narrated outcomes."""

from __future__ import annotations

import pytest

from contests.live import contest_context, render_contest
from contests.services import ContestError

from .conftest import ability

pytestmark = pytest.mark.django_db


def frame(table, tamsin):
    """Tamsin crosses the ford against the Grey River (moderate)."""
    return table.frame(
        pc=tamsin, prize="the ford", opponent={"name": "The Grey River", "level": "moderate"}
    )


def test_rolls_sent_by_a_browser_are_ignored(table, session, gm, alice, tamsin):
    contest = frame(table, tamsin)
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(15, 2), pc_roll=1, opponent_roll=20)
    assert (contest.state["pending"]["pc_roll"], contest.state["pending"]["opponent_roll"]) == (
        15,
        2,
    )


def test_hidden_gm_rolls_are_shown_only_to_the_gm_until_revealed(
    campaign, table, session, gm, alice, tamsin
):
    campaign.roll_visibility = "gm_hidden"
    campaign.save()
    contest = frame(table, tamsin)
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(9, 13))
    player_view = render_contest(contest, "player")
    gm_view = render_contest(contest, "gm")
    assert "in secret" in player_view
    assert "rolled 13" not in player_view and ">13</strong>" not in player_view
    assert "rolled 13" in gm_view and 'value="reveal"' in gm_view
    offer = contest_context(contest, "player")["hero_point_offer"]
    assert offer == "raises your result one step"
    table.act(contest, gm, "reveal")
    revealed = render_contest(contest, "player")
    assert ">13</strong>" in revealed and "reveals the roll: 13" in revealed
    with pytest.raises(ContestError, match="already shown"):
        table.act(contest, gm, "reveal")


def test_players_enter_physical_dice_when_the_campaign_allows(
    campaign, table, session, gm, alice, tamsin
):
    contest = frame(table, tamsin)
    with pytest.raises(ContestError, match="physical dice are off"):
        table.act(contest, alice, "enter_roll", side="pc", entered=7)
    campaign.physical_dice = True
    campaign.save()
    contest = frame(table, tamsin)
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    with pytest.raises(ContestError, match="from 1 to 20"):
        table.act(contest, alice, "enter_roll", side="pc", entered=21)
    table.act(contest, alice, "enter_roll", side="pc", entered=7)
    table.act(contest, gm, "roll", rolls=(11,))  # only the GM's side is rolled on the server
    assert (contest.state["pending"]["pc_roll"], contest.state["pending"]["opponent_roll"]) == (
        7,
        11,
    )


def test_without_mechanical_consequences_nothing_is_written(
    campaign, table, session, gm, alice, tamsin
):
    campaign.apply_consequences = False
    campaign.save()
    contest = frame(table, tamsin)
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(5, 16))
    table.act(contest, gm, "resolve")
    assert contest.state["suggested"] == []
    table.act(contest, gm, "apply_consequences", narration="She crosses, soaked.")
    assert contest.narration == "She crosses, soaked." and not tamsin.conditions.exists()


def test_the_gm_edits_the_suggested_consequences(table, session, gm, alice, tamsin):
    """§2.11: the engine suggests; the GM decides what is written to the sheet."""
    contest = frame(table, tamsin)
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(18, 3))  # failure vs success: a minor defeat
    table.act(contest, gm, "resolve")
    assert contest.state["suggested"] == [{"side": "pc", "state": "impaired"}]
    table.act(contest, gm, "apply_consequences", edit={"pc": "hurt"})
    assert [c.state for c in tamsin.conditions.all()] == ["hurt"]
    with pytest.raises(ContestError, match="not a state"):
        contest = frame(table, tamsin)
        table.act(
            contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
        )
        table.act(contest, gm, "roll", rolls=(18, 3))
        table.act(contest, gm, "resolve")
        table.act(contest, gm, "apply_consequences", edit={"pc": "cursed"})
