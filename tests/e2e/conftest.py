"""Browser tests: Playwright driving Debian's Chromium against the real server (uvicorn).

Never a downloaded browser: the executable is Debian's `chromium` (or CHROMIUM_PATH).
Without one the tests are skipped on a laptop, but fail under REQUIRE_SERVICES (CI).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from dataclasses import dataclass

import pytest
from django.conf import settings
from playwright.sync_api import expect

from bench.liveserver import app_server, demo_server, fresh_database, manage, server_env

# The browsers here press at machine speed, many times a person's pace, and a module's
# tests share their users: the per-person limit on table actions (20 in 10 s unless set)
# is raised for these servers, so that it never decides a test by how fast the machine
# is. The limit itself is tested on the browsers' path in tests/contests/test_rate_limit.py.
MACHINE_SPEED = {"ACTION_RATE_LIMIT": "100/10 seconds"}

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# What the browser refused under the Content-Security-Policy during the current test.
CSP_VIOLATIONS: list[str] = []


def _watch_csp(message) -> None:
    if "Content Security Policy" in message.text:
        where = message.location
        CSP_VIOLATIONS.append(f"{where.get('url', '')}:{where.get('lineNumber')}: {message.text}")


OPTIONS_OPEN = """
for (const name of ["side-pc", "side-opponent", "contest"]) {
  sessionStorage.setItem("qw-open:" + name, "1");
}
"""


def with_options_open(page):
    """The page has opened the contest's "Options for ..." and "More actions"
    disclosures, as a person does once in a tab (the table keeps them open after). For
    tests of what those options do; the tests of the bar leave them closed."""
    page.add_init_script(OPTIONS_OPEN)
    return page


def accepting(page):
    """The page says yes to the confirmation an action that cannot be taken back asks
    (`hx-confirm`); Playwright would otherwise dismiss it and nothing would be sent.
    Anything the Content-Security-Policy blocks on the page fails the test."""
    page.on("dialog", lambda dialog: dialog.accept())
    page.on("console", _watch_csp)
    return page


@pytest.fixture(autouse=True)
def no_csp_violation():
    """Every browser test doubles as a check that the CSP blocks nothing the app needs
    (an inline script or style left in a template would break in real browsers)."""
    CSP_VIOLATIONS.clear()
    yield
    assert CSP_VIOLATIONS == [], "the Content-Security-Policy blocked:\n" + "\n".join(
        CSP_VIOLATIONS
    )


def chromium_path() -> str | None:
    return os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)
            # Under pytest-xdist (--dist loadgroup) every browser test runs on one worker:
            # one Chromium and one demo server, while the other worker runs the rest.
            item.add_marker(pytest.mark.xdist_group("browser"))


# Per module, not per session: Playwright's sync API keeps an event loop running in the
# main thread while it is open, and Django then refuses database calls from that thread
# ("cannot call this from an async context"), which would fail the database tests that
# pytest-xdist runs on the same worker after the browser tests.
@pytest.fixture(scope="module")
def browser():
    path = chromium_path()
    if path is None:
        if settings.REQUIRE_SERVICES:
            pytest.fail("REQUIRE_SERVICES=1 but no Chromium was found (apt-get install chromium)")
        pytest.skip("no Chromium found; install Debian's chromium package to run browser tests")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=path, args=CHROMIUM_FLAGS, headless=True
        )
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def live_url(tmp_path_factory):
    """The demo campaign served by uvicorn on a fresh database (PostgreSQL + Redis in CI)."""
    with demo_server(tmp_path_factory.mktemp("live"), **MACHINE_SPEED) as base:
        yield base


@pytest.fixture
def log_in_page(browser, live_url):
    """A new browser context (its own cookies), logged in as the given demo user."""
    contexts = []

    def open_as(username: str, password: str = "questworlds"):
        context = browser.new_context()
        contexts.append(context)
        page = accepting(context.new_page())
        page.goto(f"{live_url}/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{live_url}/home/")
        return page

    yield open_as
    for context in contexts:
        context.close()


# --------------------------------------------------------------------- a table server
# One server a test session (a worker, under xdist) for the browser tests that need the
# server's environment: each test plays in campaigns of its own, made here for setup.

STAFF_AND_SPECTATOR = """
from django.contrib.auth import get_user_model
User = get_user_model()
User.objects.create_user(
    username="admin", password="questworlds", display_name="Ada the admin", is_staff=True
)
User.objects.create_user(username="sam", password="questworlds", display_name="Sam")
"""

NEW_CAMPAIGNS = """
import json
from django.contrib.auth import get_user_model
from campaigns.demo import brannoc_create, tamsin_create
from campaigns.models import Membership, Role
from campaigns.services import campaign_create, session_start
users = {u.username: u for u in get_user_model().objects.all()}
ids = {}
for name in NAMES:
    campaign = campaign_create(gm=users["gm"], name=name, genre="Bronze-age fantasy")
    campaign.physical_dice = True
    campaign.save()
    Membership.objects.create(campaign=campaign, user=users["alice"], role=Role.PLAYER)
    Membership.objects.create(campaign=campaign, user=users["bob"], role=Role.PLAYER)
    Membership.objects.create(campaign=campaign, user=users["sam"], role=Role.SPECTATOR)
    tamsin_create(users["alice"], campaign)
    brannoc_create(users["bob"], campaign)
    session_start(
        campaign=campaign, actor=users["gm"], title="Low water", attendees=campaign.characters.all()
    )
    ids[name] = campaign.pk
print(json.dumps(ids))
"""


@dataclass(frozen=True)
class TableServer:
    base: str
    env: dict[str, str]

    def new_campaigns(self, *names: str) -> dict[str, int]:
        """Campaigns run by `gm` with the demo's players and characters (Alice's Tamsin,
        Bob's Brannoc), `sam` as a spectator, physical dice allowed and a session open."""
        out = manage(self.env, "shell", "-c", f"NAMES = {list(names)!r}\n{NEW_CAMPAIGNS}")
        return json.loads(out.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def table_server(tmp_path_factory):
    """The demo data, a staff account (`admin`) and a spectator (`sam`), served by uvicorn."""
    with fresh_database(tmp_path_factory.mktemp("tables"), template="demo") as database_url:
        env = server_env(database_url, **MACHINE_SPEED)
        manage(env, "shell", "-c", STAFF_AND_SPECTATOR)
        with app_server(env) as base:
            yield TableServer(base, env)


class People:
    """Browser contexts (each its own cookies), closed together. Each user logs in
    through the login form once a test session; later contexts reuse their cookies."""

    def __init__(self, browser, base: str, logins: dict) -> None:
        self.browser, self.base, self.logins, self.contexts = browser, base, logins, []

    def anonymous(self, **options):
        context = self.browser.new_context(**options)
        self.contexts.append(context)
        return with_options_open(accepting(context.new_page()))

    def log_in(self, username: str):
        if username in self.logins:
            return self.anonymous(storage_state=self.logins[username])
        page = self.anonymous()
        page.goto(f"{self.base}/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill("questworlds")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{self.base}/home/")
        self.logins[username] = page.context.storage_state()
        return page

    def at_table(self, username: str, campaign_id: int):
        page = self.log_in(username)
        open_table(page, self.base, campaign_id)
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


def open_table(page, base: str, campaign_id: int) -> None:
    page.goto(f"{base}/campaigns/{campaign_id}/table/")
    expect(page.locator("#connection-status")).to_have_text("Connected")


@pytest.fixture(scope="session")
def table_logins():
    """Each user's cookies once logged in on the table server, for new contexts."""
    return {}


@pytest.fixture
def people(browser, table_server, table_logins):
    crowd = People(browser, table_server.base, table_logins)
    yield crowd
    crowd.close()


# --------------------------------------------------------------------- at the table


def frame_contest(gm, kind: str, prize: str, pc: str, *, against=None, name=None, level=None):
    """The GM frames a contest from the form: `kind` as the Type menu says it, `pc` as
    the Player character menu does ("Tamsin Reedwalker (Alice)"); the resistance is
    another player character (`against`) or a `name` with a class (`level`)."""
    form = gm.locator("form", has=gm.get_by_role("button", name="Frame it"))
    form.get_by_label(re.compile(r"^Type")).select_option(label=kind)
    form.get_by_label(re.compile(r"^Prize")).fill(prize)
    form.get_by_label(re.compile(r"^Player character")).select_option(label=pc)
    resistance = form.get_by_role("group", name="Resistance", exact=True)
    if against:
        resistance.get_by_label("Or another player character").select_option(label=against)
    if name:
        resistance.get_by_label(re.compile(r"^Name")).fill(name)
    if level:
        resistance.get_by_label(re.compile(r"^Class")).select_option(label=level)
    form.get_by_role("button", name="Frame it").click()


def side(page, key: str):
    """One side of the contest panel: "pc" or "opponent"."""
    return page.locator(f"#contest .side[data-side={key}]")


def choose_ability(page, key: str, ability: str) -> None:
    """Choose the side's ability from the form this person sees for it: in their "your
    move" bar when the table waits on it, else on the side's panel."""
    form = page.locator(
        f'form[data-action=choose_ability]:has(input[name=side][value="{key}"]):visible'
    ).first
    form.locator("select[name=ability_id]").select_option(label=ability)
    form.get_by_role("button", name="Choose an ability").click()


def enter_roll(page, key: str, roll: int) -> None:
    panel = side(page, key)
    panel.get_by_label("Your d20").fill(str(roll))
    panel.get_by_role("button", name="Enter a physical roll").click()


# -- a demo table with an open session, for the tests of the table for play (issue 15) -----

OPEN_SESSION = """
from django.utils import timezone
from campaigns.models import Campaign, Session
campaign = Campaign.objects.get(name="The Sunken Crown")
number = (campaign.sessions.order_by("-number").values_list("number", flat=True).first() or 0) + 1
Session.objects.create(campaign=campaign, number=number, started_at=timezone.now())
"""


@contextlib.contextmanager
def demo_table(tmp_path_factory, name: str, setup: str = ""):
    """uvicorn on a fresh copy of the demo database with a session open in the demo
    campaign (and `setup`, more shell code, run first): yields (base URL, campaign id)."""
    with fresh_database(tmp_path_factory.mktemp(name), template="demo") as database_url:
        env = server_env(database_url, **MACHINE_SPEED)
        script = OPEN_SESSION + setup + "\nprint(campaign.pk)\n"
        campaign_id = manage(env, "shell", "-c", script).strip().splitlines()[-1]
        with app_server(env) as base:
            yield base, campaign_id


def sign_in(browser, base: str, username: str, width: int = 1280):
    """A new browser context of `width` px, logged in as `username` (demo password)."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = accepting(context.new_page())
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("questworlds")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/home/")
    return page
