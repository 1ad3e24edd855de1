"""A doomed character (§2.11.1.5, R18.7): the one attempt to save them is spent, and
only a final action remains, after a contest of wherewithal against a moderate
resistance, recorded by the GM on the sheet."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from characters import services
from characters.models import Condition

from .conftest import ability

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


@pytest.fixture
def doomed(kara, gm):
    """Kara, dying on Tough, and the intervention to save her failed (a tie)."""
    dying = services.character_condition_apply(
        character=kara, actor=gm, state="dying", abilities=[ability(kara, "Tough")], cause="a spear"
    )
    after = services.character_condition_heal(character=kara, actor=gm, condition=dying, outcome=0)
    assert after.doomed and after.state == "dying"
    return after


def wherewithal(client, kara, condition, **data):
    return client.post(
        reverse("characters:condition_wherewithal", args=[kara.pk, condition.pk]),
        {"reason": "Grim Determination", **data},
        headers=HTMX,
    )


def test_no_second_attempt_to_save_a_doomed_character(client, kara, gm, doomed):
    with pytest.raises(ValidationError, match="Kara is doomed: the one attempt to save"):
        services.character_condition_heal(character=kara, actor=gm, condition=doomed, outcome=4)
    client.force_login(gm)
    page = client.get(reverse("characters:sheet", args=[kara.pk])).content.decode()
    assert "Doomed" in page and "Record the contest of wherewithal" in page
    assert f"conditions/{doomed.pk}/heal/" not in page  # no healing form offered
    doomed.refresh_from_db()
    assert doomed.ended_at is None and doomed.state == "dying"


@pytest.mark.parametrize(
    ("outcome", "waive", "final_action"),
    [
        (1, "", Condition.FinalAction.BUMP),  # a marginal victory rouses her
        (2, "", Condition.FinalAction.BUMP),
        (3, "on", Condition.FinalAction.CLEAN),  # the GM waives the bump after a major
        (4, "", Condition.FinalAction.BUMP),  # ... only if they choose to
        (0, "", Condition.FinalAction.REFUSED),  # a tie: no final action
        (-2, "", Condition.FinalAction.REFUSED),
    ],
)
def test_the_contest_of_wherewithal_decides_the_final_action(
    client, kara, gm, doomed, outcome, waive, final_action
):
    client.force_login(gm)
    data = {"outcome": outcome} | ({"waive_bump": waive} if waive else {})
    response = wherewithal(client, kara, doomed, **data)
    assert response.status_code == 200
    doomed.refresh_from_db()
    assert doomed.final_action == final_action
    assert "contest of wherewithal" in doomed.cause and "Grim Determination" in doomed.cause
    # One try only.
    again = wherewithal(client, kara, doomed, outcome=4)
    assert again.status_code == 400
    assert "has had their contest of wherewithal" in again.content.decode()


def test_the_bump_is_waived_only_after_a_major_or_complete_victory(client, kara, gm, doomed):
    client.force_login(gm)
    response = wherewithal(client, kara, doomed, outcome=2, waive_bump="on")
    assert response.status_code == 400
    assert "only after a major or complete victory" in response.content.decode()
    doomed.refresh_from_db()
    assert doomed.final_action == ""


def test_only_a_doomed_character_takes_a_contest_of_wherewithal(client, kara, gm):
    dying = services.character_condition_apply(
        character=kara, actor=gm, state="dying", abilities=[ability(kara, "Tough")]
    )
    client.force_login(gm)
    response = wherewithal(client, kara, dying, outcome=2)
    assert response.status_code == 400
    assert "for a doomed character" in response.content.decode()


def test_the_player_cannot_record_their_own_contest_of_wherewithal(client, kara, doomed):
    client.force_login(kara.player)
    response = wherewithal(client, kara, doomed, outcome=4)
    assert response.status_code in (403, 404)
    doomed.refresh_from_db()
    assert doomed.final_action == ""


def test_the_sheet_shows_the_final_actions_bump_down(client, kara, gm, doomed):
    services.character_wherewithal(character=kara, actor=gm, condition=doomed, outcome=2)
    client.force_login(kara.player)
    page = client.get(reverse("characters:sheet", args=[kara.pk])).content.decode()
    assert "A final action, with a bump down" in page
    assert "1 bump down" in page  # Tough's TN line
