"""Whose move it is, at every moment (issue 15): a GM and two players play a simple
contest using only what the "your move" bar offers each of them.

Each person's bar names what is theirs to do now, with the form for it; the others see
whom the table waits on; the tab's title carries a badge while it is your move.
Screenshots of every page at 1280 px and 390 px go to test-results/ for people to look at.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from .conftest import sign_in

SHOTS = Path(__file__).resolve().parents[2] / "test-results" / "your-move"


NAME = "Ashfen's moves"


@pytest.fixture(scope="module")
def table_url(table_server):
    """A copy of the demo campaign with a session open."""
    return table_server.base, table_server.demo_campaign(NAME)


def open_table(browser, base, campaign_id, username, width=1280):
    page = sign_in(browser, base, username, width)
    page.goto(f"{base}/campaigns/{campaign_id}/table/")
    expect(page.locator("#connection-status")).to_have_text("Connected")
    return page


def wait_seq(pages, seq):
    for page in pages:
        expect(page.locator(f"#contest[data-seq='{seq}']")).to_be_attached(timeout=10_000)


def my_move(page):
    """The "your move" lines this person sees (the others' are hidden on their page)."""
    return [t.strip() for t in page.locator("#your-move [data-my-move]:visible").all_inner_texts()]


def bar(page):
    return page.locator("#your-move")


def shoot(pages, step, folder=SHOTS):
    folder.mkdir(parents=True, exist_ok=True)
    for name, page in pages.items():
        page.screenshot(path=str(folder / f"{step}-{name}.png"), full_page=True)


def no_sideways_scroll(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_each_person_sees_whose_move_it_is_and_plays_from_the_bar(browser, table_url):
    base, campaign_id = table_url
    gm = open_table(browser, base, campaign_id, "gm")
    alice = open_table(browser, base, campaign_id, "alice")
    bob = open_table(browser, base, campaign_id, "bob", width=390)
    pages = {"gm": gm, "alice": alice, "bob-390": bob}
    everyone = list(pages.values())

    # The frame form shows the fields of the chosen kind only.
    gm.locator(".frame select[name=kind]").select_option("scored")
    expect(gm.get_by_label("Scored contest stakes")).to_be_visible()
    gm.locator(".frame select[name=kind]").select_option("simple")
    expect(gm.get_by_label("Scored contest stakes")).to_be_hidden()
    gm.locator("input[name=prize]").fill("Cross the flooded ford")
    gm.locator("select[name='pc.character_id']").select_option(label="Tamsin Reedwalker (Alice)")
    gm.get_by_role("button", name="Frame it").click()
    wait_seq(everyone, 1)
    # Framed: the form is cleared for the next contest.
    expect(gm.locator("input[name=prize]")).to_have_value("")

    # Alice must choose an ability; the GM and Bob see that the table waits on her.
    assert my_move(alice) == ["Your move: choose an ability for Tamsin Reedwalker"]
    expect(bar(alice).locator("[data-waiting]:visible")).to_have_count(0)  # she is not waiting
    expect(alice).to_have_title(f"● Your move · {NAME} table · QuestWorlds Table")
    for page in (gm, bob):
        assert my_move(page) == []
        expect(bar(page).locator("[data-waiting]:visible")).to_contain_text(
            "Tamsin Reedwalker's player (choose an ability for Tamsin Reedwalker)"
        )
        expect(page).to_have_title(f"{NAME} table · QuestWorlds Table")
    shoot(pages, "1-framed")
    assert no_sideways_scroll(bob)

    # Her own sheet at the table: hero points; beside it, each ability one click to use.
    mine = alice.locator("#my-character")
    expect(mine).to_contain_text("Tamsin Reedwalker")
    expect(mine).to_contain_text("hero point")
    picks = alice.locator("#my-picks")
    picks.get_by_role("button", name="Use River Guide 3M").click()
    wait_seq(everyone, 2)
    expect(picks.get_by_role("button", name="Use River Guide 3M")).to_have_count(0)

    # Now the GM rolls: the bar says so, and offers the button.
    assert my_move(gm) == ["Your move: roll"]
    assert my_move(alice) == []
    expect(bar(alice).locator("[data-waiting]:visible")).to_have_text("Waiting for the GM (roll).")
    expect(bar(gm).locator("[data-waiting]:visible")).to_have_count(0)
    expect(gm).to_have_title(f"● Your move · {NAME} table · QuestWorlds Table")
    bar(gm).get_by_role("button", name="Roll", exact=True).click()
    wait_seq(everyone, 3)
    shoot(pages, "2-rolled")

    # The GM resolves; Alice may spend a hero point first (a choice, not a wait), unless
    # her result is a critical, which no hero point raises.
    assert my_move(gm) == ["Your move: resolve"]
    choice = my_move(alice)
    assert choice in ([], ["Your choice: spend a hero point for Tamsin Reedwalker"])
    expect(alice).to_have_title(f"{NAME} table · QuestWorlds Table")
    bar(gm).get_by_role("button", name="Resolve").click()
    wait_seq(everyone, 4)

    assert my_move(gm) == ["Your move: confirm the consequences"]
    expect(bar(bob).locator("[data-waiting]:visible")).to_contain_text(
        "the GM (confirm the consequences)"
    )
    shoot(pages, "3-decided")
    bar(gm).get_by_role("button", name="Confirm the consequences").click()
    wait_seq(everyone, 5)
    for page in everyone:
        assert my_move(page) == []
        expect(bar(page)).to_contain_text("Contest #1 is over")
    shoot(pages, "4-finished")
    assert no_sideways_scroll(bob)
    for page in everyone:
        page.context.close()
