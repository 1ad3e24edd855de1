"""The GM hands the campaign over to a player while their table is still open (issues 5
and 12).

The role change reaches the open pages at once: the old GM's table reloads as a
player's (no GM forms left to use, nothing of the GM's view arriving), the new GM's as
the GM's, and the new GM frames and runs contests at once.
"""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import choose_ability, frame_contest
from .test_live_contest import wait_seq

NAME = "The Ferrymen's Strike"


def test_the_open_pages_follow_a_hand_over_and_the_new_gm_runs_the_table(people, table_server):
    base = table_server.base
    campaign = table_server.new_campaigns(NAME)[NAME]
    old_gm, alice, bob = (people.at_table(u, campaign) for u in ("gm", "alice", "bob"))
    expect(old_gm.locator("#table-status")).to_have_text("You are the game master.")

    members = people.log_in("gm")  # in another window
    members.goto(f"{base}/campaigns/{campaign}/members/")
    members.get_by_label("New GM").select_option(label="Alice")
    members.get_by_role("button", name="Hand over").click()
    expect(members.locator(".messages")).to_have_text(
        "Alice is now the GM; you stay on as a player."
    )
    expect(members.locator("ul.members")).to_contain_text("Alice — Game master")
    expect(members.locator("ul.members")).to_contain_text("Gwen the GM — Player")

    # Both open tables reload by themselves with the new roles: the old GM's page is a
    # player's (no GM forms), Alice's the GM's.
    expect(old_gm.locator("#table-status")).to_have_text("You are a player.")
    expect(old_gm.get_by_role("heading", name="Frame a contest")).to_have_count(0)
    expect(old_gm.get_by_role("group", name="GM controls")).to_have_count(0)
    expect(old_gm.locator("#connection-status")).to_have_text("Connected")
    expect(alice.locator("#table-status")).to_have_text("You are the game master.")
    expect(alice.locator("#connection-status")).to_have_text("Connected")
    presence = alice.locator("#presence")
    expect(presence.locator("li", has_text="Gwen the GM")).to_contain_text("Player")
    expect(presence.locator("li", has_text="Alice")).to_contain_text("Game master")

    # Alice frames a contest for Bob's Brannoc and runs it; Gwen watches as a player.
    frame_contest(
        alice,
        "Simple contest",
        "Hush the quayside crowd",
        "Brannoc Ironmouth (Bob)",
        name="Angry ferrymen",
        level="Moderate",
    )
    wait_seq([alice, bob, old_gm], 1)
    choose_ability(bob, "pc", "Hush a Brawling Crowd +3")
    wait_seq([alice, bob, old_gm], 2)
    alice.locator("#contest, #your-move").get_by_role("button", name="Roll", exact=True).click()
    wait_seq([alice, bob, old_gm], 3)
    for page in (alice, bob, old_gm):
        expect(page.locator("#contest h3")).to_have_text(
            "#1 Simple contest: Hush the quayside crowd"
        )
    expect(old_gm.get_by_role("group", name="GM controls")).to_have_count(0)

    alice.locator("#contest, #your-move").get_by_role("button", name="Resolve").click()
    wait_seq([alice, bob, old_gm], 4)
    for page in (alice, bob, old_gm):
        expect(page.locator("#contest .phase")).to_have_text("Decided: consequences to confirm")
