"""A simple contest played through the services, with fixed dice (issue 6)."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from contests.models import ContestEvent, ContestStatus
from contests.services import ContestError, contest_act

from .conftest import ability, key

pytestmark = pytest.mark.django_db


def test_a_simple_contest_from_framing_to_consequences(table, session, gm, alice, tamsin):
    contest = table.frame(pc=tamsin)
    assert contest.session == session and contest.resistance_rating == 20  # high = 14 + 6 (R2)
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    assert contest.state["sides"]["pc"]["rating"] == 17
    table.act(contest, gm, "roll", rolls=(10, 5))  # 10 vs TN 17 success; 5 vs TN 20 success
    assert contest.state["pending"]["outcome"]["describe"] == "marginal victory"  # higher roll (R6)
    table.act(contest, alice, "hero_point", side="pc")
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 2
    table.act(contest, gm, "resolve")
    assert (contest.winner, contest.degree, contest.outcome_level) == ("pc", "minor", 2)
    assert contest.status == ContestStatus.RESOLVING
    assert contest.state["suggested"] == [{"side": "pc", "state": "pumped"}]  # §2.11.2 minor
    table.act(contest, gm, "apply_consequences", narration="Tamsin reads the current and crosses.")
    assert contest.status == ContestStatus.FINISHED
    condition = tamsin.conditions.get()
    assert condition.state == "pumped" and condition.contest_id == contest.pk
    assert list(condition.abilities.values_list("name", flat=True)) == ["Boatcraft"]
    types = list(contest.events.values_list("type", flat=True))
    assert types == [
        "framed",
        "choose_ability",
        "roll",
        "hero_point",
        "resolve",
        "apply_consequences",
    ]
    assert list(contest.events.values_list("seq", flat=True)) == [1, 2, 3, 4, 5, 6]
    rolled = contest.events.get(type="roll").payload
    assert rolled["data"] == {"pc_roll": 10, "opponent_roll": 5}
    assert [r["roll"] for r in rolled["rolls"]] == [10, 5]


def test_the_same_idempotency_key_gives_one_event(table, session, alice, tamsin):
    contest = table.frame(pc=tamsin)
    data = {"side": "pc", "ability_id": ability(tamsin, "Boatcraft").pk}
    first = contest_act(
        contest_id=contest.pk,
        user=alice,
        action="choose_ability",
        data=data,
        idempotency_key="same",
    )
    again = contest_act(
        contest_id=contest.pk,
        user=alice,
        action="choose_ability",
        data=data,
        idempotency_key="same",
    )
    assert first.created and not again.created and again.event == first.event
    assert ContestEvent.objects.filter(contest=contest).count() == 2


def test_a_stale_sequence_number_is_refused(table, session, alice, tamsin):
    contest = table.frame(pc=tamsin)
    with pytest.raises(ContestError, match="moved on"):
        contest_act(
            contest_id=contest.pk,
            user=alice,
            action="choose_ability",
            data={"side": "pc", "ability_id": ability(tamsin, "Boatcraft").pk},
            idempotency_key=key(),
            expected_seq=0,
        )
    assert contest.events.count() == 1


@pytest.mark.parametrize(
    ("who", "action", "data", "message"),
    [
        ("alice", "roll", {}, "only the GM can call for the roll"),
        ("sam", "choose_ability", {"side": "pc", "ability": "X", "rating": 13}, "spectators"),
        ("alice", "modifier", {"side": "opponent", "value": -6}, "only the GM"),
        ("gm", "hero_point", {"side": "pc"}, "after the roll"),
        ("gm", "teleport", {}, "unknown action"),
        ("gm", "modifier", {"side": "pc", "value": 99}, "from -40 to 40"),
        ("gm", "apply_consequences", {}, "once the contest is decided"),
    ],
)
def test_actions_check_who_may_act_and_when(
    table, session, alice, sam, tamsin, who, action, data, message, request
):
    contest = table.frame(pc=tamsin)
    user = request.getfixturevalue(who)
    with pytest.raises(ContestError, match=message):
        table.act(contest, user, action, **data)
    contest.refresh_from_db()
    assert contest.seq == 1 and contest.events.count() == 1


def test_outsiders_cannot_act(table, session, charlie, tamsin):
    contest = table.frame(pc=tamsin)
    with pytest.raises(PermissionDenied):
        table.act(contest, charlie, "roll")


def test_a_hero_point_on_a_critical_is_refused(table, session, gm, alice, tamsin):
    contest = table.frame(pc=tamsin)
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(1, 15))
    with pytest.raises(ContestError, match="cannot raise a critical"):
        table.act(contest, alice, "hero_point", side="pc")
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 3


def test_the_gm_undoes_the_latest_action_and_the_archive_keeps_both(
    table, session, gm, alice, tamsin
):
    contest = table.frame(pc=tamsin)
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(10, 5))
    table.act(contest, alice, "hero_point", side="pc")
    table.act(contest, gm, "undo")
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 3  # the spent point came back
    assert contest.state["phase"] == "rolled" and not contest.state["pending"]["pc_hero_point"]
    assert contest.events.last().type == "undone" and contest.events.last().payload["undoes"] == 4
    with pytest.raises(ContestError, match="only the GM can undo"):
        table.act(contest, alice, "undo")


def test_a_hero_point_spent_and_undone_at_the_table_leaves_the_abilities_as_they_were(
    table, session, gm, alice, tamsin
):
    """The spend reads no abilities and its ledger step keeps none: the undo gives the
    point back through the ledger and leaves every ability (and a catch-up on offer,
    which names one) untouched."""
    from characters.models import Character, LedgerStep

    boatcraft = ability(tamsin, "Boatcraft")
    offer = [{"ability": boatcraft.pk, "rating": 20}]
    Character.objects.filter(pk=tamsin.pk).update(catch_ups=offer)

    def sheet():
        return sorted(tamsin.abilities.values_list("id", "name", "rating", "kind"))

    before = sheet()
    contest = table.frame(pc=tamsin)
    table.act(contest, alice, "choose_ability", side="pc", ability_id=boatcraft.pk)
    table.act(contest, gm, "roll", rolls=(10, 5))
    table.act(contest, alice, "hero_point", side="pc")
    spend = LedgerStep.objects.get(character=tamsin, reason="hp_spend")
    assert "abilities" not in spend.state_before
    assert list(spend.entries.values_list("field", "before", "after")) == [("hero_points", 3, 2)]
    table.act(contest, gm, "undo")
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 3 and tamsin.catch_ups == offer
    assert sheet() == before
    spend.refresh_from_db()
    assert spend.undone_at is not None
    undo = LedgerStep.objects.get(character=tamsin, reason="undo")
    assert list(undo.entries.values_list("field", "before", "after")) == [("hero_points", 2, 3)]


def test_an_augment_is_rolled_against_moderate_and_adds_its_bonus(table, session, alice, tamsin):
    """§2.4.1, R8: a minor victory on the augment roll gives +6."""
    contest = table.frame(pc=tamsin)
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(
        contest,
        alice,
        "augment",
        rolls=(4, 15),
        side="pc",
        kind="rolled",
        ability="Sharp eyes",
        rating=15,
    )
    pc = contest.state["sides"]["pc"]
    assert pc["augments"][0]["bonus"] == 6  # success (4 vs 15) against failure (15 vs 14)
    with pytest.raises(ContestError, match="already tried"):
        table.act(
            contest,
            alice,
            "augment",
            rolls=(4, 15),
            side="pc",
            kind="rolled",
            ability="Sharp eyes",
            rating=15,
        )


def test_framing_needs_an_open_session(table, tamsin):
    with pytest.raises(ContestError, match="start a session"):
        table.frame(pc=tamsin)


def test_only_the_gm_frames(table, session, alice, tamsin):
    with pytest.raises(PermissionDenied):
        table.frame(pc=tamsin, user=alice)
