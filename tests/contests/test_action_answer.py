"""What one browser action costs on the browsers' own path (issue 16): an htmx POST to
`table_act`, answered with an acknowledgement while the broadcast carries the new panel
to every browser; the queries of the whole action, broadcast included, are bounded.

Each action is posted as the table's form posts it (the test client skips CSRF checks),
with the broadcast rendered on commit as in production.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.table import ability, key, split_writes

HTMX = {"HX-Request": "true"}

# The queries of one action posted by a browser, the broadcast's rendering included:
# the session and user, the savepoint pair, the contest locked with who acts (a
# player's membership with their characters, in the same statement), the step written
# (the event unless its key was used already, the contest's row and the archive's
# participant record a choice of ability changes: one statement), the sheets the panel
# reads. A choice of ability also reads the sheet's ability with its states and any
# community penalty on it (one statement); confirming the consequences locks each
# character, then reads the abilities the state falls on with the states they hold (one
# statement) and writes the condition with its abilities (one). (Each count includes
# the test's own read of the contest's seq for the form.)
ACTION_QUERIES = {
    "choose_ability": 9,
    "set_tactic": 8,
    "roll": 8,
    "resolve": 8,
    "apply_consequences": 11,
}


def post(client, campaign, contest, action, **fields):
    contest.refresh_from_db()
    form = {"action": action, "contest": contest.pk, "seq": contest.seq, "key": key(), **fields}
    return client.post(reverse("table_act", args=[campaign.pk]), form, headers=HTMX)


@pytest.fixture
def cycle(table, session, gm, alice, tamsin):
    """A simple contest framed for Tamsin, and the cycle a table plays through it."""
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    return contest, [
        (alice, "choose_ability", {"side": "pc", "ability_id": ability(tamsin, "Boatcraft").pk}),
        (alice, "set_tactic", {"side": "pc", "tactic": "I swim for it"}),
        (gm, "roll", {}),
        (gm, "resolve", {}),
        (gm, "apply_consequences", {}),
    ]


def test_a_browsers_action_is_acknowledged_and_broadcast_within_its_queries(
    client, table, cycle, django_capture_on_commit_callbacks
):
    contest, steps = cycle
    for user, action, fields in steps:
        client.force_login(user)
        contest.refresh_from_db()
        seq = contest.seq
        with (
            CaptureQueriesContext(connection) as queries,
            django_capture_on_commit_callbacks(execute=True) as broadcasts,
        ):
            response = post(client, table.campaign, contest, action, **fields)
        answer = response.content.decode()
        assert response.status_code == 200, answer
        # The answer says the step was taken and which: no panel, no log.
        assert re.search(rf'id="table-ack"[^>]*data-acked="{seq + 1}"', answer), answer
        assert 'id="contest"' not in answer and "roll-log" not in answer
        assert re.search(r'id="table-error"[^>]*></p>', answer)
        assert len(answer) < 400
        # The broadcast was sent on commit, carrying the step.
        assert len(broadcasts) == 1
        assert len(queries) <= ACTION_QUERIES[action] + split_writes(action), (action, len(queries))
    contest.refresh_from_db()
    assert contest.state["phase"] == "finished"


def test_a_refused_action_answers_with_the_panel_and_why(client, table, cycle):
    contest, steps = cycle
    alice, _, _ = steps[0]
    client.force_login(alice)
    response = post(client, table.campaign, contest, "roll")
    answer = response.content.decode()
    assert response.status_code == 200
    assert "only the GM" in answer or "Not allowed" in answer, answer
    # The page learns where the table really is: the whole panel comes with the refusal.
    assert f'data-seq="{contest.seq}"' in answer and 'id="contest"' in answer


def test_who_may_act_is_the_services_check_outsiders_still_get_404(
    client, table, cycle, sam, make_user
):
    """The view leaves who may act to the services (under the contest's lock): a player
    removed while her page is open and an outsider get 404 and change nothing; a
    spectator is told why, with the panel."""
    from campaigns.models import Membership
    from campaigns.services import membership_remove

    contest, steps = cycle
    alice, action, fields = steps[0]
    stranger = make_user("stranger", "Stranger")
    refused = []
    for user in (stranger, sam):
        client.force_login(user)
        refused.append(post(client, table.campaign, contest, action, **fields))
    membership_remove(
        campaign=table.campaign, actor=table.gm, membership=Membership.objects.get(user=alice)
    )
    client.force_login(alice)
    refused.append(post(client, table.campaign, contest, action, **fields))
    outsider, spectator, removed = refused
    assert outsider.status_code == 404 and removed.status_code == 404
    answer = spectator.content.decode()
    assert spectator.status_code == 200 and "spectators watch" in answer, answer
    assert 'id="contest"' in answer and "data-acked" not in answer
    contest.refresh_from_db()
    assert contest.seq == 1 and contest.events.count() == 1


def test_a_repeated_action_says_already_done_and_changes_nothing(client, table, cycle):
    contest, steps = cycle
    alice, action, fields = steps[0]
    client.force_login(alice)
    contest.refresh_from_db()
    form = {"action": action, "contest": contest.pk, "seq": contest.seq, "key": "twice", **fields}
    url = reverse("table_act", args=[table.campaign.pk])
    first = client.post(url, form, headers=HTMX).content.decode()
    second = client.post(url, form, headers=HTMX).content.decode()
    assert 'id="table-ack"' in first
    assert "Already done" in second and 'id="contest"' in second
    contest.refresh_from_db()
    assert contest.seq == 2


def test_the_gms_none_for_every_side_writes_no_consequence(
    client, table, session, gm, alice, tamsin
):
    """The confirm form's selects offer "none" (an empty value): a GM who picks it for
    every side confirms no consequence at all, not the engine's suggestion (§2.11)."""
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(18, 3))  # failure vs success: a minor defeat
    table.act(contest, gm, "resolve")
    assert contest.state["suggested"] == [{"side": "pc", "state": "impaired"}]
    client.force_login(gm)
    blank = {"edit.pc": "", "edit.pc_benefit": "", "edit.opponent": "", "edit.opponent_benefit": ""}
    response = post(client, table.campaign, contest, "apply_consequences", **blank)
    assert response.status_code == 200
    assert 'data-acked="' in response.content.decode()
    contest.refresh_from_db()
    assert contest.state["phase"] == "finished"
    assert contest.state["applied"] == []
    assert not tamsin.conditions.exists()


def test_the_gms_edit_from_the_form_is_what_is_written(client, table, session, gm, alice, tamsin):
    """One side's select changed, the others left at "none": only that one is written."""
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(18, 3))
    table.act(contest, gm, "resolve")
    client.force_login(gm)
    fields = {"edit.pc": "hurt", "edit.pc_benefit": "", "edit.opponent_benefit": ""}
    post(client, table.campaign, contest, "apply_consequences", **fields)
    assert [c.state for c in tamsin.conditions.all()] == ["hurt"]


@pytest.mark.parametrize(
    "fields",
    [
        {"edit.pc": "cursed"},  # not a state of adversity
        {"edit.pc_benefit": "hurt"},  # adversity where fortune goes
        {"edit.pc": "x" * 5000},
        {"edit.pc": "hurt\x00"},
        {"edit.nobody": ""},
    ],
)
def test_a_bad_consequence_from_the_form_is_refused_and_changes_nothing(
    client, table, session, gm, alice, tamsin, fields
):
    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    table.act(
        contest, alice, "choose_ability", side="pc", ability_id=ability(tamsin, "Boatcraft").pk
    )
    table.act(contest, gm, "roll", rolls=(18, 3))
    table.act(contest, gm, "resolve")
    contest.refresh_from_db()
    seq = contest.seq
    client.force_login(gm)
    response = post(client, table.campaign, contest, "apply_consequences", **fields)
    assert response.status_code in (200, 400)
    answer = response.content.decode()
    assert "data-acked" not in answer
    assert re.search(r'id="table-error"[^>]*>[^<]+<', answer) or response.status_code == 400
    contest.refresh_from_db()
    assert contest.seq == seq and contest.state["phase"] == "resolved"
    assert not tamsin.conditions.exists()
