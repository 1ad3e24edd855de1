"""A new group's first evening at the table (issue 27, item 11): the GM on a phone finds
the frame form from the bar; lobbying for a community resource happens at the table,
live on every page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import frame_contest
from .test_your_move import open_table


def test_on_a_phone_the_bar_leads_the_gm_to_the_frame_form(people, table_server):
    """11d: at 390 px the frame form is far below the finished contest; the bar's
    "Frame the next one" brings it into view, below the sticky bar, with the cursor in
    its first field."""
    campaign_id = table_server.new_campaigns("A phone's evening")["A phone's evening"]
    gm = people.log_in("gm")
    gm.set_viewport_size({"width": 390, "height": 844})
    gm.goto(f"{table_server.base}/campaigns/{campaign_id}/table/")
    expect(gm.locator("#connection-status")).to_have_text("Connected")
    frame_contest(gm, "Automatic victory (no roll)", "Open the gate", "Tamsin Reedwalker (Alice)")
    bar = gm.locator("#your-move")
    bar.get_by_role("button", name="Grant the automatic victory").click()
    bar.get_by_role("button", name="Confirm the consequences").click()
    expect(bar).to_contain_text("Contest #1 is over")
    # The GM reads the table from its top, where the bar is (framing scrolled the page
    # to the contest); the frame form's first field is far below.
    gm.evaluate("window.scrollTo(0, 0)")
    form = gm.locator("[data-frame-form]")
    expect(gm.locator("[data-frame-form] select[name=kind]")).not_to_be_in_viewport()

    bar.get_by_role("link", name="Frame the next one").click()
    expect(gm.locator("[data-frame-form] select[name=kind]")).to_be_focused()
    expect(form).to_be_in_viewport()
    heading = gm.locator("#frame-heading").bounding_box()
    assert (
        heading["y"]
        >= gm.locator("[data-move-bar]").bounding_box()["y"]
        + gm.locator("[data-move-bar]").bounding_box()["height"]
    ), "the frame form's heading is under the sticky bar"


@pytest.fixture(scope="module")
def ashfen_table(table_server):
    """A copy of the demo campaign (Ashfen and its resources) with a session open."""
    return table_server.base, table_server.demo_campaign("Ashfen lobbies")


def lobby_at_the_table(page, purpose: str) -> None:
    """Alice lobbies for Tamsin from the table page's community panel (§8.2)."""
    panel = page.locator("#table-community")
    details = panel.locator("details[data-lobby]")
    if not details.evaluate("d => d.open"):
        details.locator("summary").click()
    form = panel.locator("form[data-lobby-form]")
    wealth = form.locator("select[name=resource] option", has_text="Wealth")
    form.locator("select[name=resource]").select_option(wealth.get_attribute("value"))
    ashfen_born = form.locator("select[name=ability] option", has_text="Ashfen Born")
    form.locator("select[name=ability]").select_option(ashfen_born.get_attribute("value"))
    form.get_by_label("What the resource is for").fill(purpose)
    form.get_by_label("The resource is used").select_option(label="as an augment")
    form.get_by_role("button", name="Lobby").click()


def test_lobbying_at_the_table_is_seen_live_and_the_gm_frames_with_the_draw(browser, ashfen_table):
    """11c: Alice lobbies for a resource from the table; her page and the GM's show each
    try as it is rolled, without a reload; once the community agrees, the GM's frame form
    offers the draw at once, and the contest framed with it carries its augment."""
    base, campaign_id = ashfen_table
    alice = open_table(browser, base, campaign_id, "alice")
    gm = open_table(browser, base, campaign_id, "gm")
    for page in (alice, gm):
        expect(page.locator("#table-community")).to_contain_text("Ashfen's resources")
        page.evaluate("window.stillTheSamePage = true")
    expect(gm.locator("select[name=draw_id]")).to_have_count(0)  # nothing approved yet

    # Ashfen Born 13 against a moderate 14: the community may say no; each refusal costs
    # nothing, and she tries again until it agrees.
    for tries in range(1, 13):
        lobby_at_the_table(alice, "hire the ferries")
        expect(alice.locator("#lobby-said")).to_contain_text("Lobbying for Wealth: rolled")
        for page in (alice, gm):
            draws = page.locator("#table-draws li")
            expect(draws).to_have_count(tries)
            expect(draws.first).to_contain_text(
                "Tamsin Reedwalker lobbied to draw on Wealth as an augment (hire the ferries)"
            )
        if alice.locator("#table-draws li").first.get_attribute("data-status") == "approved":
            break
    else:
        raise AssertionError("Ashfen refused twelve times running")
    expect(gm.locator("#table-draws li").first).to_have_attribute("data-status", "approved")

    form = gm.locator("form[data-frame-form]")
    draw = form.get_by_label("Draw on a community resource (§8.2)")
    option = draw.locator("option", has_text="Tamsin Reedwalker: Wealth as an augment")
    expect(option).to_have_count(1)
    draw.select_option(option.get_attribute("value"))
    form.get_by_label(re.compile(r"^Prize")).fill("Move the grain before the flood")
    form.get_by_label(re.compile(r"^Player character")).select_option(
        label="Tamsin Reedwalker (Alice)"
    )
    resistance = form.get_by_role("group", name="Resistance", exact=True)
    resistance.get_by_label(re.compile(r"^Name")).fill("The flood")
    form.get_by_role("button", name="Frame it").click()
    augment = re.compile(r"Wealth's community resource, a quick augment from its rating \w+: \+\d+")
    for page in (alice, gm):
        expect(page.locator("#contest")).to_contain_text(augment)
        assert page.evaluate("window.stillTheSamePage") is True
