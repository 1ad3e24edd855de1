"""Helpers of the campaign tests: characters, sessions and archived contests.

Contests are written as rows, the way the live table leaves them, with event payloads
that follow the contract of docs/architecture.md ("Contests and their events").
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.models import Season, Session
from characters import services as character_services
from contests.models import Contest, ContestEvent, ContestParticipant


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """The personas' passwords are hashed once per test; a slow hash only costs time."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def tamsin(campaign, alice):
    return character_services.character_create(
        player=alice, name="Tamsin Reedwalker", concept="Stubborn river guide", campaign=campaign
    )


def add_session(campaign, number: int, *, recap: str = "", title: str = "", open_=False):
    season = Season.objects.filter(campaign=campaign).order_by("-number").first()
    if season is None:
        season = Season.objects.create(campaign=campaign, number=1)
    start = timezone.now() - timedelta(days=100 - number)
    return Session.objects.create(
        campaign=campaign,
        season=season,
        number=number,
        title=title,
        recap=recap,
        started_at=start,
        ended_at=None if open_ else start + timedelta(hours=3),
    )


def rolled(summary: str, *rolls: dict, totals=None, gm_only=False, kind="RP", **extra) -> dict:
    payload = {"summary": summary, "rolls": list(rolls), "gm_only": gm_only, **extra}
    if totals is not None:
        payload |= {"totals": totals, "totals_kind": kind}
    return payload


def roll(who, ability, tn, die, result, *, bumps=0, hero_point=False, hidden=False) -> dict:
    return {
        "who": who,
        "ability": ability,
        "tn": tn,
        "roll": die,
        "result": result,
        "bumps": bumps,
        "hero_point": hero_point,
        "hidden": hidden,
    }


def add_contest(
    session,
    number: int,
    *,
    kind="scored",
    prize="Cross the river",
    obstacle="The Grey River in flood",
    resistance=("The Grey River", 14),
    outcome_level=2,
    characters=(),
    events=(),
    gm_notes="",
    **fields,
) -> Contest:
    contest = Contest.objects.create(
        campaign=session.campaign,
        session=session,
        number=number,
        kind=kind,
        status="finished" if outcome_level is not None else "running",
        prize=prize,
        obstacle=obstacle,
        resistance_name=resistance[0],
        resistance_rating=resistance[1],
        outcome_level=outcome_level,
        gm_notes=gm_notes,
        seq=len(events),
        **fields,
    )
    for character in characters:
        ContestParticipant.objects.create(
            contest=contest, character=character, name=character.name, side="pc"
        )
    ContestParticipant.objects.create(
        contest=contest, name=resistance[0], side="opponent", rating=resistance[1]
    )
    for seq, (type_, payload) in enumerate(events, 1):
        ContestEvent.objects.create(
            contest=contest, seq=seq, type=type_, payload=payload, idempotency_key=f"k{seq}"
        )
    return contest
