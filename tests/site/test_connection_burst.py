"""Database connections come from a bounded pool (issue 12, item 4): a burst of page
loads and table actions over two real uvicorn processes never fails, and PostgreSQL
never holds more connections for the app than the two pools allow."""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from bench.liveserver import app_process, fresh_database, log_in, manage, server_env
from questworlds_site.env import database_from_url

ROOT = Path(__file__).resolve().parents[2]

POOL_MAX = 6
# 24 requests at once against 2 x 6 connections: the pools run dry from the first
# requests on, whatever the burst's length; a longer one only repeats that.
CONCURRENCY = 24
PAGE_LOADS = 200
ACTIONS = 50

FRAME = """
import json
from django.contrib.auth import get_user_model
from campaigns.models import Campaign
from campaigns.services import session_start
from contests.services import contest_frame
gm = get_user_model().objects.get(username="gm")
campaign = Campaign.objects.filter(gm=gm).order_by("pk").first()
character = campaign.characters.order_by("pk").first()
if campaign.open_session() is None:
    session_start(campaign=campaign, actor=gm, title="Burst", attendees=campaign.characters.all())
contest = contest_frame(
    campaign=campaign, user=gm, idempotency_key="burst",
    data={"kind": "simple", "prize": "the ford", "pc": {"character_id": character.pk},
          "opponent": {"name": "The Grey River", "level": "moderate"}},
).contest
sheets = {c.player.username: c.pk for c in campaign.characters.select_related("player")}
sheets["gm"] = character.pk  # the GM may look at any sheet of the campaign
print(json.dumps({"campaign": campaign.pk, "contest": contest.pk, "sheets": sheets}))
"""


class Sampler(threading.Thread):
    """Counts the database's connections every 20 ms while the burst runs."""

    def __init__(self, admin_url: str, database: str) -> None:
        super().__init__(daemon=True)
        self.admin_url, self.database = admin_url, database
        self.counts: list[int] = []
        self.done = threading.Event()

    def run(self) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            while not self.done.is_set():
                row = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [self.database]
                ).fetchone()
                self.counts.append(row[0])
                self.done.wait(0.02)


def _csrf(opener, base: str, campaign: int) -> str:
    page = opener.open(f"{base}/campaigns/{campaign}/table/", timeout=60).read().decode()
    return re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)


@pytest.mark.skipif(
    not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
    reason="the pool is PostgreSQL's (SQLite has no connection limit to run out of)",
)
@pytest.mark.xdist_group("servers")
def test_a_burst_over_two_processes_stays_within_the_pools(tmp_path):
    with fresh_database(tmp_path, template="demo") as database_url:
        env = server_env(
            database_url,
            DB_POOL_MAX_SIZE=str(POOL_MAX),
            ACTION_RATE_LIMIT="1000/10 seconds",  # this test is about connections
            # Every action taken: the pools, not the process's admission, bound it.
            TABLE_BUSY_AFTER="0",
            TABLE_BUSY_WAIT_MS="0",
        )
        ids = json.loads(manage(env, "shell", "-c", FRAME).strip().splitlines()[-1])
        campaign, contest = ids["campaign"], ids["contest"]
        database = urllib.parse.urlsplit(database_url).path.lstrip("/")
        admin = urllib.parse.urlsplit(database_url)._replace(path="/postgres").geturl()
        with app_process(env) as (_a, first), app_process(env) as (_b, second):
            bases = (first, second)
            sessions = []
            for base in bases:
                for username in ("gm", "alice", "bob"):
                    opener = log_in(base, username, "questworlds")[0]
                    sessions.append((base, username, opener, _csrf(opener, base, campaign)))
            pages = (
                "/home/",
                f"/campaigns/{campaign}/",
                f"/campaigns/{campaign}/table/",
                "/characters/{sheet}/",  # each person's own character sheet
                f"/campaigns/{campaign}/archive/",
            )

            def load(n: int) -> int:
                base, user, opener, _token = sessions[n % len(sessions)]
                page = pages[n % len(pages)].format(sheet=ids["sheets"][user])
                try:
                    with opener.open(base + page, timeout=120) as response:
                        return response.status
                except urllib.error.HTTPError as error:
                    return error.code

            def act(n: int) -> int:
                gm_sessions = [s for s in sessions if s[1] == "gm"]
                base, _user, opener, token = gm_sessions[n % len(gm_sessions)]
                data = urllib.parse.urlencode(
                    {
                        "action": "set_tactic",
                        "contest": str(contest),
                        "key": f"burst-{n}",
                        "side": "opponent",
                        "tactic": f"Rise {n}",
                    }
                ).encode()
                request = urllib.request.Request(
                    f"{base}/campaigns/{campaign}/table/act/",
                    data=data,
                    headers={"HX-Request": "true", "X-CSRFToken": token, "Referer": base},
                )
                try:
                    with opener.open(request, timeout=120) as response:
                        body = response.read().decode()
                        return 200 if "Nothing was done" not in body else 409
                except urllib.error.HTTPError as error:
                    return error.code

            sampler = Sampler(admin, database)
            sampler.start()
            with ThreadPoolExecutor(max_workers=CONCURRENCY) as pool:
                loads = pool.map(load, range(PAGE_LOADS))
                acts = pool.map(act, range(ACTIONS))
                statuses = list(loads) + list(acts)
            sampler.done.set()
            sampler.join(timeout=10)

    failures = [s for s in statuses if s != 200]
    assert failures == [], f"{len(failures)} of {len(statuses)} requests failed: {failures[:20]}"
    # Two processes, each at most POOL_MAX connections; the sampler's own is not in
    # this database (it connects to "postgres").
    assert sampler.counts, "the sampler saw nothing"
    assert max(sampler.counts) <= 2 * POOL_MAX, sampler.counts
    print(f"connections during the burst: max {max(sampler.counts)}, pool bound {2 * POOL_MAX}")


def test_postgresql_borrows_from_a_pool_sized_by_the_environment(monkeypatch):
    monkeypatch.setenv("DB_POOL_MAX_SIZE", "4")
    monkeypatch.setenv("DB_POOL_TIMEOUT", "5")
    database = database_from_url("postgres://app@db:5432/questworlds", ROOT)
    # Django refuses a pool beside persistent connections (and under ASGI those pile up).
    assert database["CONN_MAX_AGE"] == 0
    assert database["OPTIONS"]["pool"] == {"min_size": 1, "max_size": 4, "timeout": 5}
    # Each statement is prepared on its pooled connection after a few runs, its values
    # bound by the server (tests/contests/test_prepared_reads.py plays a cycle so).
    assert database["OPTIONS"]["prepare_threshold"] == 5
    assert database["OPTIONS"]["server_side_binding"] is True


def test_the_pool_can_be_turned_off_and_refuses_nonsense(monkeypatch):
    monkeypatch.setenv("DB_POOL_MAX_SIZE", "0")  # behind pgbouncer, say
    options = database_from_url("postgres://app@db/questworlds", ROOT)["OPTIONS"]
    assert "pool" not in options
    # A connection lasts one request then: nothing is prepared on it (pgbouncer's
    # transaction mode would hand a prepared statement's connection to someone else),
    # while the values are still bound by the server.
    assert "prepare_threshold" not in options and options["server_side_binding"] is True
    monkeypatch.setenv("DB_POOL_MAX_SIZE", "ten")
    with pytest.raises(ImproperlyConfigured, match="DB_POOL_MAX_SIZE"):
        database_from_url("postgres://app@db/questworlds", ROOT)


def test_sqlite_has_no_pool(monkeypatch):
    monkeypatch.setenv("DB_POOL_MAX_SIZE", "4")
    database = database_from_url("sqlite:///db.sqlite3", ROOT)
    assert "pool" not in database.get("OPTIONS", {})
