"""Browser tests: Playwright driving Debian's Chromium against the real Daphne server.

Never a downloaded browser: the executable is Debian's `chromium` (or CHROMIUM_PATH).
Without one the tests are skipped on a laptop, but fail under REQUIRE_SERVICES (CI).
"""

from __future__ import annotations

import os
import shutil

import pytest
from django.conf import settings

from tests.liveserver import demo_server

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    return os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
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
    """The demo campaign served by Daphne on a fresh database (PostgreSQL + Redis in CI)."""
    with demo_server(tmp_path_factory.mktemp("live")) as base:
        yield base


@pytest.fixture
def log_in_page(browser, live_url):
    """A new browser context (its own cookies), logged in as the given demo user."""
    contexts = []

    def open_as(username: str, password: str = "questworlds"):
        context = browser.new_context()
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{live_url}/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{live_url}/home/")
        return page

    yield open_as
    for context in contexts:
        context.close()
