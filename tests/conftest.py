"""Shared fixtures: the personas of every permission test, the live table, the fast
password hasher, each xdist worker's own services, and the services check.

Personas (healthchecks' alice/bob/charlie): `gm` runs the campaign, `alice` and `bob`
play in it, `sam` spectates, `charlie` is an outsider with an account.
"""

from __future__ import annotations

import os
import urllib.parse

import hypothesis
import pytest
from django.conf import settings
from django.template import Template

from questworlds_site.env import channel_layer_from_env

# Tests log people in by the thousand: Django's 1,000,000 PBKDF2 rounds would cost
# 0.4 s a user and prove nothing about the app. The live servers the browser tests
# start keep the real hasher.
settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The pytest process runs ORM code from many short-lived threads (each async test's
# executor), and a thread gives its connection back to psycopg's pool only when it
# closes it: over a whole run the borrowed connections reach the pool's bound and every
# later query waits DB_POOL_TIMEOUT, so socket tests time out at random. The tests'
# own process connects without the pool; the servers the tests start (browser tests,
# tests/site/test_connection_burst.py) keep it, as production does.
settings.DATABASES["default"].get("OPTIONS", {}).pop("pool", None)

# Speed is measured by the benchmarks, never asserted: Hypothesis's per-example deadline
# is a timed assert that a busy machine (two workers, a browser) trips at random.
# Sized for the working loop by default ("ci": a quarter of Hypothesis's 100 examples a
# test); HYPOTHESIS_PROFILE=thorough searches ten times longer than Hypothesis would.
# A test asking for more than the default scales with the profile (tests/examples.py).
hypothesis.settings.register_profile("ci", deadline=None, max_examples=25)
hypothesis.settings.register_profile("thorough", deadline=None, max_examples=1000)
hypothesis.settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def _isolate_worker_services() -> None:
    """Give each pytest-xdist worker its own Redis database and channel-name prefix.

    pytest-django already gives each worker its own test database (`test_<name>_gw0`);
    Redis pub/sub channels ignore the database number, so the prefix keeps one worker's
    table groups from reaching another's sockets. The prefix also names the run's
    database, so two runs at once on one machine (two checkouts, CI beside a session)
    never hear each other. The environment carries both to the servers the tests start.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker or not settings.REDIS_URL:
        return
    number = int(worker.removeprefix("gw") or 0)
    parts = urllib.parse.urlsplit(settings.REDIS_URL)
    base = int(parts.path.strip("/") or 0)
    url = parts._replace(path=f"/{(base + 1 + number) % 16}").geturl()
    database = str(settings.DATABASES["default"]["NAME"]).rsplit("/", 1)[-1][:40]
    prefix = f"qw-{database}-{worker}"
    os.environ["REDIS_URL"] = settings.REDIS_URL = url
    # The settings too: the rate limits' counts live under the prefix (throttle.py), and
    # each test's reset must clear the servers' counts as well as this process's.
    os.environ["CHANNEL_PREFIX"] = settings.CHANNEL_PREFIX = prefix
    settings.CHANNEL_LAYERS = {
        "default": channel_layer_from_env(url, settings.CHANNEL_LAYER, prefix=prefix)
    }


_isolate_worker_services()


# Test databases are written and thrown away: no commit waits for the disk. libpq reads
# PGOPTIONS, so the servers and `manage.py` runs the tests start inherit it too.
os.environ["PGOPTIONS"] = "-c synchronous_commit=off"


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix) -> None:
    """Each worker's test database is a copy of the migrated template the live servers
    start from (bench/liveserver.py `prepared_template`), made once per version of the
    migrations: one migration run for the whole suite instead of one per worker (Django
    then finds nothing left to apply)."""
    database = settings.DATABASES["default"]
    if database["ENGINE"].endswith("postgresql"):
        from bench.liveserver import prepared_template

        database.setdefault("TEST", {})["TEMPLATE"] = prepared_template("migrated")


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, dropped at the end even where threads of the run
    (the executors of async tests and consumers) still hold connections to it: they are
    ended first, so no test database is left behind ("is being accessed by other users")."""
    yield
    from django.db import connection

    if connection.vendor == "postgresql":
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


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


# Django's test environment wraps every template's rendering to record it with its
# context (`response.context`, `assertTemplateUsed`): a signal and a copy of the
# context for each template and each include, 5% of a page's rendering here. No test
# reads them; pages are checked by what they show. Rendered as the server renders.
_PLAIN_RENDER = Template._render


@pytest.fixture(scope="session", autouse=True)
def _templates_rendered_as_served(django_test_environment):
    Template._render = _PLAIN_RENDER


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Each test starts with no rate-limit counts (they live in the worker's Redis
    database, shared with the servers the browser tests start)."""
    from questworlds_site import throttle

    throttle.reset()
    yield


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


@pytest.fixture
def bob(make_user, campaign):
    """A second player of the campaign: owns none of alice's characters."""
    from campaigns.models import Membership, Role

    user = make_user("bob", "Bob")
    Membership.objects.create(campaign=campaign, user=user, role=Role.PLAYER)
    return user


@pytest.fixture
def table(campaign, gm):
    """The campaign's live table: `table.frame(...)`, `table.act(...)` (tests/table.py)."""
    from tests.table import Table

    return Table(campaign, gm)
