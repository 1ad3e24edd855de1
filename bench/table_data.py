"""The live-table benchmark's data: Django in the bench's own process, the tables (a GM,
7 players with real login sessions, a character, an open session, a framed contest), and
what the server side costs per action, measured in process."""

from __future__ import annotations

import os
import random
import statistics
import time
import uuid
from dataclasses import dataclass
from typing import Any

from .table_common import CLIENTS_PER_TABLE, PASSWORD, ms


@dataclass
class Seat:
    user_id: int
    role: str  # gm or player
    session_key: str


@dataclass
class Table:
    index: int
    campaign_id: int
    contest_id: int
    seats: list[Seat]  # the GM first, then the 7 players


def setup_django(database_url: str) -> None:
    """Django in this process, on the benchmark's database and the in-memory layer."""
    os.environ["DATABASE_URL"] = database_url
    os.environ["DJANGO_SETTINGS_MODULE"] = "questworlds_site.settings"
    # Framing here broadcasts to no one: keep this process's messages out of Redis.
    os.environ["REDIS_URL"] = ""
    import django

    django.setup()


def make_tables(count: int) -> list[Table]:
    """`count` campaigns: a GM, 7 players, a character, an open session, a framed contest.

    Campaign ids start at a random offset so that table groups (`table.<id>`) never
    meet another server's on a shared Redis. Users get one known password (hashed
    once) and a real login session each (the cookie a browser would send).
    """
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.auth.hashers import make_password
    from django.contrib.sessions.backends.db import SessionStore
    from django.utils import timezone

    from campaigns.models import Campaign, Membership, Role, Session
    from characters.models import Character
    from contests.services import contest_frame

    user_model = get_user_model()
    password = make_password(PASSWORD)
    run = uuid.uuid4().hex[:6]
    users = user_model.objects.bulk_create(
        user_model(
            username=f"bench-{run}-{t}-{'gm' if i == 0 else f'p{i}'}",
            display_name=f"{'GM' if i == 0 else f'Player {i}'} {t}",
            password=password,
        )
        for t in range(count)
        for i in range(CLIENTS_PER_TABLE)
    )
    backend = settings.AUTHENTICATION_BACKENDS[0]
    keys = {}
    for user in users:
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = backend
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        keys[user.pk] = store.session_key
    first_id = random.randrange(10**8, 2 * 10**9)
    campaigns = Campaign.objects.bulk_create(
        Campaign(pk=first_id + t, name=f"Bench table {t}", gm=users[t * CLIENTS_PER_TABLE])
        for t in range(count)
    )
    members = []
    for t, campaign in enumerate(campaigns):
        for i in range(1, CLIENTS_PER_TABLE):
            user = users[t * CLIENTS_PER_TABLE + i]
            members.append(Membership(campaign=campaign, user=user, role=Role.PLAYER))
    Membership.objects.bulk_create(members)
    characters = Character.objects.bulk_create(
        Character(name=f"Hero {t}", player=users[t * CLIENTS_PER_TABLE + 1], campaign=campaign)
        for t, campaign in enumerate(campaigns)
    )
    Session.objects.bulk_create(
        Session(campaign=campaign, number=1, started_at=timezone.now()) for campaign in campaigns
    )
    tables = []
    for t, (campaign, character) in enumerate(zip(campaigns, characters, strict=True)):
        gm = users[t * CLIENTS_PER_TABLE]
        result = contest_frame(
            campaign=campaign,
            user=gm,
            data={
                "kind": "simple",
                "prize": "Cross the Grey River before nightfall",
                "pc": {"character_id": character.pk},
                "opponent": {"name": "Bench", "level": "moderate"},
            },
            idempotency_key=f"bench-frame-{t}",
        )
        seats = [
            Seat(user.pk, "gm" if i == 0 else "player", keys[user.pk])
            for i, user in enumerate(users[t * CLIENTS_PER_TABLE : (t + 1) * CLIENTS_PER_TABLE])
        ]
        tables.append(Table(t, campaign.pk, result.contest.pk, seats))
    return tables


def clear_presence() -> None:
    from contests.models import TablePresence

    TablePresence.objects.all().delete()


def presence_rows_left(limit: float = 20.0) -> int:
    """Table presence rows still recorded once every client has closed: each should
    have been deleted by its socket's disconnect handler. Waits until the count is 0
    or has not changed for 3 s (at most `limit` seconds)."""
    from contests.models import TablePresence

    deadline, last, since = time.monotonic() + limit, -1, time.monotonic()
    while True:
        count = TablePresence.objects.count()
        if count != last:
            last, since = count, time.monotonic()
        if count == 0 or time.monotonic() - since >= 3 or time.monotonic() > deadline:
            return count
        time.sleep(0.5)


def server_breakdown(table: Table, runs: int) -> dict[str, Any]:
    """Where an action's time goes, measured in this process on the same database: the
    service call (which renders the broadcast for every audience after commit, here sent
    to no one), the broadcast's rendering alone (the panel and the new log entry), and a
    full state's (the panel and the whole log, as a (re)connecting browser gets it)."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from contests.live import render_audiences
    from contests.models import Contest
    from contests.services import contest_act

    gm = get_user_model().objects.get(pk=table.seats[0].user_id)
    full, broadcast, act = [], [], []
    for i in range(runs):
        with CaptureQueriesContext(connection) as full_queries:
            start = time.perf_counter()
            contest = Contest.objects.select_related("campaign").get(pk=table.contest_id)
            html = render_audiences(contest)
            full.append(time.perf_counter() - start)
        with CaptureQueriesContext(connection) as act_queries:
            start = time.perf_counter()
            result = contest_act(
                contest_id=table.contest_id,
                user=gm,
                action="set_tactic",
                data={"side": "pc", "tactic": f"breakdown {i}"},
                idempotency_key=f"bench-breakdown-{uuid.uuid4().hex[:12]}",
            )
            act.append(time.perf_counter() - start)
        with CaptureQueriesContext(connection) as broadcast_queries:
            start = time.perf_counter()
            sent = render_audiences(result.contest, new_event=result.event)
            broadcast.append(time.perf_counter() - start)
    return {
        "runs": runs,
        "action_with_broadcast_p50_ms": ms(statistics.median(act)),
        "action_with_broadcast_queries": len(act_queries),
        "render_broadcast_p50_ms": ms(statistics.median(broadcast)),
        "render_broadcast_queries": len(broadcast_queries),
        "render_full_state_p50_ms": ms(statistics.median(full)),
        "render_full_state_queries": len(full_queries),
        "broadcast_bytes": {a: len(h.encode()) for a, h in sent.items()},
        "full_state_bytes": {a: len(h.encode()) for a, h in html.items()},
    }
