"""The table's hot reads are built once and run again with each call's arguments
(questworlds_site/sql.py `PreparedRead`): they must read what the ORM reads, for every
campaign and set of characters, on every call, with each value converted as Django
converts it."""

from __future__ import annotations

from datetime import datetime

import pytest
from django.db import connection

from characters.models import Character
from characters.services import character_ability_add
from contests.live.sheets import SHEET_COLUMNS, _sheets
from questworlds_site.sql import PreparedRead
from tests.table import ability, post_the_benchmarks_cycle

pytestmark = pytest.mark.django_db


def orm_sheets(**where):
    return list(_sheets().filter(**where).values_list(*SHEET_COLUMNS))


def test_the_sheets_read_matches_the_orms_for_each_campaign_and_set_of_characters(
    campaign, gm, alice, tamsin, brannoc
):
    from contests.live.sheets import _CAMPAIGN_SHEETS, _THESE_SHEETS

    character_ability_add(character=tamsin, actor=alice, name="Swimming", rating=14)
    both = [tamsin.pk, brannoc.pk]
    assert _THESE_SHEETS.rows(both) == orm_sheets(character_id__in=both)
    # The same shape with other characters reads theirs, not the first call's.
    assert _THESE_SHEETS.rows([brannoc.pk, tamsin.pk]) == orm_sheets(character_id__in=both)
    assert _THESE_SHEETS.rows([tamsin.pk]) == orm_sheets(character_id__in=[tamsin.pk])
    assert _THESE_SHEETS.rows([brannoc.pk]) == orm_sheets(character_id__in=[brannoc.pk])
    names = [row[2] for row in _THESE_SHEETS.rows([tamsin.pk])]
    assert names == ["Boatcraft", "Sharp eyes", "Swimming"]
    assert _CAMPAIGN_SHEETS.rows(campaign.pk) == orm_sheets(character__campaign_id=campaign.pk)
    assert len(_CAMPAIGN_SHEETS.rows(campaign.pk)) == 4
    assert _CAMPAIGN_SHEETS.rows(campaign.pk + 1000) == []


def test_values_come_converted_as_the_orm_converts_them(campaign, tamsin, brannoc):
    """A date and a flag (which SQLite stores as text and a number) read as Python's."""
    read = PreparedRead(
        lambda characters: (
            Character.objects.filter(pk__in=characters)
            .order_by("pk")
            .values_list("pk", "created_at", "in_session")
        )
    )
    ids = [tamsin.pk, brannoc.pk]
    expected = list(
        Character.objects.filter(pk__in=ids)
        .order_by("pk")
        .values_list("pk", "created_at", "in_session")
    )
    assert read.rows(ids) == expected
    assert read.rows(ids) == expected  # built once, run again
    assert isinstance(read.rows(ids)[0][1], datetime) and read.rows(ids)[0][2] is False


def test_the_lock_reads_the_contest_its_campaign_and_who_acts_as_the_orm_does(
    table, session, gm, alice, bob, tamsin, brannoc, django_assert_num_queries
):
    """Every action starts with this statement (contests/services/acting.py `_locked`):
    built once, it reads the contest with its state, its campaign with no query of its
    own, and the actor's role and characters, as the ORM's queryset does."""
    from contests.services.acting import _LOCK, _LOCK_AT, _locking

    contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    for user in (gm, alice, bob):
        expected = list(_locking(user).filter(pk=contest.pk))
        with django_assert_num_queries(1):
            rows = _LOCK.objects(contest.pk, user.pk)
            assert [r.campaign.name for r in rows] == [e.campaign.name for e in expected]
        assert [(r.pk, r.seq, r.state, r.framing) for r in rows] == [
            (e.pk, e.seq, e.state, e.framing) for e in expected
        ]
        assert [(r.member_role, r.played_id) for r in rows] == [
            (e.member_role, e.played_id) for e in expected
        ]
    assert [r.played_id for r in _LOCK.objects(contest.pk, alice.pk)] == [tamsin.pk]
    assert _LOCK_AT.objects(contest.pk, alice.pk, contest.campaign_id)
    assert _LOCK_AT.objects(contest.pk, alice.pk, contest.campaign_id + 1000) == []


def test_a_text_argument_is_compared_as_it_is(campaign, alice, tamsin):
    """A consequence's abilities are read by name (contests/services/effects.py): each
    call's name, whatever it holds, and never the first call's."""
    from contests.services.effects import _NAMED

    odd = "O'Brien's 100% _luck_"
    character_ability_add(character=tamsin, actor=alice, name=odd, rating=13)
    assert [a.name for a in _NAMED.objects(tamsin.pk, "Boatcraft")] == ["Boatcraft"]
    assert [a.name for a in _NAMED.objects(tamsin.pk, odd)] == [odd]
    assert _NAMED.objects(tamsin.pk, "O'Brien's 100%") == []
    # A lookup that rewrites its text cannot be prepared: it is refused as it is built.
    read = PreparedRead(lambda name: Character.objects.filter(name__contains=name))
    with pytest.raises(AssertionError, match="every argument"):
        read.rows("Tam")


def test_the_contest_on_the_table_is_the_latest_open_one_else_the_latest(
    table, session, gm, alice, tamsin
):
    """`current_contest` (one prepared read): the latest contest not yet finished; when
    every one is, the latest; none before the first framing; never another campaign's."""
    from contests.live import current_contest

    campaign = table.campaign
    river = {"name": "The Grey River", "level": "moderate"}
    boatcraft = ability(tamsin, "Boatcraft").pk

    def finish(contest):
        contest = table.act(contest, alice, "choose_ability", side="pc", ability_id=boatcraft)
        contest = table.act(contest, gm, "automatic_victory")
        return table.act(contest, gm, "apply_consequences")

    assert current_contest(campaign.pk) is None
    first = table.frame("automatic", pc=tamsin, opponent=river)
    assert current_contest(campaign.pk) == first
    second = table.frame("automatic", pc=tamsin, opponent=river)
    assert current_contest(campaign.pk) == second
    assert finish(second).state["phase"] == "finished"
    assert current_contest(campaign.pk) == first  # the open one, though older
    finish(first)
    assert current_contest(campaign.pk) == second  # all finished: the latest
    assert current_contest(campaign.pk + 1000) is None


def test_the_cycle_posted_as_browsers_do_is_planned_once_per_connection(
    client, table, session, gm, alice, tamsin, django_capture_on_commit_callbacks
):
    """Every action's statements are the same text from one action to the next, their
    values bound by the server, and PostgreSQL prepares each on its connection after
    its fifth run (questworlds_site/env.py): the contest's lock, the step's write and
    the sheets' read are then parsed and planned once, not on every action (issue 29:
    planning the app's joins cost PostgreSQL more than running them)."""
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's (SQLite is for `make run`)")
    with django_capture_on_commit_callbacks(execute=True):
        contest = table.frame(pc=tamsin, opponent={"name": "The Grey River", "level": "moderate"})
    post_the_benchmarks_cycle(
        client,
        contest,
        tamsin,
        gm,
        alice,
        cycles=4,
        around=lambda action: django_capture_on_commit_callbacks(execute=True),
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements")
        prepared = cursor.fetchall()
    runs = {
        "the contest's lock": [n for sql, n in prepared if "FOR UPDATE OF" in sql],
        "the step's write": [
            n for sql, n in prepared if 'INSERT INTO "contests_contestevent"' in sql
        ],
        "the sheets' read": [n for sql, n in prepared if 'FROM "characters_ability"' in sql],
    }
    for statement, counts in runs.items():
        # Each prepared once and run again as it was prepared.
        assert counts and max(counts) >= 2, (statement, prepared)
