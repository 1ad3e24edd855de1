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
