"""An evening at the table, played from the "your move" bar alone (issue 15).

A GM (1280 px), Alice (1280 px) and Bob (on a 390 px phone) play a simple, a scored and
an extended contest. Nobody looks for a button: at each step whoever's bar says
"Your move" presses what the bar offers, until the contest is over. Between contests
they talk in the chat, and Alice whispers to the GM. Along the way each page says whose
exchange it is, the standing in RP or AP, and every settled roll in one line of words.
Screenshots at 1280 px and 390 px go to test-results/evening/ for people to look at.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .conftest import sign_in

SHOTS = Path(__file__).resolve().parents[2] / "test-results" / "evening"
LINE = re.compile(r"(beats|loses to|ties with|against) ")


@pytest.fixture(scope="module")
def evening(table_server):
    """A copy of the demo campaign with a session open."""
    return table_server.base, table_server.demo_campaign("An evening in Ashfen")


def seat(browser, base, campaign_id, username, width):
    page = sign_in(browser, base, username, width)
    page.goto(f"{base}/campaigns/{campaign_id}/table/")
    expect(page.locator("#connection-status")).to_have_text("Connected")
    return page


def shoot(pages, step):
    """Each page whole, and a phone's first screen as its reader finds it (at the top).
    The guides' screenshots (docs/img/table-*.png) are copies of step 3-extended-under-way:
    the GM's and Alice's whole pages and Bob's first screen."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, page in pages.items():
        page.screenshot(path=str(SHOTS / f"{step}-{name}.png"), full_page=True)
        if name.endswith("-390"):
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(SHOTS / f"{step}-{name}-first-screen.png"))


def seq(page) -> int:
    return int(page.locator("#contest").get_attribute("data-seq") or 0)


def frame(gm, kind, prize, pc, opponent, everyone):
    form = gm.locator("form[data-frame-form]")
    form.locator("select[name=kind]").select_option(label=kind)
    form.locator("input[name=prize]").fill(prize)
    form.locator("select[name='pc.character_id']").select_option(label=pc)
    form.locator("input[name='opponent.name']").fill(opponent)
    press(
        gm,
        form,
        gm.locator("#contest h3"),
        lambda shown, **wait: expect(shown).to_contain_text(prize, **wait),
    )
    for page in everyone:
        expect(page.locator("#contest h3")).to_contain_text(prize)


def my_needed_move(page):
    """This person's needed moves in the bar, as shown (the others' are hidden)."""
    return page.locator("#your-move p.my-move:not(.optional):visible")


def play_from_the_bar(people, everyone, *, choose=None, watch=None, steps=80):
    """Until the contest is over: whoever's bar says "Your move" presses the first form
    the bar offers them (a pick of ability as `choose` says); the table must never wait
    on nobody. `watch(page)` checks each page after every step."""
    for _ in range(steps):
        if people["gm"].locator("#your-move").inner_text().find("is over") >= 0:
            return
        movers = [(name, page) for name, page in people.items() if my_needed_move(page).count()]
        assert movers, "nobody has a move, yet the contest is not over"
        name, page = movers[0]
        form = page.locator("#your-move form:visible:not([data-action=hero_point])").first
        if choose and form.get_attribute("data-action") == "choose_ability":
            form.locator("select[name=ability_id]").select_option(label=choose)
        before = seq(people["gm"])
        press(
            page,
            form,
            people["gm"].locator("#contest"),
            functools.partial(moved_from, str(before)),
        )
        for other in everyone:
            expect(other.locator("#contest")).not_to_have_attribute("data-seq", str(before))
        expect(page.locator("#table-error")).to_be_empty()
        if watch:
            for other in everyone:
                watch(other)
    raise AssertionError("the contest did not end from the bar")


def moved_from(before: str, shown, **wait) -> None:
    expect(shown).not_to_have_attribute("data-seq", before, **wait)


def press(page, form, shown, taken):
    """Press the form's button as a person does, until `taken(shown)` holds: when the
    table says to slow down (the per-person limit on actions), wait as long as it says
    and press again; when the form was redrawn under the pointer and nothing was sent,
    press again."""
    for _ in range(4):
        form.locator("button[type=submit]").click()
        try:
            taken(shown, timeout=3_000)
            return
        except AssertionError:
            said = page.locator("#table-error").inner_text()
            wait = re.search(r"Too many actions at once: wait (\d+) seconds?", said)
            assert wait or not said, said
            page.wait_for_timeout(1000 * int(wait.group(1)) if wait else 200)
    raise AssertionError("the action was never taken")


def explained(page):
    """Every settled roll reads as one line of words, on every page."""
    shown = page.locator("#contest .explain, #contest .last-line")
    if shown.count():
        assert LINE.search(shown.first.inner_text()), shown.first.inner_text()


def say(page, text, kind, as_character=None):
    """Say one line as a person does: once the last one is taken (Send is disabled while a
    line is on its way, and Enter then sends nothing)."""
    form = page.locator("form[data-chat-form]")
    expect(form.locator("button[type=submit]")).to_be_enabled()
    form.get_by_label("Kind of line").select_option(label=kind)
    if as_character:
        form.get_by_label("Speaking as").select_option(label=as_character)
    form.get_by_label("Message").fill(text)
    form.get_by_label("Message").press("Enter")


def test_an_evening_of_three_contests_played_from_the_bar(browser, evening):
    base, campaign_id = evening
    gm = seat(browser, base, campaign_id, "gm", 1280)
    alice = seat(browser, base, campaign_id, "alice", 1280)
    bob = seat(browser, base, campaign_id, "bob", 390)
    people = {"gm": gm, "alice": alice, "bob-390": bob}
    everyone = list(people.values())

    # 1. A simple contest for Bob's Brannoc: he picks on his phone, the GM rolls,
    #    resolves and confirms, each from the bar.
    frame(
        gm,
        "Simple contest",
        "Hush the tavern",
        "Brannoc Ironmouth (Bob)",
        "The angry crowd",
        everyone,
    )
    expect(my_needed_move(bob)).to_have_text("Your move: choose an ability for Brannoc Ironmouth")
    play_from_the_bar(people, everyone, choose="Disgraced 19", watch=explained)
    for page in everyone:
        expect(page.locator("#contest .explain")).to_contain_text("Brannoc Ironmouth's")
    shoot(people, "1-simple")
    assert bob.evaluate("document.documentElement.scrollWidth") <= 390

    # Between contests: in character, an emote, and a whisper only the GM reads.
    say(alice, "Well sung, Brannoc!", "In character", "Tamsin Reedwalker")
    say(bob, "bows to the room", "Emote", "Brannoc Ironmouth")
    say(alice, "Tamsin pockets the toll coin", "Whisper to the GM")
    for page in everyone:
        expect(page.locator("#chat-log")).to_contain_text("Well sung, Brannoc!")
        expect(page.locator("#chat-log")).to_contain_text("*Brannoc Ironmouth bows to the room*")
    for page in (gm, alice):
        expect(page.locator("#chat-log")).to_contain_text("Tamsin pockets the toll coin")
    expect(bob.locator("#chat-log")).not_to_contain_text("toll coin")

    # 2. A scored contest for Tamsin, with her sidekick Oro's eyes (§6.5.1): the head of
    #    the contest shows both sides' RP from the start.
    frame(
        gm,
        "Scored contest",
        "Spot the smugglers",
        "Tamsin Reedwalker (Alice)",
        "The smugglers",
        everyone,
    )
    for page in everyone:
        expect(page.locator("#contest header .totals")).to_contain_text("Tamsin Reedwalker 0 RP")
    play_from_the_bar(people, everyone, choose="Keen Eyes (Oro, sidekick) 18", watch=explained)
    expect(gm.locator("#contest .side[data-side=pc]")).to_contain_text("Keen Eyes")
    expect(bob.locator("#roll-log")).to_contain_text("RP to")
    shoot(people, "2-scored")

    # 3. An extended contest: the head says whose exchange it is and the AP.
    frame(
        gm,
        "Extended contest",
        "Outrun the raiders",
        "Tamsin Reedwalker (Alice)",
        "The raiders",
        everyone,
    )
    started, shot = [], []

    def exchange_shown(page):
        explained(page)
        if page is gm and not shot and page.locator("#contest .last-line").count():
            shot.append(True)
            shoot(people, "3-extended-under-way")
        turn = page.locator("#contest header .turn")
        if turn.count():
            assert re.search(r"^(Tamsin Reedwalker's|The raiders') exchange", turn.inner_text())
            started.append(page)
            expect(page.locator("#contest header .totals")).to_contain_text("AP")

    play_from_the_bar(people, everyone, choose="River Guide 3M", watch=exchange_shown)
    assert started, "no page ever said whose exchange it was"
    expect(alice.locator("#roll-log")).to_contain_text("exchange (bid")
    shoot(people, "3-extended")
    assert bob.evaluate("document.documentElement.scrollWidth") <= 390
    for page in everyone:
        page.context.close()
