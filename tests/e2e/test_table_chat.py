"""Table chat in real browsers: a line typed at one table appears once in every other,
a whisper to the GM only in the GM's, and the chat fits a 390 px phone."""

from __future__ import annotations

from playwright.sync_api import expect


def say(page, text: str, kind: str, as_character: str | None = None) -> None:
    """Type a line in the chat form and press Enter, as a player does."""
    form = page.locator("form[data-chat-form]")
    form.get_by_label("Kind of line").select_option(label=kind)
    if as_character is not None:
        form.get_by_label("Speaking as").select_option(label=as_character)
    box = form.get_by_label("Message")
    box.fill(text)
    box.press("Enter")


def test_chat_lines_reach_the_table_and_whispers_only_the_gm(table_server, people):
    campaign_id = table_server.new_campaigns("Chat at the ford")["Chat at the ford"]
    gm = people.at_table("gm", campaign_id)
    bob = people.at_table("bob", campaign_id)
    alice = people.log_in("alice")
    alice.set_viewport_size({"width": 390, "height": 844})
    alice.goto(f"{table_server.base}/campaigns/{campaign_id}/table/")
    expect(alice.locator("#connection-status")).to_have_text("Connected")

    say(alice, "draws her knife", "Emote", "Tamsin Reedwalker")
    for page in (gm, bob, alice):
        expect(page.locator("#chat-log")).to_contain_text("*Tamsin Reedwalker draws her knife*")
    expect(alice.locator("form[data-chat-form]").get_by_label("Message")).to_have_value("")

    say(alice, "I pocket the ring <b>now</b>", "Whisper to the GM")
    expect(gm.locator("#chat-log")).to_contain_text("I pocket the ring <b>now</b>")
    expect(alice.locator("#chat-log")).to_contain_text("(whisper to the GM)")
    say(bob, "back in five", "Out of character")
    for page in (gm, bob, alice):
        expect(page.locator("#chat-log")).to_contain_text("Bob (out of character): back in five")
    expect(bob.locator("#chat-log")).not_to_contain_text("pocket the ring")
    # Each line once in the sender's page, whichever came first: its answer or the socket.
    expect(alice.locator("#chat-log [data-chat-line]")).to_have_count(3)
    expect(gm.locator("#chat-log [data-chat-line]")).to_have_count(3)
    expect(bob.locator("#chat-log [data-chat-line]")).to_have_count(2)

    # Nothing wider than the phone's screen.
    assert alice.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_line_typed_while_the_last_is_on_its_way_is_kept_to_send(table_server, people):
    """Send is disabled while a line is on its way, so Enter then sends nothing; the
    answer to the line before must not wipe the one typed meanwhile."""
    campaign_id = table_server.new_campaigns("Chat in a hurry")["Chat in a hurry"]
    bob = people.at_table("bob", campaign_id)
    held = []

    def hold(route) -> None:  # the first line waits here until the test lets it go
        held.append(route)

    bob.route("**/table/chat/", hold)
    say(bob, "first line", "Out of character")
    for _ in range(100):
        if held:
            break
        bob.wait_for_timeout(50)
    assert len(held) == 1, held
    form = bob.locator("form[data-chat-form]")
    expect(form.locator("button[type=submit]")).to_be_disabled()
    say(bob, "second line", "Out of character")  # Enter sends nothing yet
    held[0].continue_()
    bob.unroute("**/table/chat/")
    expect(bob.locator("#chat-log")).to_contain_text("Bob (out of character): first line")
    expect(form.locator("button[type=submit]")).to_be_enabled()
    expect(form.get_by_label("Message")).to_have_value("second line")
    form.get_by_label("Message").press("Enter")
    expect(bob.locator("#chat-log")).to_contain_text("Bob (out of character): second line")
    expect(form.get_by_label("Message")).to_have_value("")
    expect(bob.locator("#chat-log [data-chat-line]")).to_have_count(2)
