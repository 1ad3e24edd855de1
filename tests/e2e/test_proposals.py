"""A player proposes a contest and the GM answers (issue 30), in browsers: Alice
proposes, the GM amends and frames it, the contest is played to its end, and every page
(Bob's too) followed each step; another proposal is declined with a reason every page
reads. Screenshots go to test-results/proposals/."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from .test_your_move import bar, open_table, shoot, wait_seq

SHOTS = Path(__file__).resolve().parents[2] / "test-results" / "proposals"
NAME = "Ashfen's proposals"


@pytest.fixture(scope="module")
def table_url(table_server):
    """A copy of the demo campaign with a session open."""
    return table_server.base, table_server.demo_campaign(NAME)


def propose(page, prize, how):
    panel = page.locator("#proposals")
    panel.get_by_text("Propose a contest").click()
    panel.get_by_label("What they want (the prize)").fill(prize)
    panel.get_by_label("How (optional)").fill(how)
    panel.get_by_role("button", name="Propose").click()


def play_to_its_end(player, gm, everyone):
    """The simple contest just framed (event 1), played from the pages: the player picks
    the first ability offered, the GM rolls, resolves and confirms the consequences."""
    player.locator("#my-picks").get_by_role("button").first.click()
    wait_seq(everyone, 2)
    bar(gm).get_by_role("button", name="Roll", exact=True).click()
    wait_seq(everyone, 3)
    bar(gm).get_by_role("button", name="Resolve").click()
    wait_seq(everyone, 4)
    bar(gm).get_by_role("button", name="Confirm the consequences").click()
    wait_seq(everyone, 5)


def test_a_proposal_amended_framed_and_played_and_another_declined(browser, table_url):
    base, campaign_id = table_url
    gm = open_table(browser, base, campaign_id, "gm")
    alice = open_table(browser, base, campaign_id, "alice")
    bob = open_table(browser, base, campaign_id, "bob", width=390)
    pages = {"gm": gm, "alice": alice, "bob-390": bob}
    everyone = list(pages.values())

    propose(alice, "to reach the far bank before the flood", "by the old ferry rope")
    words = "Alice proposes: Tamsin Reedwalker wants to reach the far bank before the flood"
    for page in everyone:
        expect(page.locator("#proposals")).to_contain_text(words)
        expect(page.locator("#proposals")).to_contain_text("Waiting for the GM.")
    # The GM's bar: their move, with the answers; the tab says so.
    waiting = gm.locator("#gm-proposals")
    expect(waiting).to_contain_text("Your move: answer Alice's proposal.")
    expect(gm).to_have_title(f"● Your move · {NAME} table · QuestWorlds Table")
    # Bob, another player, reads it: he may propose his own, not withdraw or answer hers.
    expect(bob.locator("#proposals [data-action=withdraw_proposal]")).to_have_count(0)
    expect(bob.locator("#gm-proposals, [data-action=accept_proposal]")).to_have_count(0)
    expect(alice.locator("#proposals").get_by_role("button", name="Withdraw")).to_be_visible()
    shoot(pages, "1-proposed", SHOTS)

    # The GM amends it: the frame form filled from it; a rating of their own.
    waiting.get_by_role("button", name="Amend…").click()
    form = gm.locator("[data-frame-form]")
    expect(form.locator("input[name=prize]")).to_have_value(
        "to reach the far bank before the flood"
    )
    form.locator("input[name=prize]").fill("to reach the far bank, ferry and all")
    form.locator("select[name='opponent.level']").select_option("")
    form.locator("input[name='opponent.name']").fill("The flood")
    form.locator("input[name='opponent.rating']").fill("14")
    gm.get_by_role("button", name="Frame it").click()
    wait_seq(everyone, 1)
    for page in everyone:
        expect(page.locator("#contest h3")).to_contain_text("to reach the far bank, ferry and all")
        expect(page.locator("#proposals")).to_contain_text(
            "The GM amended it and framed it against a resistance of 14 as contest #1."
        )
    expect(waiting).not_to_contain_text("Your move")
    shoot(pages, "2-framed", SHOTS)

    # Played to its end as any contest.
    play_to_its_end(alice, gm, everyone)
    for page in everyone:
        expect(bar(page)).to_contain_text("Contest #1 is over")

    # Another proposal, declined with a reason every page reads.
    propose(alice, "to talk the raiders into leaving", "")
    expect(waiting).to_contain_text("Your move: answer Alice's proposal.")
    waiting.get_by_label("Why").fill("The raiders do not parley tonight")
    waiting.get_by_role("button", name="Decline").click()
    for page in everyone:
        expect(page.locator("#proposals")).to_contain_text(
            "The GM declined it: The raiders do not parley tonight."
        )
    expect(waiting).not_to_contain_text("Your move")
    shoot(pages, "3-declined", SHOTS)
    for page in everyone:
        page.context.close()
