"""An axe-core scan (axe-playwright-python, which bundles axe-core) of the pages a GM, a
player and a spectator use, with a contest under way: no serious or critical violation
(issue 15). Each page is scanned as its own person sees it, at 1280 px and at 390 px."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from .conftest import demo_table, sign_in

SPECTATOR = """
from django.contrib.auth import get_user_model
from campaigns.models import Membership, Role
watcher = get_user_model().objects.create_user("sam", password="questworlds", display_name="Sam")
Membership.objects.create(campaign=campaign, user=watcher, role=Role.SPECTATOR)
"""

AXE = Axe()
SERIOUS = ("serious", "critical")


@pytest.fixture(scope="module")
def table_url(tmp_path_factory):
    with demo_table(tmp_path_factory, "axe", SPECTATOR) as served:
        yield served


def serious_violations(page) -> list[str]:
    results = AXE.run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + "; ".join(", ".join(n["target"]) for n in v["nodes"][:3])
        for v in results.response["violations"]
        if v["impact"] in SERIOUS
    ]


def test_no_serious_accessibility_violation_for_gm_player_or_spectator(browser, table_url):
    base, campaign_id = table_url
    gm = sign_in(browser, base, "gm")
    gm.goto(f"{base}/campaigns/{campaign_id}/table/")
    expect(gm.locator("#connection-status")).to_have_text("Connected")
    gm.locator(".frame select[name=kind]").select_option("simple")
    gm.locator("input[name=prize]").fill("Cross the flooded ford")
    gm.locator("select[name='pc.character_id']").select_option(label="Tamsin Reedwalker (Alice)")
    gm.get_by_role("button", name="Frame it").click()
    expect(gm.locator("#contest[data-seq='1']")).to_be_attached()

    pages = [
        "/home/",
        f"/campaigns/{campaign_id}/",
        f"/campaigns/{campaign_id}/table/",
        f"/campaigns/{campaign_id}/archive/",
        f"/campaigns/{campaign_id}/archive/sessions/1/",
        f"/campaigns/{campaign_id}/archive/contests/",
        f"/campaigns/{campaign_id}/community/",
        "/characters/",
    ]
    found, too_wide = {}, []
    people = (("gm", 1280), ("alice", 1280), ("sam", 1280), ("gm", 390), ("alice", 390))
    for username, width in people:
        page = gm if (username, width) == ("gm", 1280) else sign_in(browser, base, username, width)
        for path in pages:
            page.goto(f"{base}{path}")
            if path.endswith("/table/"):
                expect(page.locator("#connection-status")).to_have_text("Connected")
            problems = serious_violations(page)
            if problems:
                found[f"{username} at {width}px {path}"] = problems
            if width == 390 and not page.evaluate(
                "document.documentElement.scrollWidth <= window.innerWidth"
            ):
                too_wide.append(f"{username} {path}")
        page.context.close()
    assert found == {}, "\n".join(f"{where}: {problems}" for where, problems in found.items())
    assert too_wide == [], f"wider than a 390 px phone: {too_wide}"
