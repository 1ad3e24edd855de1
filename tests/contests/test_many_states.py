"""Several states stack (R10), with no cap on how many a character carries: a character
who has lost many contests still picks an ability, at the table as in a replay, and
the roll counts every state. A message still names only so many states itself."""

from __future__ import annotations

import pytest

from contests.models import ContestEvent

from .conftest import ability

pytestmark = pytest.mark.django_db

LOSSES = 21


def lose_a_contest(table, tamsin, alice, gm):
    """Tamsin (Boatcraft 17) fails against a success: a defeat, hurt by default."""
    contest = table.frame(pc=tamsin, opponent={"name": "Raiders", "rating": "14"})
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(20, 5))
    table.act(contest, gm, "resolve")
    return table.act(contest, gm, "apply_consequences")


def test_a_character_hurt_more_than_twenty_times_still_picks_an_ability_and_every_state_counts(
    table, session, gm, alice, tamsin
):
    for _ in range(LOSSES):
        lose_a_contest(table, tamsin, alice, gm)
    boatcraft = ability(tamsin, "Boatcraft")
    held = boatcraft.conditions.filter(ended_at__isnull=True).count()
    assert held >= LOSSES
    contest = table.frame(pc=tamsin, opponent={"name": "Raiders", "rating": "14"})
    # As the browser sends it: the ability by its id; the server reads its states.
    reply = table.perform(contest, alice, "choose_ability", side="pc", ability_id=boatcraft.pk)
    assert reply.error == "" and reply.created
    contest.refresh_from_db()
    assert len(contest.state["sides"]["pc"]["states"]) == held
    # The stored step reads back through the same model: the replay agrees.
    event = ContestEvent.objects.get(contest=contest, type="choose_ability")
    assert len(event.payload["data"]["states"]) == held
    assert table.rebuilt(contest).state == contest.state


def test_a_message_naming_more_than_twenty_states_is_refused_and_changes_nothing(
    table, session, gm, alice, tamsin
):
    contest = table.frame(pc=tamsin, opponent={"name": "Raiders", "rating": "14"})
    before = (contest.seq, contest.state)
    reply = table.perform(
        contest,
        gm,
        "choose_ability",
        side="opponent",
        ability="Spears",
        rating=14,
        states=["hurt"] * 21,
    )
    assert "States: too many" in reply.error and "Nothing was done" in reply.error
    contest.refresh_from_db()
    assert (contest.seq, contest.state) == before
