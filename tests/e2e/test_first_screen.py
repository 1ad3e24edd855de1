"""What a newcomer sees first (issue 27): on a 390 px phone the dice and the choice in
front of the player are in the first screen, without scrolling; the ability picker of a
finished character starts on one of its abilities; a resistance reads as one; the
session notice can be dismissed; and the sticky "your move" bar never covers the
headings of the columns the page scrolls to, at 1280 px or at 390 px."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import enter_roll, frame_contest, open_table, side

PHONE = {"width": 390, "height": 844}  # an iPhone 12-15's viewport
DESKTOP = {"width": 1280, "height": 800}
HEADINGS = ("presence-heading", "contest-heading", "log-heading")

COVERED = """ids => {
  const bar = document.querySelector("[data-move-bar]").getBoundingClientRect();
  return ids.filter(id => {
    const h = document.getElementById(id).getBoundingClientRect();
    return h.bottom > bar.top && h.top < bar.bottom && h.right > bar.left && h.left < bar.right;
  });
}"""


def seated(people, username: str, campaign_id: int, viewport: dict):
    """A page of its own (still, as for a person who asked for reduced motion, so a
    scroll is over when it is made), logged in, at the table."""
    return people.at_table(username, campaign_id, viewport=viewport, reduced_motion="reduce")


def in_first_screen(page, locator) -> bool:
    box = locator.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


def test_a_player_on_a_phone_sees_the_dice_and_the_hero_point_choice_first(people, table_server):
    campaign_id = table_server.new_campaigns("First screen")["First screen"]
    base = table_server.base
    alice = seated(people, "alice", campaign_id, PHONE)
    gm = people.log_in("gm")

    # The GM starts the evening's session while Alice's table is open: her page says so.
    gm.goto(f"{base}/campaigns/{campaign_id}/")
    gm.get_by_role("link", name="End the session").click()
    gm.get_by_role("button", name="End it").click()
    gm.goto(f"{base}/campaigns/{campaign_id}/")
    gm.get_by_role("link", name="Start a session").click()
    gm.get_by_label("Title").fill("High tide")
    gm.get_by_role("button", name="Start").click()
    notice = alice.locator("#session-notice")
    expect(notice).to_contain_text("High tide has begun", timeout=10_000)

    open_table(gm, base, campaign_id)
    frame_contest(
        gm, "Simple contest", "Cross the flooded ford", "Tamsin Reedwalker (Alice)",
        name="The flood", level="Moderate",
    )  # fmt: skip
    # Tamsin is a finished character (made with the list method): her picker starts on
    # one of her abilities and offers no "new ability"; Choose, untouched, uses it.
    picker = alice.locator("#your-move form[data-action=choose_ability]:visible")
    expect(picker).to_be_visible()
    chosen = picker.locator("select[name=ability_id] option:checked").inner_text()
    assert chosen.startswith("River Guide"), chosen
    expect(picker.locator("option", has_text="as you go")).to_have_count(0)
    picker.get_by_role("button", name="Choose an ability").click()
    expect(side(alice, "pc")).to_contain_text("River Guide · TN")
    expect(alice.locator("#table-error")).to_be_empty()

    enter_roll(alice, "pc", 15)
    expect(gm.locator("#contest[data-seq='3']")).to_be_attached()
    gm.locator("#your-move").get_by_role("button", name="Roll", exact=True).click()

    # Offered a hero point after the roll: the dice and the choice are in her first
    # screen (the page at its top, as she finds it), the session notice still shown.
    hero_point = alice.locator("#your-move button.hero-point")
    expect(hero_point).to_be_visible()
    alice.evaluate("window.scrollTo(0, 0)")
    dice = alice.locator("#contest .pending")
    expect(dice.locator(".die[data-side=pc]")).to_have_text("15")
    expect(notice).to_contain_text("High tide has begun")
    for shown in (dice, hero_point):
        assert in_first_screen(alice, shown), (shown, shown.bounding_box())

    # The notice has been read: she dismisses it.
    notice.get_by_role("button", name="Dismiss").click()
    expect(notice).to_be_hidden()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_the_bar_never_covers_the_columns_headings(people, table_server, viewport):
    name = f"Bar at {viewport['width']}"
    campaign_id = table_server.new_campaigns(name)[name]
    gm = seated(people, "gm", campaign_id, viewport)
    frame_contest(
        gm, "Scored contest", "Drive off the raiders", "Tamsin Reedwalker (Alice)",
        name="The raiders", level="Moderate",
    )  # fmt: skip
    # A resistance reads as what it is, not as something missing (it has no ability).
    expect(side(gm, "opponent")).to_contain_text("Resistance · TN")
    expect(side(gm, "opponent")).not_to_contain_text("no ability chosen")
    # Framed: the page scrolls to the contest, below the bar that now waits on Alice.
    expect(gm.locator("#your-move [data-waiting]:visible")).to_contain_text("Tamsin Reedwalker")
    heading = gm.locator("#contest-heading")
    gm.wait_for_function(
        "() => { const top = document.getElementById('contest-heading')"
        ".getBoundingClientRect().top; return top >= 0 && top < window.innerHeight / 2; }"
    )
    assert in_first_screen(gm, heading)
    assert gm.evaluate(COVERED, list(HEADINGS)) == []
