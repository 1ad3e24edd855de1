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


def _picker(html: str) -> list[str]:
    """The options of the pc side's choose-ability list, the selected one marked '*'."""
    import re

    form = re.search(r'data-action="choose_ability".*?</form>', html, re.S).group(0)
    return [
        ("*" if " selected" in attrs else "") + label
        for attrs, label in re.findall(r"<option([^>]*)>([^<]*)</option>", form)
    ]


def test_a_character_made_as_you_go_may_name_a_new_ability_after_its_sheet(contest, alice):
    """The sheet first, so Choose untouched picks a real ability (issue 27)."""
    assert _picker(render_contest(contest, "player", reader=alice.pk)) == [
        "Boatcraft 17",
        "Sharp eyes 15",
        "— new ability (as you go) —",
    ]


def test_a_finished_characters_picker_offers_its_sheet_alone(table, session, alice, campaign):
    """Made with the list method (§3.5), Tamsin Reedwalker picks from her sheet: no
    "new ability" to choose by mistake, and Choose untouched uses her first ability."""
    from campaigns.demo import tamsin_create

    reedwalker = tamsin_create(alice, campaign)
    contest = table.frame(
        pc=reedwalker, prize="cross", opponent={"name": "The ford", "level": "moderate"}
    )
    html = render_contest(contest, "player", reader=alice.pk)
    options = _picker(html)
    assert options[0].startswith("River Guide") and len(options) == reedwalker.abilities.count()
    assert "as you go" not in " ".join(options) and 'name="new_ability"' not in html
    first = reedwalker.abilities.order_by("position", "id").first()
    table.act(contest, alice, "choose_ability", side="pc", ability_id=first.pk)
    contest.refresh_from_db()
    assert contest.state["sides"]["pc"]["ability"] == first.name
