"""A real network drop (issue 27): the player's browser reaches the site through a relay
the test controls (tests/e2e/relay.py), and the relay stops every byte both ways without
closing anything, as a phone's network does when it drops. The page must notice, come
back with exactly one live socket, and lose nothing a person typed.
"""

from __future__ import annotations

import difflib
import re
import time

from playwright.sync_api import expect

from .conftest import choose_ability, frame_contest, with_options_open
from .relay import relay_to
from .test_your_move import wait_seq

LOST = "Connection lost, reconnecting…"


def until(page, condition, what: str, timeout: float = 30) -> None:
    """Wait (letting the page's events in) until `condition()` holds; fail after `timeout`
    seconds, naming what never came."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        page.wait_for_timeout(100)


class Sockets:
    """Every websocket a page opens: when, its close, and the pings it sends."""

    def __init__(self, page) -> None:
        self.opened: list = []
        self.pings: dict = {}
        page.on("websocket", self._opened)

    def _opened(self, ws) -> None:
        self.opened.append(ws)
        self.pings[ws] = 0

        def sent(payload) -> None:
            if '"ping"' in str(payload):
                self.pings[ws] += 1

        ws.on("framesent", sent)

    def since(self, count: int) -> list:
        return self.opened[count:]


def at_table_through(people, relay, username: str, campaign_id: int):
    """`username`'s table page, loaded through the relay (HTTP and websocket alike)."""
    page = people.log_in(username)
    sockets = Sockets(page)
    page.goto(f"{relay.base}/campaigns/{campaign_id}/table/")
    expect(page.locator("#connection-status")).to_have_text("Connected")
    return page, sockets


def cut_and_come_back(page, relay, sockets: Sockets):
    """Cut the page's network until it says it lost the connection, restore it, and wait
    until the page is back and has been quiet a while: the socket it was using has
    closed and the new one has sent three heartbeats since (six seconds or so, in which
    a reconnect loop shows itself). Returns the sockets opened since the cut and the old
    one."""
    (old,) = [ws for ws in sockets.opened if not ws.is_closed()]
    before = len(sockets.opened)
    relay.cut()
    expect(page.locator("#connection-status")).to_have_text(LOST, timeout=15_000)
    relay.restore()
    expect(page.locator("#connection-status")).to_have_text("Connected", timeout=20_000)
    until(page, old.is_closed, "the socket in use before the cut closes", timeout=90)
    new = sockets.since(before)
    pings_then = {ws: sockets.pings[ws] for ws in new}

    def quiet_or_looping() -> bool:
        opened = sockets.since(before)
        if len(opened) != len(new) or any(ws.is_closed() for ws in opened):
            return True  # a socket more, or one closed: what the test is there to catch
        return all(sockets.pings[ws] >= pings_then[ws] + 3 for ws in opened)

    until(page, quiet_or_looping, "three heartbeats on the new socket", timeout=60)
    return sockets.since(before), old


def test_after_a_real_drop_the_page_has_one_live_socket_and_plays_on(table_server, people):
    campaign_id = table_server.new_campaigns("Cut at the ford")["Cut at the ford"]
    gm = people.at_table("gm", campaign_id)
    with relay_to(table_server.base) as relay:
        alice, sockets = at_table_through(people, relay, "alice", campaign_id)
        frame_contest(
            gm,
            "Simple contest",
            "Cross the ford",
            "Tamsin Reedwalker (Alice)",
            name="The Grey River",
            level="Moderate",
        )
        wait_seq([gm, alice], 1)

        opened, old = cut_and_come_back(alice, relay, sockets)
        assert old.is_closed()
        assert len(opened) == 1, f"{len(opened)} sockets opened after the drop: {opened}"
        assert not opened[0].is_closed(), "the page closed its new socket"

        # She plays on: her move reaches the GM.
        choose_ability(alice, "pc", "River Guide 3M")
        wait_seq([gm, alice], 2)
        expect(gm.locator("#roll-log li").first).to_contain_text("River Guide")
        expect(alice.locator("#table-error")).to_be_empty()
        assert sockets.opened[-1] is opened[0] and not opened[0].is_closed()


def test_a_chat_line_sent_while_cut_off_is_kept_and_said_so(table_server, people):
    campaign_id = table_server.new_campaigns("Words in the rain")["Words in the rain"]
    gm = people.at_table("gm", campaign_id)
    with relay_to(table_server.base) as relay:
        alice, _ = at_table_through(people, relay, "alice", campaign_id)
        posted = []
        alice.on("request", lambda r: posted.append(r) if r.url.endswith("/table/chat/") else None)
        relay.cut()
        expect(alice.locator("#connection-status")).to_have_text(LOST, timeout=15_000)

        form = alice.locator("form[data-chat-form]")
        form.get_by_label("Kind of line").select_option(label="Out of character")
        box = form.get_by_label("Message")
        box.fill("Wait for me at the ford — ½ a league")
        box.press("Enter")
        expect(form.get_by_role("alert")).to_contain_text("Not sent: the table is not connected")
        expect(box).to_have_value("Wait for me at the ford — ½ a league")
        assert posted == [], "nothing is sent into a dead network"

        relay.restore()
        expect(alice.locator("#connection-status")).to_have_text("Connected", timeout=20_000)
        form.get_by_role("button", name="Send").click()
        line = re.compile(
            r"^\d\d:\d\d Alice \(out of character\): Wait for me at the ford — ½ a league$"
        )
        for page in (gm, alice):
            expect(page.locator("#chat-log [data-chat-line]")).to_have_text([line])
        expect(box).to_have_value("")
        expect(form.get_by_role("alert")).to_be_empty()


# What a page shows, read so that two pages of the same person can be compared: the
# element's HTML with what differs from one load to the next (idempotency keys, htmx's
# passing classes) left out and the white space between tags folded.
NORMALISED = """id => {
  const element = document.getElementById(id);
  if (!element) return null;
  const copy = element.cloneNode(true);
  for (const node of [copy, ...copy.querySelectorAll("*")]) {
    for (const name of [...node.classList]) {
      if (name.startsWith("htmx-")) node.classList.remove(name);
    }
    if (node.getAttribute("class") === "") node.removeAttribute("class");
    if (node.matches("input[data-fresh-key]")) node.removeAttribute("value");
  }
  return copy.outerHTML.replace(/\\s+/g, " ").replace(/> </g, "><").trim();
}"""

# Requests htmx still has on their way on a page (it marks their elements).
IN_FLIGHT = "document.querySelector('.htmx-request') !== null"

REGIONS = ("session-notice", "chat-panel", "contest", "your-move", "roll-log")


def same_as_a_fresh_page(page, base: str, campaign_id: int, regions) -> None:
    """Each region of `page` ends up as a page of the same person opened now shows it
    (waiting a while for what is still on its way, such as a sheet being reloaded)."""
    fresh = with_options_open(page.context.new_page())  # as `people` opens every page
    fresh.goto(f"{base}/campaigns/{campaign_id}/table/")
    expect(fresh.locator("#connection-status")).to_have_text("Connected")
    for region in regions:
        # Both pages may still be on their way: the fresh page's sheet comes by its own
        # request after the page ("Loading your sheet…"), so it is read again each time.
        deadline = time.monotonic() + 15
        while (want := fresh.evaluate(NORMALISED, region)) != (
            shown := page.evaluate(NORMALISED, region)
        ) or fresh.evaluate(IN_FLIGHT):
            if time.monotonic() > deadline:
                break
            page.wait_for_timeout(100)
        assert want is not None, region
        diff = "\n".join(difflib.ndiff(want.split("><"), (shown or "").split("><")))
        assert shown == want, f"#{region} differs from a fresh page's:\n{diff}"
    fresh.close()


def test_a_page_back_from_a_drop_shows_what_a_fresh_page_shows(table_server, people):
    """The GM ends the session, then starts the next, each time while the pages of a
    player and of the GM are cut off: once back, each shows what it would if opened
    afresh (no chat form left open, the GM's frame panel as the session is), without a
    reload."""
    campaign_id = table_server.new_campaigns("Dark at the weir")["Dark at the weir"]
    base = table_server.base
    with relay_to(base) as relay:
        gm, _ = at_table_through(people, relay, "gm", campaign_id)
        alice, _ = at_table_through(people, relay, "alice", campaign_id)
        frame_contest(
            gm,
            "Simple contest",
            "Cross the weir",
            "Tamsin Reedwalker (Alice)",
            name="The Grey River",
            level="Moderate",
        )
        choose_ability(alice, "pc", "River Guide 3M")
        wait_seq([gm, alice], 2)
        expect(alice.locator("form[data-chat-form]")).to_be_visible()
        for page in (gm, alice):
            page.evaluate("window.stillTheSamePage = true")
        campaign_page = gm.context.new_page()  # the GM's other tab, not cut off

        relay.cut()
        for page in (gm, alice):
            expect(page.locator("#connection-status")).to_have_text(LOST, timeout=15_000)
        campaign_page.goto(f"{base}/campaigns/{campaign_id}/")
        campaign_page.get_by_role("link", name="End the session").click()
        campaign_page.get_by_role("button", name="End it").click()
        expect(campaign_page.locator(".messages")).to_contain_text("has ended")
        relay.restore()
        for page in (gm, alice):
            expect(page.locator("#connection-status")).to_have_text("Connected", timeout=20_000)
        same_as_a_fresh_page(alice, base, campaign_id, (*REGIONS, "my-character", "my-picks"))
        same_as_a_fresh_page(gm, base, campaign_id, (*REGIONS, "frame-panel"))
        expect(alice.locator("form[data-chat-form]")).to_have_count(0)
        expect(gm.locator("#frame-panel")).to_contain_text("Start a session before framing")

        relay.cut()
        for page in (gm, alice):
            expect(page.locator("#connection-status")).to_have_text(LOST, timeout=15_000)
        campaign_page.goto(f"{base}/campaigns/{campaign_id}/")
        campaign_page.get_by_role("link", name="Start a session").click()
        campaign_page.get_by_label("Title").fill("High water")
        campaign_page.get_by_role("button", name="Start").click()
        relay.restore()
        for page in (gm, alice):
            expect(page.locator("#connection-status")).to_have_text("Connected", timeout=20_000)
        same_as_a_fresh_page(alice, base, campaign_id, (*REGIONS, "my-character", "my-picks"))
        same_as_a_fresh_page(gm, base, campaign_id, (*REGIONS, "frame-panel"))
        expect(alice.locator("form[data-chat-form]")).to_be_visible()
        expect(gm.get_by_role("button", name="Frame it")).to_be_visible()
        for page in (gm, alice):
            assert page.evaluate("window.stillTheSamePage === true"), "the page was reloaded"
