"""The GM frames group contests from the frame form in a browser (issue 6): the PCs, the
resistance and further rows of opponents in one go; every page shows the same
participants, and a player's roll shows its exact odds to everyone at the table."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_live_contest import open_table, same_everywhere, submit, wait_seq


@pytest.fixture(scope="module")
def table_url(table_server):
    """A copy of the demo campaign with a session open, its players entering their dice."""
    campaign_id = table_server.demo_campaign("Ashfen at the bridge", physical_dice=True)
    return table_server.base, campaign_id


def frame_form(gm):
    return gm.locator("form:has(input[name=action][value=frame])")


def frame_group(gm, kind, prize):
    form = frame_form(gm)
    form.locator("select[name=kind]").select_option(kind)
    form.locator("input[name=prize]").fill(prize)
    form.locator("select[name='pc.character_id']").select_option(label="Tamsin Reedwalker (Alice)")
    for box in form.locator("input[name=characters]").all():
        box.check()
    return form


def test_the_gm_frames_group_contests_and_everyone_sees_the_odds(browser, table_url):
    base, campaign_id = table_url
    gm, alice, bob = (open_table(browser, base, campaign_id, u) for u in ("gm", "alice", "bob"))
    pages = [gm, alice, bob]

    form = frame_group(gm, "group_simple", "Hold the bridge")
    form.get_by_role("button", name="Frame it").click()
    wait_seq(pages, 1)
    names = same_everywhere(pages, "#contest table.participants")
    assert "Tamsin Reedwalker" in names and "Brannoc Ironmouth" in names

    submit(alice, "choose_ability", ability_id="River Guide 3M")
    wait_seq(pages, 2)
    odds = same_everywhere(pages, "#contest tr.odds-row[data-odds-for='Tamsin Reedwalker']")
    assert "complete victory" in odds and "complete defeat" in odds

    # A scored contest: the resistance and two more opponents from the rows, at once.
    form = frame_group(gm, "group_scored", "Drive off the raiders")
    form.locator("input[name='opponent.name']").fill("Raider chief")
    form.locator("input[name='participants.0.name']").fill("Wolves")
    form.locator("select[name='participants.0.level']").select_option("high")
    form.get_by_role("button", name="Add another row").click()
    form.locator("input[name='participants.1.name']").fill("Bandit archer")
    form.locator("input[name='participants.1.rating']").fill("5M")
    form.get_by_role("button", name="Frame it").click()
    wait_seq(pages, 1)
    expect(gm.locator("#table-error")).to_have_text("")
    names = same_everywhere(pages, "#contest table.participants")
    for name in ("Raider chief", "Wolves", "Bandit archer", "Tamsin Reedwalker"):
        assert name in names, name
    for page in pages:
        page.context.close()
