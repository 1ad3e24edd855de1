"""The words and the body of a relayed message, and how a receiver's answer is read:
plain text as typed (Discord's Markdown escaped, nobody pinged), Retry-After in
seconds, as a date or as Discord's JSON. No database, no network."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

from campaigns.models import Campaign, mask_url
from campaigns.webhooks import delivery, texts


def test_what_people_typed_is_plain_text_and_pings_nobody():
    campaign = Campaign(name="The *Sunken* Crown")
    text = texts.contest_framed(
        campaign,
        kind_label="Simple contest",
        prize="@everyone [free gold](https://evil.example) `now`",
        obstacle="",
        framing={"pc": {"name": "Tamsin_the_Bold"}},
    )
    assert text == (
        r"**The \*Sunken\* Crown** — Contest framed: Tamsin\_the\_Bold wants "
        r"@everyone \[free gold\](https://evil.example) \`now\` (simple contest)."
    )
    assert json.loads(delivery.body(text)) == {
        "content": text,
        "allowed_mentions": {"parse": []},
    }


def test_a_group_contest_names_the_pcs_side():
    campaign = Campaign(name="Ashfen")
    framing = {
        "pc_side": "pc",
        "participants": [
            {"name": "Tamsin", "side": "pc", "character_id": 1},
            {"name": "Brannoc", "side": "pc", "character_id": 2},
            {"name": "Hound", "side": "pc", "owner": "Brannoc"},
            {"name": "Raiders", "side": "opponent", "rating": 14},
        ],
    }
    outcome = texts.contest_outcome(
        campaign, prize="", obstacle="the raiders", framing=framing, level=-2, automatic=False
    )
    assert outcome == (
        "**Ashfen** — Contest outcome: Tamsin and Brannoc face the raiders — "
        "minor defeat for Tamsin and Brannoc."
    )
    tie = texts.contest_outcome(
        campaign,
        prize="the ford",
        obstacle="",
        framing={"pc": {"name": "Tamsin"}},
        level=0,
        automatic=False,
    )
    assert tie.endswith("Tamsin wants the ford — a tie.")


def test_retry_after_is_read_as_seconds_a_date_or_discords_json():
    assert delivery._retry_after("3", b"") == 3.0
    assert delivery._retry_after(None, b'{"retry_after": 1.5}') == 1.5
    # The longer of the two is waited out.
    assert delivery._retry_after("1", b'{"retry_after": 2.5}') == 2.5
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=120), usegmt=True)
    assert 100 < (delivery._retry_after(when, b"") or 0) <= 120
    assert delivery._retry_after("next week", b"not json") is None
    assert delivery._retry_after("999999", b"") == delivery.LONGEST_WAIT


def test_the_url_is_shown_by_its_host_and_last_four_characters():
    assert mask_url("https://discord.com/api/webhooks/1/abcdefWXYZ") == "discord.com…WXYZ"
    assert "abcdef" not in mask_url("https://discord.com/api/webhooks/1/abcdefWXYZ")


def test_a_long_recap_is_cut_at_a_line_to_fit_one_message_saying_where_the_rest_is():
    from campaigns.models import WEBHOOK_TEXT_MAX, Session

    lines = [f"- Line {n}: the river rose and the ferry held." for n in range(80)]
    session = Session(campaign=Campaign(name="Ashfen"), number=4, recap="\n".join(lines))
    text = texts.recap_published(session)
    assert len(text) <= WEBHOOK_TEXT_MAX
    assert text.startswith("**Ashfen** — the recap of Session 4:\n- Line 0:")
    body, end = text.rsplit("\n", 1)
    assert end == "… (the rest is in the campaign's archive)"
    assert body.endswith("the ferry held.")  # cut between lines, never inside one
