"""What the GM does away from the table reaches the players' open table pages (issue
15), without a reload: a session that ends and the next that begins (each page says so
in words, its chat closes and opens with the session), and a state applied from a
character's sheet (its player's sheet at the table shows it)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import sign_in
from .test_your_move import open_table


@pytest.fixture(scope="module")
def table_url(table_server):
    """A copy of the demo campaign with a session open."""
    return table_server.base, table_server.demo_campaign("Ashfen between sessions")


def fetched(page, sheets: list, count: int) -> None:
    """The page has fetched its sheet `count` times in all, and no more (a moment after)."""
    for _ in range(50):
        if len(sheets) >= count:
            break
        page.wait_for_timeout(200)
    page.wait_for_timeout(600)
    assert len(sheets) == count, sheets


def test_the_open_table_is_told_when_the_session_ends_and_the_next_begins(browser, table_url):
    base, campaign_id = table_url
    alice = open_table(browser, base, campaign_id, "alice")
    chat = alice.locator("#chat-panel")
    expect(chat.locator("form[data-chat-form]")).to_be_visible()
    alice.evaluate("window.stillTheSamePage = true")
    sheets = []
    alice.on("request", lambda r: sheets.append(r.url) if "/table/me/" in r.url else None)
    gm = sign_in(browser, base, "gm")

    gm.goto(f"{base}/campaigns/{campaign_id}/")
    gm.get_by_role("link", name="End the session").click()
    gm.get_by_role("button", name="End it").click()
    expect(gm.locator(".messages")).to_contain_text("has ended")
    notice = alice.locator("#session-notice")
    expect(notice).to_contain_text("has ended: the chat is closed", timeout=10_000)
    expect(chat).to_contain_text("No session in progress")
    expect(chat.locator("form[data-chat-form]")).to_have_count(0)
    # Her sheet at the table is drawn again (hero points turned to experience or lost).
    fetched(alice, sheets, 1)

    gm.goto(f"{base}/campaigns/{campaign_id}/")
    gm.get_by_role("link", name="Start a session").click()
    gm.get_by_label("Title").fill("High tide")
    gm.get_by_role("button", name="Start").click()
    expect(notice).to_contain_text("High tide has begun: the chat is open.", timeout=10_000)
    expect(chat).to_contain_text("Nothing said yet in")
    # Her hero points refresh as the session starts: the sheet shows them as they are.
    fetched(alice, sheets, 2)
    fresh = alice.request.get(f"{base}/campaigns/{campaign_id}/table/me/").text()
    shown = alice.locator("#my-character .hero-points").first.inner_text()
    assert f'class="hero-points">{shown}</strong>' in fresh
    chat.get_by_label("Message").fill("Back at the ford.")
    chat.get_by_role("button", name="Send").click()
    expect(alice.locator("#chat-log")).to_contain_text("Back at the ford.")
    assert alice.evaluate("window.stillTheSamePage === true"), "the page was reloaded"
    for page in (gm, alice):
        page.context.close()


def test_a_state_the_gm_applies_from_the_sheet_shows_on_the_players_open_table(browser, table_url):
    base, campaign_id = table_url
    alice = open_table(browser, base, campaign_id, "alice")
    card = alice.locator("#my-character .my-card").first
    expect(card).to_contain_text("hero point")
    character_id = card.get_attribute("data-character")
    alice.evaluate("window.stillTheSamePage = true")

    gm = sign_in(browser, base, "gm")
    gm.goto(f"{base}/characters/{character_id}/")
    gm.get_by_text("Apply a state (§2.11)").click()
    form = gm.locator("form[action$='/conditions/']")
    form.locator("select[name=state]").select_option(label="Impaired")
    form.locator("input[name=abilities]").first.check()
    form.get_by_role("button", name="Apply").click()
    expect(gm.locator("#sheet")).to_contain_text("Impaired")

    expect(card).to_contain_text("Impaired: -6", timeout=10_000)  # §2.11.1
    assert alice.evaluate("window.stillTheSamePage === true"), "the page was reloaded"
    for page in (gm, alice):
        page.context.close()
