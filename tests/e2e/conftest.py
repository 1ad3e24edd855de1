"""Browser tests: Playwright driving Debian's Chromium against the real server (uvicorn).

Never a downloaded browser: the executable is Debian's `chromium-headless-shell`, else
its `chromium` (or CHROMIUM_PATH).
Without one the tests are skipped on a laptop, but fail under REQUIRE_SERVICES (CI).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field

import pytest
from django.conf import settings
from playwright.sync_api import expect

from bench.liveserver import ROOT, app_server, free_port, fresh_database, manage, server_env

# The browsers here press at machine speed, many times a person's pace, and a module's
# tests share their users: the per-person limit on table actions (20 in 10 s unless set)
# is raised for these servers, so that it never decides a test by how fast the machine
# is. The limit itself is tested on the browsers' path in tests/contests/test_rate_limit.py.
MACHINE_SPEED = {"ACTION_RATE_LIMIT": "100/10 seconds"}

# The Discord relay's stand-in (tests/e2e/test_webhooks.py) listens on this port of this
# machine: the table server may send to it, plain HTTP, and to nothing else inside.
WEBHOOK_RECEIVER_PORT = free_port()
RELAY_TO_RECEIVER = {
    "WEBHOOK_ALLOWED_HOSTS": f"127.0.0.1:{WEBHOOK_RECEIVER_PORT}",
    "WEBHOOK_ALLOW_HTTP": "1",
}

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
    """Debian's `chromium-headless-shell` where it is installed: Chromium's own headless
    build, the one Playwright runs for headless tests by default (the same Blink and V8
    as the `chromium` package of the same version, without the desktop browser's
    layers), at half the CPU (tests/e2e/test_long_contests.py: 33 s of Chromium CPU
    with `chromium --headless`, 15 s with the shell). Else Debian's `chromium`."""
    return (
        os.environ.get("CHROMIUM_PATH")
        or shutil.which("chromium-headless-shell")
        or shutil.which("chromium")
    )


# Under pytest-xdist (--dist loadgroup) every browser test runs on one worker: one
# Chromium and one table server, while the other worker runs the rest. With
# SPREAD_OVER_WORKERS each module is a group of its own instead: whole modules go to
# whichever worker is free, each worker then starting its own Chromium (again after
# other tests) and its own table server.
SPREAD_OVER_WORKERS = False


def browser_group(item) -> str:
    return f"browser-{item.module.__name__}" if SPREAD_OVER_WORKERS else "browser"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.xdist_group(browser_group(item)))


class Chromium:
    """One Chromium for a run of browser tests one after the other, started by the
    first and stopped after the last (`pytest_runtest_teardown` below), not kept for
    the whole session: Playwright's sync API keeps an event loop running in the main
    thread while it is open, and Django then refuses database calls from that thread
    ("cannot call this from an async context"), which would fail the database tests
    that run on the same worker after the browser tests. Under xdist the browser tests
    are one group, sent to their worker together, so one Chromium serves them all; in
    any other order it is started again after other tests."""

    def __init__(self) -> None:
        self._playwright = None
        self._browser = None

    def get(self):
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(
                executable_path=chromium_path(), args=CHROMIUM_FLAGS, headless=True
            )
        return self._browser

    def stop(self) -> None:
        if self._playwright is not None:
            with contextlib.suppress(Exception):
                self._browser.close()
            self._playwright.stop()
            self._playwright = self._browser = None


CHROMIUM = Chromium()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After the last browser test of a run (its module's fixtures torn down first), the
    browser goes, and with it Playwright's event loop."""
    yield
    if nextitem is None or nextitem.get_closest_marker("e2e") is None:
        CHROMIUM.stop()


def pytest_sessionfinish(session):
    CHROMIUM.stop()


@pytest.fixture(scope="module")
def browser():
    if chromium_path() is None:
        if settings.REQUIRE_SERVICES:
            pytest.fail(
                "REQUIRE_SERVICES=1 but no Chromium was found "
                "(apt-get install chromium-headless-shell)"
            )
        pytest.skip(
            "no Chromium found; install Debian's chromium-headless-shell to run browser tests"
        )
    return CHROMIUM.get()


# Each user's cookies once logged in on a server, by (base URL, username): every user
# logs in through the login form once a server; later contexts reuse the cookies (the
# servers keep Django's real password hasher, slow on purpose). So no test logs these
# users out: a test of logging out signs a user of its own in (`People.anonymous`).
LOGINS: dict[tuple[str, str], dict] = {}


def logged_in(browser, base: str, username: str, **options):
    """A new browser context (its own cookies; `options` as for `new_context`) logged in
    as `username` (demo password), and its page: on /home/ after the form the first
    time, blank after."""
    saved = LOGINS.get((base, username))
    context = browser.new_context(storage_state=saved, **options)
    page = accepting(context.new_page())
    if saved is None:
        page.goto(f"{base}/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill("questworlds")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{base}/home/")
        LOGINS[(base, username)] = context.storage_state()
    return page


def at_home(browser, base: str, username: str, **options):
    """`logged_in`, on the user's home page."""
    page = logged_in(browser, base, username, **options)
    if page.url != f"{base}/home/":
        page.goto(f"{base}/home/")
    return page


@pytest.fixture(scope="session")
def live_url(table_server):
    """The table server's base URL: its demo campaign, The Sunken Crown, is played by the
    tests that use it (other tests play in campaigns of their own there)."""
    return table_server.base


@pytest.fixture
def log_in_page(browser, live_url):
    """A new browser context (its own cookies), logged in as the given demo user, on
    their home page."""
    contexts = []

    def open_as(username: str):
        page = at_home(browser, live_url, username)
        contexts.append(page.context)
        return page

    yield open_as
    for context in contexts:
        context.close()


# --------------------------------------------------------------------- a table server
# One server a test session (a worker, under xdist) for the browser tests: each test
# plays in campaigns of its own, made here for setup; the demo campaign itself is
# played by the few tests that use `live_url`.

STAFF_AND_SPECTATOR = """
from django.contrib.auth import get_user_model
User = get_user_model()
User.objects.create_user(
    username="admin", password="questworlds", display_name="Ada the admin", is_staff=True
)
User.objects.create_user(username="sam", password="questworlds", display_name="Sam")
"""

NEW_CAMPAIGNS = """
from django.contrib.auth import get_user_model
from campaigns.demo import brannoc_create, tamsin_create
from campaigns.models import Membership, Role
from campaigns.services import campaign_create, session_start
users = {u.username: u for u in get_user_model().objects.all()}
result = {}
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
    result[name] = campaign.pk
"""

# A copy of the demo campaign (campaigns.demo.demo_campaign_for, for users who exist:
# Alice's Tamsin, Bob's Brannoc, Ashfen and its resources, the archive's first session)
# under another name, with the next session open as the demo's table was for play.
DEMO_COPY = """
from django.contrib.auth import get_user_model
from django.utils import timezone
from campaigns.demo import demo_campaign_for
from campaigns.models import Session
users = {u.username: u for u in get_user_model().objects.all()}
campaign = demo_campaign_for(users, NAME)
campaign.physical_dice = PHYSICAL_DICE
campaign.save(update_fields=["physical_dice"])
number = (campaign.sessions.order_by("-number").values_list("number", flat=True).first() or 0) + 1
Session.objects.create(campaign=campaign, number=number, started_at=timezone.now())
result = campaign.pk
"""

# The loop of a `manage.py shell` kept open: each line in is a JSON string of code, run
# on its own; each answer a line out, marked, with the code's `result` or its error.
SHELL_LOOP = """
import json, sys, traceback
for line in sys.stdin:
    namespace = {}
    try:
        exec(json.loads(line), namespace)
        answer = ["ok", namespace.get("result")]
    except Exception:
        answer = ["error", traceback.format_exc()]
    sys.stdout.write("@shell-answer " + json.dumps(answer) + "\\n")
    sys.stdout.flush()
"""


class Shell:
    """A Django shell on a server's database, started once and kept open: setting up a
    test's campaigns is one round trip instead of a Django start (a `manage.py shell`
    each time cost 1 to 2 s of CPU)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "shell", "-c", SHELL_LOOP],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.errors: list[str] = []
        for target in (self._read, self._keep):
            threading.Thread(target=target, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _keep(self) -> None:
        for line in self.process.stderr:
            self.errors.append(line)

    def run(self, code: str, timeout: float = 120):
        """Run `code` in the shell; what it left in `result`."""
        self.process.stdin.write(json.dumps(code) + "\n")
        self.process.stdin.flush()
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise RuntimeError(f"the shell did not answer in {timeout} s") from None
            if line is None:
                raise RuntimeError("the shell exited:\n" + "".join(self.errors[-40:]))
            if line.startswith("@shell-answer "):
                status, value = json.loads(line.removeprefix("@shell-answer "))
                if status != "ok":
                    raise RuntimeError(f"the shell's code failed:\n{value}")
                return value

    def close(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@dataclass(frozen=True)
class TableServer:
    base: str
    env: dict[str, str]
    shell: Shell = field(repr=False)

    def new_campaigns(self, *names: str) -> dict[str, int]:
        """Campaigns run by `gm` with the demo's players and characters (Alice's Tamsin,
        Bob's Brannoc), `sam` as a spectator, physical dice allowed and a session open."""
        return self.shell.run(f"NAMES = {list(names)!r}\n{NEW_CAMPAIGNS}")

    def demo_campaign(self, name: str, *, physical_dice: bool = False) -> int:
        """A copy of the demo campaign named `name` (run by `gm`, Alice's Tamsin and Bob's
        Brannoc, Ashfen and its resources, the archive's first session) with the next
        session open, as the demo's own table is for play."""
        code = f"NAME = {name!r}\nPHYSICAL_DICE = {physical_dice!r}\n{DEMO_COPY}"
        return self.shell.run(code)


@pytest.fixture(scope="session")
def table_server(tmp_path_factory):
    """The demo data, a staff account (`admin`) and a spectator (`sam`), served by uvicorn."""
    with fresh_database(tmp_path_factory.mktemp("tables"), template="demo") as database_url:
        env = server_env(database_url, **MACHINE_SPEED, **RELAY_TO_RECEIVER)
        shell = Shell(env)
        try:
            shell.run(STAFF_AND_SPECTATOR)
            with app_server(env) as base:
                yield TableServer(base, env, shell)
        finally:
            shell.close()


class People:
    """Browser contexts (each its own cookies), closed together. Each user logs in
    through the login form once a server (`logged_in`); later contexts reuse their
    cookies."""

    def __init__(self, browser, base: str) -> None:
        self.browser, self.base, self.contexts = browser, base, []

    def anonymous(self, **options):
        context = self.browser.new_context(**options)
        self.contexts.append(context)
        return with_options_open(accepting(context.new_page()))

    def log_in(self, username: str, **options):
        page = with_options_open(logged_in(self.browser, self.base, username, **options))
        self.contexts.append(page.context)
        return page

    def at_table(self, username: str, campaign_id: int, **options):
        page = self.log_in(username, **options)
        open_table(page, self.base, campaign_id)
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


def open_table(page, base: str, campaign_id: int) -> None:
    page.goto(f"{base}/campaigns/{campaign_id}/table/")
    expect(page.locator("#connection-status")).to_have_text("Connected")


@pytest.fixture
def people(browser, table_server):
    crowd = People(browser, table_server.base)
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
    """A new browser context of `width` px, logged in as `username` (demo password), on
    their home page."""
    return at_home(browser, base, username, viewport={"width": width, "height": 900})
