"""Shared fixtures: the personas of every permission test, and the services check.

Personas (healthchecks' alice/bob/charlie): `gm` runs the campaign, `alice` plays in
it, `sam` spectates, `charlie` is an outsider with an account.
"""

from __future__ import annotations

import pytest
from django.conf import settings

# Websocket handlers reach the database from worker threads; persistent connections
# there would outlive each test and block dropping the PostgreSQL test database.
settings.DATABASES["default"]["CONN_MAX_AGE"] = 0


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under REQUIRE_SERVICES (CI), refuse to run on the embedded fallbacks."""
    if not settings.REQUIRE_SERVICES:
        return
    problems = []
    if not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        problems.append("DATABASE_URL does not point at PostgreSQL")
    else:
        import psycopg

        db = settings.DATABASES["default"]
        try:
            psycopg.connect(
                host=db["HOST"],
                port=db["PORT"] or 5432,
                user=db["USER"],
                password=db["PASSWORD"],
                dbname=db["NAME"],
                connect_timeout=5,
            ).close()
        except psycopg.Error as exc:
            problems.append(f"PostgreSQL is unreachable: {exc}")
    if not settings.REDIS_URL:
        problems.append("REDIS_URL is not set")
    else:
        import redis

        try:
            redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=5).ping()
        except redis.RedisError as exc:
            problems.append(f"Redis is unreachable: {exc}")
    if problems:
        pytest.exit("REQUIRE_SERVICES=1 but " + "; ".join(problems), returncode=3)


@pytest.fixture
def make_user(db):
    from django.contrib.auth import get_user_model

    def make(username: str, display_name: str = "") -> object:
        return get_user_model().objects.create_user(
            username=username, password="correct horse battery", display_name=display_name
        )

    return make


@pytest.fixture
def gm(make_user):
    return make_user("gm", "Gwen")


@pytest.fixture
def alice(make_user):
    return make_user("alice", "Alice")


@pytest.fixture
def sam(make_user):
    return make_user("sam", "Sam")


@pytest.fixture
def charlie(make_user):
    return make_user("charlie", "Charlie")


@pytest.fixture
def campaign(gm, alice, sam):
    from campaigns.models import Campaign, Membership, Role

    campaign = Campaign.objects.create(name="The Sunken Crown", genre="Fantasy", gm=gm)
    Membership.objects.create(campaign=campaign, user=alice, role=Role.PLAYER)
    Membership.objects.create(campaign=campaign, user=sam, role=Role.SPECTATOR)
    return campaign
