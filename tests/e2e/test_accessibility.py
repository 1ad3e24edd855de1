"""An axe-core scan (axe-playwright-python, which bundles axe-core) of every page people
reach by links, at 1280 px and at 390 px: no serious or critical violation (issues 15
and 27).

Not a list of pages: from each role's home (anonymous, a new user who has just signed
up, the demo GM, both players and a spectator) the scan follows every link to this site
(GET only: never logging out, never a download), and scans the pages it reaches as that
person sees them, at both widths. So that it stays short, URLs are told apart by their
route, one page of a route scanned for the GM and one for the players (what they see
differs: the GM's forms); the others' pages are scanned where no one's were (their
table is scanned with a contest below). It must reach at least the pages the scan's
old list named, so it cannot shrink without failing. Then a contest is played at the
table through its controls, and the tables scanned at each phase: framed, ready to
roll, rolled, decided and over.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.urls import Resolver404, resolve
from playwright.sync_api import expect

from .conftest import accepting, demo_table, frame_contest

SPECTATOR = """
from django.contrib.auth import get_user_model
from campaigns.models import Membership, Role
watcher = get_user_model().objects.create_user("sam", password="questworlds", display_name="Sam")
Membership.objects.create(campaign=campaign, user=watcher, role=Role.SPECTATOR)
"""

AXE_SCRIPT = Axe().axe_script
# axe-core's default rules (as the scan always ran), violations only.
AXE_OPTIONS = {"resultTypes": ["violations"]}
SERIOUS = ("serious", "critical")
WIDTHS = (1280, 390)
# Links the crawl never follows: leaving (logging out), files to download (not pages),
# and Django's admin (a staff tool of its own, not the app's pages).
NOT_PAGES = ("logout", "export", "admin:")
# Whose pages are scanned apart: the GM's and the players' differ by their forms; a
# spectator's, a new user's and a visitor's only where no one else's were.
SCANNED_AS = {"gm": "gm", "alice": "player", "bob": "player"}

# The pages the scan's old list named (issue 15): the crawl must reach each of them.
OLD_LIST = (
    "/home/",
    "/campaigns/{id}/",
    "/campaigns/{id}/table/",
    "/campaigns/{id}/archive/",
    "/campaigns/{id}/archive/sessions/1/",
    "/campaigns/{id}/archive/contests/",
    "/campaigns/{id}/community/",
    "/characters/",
)


@pytest.fixture(scope="module")
def table_url(tmp_path_factory):
    with demo_table(tmp_path_factory, "axe", SPECTATOR) as served:
        yield served


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now (the script
    injected once a page: a second width reuses it)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE_SCRIPT)
    results = page.evaluate("options => axe.run(document, options)", AXE_OPTIONS)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + "; ".join(", ".join(n["target"]) for n in v["nodes"][:3])
        for v in results["violations"]
        if v["impact"] in SERIOUS
    ]


def route_of(url: str) -> str | None:
    try:
        return resolve(urlsplit(url).path).view_name
    except Resolver404:
        return None


class Scan:
    """Every page scanned, and what was found on it."""

    def __init__(self) -> None:
        self.found: dict[str, list[str]] = {}
        self.too_wide: list[str] = []
        self.scanned: set[tuple[str, str]] = set()  # (whose, route)
        self.pages = 0

    @property
    def routes(self) -> set[str]:
        return {route for _, route in self.scanned}

    def page(self, page, where: str) -> None:
        """Scan the page as it is at each width (the same page, resized: no reload)."""
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            problems = serious_violations(page)
            if problems:
                self.found[f"{where} at {width}px"] = problems
            if width == 390 and not page.evaluate(
                "document.documentElement.scrollWidth <= window.innerWidth"
            ):
                self.too_wide.append(where)
            self.pages += 1
        page.set_viewport_size({"width": 1280, "height": 900})

    def crawl(self, page, base: str, who: str, home: str) -> None:
        """From `home`, every same-site link, breadth first: one page of each route
        visited (for its links), and scanned unless one like it was already."""
        whose = SCANNED_AS.get(who)
        queue, queued, visited = [f"{base}{home}"], {f"{base}{home}"}, set()
        while queue:
            url = queue.pop(0)
            route = route_of(url)
            if route is None or route in visited or any(word in route for word in NOT_PAGES):
                continue
            response = page.goto(url)
            if not response.ok or "text/html" not in response.headers.get("content-type", ""):
                continue
            if route_of(page.url) != route:  # redirected: reached under its own route
                continue
            visited.add(route)
            key = (whose or "anyone", route)
            if key not in self.scanned and (whose or route not in self.routes):
                self.scanned.add(key)
                if page.locator("#connection-status").count():
                    expect(page.locator("#connection-status")).to_have_text("Connected")
                self.page(page, f"{who} {urlsplit(url).path}")
            for link in page.eval_on_selector_all(
                "a[href]:not([download])", "links => links.map(a => a.href.split('#')[0])"
            ):
                if link.startswith(base) and link not in queued:
                    queued.add(link)
                    queue.append(link)


def person(browser, base: str, username: str | None = None, *, sign_up: bool = False):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = accepting(context.new_page())
    if sign_up:
        page.goto(f"{base}/accounts/signup/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Display name").fill("Nell Newcomer")
        page.locator("#id_password1").fill("a long river password")
        page.locator("#id_password2").fill("a long river password")
        page.get_by_role("button", name="Sign up").click()
        page.wait_for_url(f"{base}/home/")
    elif username:
        page.goto(f"{base}/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill("questworlds")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{base}/home/")
    return page


def play_a_contest_scanning_each_phase(scan: Scan, gm, alice, sam, table: str) -> None:
    """A simple contest played through the table's controls, the GM's and the
    player's tables scanned at each phase, the spectator's once it is under way."""
    for page in (gm, alice, sam):
        page.goto(table)
        expect(page.locator("#connection-status")).to_have_text("Connected")

    def phase(seq: int, name: str, *others) -> None:
        for who, page in (("gm", gm), ("alice", alice), *others):
            expect(page.locator(f"#contest[data-seq='{seq}']")).to_be_attached()
            scan.page(page, f"{who} at the table, {name}")

    frame_contest(
        gm, "Simple contest", "Cross the flooded ford", "Tamsin Reedwalker (Alice)",
        name="The flood", level="Moderate",
    )  # fmt: skip
    phase(1, "framed (choosing an ability)")
    alice.locator("#my-picks").get_by_role("button", name="Use River Guide 3M").click()
    phase(2, "ready to roll", ("sam", sam))
    gm.locator("#your-move").get_by_role("button", name="Roll", exact=True).click()
    phase(3, "rolled")
    gm.locator("#your-move").get_by_role("button", name="Resolve").click()
    phase(4, "decided")
    gm.locator("#your-move").get_by_role("button", name="Confirm the consequences").click()
    phase(5, "over")


def test_every_page_reached_by_links_has_no_serious_accessibility_violation(browser, table_url):
    base, campaign_id = table_url
    scan = Scan()
    people = {}
    for who, username, home in (
        ("gm", "gm", "/home/"),
        ("alice", "alice", "/home/"),
        ("bob", "bob", "/home/"),
        ("sam (spectator)", "sam", "/home/"),
        ("a new user", "nell", "/home/"),
        ("anonymous", None, "/"),
    ):
        page = person(browser, base, username, sign_up=who == "a new user")
        scan.crawl(page, base, who, home)
        people[who] = page
    play_a_contest_scanning_each_phase(
        scan,
        people["gm"],
        people["alice"],
        people["sam (spectator)"],
        f"{base}/campaigns/{campaign_id}/table/",
    )
    for page in people.values():
        page.context.close()

    assert scan.found == {}, "\n".join(f"{where}: {found}" for where, found in scan.found.items())
    assert scan.too_wide == [], f"wider than a 390 px phone: {scan.too_wide}"
    old_routes = {route_of(path.format(id=campaign_id)) for path in OLD_LIST}
    assert old_routes - scan.routes == set(), "the crawl no longer reaches these pages"
    # The character wizard, whose traits once had no labels, is reached too.
    assert "characters:create" in scan.routes, sorted(scan.routes)
