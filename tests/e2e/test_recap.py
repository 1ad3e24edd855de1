"""The session's recap, in browsers (issue 30, part 2): a contest is played and Alice
says a line in character; the GM ends the session, finds the recap drafted from what
happened, picks Alice's line for a new draft, adds a sentence of their own and
publishes it; Alice, who saw nothing of the draft, reads it in the archive and on the
campaign page. Screenshots go to test-results/recap/."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect

from .test_proposals import play_to_its_end, propose
from .test_table_chat import say
from .test_your_move import open_table, shoot, wait_seq

SHOTS = Path(__file__).resolve().parents[2] / "test-results" / "recap"
NAME = "Ashfen's recap"


def test_the_gm_ends_edits_and_publishes_the_recap_and_a_player_reads_it(browser, table_server):
    base, campaign_id = table_server.base, table_server.demo_campaign(NAME)
    gm = open_table(browser, base, campaign_id, "gm")
    alice = open_table(browser, base, campaign_id, "alice")
    everyone = [gm, alice]

    # A contest proposed, framed as proposed and played to its end; a line in character.
    propose(alice, "to reach the far bank before the flood", "")
    gm.locator("#gm-proposals").get_by_role("button", name="Accept and frame").click()
    wait_seq(everyone, 1)
    play_to_its_end(alice, gm, everyone)
    say(alice, "The rope holds, Brannoc!", "In character", "Tamsin Reedwalker")
    expect(gm.locator("#chat-log")).to_contain_text("The rope holds, Brannoc!")

    # The GM ends the session from the campaign page and lands on the drafted recap.
    gm.goto(f"{base}/campaigns/{campaign_id}/")
    gm.get_by_role("link", name="End the session").click()
    gm.get_by_role("button", name="End it").click()
    expect(gm.locator("#recap-status")).to_contain_text("Draft")
    recap = gm.get_by_label("Recap")
    expect(recap).to_have_value(
        # The contest in words, as the table saw it.
        re.compile(r"Contest 1, simple contest: to reach the far bank")
    )
    expect(recap).not_to_have_value(re.compile("The rope holds"))
    session_url = gm.url.replace("/edit/", "/")
    archive_url = session_url.replace("/sessions/", "/archive/sessions/")

    # Alice reads nothing of the draft yet.
    alice.goto(archive_url)
    expect(alice.locator("main")).to_contain_text("No recap yet.")
    expect(alice.locator("main")).not_to_contain_text("Contest 1, simple contest")

    # The GM picks Alice's line, drafts again, adds a sentence and publishes.
    gm.get_by_label("Tamsin Reedwalker: “The rope holds, Brannoc!”").check()
    gm.get_by_role("button", name="Draft it again").click()
    expect(gm.get_by_role("status")).to_contain_text("Nothing is saved yet")
    expect(recap).to_have_value(re.compile("The rope holds, Brannoc"))
    recap.press("Control+End")
    recap.press_sequentially("\nTamsin swore never to cross at flood again.")
    shoot({"gm": gm}, "1-draft", SHOTS)
    gm.get_by_role("button", name="Save and publish").click()
    expect(gm.locator("main")).to_contain_text("The recap is published")
    expect(gm.locator(".recap")).to_contain_text("Tamsin swore never to cross at flood again.")

    # Alice reads it in the archive and on the campaign page.
    alice.reload()
    recap_shown = alice.locator(".recap")
    expect(recap_shown).to_contain_text("Contest 1, simple contest: to reach the far bank")
    expect(recap_shown).to_contain_text("The rope holds, Brannoc!")
    expect(recap_shown).to_contain_text("Tamsin swore never to cross at flood again.")
    shoot({"alice": alice}, "2-published", SHOTS)
    alice.goto(f"{base}/campaigns/{campaign_id}/")
    expect(alice.locator("#recap-heading")).to_contain_text("Last time")
    expect(alice.locator(".recap")).to_contain_text("Tamsin swore never to cross at flood again.")
    for page in everyone:
        page.context.close()
