"""The "your move" bar after a bid (issue 27, item 3): once the side whose turn it is
has bid, the table waits on the GM's roll, not on that bid. Played as browsers play it:
the bid posted by htmx, the bars read from the frames the sockets receive."""

from __future__ import annotations

import html
import re

import pytest
from channels.db import database_sync_to_async

from tests.table import ability

from .table_seats import Seats, post_action

pytestmark = pytest.mark.django_db(transaction=True)

BAR = re.compile(r'<div id="your-move"[^>]*>(.*?)\n  </div>', re.S)


def bar(frame: str) -> str:
    """The bar's lines in words: its forms and tags dropped."""
    lines = re.sub(r"<form .*?</form>", " ", BAR.search(frame).group(1), flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", lines)).split())


def frame(table, brannoc):
    """Brannoc (Bob's) against the Raiders, his ability chosen at the framing."""
    return table.frame(
        "extended",
        pc={"character_id": brannoc.pk, "ability_id": ability(brannoc, "Temple singer").pk},
        opponent={"name": "Raiders", "rating": "14"},
    )


async def test_the_bar_stops_waiting_on_a_bid_once_it_is_made(
    table, session, gm, alice, bob, brannoc
):
    seats = Seats(table.campaign)
    for name, user in (("gm", gm), ("alice", alice), ("bob", bob)):
        await seats.seat(name, user)
    try:
        contest = await database_sync_to_async(frame)(table, brannoc)
        framed = await seats.step(contest.pk, 1)
        assert "Your move: bid for Brannoc" in bar(framed["bob"])
        assert "Waiting for Brannoc's player (bid for Brannoc)" in bar(framed["gm"])

        answer = await post_action(table.campaign, bob, contest.pk, "bid", seq=1, bid=3)
        assert 'data-acked="2"' in answer
        bid = await seats.step(contest.pk, 2)
        assert "Brannoc bids 3 AP" in bid["gm"]
        assert bar(bid["gm"]) == "Your move: roll"
        for name in ("alice", "bob"):
            # Bob may still change his bid, but the table no longer waits on it.
            assert "Your move" not in bar(bid[name])
            assert bar(bid[name]) == "Waiting for the GM (roll)."
    finally:
        await seats.close()
