"""An honest connection state (issue 15): a network drop shows within 5 seconds, an
action pressed while offline is refused on the page (never silently lost), and once
the network is back the same press goes through."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import demo_table
from .test_your_move import bar, open_table, wait_seq


@pytest.fixture(scope="module")
def table_url(tmp_path_factory):
    with demo_table(tmp_path_factory, "drop") as served:
        yield served


def test_a_network_drop_shows_within_5_seconds_and_no_action_is_lost(browser, table_url):
    base, campaign_id = table_url
    gm = open_table(browser, base, campaign_id, "gm")
    alice = open_table(browser, base, campaign_id, "alice")
    gm.locator(".frame select[name=kind]").select_option("simple")
    gm.locator("input[name=prize]").fill("Cross the flooded ford")
    gm.locator("select[name='pc.character_id']").select_option(label="Tamsin Reedwalker (Alice)")
    gm.get_by_role("button", name="Frame it").click()
    wait_seq([gm, alice], 1)

    alice.context.set_offline(True)
    expect(alice.locator("#connection-status")).not_to_have_text("Connected", timeout=5_000)
    # Her move, pressed while offline: refused where she can see it, nothing sent.
    bar(alice).locator("select[name=ability_id]:visible").select_option(label="River Guide 3M")
    bar(alice).get_by_role("button", name="Choose an ability").click()
    expect(alice.locator("#table-error")).to_contain_text("Not sent")
    expect(gm.locator("#contest[data-seq='1']")).to_be_attached()
    alice.wait_for_timeout(1_000)
    expect(gm.locator("#contest[data-seq='1']")).to_be_attached()  # nothing reached the GM

    alice.context.set_offline(False)
    expect(alice.locator("#connection-status")).to_have_text("Connected", timeout=15_000)
    bar(alice).locator("select[name=ability_id]:visible").select_option(label="River Guide 3M")
    bar(alice).get_by_role("button", name="Choose an ability").click()
    wait_seq([gm, alice], 2)
    expect(alice.locator("#table-error")).to_be_empty()  # the refusal went with the success
    expect(gm.locator("#roll-log li").first).to_contain_text("River Guide")
    for page in (gm, alice):
        page.context.close()
