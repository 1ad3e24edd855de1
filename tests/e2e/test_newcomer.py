"""A new group's first evening at the table (issue 27, item 11): the GM on a phone finds
the frame form from the bar; lobbying for a community resource happens at the table,
live on every page."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import frame_contest


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
    form = gm.locator("[data-frame-form]")
    expect(form).not_to_be_in_viewport()

    bar.get_by_role("link", name="Frame the next one").click()
    expect(gm.locator("[data-frame-form] select[name=kind]")).to_be_focused()
    expect(form).to_be_in_viewport()
    heading = gm.locator("#frame-heading").bounding_box()
    assert (
        heading["y"]
        >= gm.locator("[data-move-bar]").bounding_box()["y"]
        + gm.locator("[data-move-bar]").bounding_box()["height"]
    ), "the frame form's heading is under the sticky bar"
