"""The GM rolls Ashfen's background events; a player watching the community page sees
the notation table change without reloading (issue 7)."""

from __future__ import annotations

from playwright.sync_api import expect


def open_community(page):
    # Other browser tests share the server and may add campaigns: open the demo's.
    page.locator(".card", has_text="The Sunken Crown").get_by_role(
        "link", name="The Sunken Crown"
    ).click()
    page.get_by_role("link", name="Community resources").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Ashfen")
    expect(page.locator("#connection-status")).to_have_text("Connected")


def test_players_see_the_background_events_live(log_in_page):
    alice = log_in_page("alice")
    open_community(alice)
    table = alice.locator("#notation-table")
    expect(table.locator("tr[data-resource=Wealth] td").first).to_have_text("12W")
    expect(table).to_contain_text("Background events of season 1: not rolled yet")
    expect(alice.get_by_role("button", name="Roll the background events")).to_have_count(0)
    # A marker that a reload would wipe out.
    alice.evaluate("window.stillTheSamePage = true")

    gm = log_in_page("gm")
    open_community(gm)
    gm.get_by_role("button", name="Roll the background events of season 1").click()
    expect(gm.locator(".messages")).to_contain_text("Background events rolled.")

    expect(table).to_contain_text("Background events of season 1: rolled")
    rolls = table.locator("li[data-kind=background] ul li")
    expect(rolls).to_have_count(5)
    for name in ("Wealth", "Diplomacy", "Magic", "Morale", "Military"):
        expect(rolls.filter(has_text=name)).to_have_count(1)
    assert alice.evaluate("window.stillTheSamePage") is True
    # The chart came along: it still draws the five resources.
    expect(alice.locator("#community-chart figure")).to_have_count(5)
