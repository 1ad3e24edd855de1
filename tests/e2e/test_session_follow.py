"""The GM's open table follows the session (issue 27): with no session the frame panel
says to start one and offers it; once a session starts (in another tab, as the guide
says) the same page frames a contest, without a reload, and when it ends the panel
says so again."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import frame_contest
from .test_your_move import wait_seq


def test_the_gm_frames_right_after_starting_a_session_without_a_reload(table_server, people):
    campaign_id = table_server.new_campaigns("Evening at the mill")["Evening at the mill"]
    gm = people.at_table("gm", campaign_id)
    gm.evaluate("window.stillTheSamePage = true")
    panel = gm.locator("#frame-panel")
    expect(panel.get_by_role("button", name="Frame it")).to_be_visible()

    # The session the new campaign opened ends, from the campaign page in another tab.
    other = gm.context.new_page()
    other.goto(f"{table_server.base}/campaigns/{campaign_id}/")
    other.get_by_role("link", name="End the session").click()
    other.get_by_role("button", name="End it").click()
    expect(other.locator(".messages")).to_contain_text("has ended")
    expect(panel).to_contain_text("Start a session before framing contests", timeout=10_000)
    expect(panel.get_by_role("button", name="Frame it")).to_have_count(0)

    # The table offers to start one: in a new tab, so the table stays open.
    with gm.context.expect_page() as opened:
        panel.get_by_role("link", name="Start a session").click()
    start = opened.value
    start.get_by_label("Title").fill("Flour and blood")
    start.get_by_role("button", name="Start").click()
    expect(start.locator(".messages")).to_contain_text("has started")

    expect(panel.get_by_role("button", name="Frame it")).to_be_visible(timeout=10_000)
    # The form drawn anew works as the page's own did: the fields follow the kind.
    panel.get_by_label(re.compile(r"^Type")).select_option(label="Scored contest")
    expect(panel.get_by_label("Scored contest stakes")).to_be_visible()
    frame_contest(
        gm,
        "Simple contest",
        "Out of the millrace",
        "Tamsin Reedwalker (Alice)",
        name="The millrace",
        level="Moderate",
    )
    wait_seq([gm], 1)
    expect(gm.locator("#contest h3")).to_contain_text("Out of the millrace")
    expect(gm.locator("#table-error")).to_be_empty()
    assert gm.evaluate("window.stillTheSamePage === true"), "the page was reloaded"
