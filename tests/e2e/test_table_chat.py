"""Table chat in real browsers: a line typed at one table appears once in every other,
a whisper to the GM only in the GM's, and the chat fits a 390 px phone."""

from __future__ import annotations

from playwright.sync_api import expect

from .relay import relay_to


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


def test_a_line_typed_while_the_last_is_on_its_way_is_sent_next(table_server, people):
    """Two lines in quick succession: the second, typed and sent before the first's
    answer came back, is neither dropped nor wiped from the box by that answer."""
    campaign_id = table_server.new_campaigns("Quick words")["Quick words"]
    gm = people.at_table("gm", campaign_id)
    bob = people.at_table("bob", campaign_id)
    held: list = []
    # The first line's answer is slow (a busy server): the second is typed meanwhile.
    bob.route("**/table/chat/", lambda route: held.append(route) if not held else route.continue_())
    say(bob, "First, the rope", "Out of character")
    for _ in range(100):  # until the first line's request is held on its way
        if held:
            break
        bob.wait_for_timeout(20)
    assert held
    say(bob, "then the lantern", "Out of character")
    held[0].continue_()
    for page in (gm, bob):
        log = page.locator("#chat-log [data-chat-line]")
        expect(log).to_have_count(2)
        expect(log.nth(0)).to_contain_text("First, the rope")
        expect(log.nth(1)).to_contain_text("then the lantern")
    expect(bob.locator("form[data-chat-form]").get_by_label("Message")).to_have_value("")


# Counts the pings the page sends and the messages it hears, as they happen (the page's
# clock is Playwright's to drive here, so the counts are read in step with it).
COUNT_PINGS = """
window.qwPings = 0;
window.qwHeard = 0;
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  if (String(data).indexOf('"ping"') >= 0) window.qwPings += 1;
  return send.call(this, data);
};
document.addEventListener("htmx:wsAfterMessage", () => { window.qwHeard += 1; });
"""


def test_a_page_that_hears_its_table_pings_less_and_still_sees_a_drop(table_server, people):
    with relay_to(table_server.base) as relay:
        _pings_and_a_drop(table_server, people, relay)


def _pings_and_a_drop(table_server, people, relay):
    """A page in view pings every 2 s while it hears nothing; while the table talks (a
    line every half second) it sends no ping, the lines prove the connection as well
    (issue 16); and a real network drop (a relay the test cuts, tests/e2e/relay.py) shows
    once nothing has been heard for 5 s. The page's clock stands still but for the test's
    moves (Playwright's clock), so these are its timers' rules, not how fast a busy
    machine runs them."""
    campaign_id = table_server.new_campaigns("A busy ford")["A busy ford"]
    bob = people.at_table("bob", campaign_id)
    alice = people.log_in("alice")
    alice.add_init_script(COUNT_PINGS)
    alice.clock.install()
    alice.goto(f"{relay.base}/campaigns/{campaign_id}/table/")  # through the relay
    expect(alice.locator("#connection-status")).to_have_text("Connected")
    # Stands still from a moment just ahead of the page's clock (which flows until then:
    # pausing at the instant read would be in the past by the time the pause arrives).
    alice.clock.pause_at((alice.evaluate("Date.now()") + 1_000) / 1000)  # seconds

    def count(what: str) -> int:
        return alice.evaluate(f"window.{what}")

    def until_heard_more_than(heard: int) -> None:
        for _ in range(600):  # the answer, on the real clock: bounded at 30 s
            if count("qwHeard") > heard:
                return
            alice.wait_for_timeout(50)
        raise AssertionError("the server never answered the ping")

    def quiet_for(ms: int) -> None:
        """The page's time moves on a tenth of a second at a time, and a ping it sends is
        answered before it moves on, as a real server answers within that tenth (moved on
        in one leap, every answer would come late by the page's clock, and the next tick
        would find it too recent to ping)."""
        for _ in range(ms // 100):
            pings, heard = count("qwPings"), count("qwHeard")
            alice.clock.run_for(100)
            if count("qwPings") > pings:
                until_heard_more_than(heard)

    quiet_from = count("qwPings")
    quiet_for(8_000)  # 8 s of the page's time with nothing said at the table
    # A ping every 2 s, so four ticks. The first tick may come within a second of the
    # last word heard, and on a loaded machine the table's own first messages to the page
    # (its presence, its state) may still arrive in the first seconds, each one putting
    # off the next ping: so at least two of the four.
    assert count("qwPings") - quiet_from >= 2

    busy_from = count("qwPings")
    for line in range(16):  # 8 s of the page's time, a line every half second
        say(bob, f"plank {line}", "Out of character")
        expect(alice.locator("#chat-log")).to_contain_text(f"plank {line}")
        alice.clock.run_for(500)
    assert count("qwPings") == busy_from  # the lines did the pings' work
    expect(alice.locator("#connection-status")).to_have_text("Connected")

    relay.cut()  # no byte crosses; the socket still looks open
    alice.clock.run_for(7_100)  # its pings go unanswered: lost after 5 s heard nothing
    expect(alice.locator("#connection-status")).to_have_text("Connection lost, reconnecting…")
    relay.restore()
    # Reconnecting waits on the page's timers too: its clock is moved on until it has.
    for _ in range(120):
        if alice.locator("#connection-status").text_content() == "Connected":
            break
        alice.clock.run_for(1_000)
        alice.wait_for_timeout(100)  # the new socket's own events, on the real clock
    expect(alice.locator("#connection-status")).to_have_text("Connected")
