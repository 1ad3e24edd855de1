"""The table's hot reads are built once and run again with each call's arguments
(questworlds_site/sql.py `PreparedRead`): they must read what the ORM reads, for every
campaign and set of characters, on every call, with each value converted as Django
converts it."""

from __future__ import annotations

from datetime import datetime

import pytest

from characters.models import Character
from characters.services import character_ability_add
from contests.live.sheets import SHEET_COLUMNS, _sheets
from questworlds_site.sql import PreparedRead

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
