"""A GM creates a campaign and invites a player by link; the player joins, then creates
a character in the wizard, whose first page asks the creation method (issues 5 and 27)."""

from __future__ import annotations

import re

from playwright.sync_api import expect


def test_the_gm_invites_a_player_who_joins_then_creates_a_character(log_in_page):
    gm = log_in_page("gm")
    gm.get_by_role("link", name="New campaign").click()
    gm.get_by_label("Name").fill("Iron Coast")
    gm.get_by_label("Genre").fill("Smugglers' pulp")
    gm.get_by_role("button", name="Create the campaign").click()
    expect(gm.get_by_role("heading", name="Members")).to_be_visible()
    expect(gm.locator(".messages")).to_contain_text("Iron Coast is ready")

    gm.get_by_label("Role").select_option("player")
    gm.get_by_role("button", name="Create an invitation link").click()
    link_box = gm.get_by_label("Player invitation link")
    expect(link_box).to_have_value(re.compile(r"/join/[\w-]+/$"))
    link = link_box.input_value()

    bob = log_in_page("bob")
    bob.goto(link)
    expect(bob.get_by_role("heading", name="Join Iron Coast")).to_be_visible()
    expect(bob.get_by_text("invites you as a player")).to_be_visible()
    bob.get_by_role("button", name="Join the campaign").click()
    # Joined, and on the wizard's first page with the campaign chosen: the method is
    # the player's to choose (issue 27, 11b), not made "as you go" without a word.
    expect(bob.get_by_role("heading", name="Create a character")).to_be_visible()
    expect(bob.locator(".messages")).to_contain_text(
        "Welcome to Iron Coast! Now create your character for it."
    )
    expect(bob.get_by_label("Campaign")).to_have_value(re.compile(r"^\d+$"))
    expect(bob.get_by_label("Campaign").locator("option:checked")).to_have_text("Iron Coast")
    methods = bob.get_by_role("group", name="Creation method")
    expect(methods.get_by_role("radio")).to_have_count(3)
    bob.get_by_label("Name").fill("Vell Saltjaw")
    bob.get_by_label("Concept").fill("Grim smuggler")
    methods.get_by_role("radio", name="List").check()
    bob.get_by_role("button", name="Next: abilities").click()
    expect(bob.locator("main")).to_contain_text("Vell Saltjaw")
    bob.goto(link.split("/join/")[0] + "/home/")
    bob.get_by_role("link", name="Iron Coast").click()
    expect(bob.locator("main")).to_contain_text("Vell Saltjaw, Grim smuggler (Bob)")

    # The link was for one person: using it again says so and changes nothing.
    bob.goto(link)
    expect(bob.get_by_role("alert")).to_contain_text("already been used")

    gm.reload()
    expect(gm.locator("ul.members")).to_contain_text("Bob — Player")
    expect(gm.locator("ul.invitations")).to_contain_text("already been used")
