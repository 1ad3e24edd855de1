"""After play: the session's end and the archive pages, the public read-only link, and
a campaign's JSON export imported again by staff (issues 5 and 6).

The module plays one session in three browsers (a simple contest with an augment and a
hero point) and the GM ends it with a recap; each test then reads what was played.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import People, choose_ability, enter_roll, frame_contest
from .test_live_contest import wait_seq

NAME = "The Drowned Bell"
RECAP = "**Tamsin** crossed the ford while Brannoc sang the river calm."


@pytest.fixture(scope="module")
def played(browser, table_server):
    """The session, played and ended through the pages; what the table showed of it."""
    campaign = table_server.new_campaigns(NAME)[NAME]
    crowd = People(browser, table_server.base)
    try:
        gm, alice, bob = (crowd.at_table(u, campaign) for u in ("gm", "alice", "bob"))
        pages = [gm, alice, bob]
        frame_contest(
            gm,
            "Simple contest",
            "Cross the flooded ford",
            "Tamsin Reedwalker (Alice)",
            name="The Grey River",
            level="Moderate",
        )
        wait_seq(pages, 1)
        choose_ability(alice, "pc", "River Guide 3M")
        wait_seq(pages, 2)
        augment = bob.get_by_role("form", name="Augment as Brannoc Ironmouth")
        augment.get_by_label(re.compile(r"^with")).select_option(label="Temple Singer 3M")
        augment.get_by_label(re.compile(r"^Augment")).select_option(label="quick (§2.4.2)")
        augment.get_by_role("button", name="Help with an augment").click()
        wait_seq(pages, 3)
        # 3M and a quick augment of a fifth of 3M (§2.4.2, rounded down): 23 + 4 = 7M.
        expect(gm.locator("#contest .side[data-side=pc] .tn")).to_have_text("7M")
        enter_roll(alice, "pc", 15)
        wait_seq(pages, 4)
        gm.locator("#contest, #your-move").get_by_role("button", name="Roll", exact=True).click()
        wait_seq(pages, 5)
        alice.locator("#contest, #your-move").get_by_role(
            "button", name=re.compile(r"^Spend a hero point")
        ).click()
        wait_seq(pages, 6)
        outcome = gm.locator("#contest .pending .so-far").inner_text()  # "minor victory"...
        gm.locator("#contest, #your-move").get_by_role("button", name="Resolve").click()
        wait_seq(pages, 7)
        gm.locator(
            "form", has=gm.get_by_role("button", name="Confirm the consequences")
        ).get_by_label("Narration").fill("Tamsin finds the shallows.")
        gm.get_by_role("button", name="Confirm the consequences").click()
        wait_seq(pages, 8)

        gm.goto(f"{table_server.base}/campaigns/{campaign}/")
        gm.get_by_role("link", name="End the session").click()
        gm.get_by_label("Recap").fill(RECAP)
        gm.get_by_role("button", name="End it").click()
        expect(gm.locator(".messages")).to_contain_text("Low water has ended.")
        # The recap the GM wrote is kept as their draft; published, the players read it.
        expect(gm.get_by_label("Recap")).to_have_value(RECAP)
        gm.get_by_role("button", name="Save and publish").click()
        expect(gm.get_by_role("heading", level=1)).to_have_text("Session 1: Low water")
    finally:
        crowd.close()
    return {"campaign": campaign, "outcome": outcome}


def shows_the_session(page, outcome: str) -> None:
    """A session page (members' or public) with what was played in it."""
    expect(page.get_by_role("heading", level=1)).to_have_text("Session 1: Low water")
    main = page.locator("main")
    expect(main).to_contain_text("Attendees: Brannoc Ironmouth, Tamsin Reedwalker")
    expect(page.locator(".recap strong")).to_have_text("Tamsin")
    expect(page.locator(".recap")).to_contain_text("while Brannoc sang the river calm.")
    expect(page.locator(".contest-row")).to_have_text(
        f"#1 Simple contest: Cross the flooded ford — {outcome} (Tamsin Reedwalker, The Grey River)"
    )


def shows_the_contest(page, outcome: str) -> None:
    """A contest page with who played, with which ability, the rolls and the outcome."""
    expect(page.get_by_role("heading", level=1)).to_have_text("Contest 1: Simple contest")
    framing = page.locator("dl.framing")
    expect(framing).to_contain_text("Cross the flooded ford")
    expect(framing).to_contain_text("The Grey River 14")
    rows = page.get_by_role("region", name="Participants").get_by_role("row")
    expect(rows.filter(has_text="Tamsin Reedwalker").get_by_role("cell")).to_have_text(
        ["Tamsin Reedwalker", "the PCs' side", "River Guide", "3M"]
    )
    expect(rows.filter(has_text="The Grey River").get_by_role("cell")).to_have_text(
        ["The Grey River", "opponents", "Resistance", "14"]
    )
    events = page.locator("ol.events")
    expect(events).to_contain_text("Augment: Brannoc Ironmouth (Temple Singer) +4")
    tamsin_roll = events.locator("table.rolls tr", has_text="Tamsin Reedwalker").last
    expect(tamsin_roll).to_contain_text("River Guide")
    expect(tamsin_roll).to_contain_text("15")
    expect(tamsin_roll).to_contain_text("spent")
    expect(page.locator("p.outcome")).to_have_text(outcome[0].upper() + outcome[1:])
    expect(page.get_by_role("region", name="Outcome")).to_contain_text("Tamsin finds the shallows.")


def test_the_ended_session_and_its_contest_are_in_the_archive(people, played):
    for username in ("gm", "alice"):
        page = people.log_in(username)
        page.goto(f"{people.base}/campaigns/{played['campaign']}/")
        page.get_by_role("link", name="Archive").click()
        expect(page.get_by_role("heading", name="Timeline")).to_be_visible()
        page.get_by_role("link", name="Session 1: Low water").click()
        shows_the_session(page, played["outcome"])
        expect(page.get_by_role("link", name="End the session")).to_have_count(0)
        page.get_by_role("link", name="#1 Simple contest").click()
        shows_the_contest(page, played["outcome"])
    # Only the GM exports; the player reads the same pages.
    expect(page.get_by_role("link", name="Export (JSON)")).to_have_count(0)


def test_the_public_link_shows_the_archive_to_anyone_and_nothing_more(people, played):
    base, campaign = people.base, played["campaign"]
    gm = people.log_in("gm")
    gm.goto(f"{base}/campaigns/{campaign}/archive/")
    gm.get_by_role("button", name="Publish a read-only link").click()
    expect(gm.locator(".messages")).to_contain_text("The archive has a public read-only link.")
    link = gm.get_by_label("Public archive link").input_value()

    reader = people.anonymous()
    reader.goto(link)
    expect(reader.locator("main")).to_contain_text(f"{NAME} · public archive (read-only)")
    expect(reader.get_by_role("heading", name="Public link")).to_have_count(0)
    reader.get_by_role("link", name="Session 1: Low water").click()
    shows_the_session(reader, played["outcome"])
    reader.get_by_role("link", name="#1 Simple contest").click()
    shows_the_contest(reader, played["outcome"])
    # Read-only: no form, no export, no way to the campaign's own pages or its table.
    expect(reader.locator("main form")).to_have_count(0)
    expect(reader.get_by_role("link", name="Export (JSON)")).to_have_count(0)
    expect(reader.get_by_role("link", name="Chronicle (Markdown)")).to_have_count(0)
    expect(reader.get_by_role("link", name="Log in")).to_be_visible()
    reader.goto(f"{base}/campaigns/{campaign}/table/")
    expect(reader.get_by_role("heading", name="Log in")).to_be_visible()

    gm.get_by_role("button", name="Revoke the public link").click()
    expect(gm.locator(".messages")).to_contain_text("The public link is revoked.")
    assert reader.goto(link).status == 404


def test_a_json_export_imported_by_staff_shows_the_same_campaign(people, played, tmp_path):
    base, campaign = people.base, played["campaign"]
    gm = people.log_in("gm")
    gm.goto(f"{base}/campaigns/{campaign}/archive/")
    with gm.expect_download() as download:
        gm.get_by_role("link", name="Export (JSON)").click()
    export = tmp_path / download.value.suggested_filename
    download.value.save_as(export)
    assert export.name == "the-drowned-bell.json"

    admin = people.log_in("admin")
    admin.get_by_role("link", name="Import a campaign (staff)").click()
    admin.get_by_label("Campaign export (JSON)").set_input_files(export)
    admin.get_by_role("button", name="Import the campaign").click()
    expect(admin.locator(".messages")).to_have_text(f"{NAME} is imported; its GM is Gwen the GM.")

    # The GM now runs two campaigns of that name: the original and the copy.
    gm.goto(f"{base}/home/")
    names = gm.locator(".card h2 a", has_text=NAME)
    expect(names).to_have_count(2)
    original = f"/campaigns/{campaign}/"
    copy = next(href for href in (a.get_attribute("href") for a in names.all()) if href != original)
    pages = [("", None), ("archive/sessions/1/", shows_the_session)]
    pages.append(("archive/contests/1/", shows_the_contest))
    for path, shows in pages:
        gm.goto(f"{base}{original}{path}")
        before = gm.locator("main").inner_text()
        gm.goto(f"{base}{copy}{path}")
        expect(gm.locator("main")).to_have_text(before, use_inner_text=True)
        if shows:
            shows(gm, played["outcome"])
