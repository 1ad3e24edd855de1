"""Two browsers submitting at once give exactly one event (issue 6).

Runs on the configured database: PostgreSQL in CI, where `select_for_update` really
serialises the two transactions.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from contests.models import ContestEvent
from contests.services import ContestError, contest_act
from tests.table import ability

pytestmark = pytest.mark.django_db(transaction=True)


def run_together(*calls):
    """Start every call at the same moment in its own thread; collect results or errors."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def worker(index, call):
        try:
            barrier.wait()
            results[index] = call()
        except Exception as error:  # noqa: BLE001 - the test inspects what each got
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


@pytest.fixture
def contest(table, session, tamsin):
    return table.frame(pc=tamsin, prize="", opponent={"name": "River", "level": "moderate"})


def test_the_same_action_submitted_twice_at_once_gives_one_event(contest, gm):
    def submit():
        return contest_act(
            contest_id=contest.pk,
            user=gm,
            action="set_tactic",
            idempotency_key="double-click",
            data={"side": "pc", "tactic": "wade in"},
        )

    first, second = run_together(submit, submit)
    assert not isinstance(first, Exception) and not isinstance(second, Exception)
    assert sorted([first.created, second.created]) == [False, True]
    assert first.event.pk == second.event.pk
    assert ContestEvent.objects.filter(contest=contest).count() == 2


def test_conflicting_actions_at_once_give_one_event_and_a_clear_refusal(contest, gm):
    def submit(key, tactic):
        return lambda: contest_act(
            contest_id=contest.pk,
            user=gm,
            action="set_tactic",
            idempotency_key=key,
            data={"side": "pc", "tactic": tactic},
            expected_seq=1,
        )

    results = run_together(submit("a", "wade in"), submit("b", "swim across"))
    done = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, ContestError)]
    assert len(done) == 1 and len(refused) == 1
    assert "moved on" in str(refused[0])
    assert ContestEvent.objects.filter(contest=contest).count() == 2
    contest.refresh_from_db()
    assert contest.seq == 2


def test_a_double_click_with_the_step_it_saw_is_done_once_and_the_second_says_done(contest, gm):
    """Both requests carry the step the page showed: the second, once the first has
    moved the table on, is the same action already done, not a refusal."""

    def submit():
        return contest_act(
            contest_id=contest.pk,
            user=gm,
            action="set_tactic",
            idempotency_key="double-click",
            data={"side": "pc", "tactic": "wade in"},
            expected_seq=1,
        )

    first, second = run_together(submit, submit)
    assert not isinstance(first, Exception) and not isinstance(second, Exception)
    assert sorted([first.created, second.created]) == [False, True]
    assert first.event.pk == second.event.pk and first.event.seq == 2
    assert ContestEvent.objects.filter(contest=contest).count() == 2


def test_an_action_resent_after_the_table_moved_on_changes_nothing(contest, gm):
    """A resend without a step (a socket's retry) of an action done earlier: nothing
    is written again, and the answer is the event it wrote then."""

    def act(key, tactic):
        return contest_act(
            contest_id=contest.pk,
            user=gm,
            action="set_tactic",
            idempotency_key=key,
            data={"side": "pc", "tactic": tactic},
        )

    first = act("first", "wade in")
    act("second", "swim across")
    again = act("first", "wade in")
    assert not again.created and again.event.pk == first.event.pk
    contest.refresh_from_db()
    assert contest.seq == 3 and contest.state["sides"]["pc"]["tactic"] == "swim across"
    assert ContestEvent.objects.filter(contest=contest).count() == 3


def test_a_roll_resent_without_its_step_is_answered_done_not_refused(contest, gm, tamsin):
    """A second roll would be refused (the dice are rolled), but the same key resent is
    the same roll: answered as done, with the event it wrote."""

    def roll():
        return contest_act(
            contest_id=contest.pk, user=gm, action="roll", idempotency_key="roll-once", data={}
        )

    contest_act(
        contest_id=contest.pk,
        user=gm,
        action="choose_ability",
        idempotency_key="pick",
        data={"side": "pc", "ability_id": ability(tamsin, "Boatcraft").pk},
    )
    first = roll()
    again = roll()
    assert first.created and not again.created and again.event.pk == first.event.pk
    assert ContestEvent.objects.filter(contest=contest, type="roll").count() == 1


def test_a_last_hero_point_spent_at_the_table_and_on_the_sheet_at_once_is_spent_once(
    table, contest, gm, alice, tamsin, monkeypatch
):
    """The table's spend reads the character once, holding its row (no second read in
    the characters' services): a spend on the sheet at the same moment waits for it,
    or it for the spend, and whichever comes second is refused. Never below 0. (The
    engine's spend is slowed, so that without the lock both would read the one point.)"""
    import time

    from characters import services as character_services
    from characters.models import Character, LedgerStep
    from contests.core.rules import advancement as rules

    engine_spend = rules.spend_hero_point

    def slow_spend(*args, **kwargs):
        time.sleep(0.3)
        return engine_spend(*args, **kwargs)

    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(15, 12))
    Character.objects.filter(pk=tamsin.pk).update(hero_points=1)
    monkeypatch.setattr(rules, "spend_hero_point", slow_spend)

    def at_the_table():
        return contest_act(
            contest_id=contest.pk,
            user=alice,
            action="hero_point",
            idempotency_key="bump",
            data={"side": "pc"},
        )

    def on_the_sheet():
        sheet = Character.objects.get(pk=tamsin.pk)
        return character_services.character_hero_point_spend(character=sheet, actor=alice)

    table_result, sheet_result = run_together(at_the_table, on_the_sheet)
    spent = [r for r in (table_result, sheet_result) if not isinstance(r, Exception)]
    assert len(spent) == 1, (table_result, sheet_result)
    if isinstance(table_result, Exception):  # the sheet's spend came first
        assert "Tamsin has no hero point left" in str(table_result)
        assert not ContestEvent.objects.filter(contest=contest, type="hero_point").exists()
    else:
        assert "1 HP; you have 0" in str(sheet_result)
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 0
    assert LedgerStep.objects.filter(character=tamsin, reason="hp_spend").count() == 1


def test_two_proposals_sent_at_once_by_one_player_keep_one(campaign, session, alice, tamsin):
    """Issue 30: one open proposal per player, even for two sent in the same instant
    (the partial unique constraint), the other told why in words."""
    from contests.models import Proposal
    from contests.services.proposals import proposal_make

    def propose(prize):
        return lambda: proposal_make(
            campaign=campaign,
            user=alice,
            character_id=tamsin.pk,
            ability_id=None,
            prize=prize,
            kind="simple",
        )

    results = run_together(*(propose(f"to cross the river, take {i}") for i in range(4)))
    made = [r for r in results if isinstance(r, Proposal)]
    refused = [r for r in results if isinstance(r, ContestError)]
    assert len(made) == 1 and len(refused) == 3, results
    assert all("waiting for the GM already" in str(r) for r in refused)
    assert Proposal.objects.count() == 1
