"""Sessions: hero points at the start and end in both economies (R15), waning
conditions (§2.11.4), recaps, and contests belonging to their session."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from campaigns import services
from campaigns.models import Season, Session
from characters import services as character_services
from characters.models import Condition, LedgerReason

from .conftest import play_against


def set_economy(campaign, gm, economy):
    services.campaign_options_update(campaign=campaign, actor=gm, hero_point_economy=economy)


@pytest.fixture
def boatcraft(tamsin, alice):
    return character_services.character_ability_add(
        character=tamsin, actor=alice, name="Boatcraft", rating=17
    )


def test_advances_one_hero_point_at_the_start_and_unspent_become_xp(campaign, gm, tamsin):
    session = services.session_start(campaign=campaign, actor=gm, title="The flood")
    tamsin.refresh_from_db()
    assert (tamsin.hero_points, tamsin.in_session) == (4, True)  # 3 new + 1 (§7.1)
    character_services.character_hero_point_spend(character=tamsin, actor=tamsin.player)
    services.session_end(session=session, actor=gm)
    tamsin.refresh_from_db()
    assert (tamsin.hero_points, tamsin.experience_points, tamsin.in_session) == (0, 3, False)
    reasons = list(tamsin.ledger.values_list("reason", flat=True))
    assert reasons[:3] == [
        LedgerReason.SESSION_END,
        LedgerReason.HERO_POINT_SPEND,
        LedgerReason.SESSION_START,
    ]


def test_classic_three_hero_points_at_the_start_and_unspent_are_lost(campaign, gm, tamsin):
    set_economy(campaign, gm, "classic")
    session = services.session_start(campaign=campaign, actor=gm)
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 6  # 3 new + 3 (1e §6.1)
    services.session_end(session=session, actor=gm)
    tamsin.refresh_from_db()
    assert (tamsin.hero_points, tamsin.experience_points) == (0, 0)


def test_only_attendees_get_hero_points(campaign, gm, tamsin, alice):
    other = character_services.character_create(player=alice, name="Oro", campaign=campaign)
    session = services.session_start(campaign=campaign, actor=gm, attendees=[tamsin])
    other.refresh_from_db()
    assert other.hero_points == 3 and not other.in_session
    assert list(session.attendees.all()) == [tamsin]


def test_hurt_and_fresh_wane_at_the_end_and_worse_states_stay(campaign, gm, tamsin, boatcraft):
    session = services.session_start(campaign=campaign, actor=gm)
    for state in ("hurt", "impaired", "fresh", "pumped"):
        character_services.character_condition_apply(
            character=tamsin, actor=gm, state=state, abilities=[boatcraft]
        )
    services.session_end(session=session, actor=gm)
    active = Condition.objects.filter(character=tamsin, ended_at__isnull=True)
    assert sorted(active.values_list("state", flat=True)) == ["impaired", "pumped"]
    ended = Condition.objects.filter(character=tamsin, ended_at__isnull=False)
    assert sorted(ended.values_list("state", flat=True)) == ["fresh", "hurt"]
    assert all("waned at the session's end" in c.end_reason for c in ended)


def test_the_first_session_starts_season_one(campaign, gm, tamsin):
    session = services.session_start(campaign=campaign, actor=gm)
    assert session.number == 1 and session.season.number == 1
    assert Season.objects.get().base_resistance == 14


def test_one_session_at_a_time(campaign, gm, tamsin):
    services.session_start(campaign=campaign, actor=gm)
    with pytest.raises(ValidationError, match="Session 1 is still in progress"):
        services.session_start(campaign=campaign, actor=gm)
    tamsin.refresh_from_db()
    assert tamsin.hero_points == 4
    assert Session.objects.count() == 1


def test_a_session_ends_once(campaign, gm, tamsin):
    session = services.session_start(campaign=campaign, actor=gm)
    services.session_end(session=session, actor=gm)
    with pytest.raises(ValidationError, match="has already ended"):
        services.session_end(session=session, actor=gm)


def test_only_the_gm_runs_sessions(campaign, alice, gm):
    with pytest.raises(PermissionDenied):
        services.session_start(campaign=campaign, actor=alice)
    session = services.session_start(campaign=campaign, actor=gm)
    with pytest.raises(PermissionDenied):
        services.session_end(session=session, actor=alice)


def test_the_gm_starts_and_ends_a_session_with_a_recap_from_the_pages(client, campaign, gm, tamsin):
    client.force_login(gm)
    page = client.get(reverse("session_start", args=[campaign.pk])).content.decode()
    assert "Each attending character gains 1 hero point" in page and "Tamsin" in page
    client.post(
        reverse("session_start", args=[campaign.pk]),
        {"title": "Low water", "attendees": [tamsin.pk]},
    )
    session = Session.objects.get()
    assert session.is_open and session.title == "Low water"
    detail = client.get(reverse("campaign_detail", args=[campaign.pk])).content.decode()
    assert "is in progress" in detail and "End the session" in detail
    response = client.post(
        reverse("session_end", args=[campaign.pk, 1]),
        {"recap": "We **crossed**.<script>alert('x')</script>"},
        follow=True,
    )
    session.refresh_from_db()
    assert not session.is_open
    assert session.recap == "We **crossed**.<script>alert('x')</script>"  # kept as written
    html = response.content.decode()
    assert "We <strong>crossed</strong>." in html  # ... rendered sanitised
    assert "<script>alert" not in html


def test_a_session_without_attendees_can_be_started_from_the_page(client, campaign, gm, tamsin):
    client.force_login(gm)
    client.post(reverse("session_start", args=[campaign.pk]), {})
    session = Session.objects.get()
    assert list(session.attendees.all()) == []


def test_contests_belong_to_the_session_in_which_they_were_played(campaign, gm, tamsin, boatcraft):
    first = services.session_start(campaign=campaign, actor=gm)
    play_against(campaign, gm, tamsin, boatcraft)
    services.session_end(session=first, actor=gm)
    second = services.session_start(campaign=campaign, actor=gm)
    play_against(campaign, gm, tamsin, boatcraft)
    assert list(first.contests.values_list("number", flat=True)) == [1]
    assert list(second.contests.values_list("number", flat=True)) == [2]


def test_the_gm_edits_a_recap_afterwards(client, campaign, gm, tamsin):
    session = services.session_start(campaign=campaign, actor=gm)
    services.session_end(session=session, actor=gm, recap="Draft")
    client.force_login(gm)
    client.post(
        reverse("session_edit", args=[campaign.pk, 1]), {"title": "Flood", "recap": "Final"}
    )
    session.refresh_from_db()
    assert (session.title, session.recap) == ("Flood", "Final")
