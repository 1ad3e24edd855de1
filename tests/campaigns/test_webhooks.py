"""The Discord relay delivering (issue 30): real actions at the table (a session started
on its page, a contest framed by the table's form, its outcome played through the
services) reach a local HTTP receiver standing in for Discord, after commit and off the
request, in the player-safe words; retries after a 500 and a 429 (its Retry-After
honoured), giving up, a slow receiver that does not slow the table, no redirect
followed, and the URL in no log.

The relay's thread reads committed rows: these tests commit (transaction=True). Every
wait is for an event (the receiver's arrivals, the relay's records), bounded."""

from __future__ import annotations

import json
import logging
import threading
from datetime import timedelta

import pytest
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from campaigns import services
from campaigns.models import Webhook, WebhookMessage
from campaigns.webhooks.outbox import RELAY, WAITING
from contests.core.rules.simple import describe_level
from contests.models import Contest

from .conftest import ability, act, frame, play_rounds
from .receiver import WAIT, Receiver, Reply

pytestmark = pytest.mark.django_db(transaction=True)

EVERYTHING = [
    "session_started",
    "session_ended",
    "contest_framed",
    "contest_outcome",
    "recap_published",
]
TOKEN = "Zq3xT0kenThatIsSecret_abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture
def receiver(settings):
    """The stand-in for Discord, on the allow-list, plain HTTP allowed; retries after a
    hundredth of a second (doubling), so a Retry-After is what makes a longer wait."""
    stand_in = Receiver()
    settings.WEBHOOK_ALLOWED_HOSTS = [stand_in.host]
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_RETRY_SECONDS = 0.01
    settings.WEBHOOK_TIMEOUT_SECONDS = 10.0
    yield stand_in
    for reply in stand_in.replies:
        if reply.hold is not None:
            reply.hold.set()
    # Nothing in flight for the next test.
    RELAY.wait_for(lambda: not WebhookMessage.objects.filter(WAITING).exists(), WAIT)
    RELAY.wait_idle(WAIT)
    stand_in.close()


def set_webhook(client, gm, campaign, url: str, kinds=EVERYTHING):
    """The GM saves the webhook on its page."""
    client.force_login(gm)
    response = client.post(
        reverse("campaign_webhook", args=[campaign.pk]), {"url": url, "kinds": kinds}
    )
    assert response.status_code == 302, response.content.decode()
    return Webhook.objects.get(campaign=campaign)


def start_session(client, gm, campaign, title="Low water"):
    """The GM starts a session on its page, as in a browser."""
    client.force_login(gm)
    response = client.post(reverse("session_start", args=[campaign.pk]), {"title": title})
    assert response.status_code == 302, response.content.decode()
    return response


def settled():
    """Wait until no message is waiting (each sent or given up)."""
    done = RELAY.wait_for(lambda: not WebhookMessage.objects.filter(WAITING).exists(), WAIT)
    assert done, "a message is still waiting"


def frame_on_the_table(client, gm, campaign, tamsin, prize):
    """The GM frames a simple contest with the table's frame form (htmx)."""
    client.force_login(gm)
    response = client.post(
        reverse("table_act", args=[campaign.pk]),
        {
            "action": "frame",
            "key": f"frame-{prize}",
            "kind": "simple",
            "prize": prize,
            "pc.character_id": str(tamsin.pk),
            "opponent.name": "The Grey River",
            "opponent.rating": "5M",
        },
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    return Contest.objects.get(campaign=campaign, prize=prize)


# --------------------------------------------------------------------- delivery and words


def test_a_session_started_on_its_page_reaches_the_receiver(client, receiver, campaign, gm):
    set_webhook(client, gm, campaign, receiver.url())
    start_session(client, gm, campaign)

    [got] = receiver.wait_for(1)
    assert got.path == "/hook"
    assert got.headers["Content-Type"] == "application/json"
    # Nobody's @everyone is pinged, whatever a name says.
    assert got.body == {
        "content": "**The Sunken Crown** — Session 1 (Low water) has begun.",
        "allowed_mentions": {"parse": []},
    }
    settled()
    webhook = Webhook.objects.get(campaign=campaign)
    assert webhook.last_success_at is not None
    assert webhook.last_error == ""


def test_a_framing_and_its_outcome_are_relayed_in_the_player_safe_cut(
    client, receiver, campaign, gm, alice, tamsin
):
    swimming = ability(tamsin, "River guide", 17)
    set_webhook(client, gm, campaign, receiver.url(), ["contest_framed", "contest_outcome"])
    services.session_start(campaign=campaign, actor=gm)
    contest = frame_on_the_table(client, gm, campaign, tamsin, "to cross the ford before dusk")
    contest.gm_notes = "The ferryman is Voss's spy"
    contest.save(update_fields=["gm_notes"])

    [framed] = receiver.wait_for(1)
    assert framed.text == (
        "**The Sunken Crown** — Contest framed: Tamsin Reedwalker wants "
        "to cross the ford before dusk (simple contest)."
    )
    act(contest, alice, "choose_ability", side="pc", ability_id=swimming.pk)
    play_rounds(contest, gm, 5, 16)
    contest.refresh_from_db()
    assert contest.outcome_level is not None

    _, outcome = receiver.wait_for(2)
    assert outcome.text == (
        "**The Sunken Crown** — Contest outcome: Tamsin Reedwalker wants to cross the ford "
        f"before dusk — {describe_level(contest.outcome_level)} for Tamsin Reedwalker."
    )
    # The consequences confirmed afterwards are not a second outcome.
    act(contest, gm, "apply_consequences")
    settled()
    assert len(receiver.received) == 2
    # Never the resistance's rating (5M, 25) or name, nor the GM's notes.
    for text in receiver.texts():
        assert "5M" not in text and "25" not in text and "Grey River" not in text
        assert "spy" not in text


def test_an_outcome_behind_a_hidden_gm_roll_waits_for_the_reveal(
    client, receiver, campaign, gm, alice, tamsin
):
    campaign.roll_visibility = "gm_hidden"
    campaign.save(update_fields=["roll_visibility"])
    swimming = ability(tamsin, "River guide", 17)
    set_webhook(client, gm, campaign, receiver.url(), ["contest_outcome"])
    services.session_start(campaign=campaign, actor=gm)
    contest = frame(
        campaign,
        gm,
        "simple",
        prize="the ford",
        pc={"character_id": tamsin.pk},
        opponent={"name": "The Grey River", "rating": "14"},
    )
    act(contest, alice, "choose_ability", side="pc", ability_id=swimming.pk)
    act(contest, gm, "roll", rolls=(5, 16))
    # Rolled in secret: nothing about it goes out (written after commit, so none is there).
    assert not WebhookMessage.objects.exists()

    act(contest, gm, "resolve")
    [got] = receiver.wait_for(1)
    assert "Contest outcome: Tamsin Reedwalker wants the ford" in got.text


def test_a_recap_is_relayed_when_the_gm_publishes_it_not_when_it_is_drafted(
    client, receiver, campaign, gm
):
    set_webhook(client, gm, campaign, receiver.url())
    start_session(client, gm, campaign)
    session = campaign.sessions.get()
    response = client.post(reverse("session_end", args=[campaign.pk, 1]), {"recap": ""})
    assert response.status_code == 302
    receiver.wait_for(2)  # begun, ended: the draft is the GM's alone
    settled()
    assert all("recap" not in got.body["content"] for got in receiver.received)
    edit = reverse("session_edit", args=[campaign.pk, 1])
    recap = "We crossed at **dawn**.\n\n- Tamsin lost her pole."
    response = client.post(edit, {"title": "Low water", "recap": recap, "intent": "publish"})
    assert response.status_code == 302
    got = receiver.wait_for(3)[-1]
    assert got.body["content"] == (
        f"**The Sunken Crown** — the recap of Session {session.number} (Low water):\n{recap}"
    )
    # Saved again once published, it is not relayed a second time.
    client.post(edit, {"title": "Low water", "recap": recap + " Again.", "intent": "save"})
    settled()
    assert len(receiver.received) == 3


def test_nothing_is_sent_for_what_the_gm_did_not_tick(client, receiver, campaign, gm):
    set_webhook(client, gm, campaign, receiver.url(), ["session_ended"])
    start_session(client, gm, campaign)
    assert not WebhookMessage.objects.exists()

    services.session_end(session=campaign.open_session(), actor=gm)
    [got] = receiver.wait_for(1)
    assert got.text == "**The Sunken Crown** — Session 1 (Low water) has ended."
    settled()
    assert len(receiver.received) == 1


def test_nothing_is_sent_when_the_action_rolls_back(client, receiver, campaign, gm, tamsin):
    set_webhook(client, gm, campaign, receiver.url())

    class Undone(Exception):
        """Raised inside the action's transaction to roll it back."""

    with pytest.raises(Undone), transaction.atomic():
        services.session_start(campaign=campaign, actor=gm)
        raise Undone
    assert not campaign.sessions.exists()
    # A framing refused (no session in progress) announces nothing either.
    client.force_login(gm)
    client.post(
        reverse("table_act", args=[campaign.pk]),
        {"action": "frame", "key": "k1", "kind": "simple", "prize": "the ford"},
        HTTP_HX_REQUEST="true",
    )
    assert not WebhookMessage.objects.exists()
    assert receiver.received == []


def test_one_webhooks_messages_arrive_in_order_even_through_a_retry(client, receiver, campaign, gm):
    receiver.replies = [Reply(500)]
    set_webhook(client, gm, campaign, receiver.url())
    session = services.session_start(campaign=campaign, actor=gm)
    services.session_end(session=session, actor=gm)

    receiver.wait_for(3)
    settled()
    assert [text.rsplit(" ", 1)[-1] for text in receiver.texts()] == ["begun.", "begun.", "ended."]


# --------------------------------------------------------------------- retries


def test_a_500_is_tried_again_until_delivered(client, receiver, campaign, gm):
    receiver.replies = [Reply(500), Reply(502)]
    set_webhook(client, gm, campaign, receiver.url())
    start_session(client, gm, campaign)

    tries = receiver.wait_for(3)
    assert len({t.text for t in tries}) == 1
    settled()
    message = WebhookMessage.objects.get()
    assert message.sent_at is not None and message.attempts == 3
    webhook = Webhook.objects.get()
    assert webhook.last_success_at is not None
    # The last error stays on the status, with its time.
    assert "the receiver answered 502" in webhook.last_error
    assert webhook.last_error_at is not None


@pytest.mark.parametrize(
    ("headers", "body", "asked"),
    [
        ({"Retry-After": "1"}, {"message": "You are being rate limited.", "retry_after": 0.2}, 1.0),
        ({}, {"message": "You are being rate limited.", "retry_after": 0.6, "global": False}, 0.6),
    ],
    ids=["retry-after-header", "discord-json-retry-after"],
)
def test_a_429_is_tried_again_no_sooner_than_the_receiver_asks(
    client, receiver, campaign, gm, headers, body, asked
):
    receiver.replies = [Reply(429, headers, json.dumps(body).encode())]
    set_webhook(client, gm, campaign, receiver.url())
    start_session(client, gm, campaign)

    first, second = receiver.wait_for(2)
    # The backoff alone would have tried again after a hundredth of a second.
    assert second.at - first.at >= asked
    settled()
    assert WebhookMessage.objects.get().sent_at is not None


def test_it_gives_up_after_the_last_try_and_the_gm_sees_why(
    client, receiver, campaign, gm, settings
):
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    receiver.replies = [Reply(500), Reply(500), Reply(503, body=b"Service Unavailable")]
    set_webhook(client, gm, campaign, receiver.url())
    start_session(client, gm, campaign)

    receiver.wait_for(3)
    settled()
    message = WebhookMessage.objects.get()
    assert message.gave_up_at is not None and message.sent_at is None
    page = client.get(reverse("campaign_webhook", args=[campaign.pk])).content.decode()
    assert "Not delivered: the receiver answered 503" in page
    assert "Service Unavailable" in page
    assert "Gave up (try 3 of 3)." in page
    assert "<dt>Messages waiting</dt><dd>0</dd>" in page


def test_a_webhook_deleted_in_discord_is_not_tried_again(client, receiver, campaign, gm):
    body = json.dumps({"message": "Unknown Webhook", "code": 10015}).encode()
    receiver.replies = [Reply(404, body=body)]
    set_webhook(client, gm, campaign, receiver.url())
    start_session(client, gm, campaign)

    receiver.wait_for(1)
    settled()
    assert WebhookMessage.objects.get().attempts == 1
    assert Webhook.objects.get().last_error.startswith(
        "Not delivered: the receiver answered 404 (no such webhook: it may have been "
        "deleted in Discord; Unknown Webhook). Gave up"
    )


def test_a_message_a_stopped_process_left_is_sent_by_this_one(client, receiver, campaign, gm):
    webhook = set_webhook(client, gm, campaign, receiver.url())
    # As a process that died while sending leaves it: tried once, its lease run out.
    WebhookMessage.objects.create(
        webhook=webhook,
        kind="session_started",
        text="left behind",
        attempts=1,
        next_try_at=timezone.now() - timedelta(seconds=1),
    )
    # The GM's page shows it waiting, and wakes this process's relay.
    html = client.get(reverse("campaign_webhook", args=[campaign.pk])).content.decode()
    assert "<dt>Messages waiting</dt><dd>1</dd>" in html

    [got] = receiver.wait_for(1)
    assert got.text == "left behind"
    settled()
    assert WebhookMessage.objects.get().attempts == 2


# --------------------------------------------------------------------- the table's pace


def test_a_slow_receiver_does_not_slow_the_table(client, receiver, campaign, gm, tamsin):
    let_go = threading.Event()
    receiver.replies = [Reply(204, hold=let_go)]
    set_webhook(client, gm, campaign, receiver.url())

    start_session(client, gm, campaign)
    # The GM has the page back; the receiver is still holding the session's message.
    assert receiver.holding.wait(WAIT)
    # And the table plays on meanwhile: a contest framed, answered at once.
    frame_on_the_table(client, gm, campaign, tamsin, "to cross the ford")
    assert receiver.holding.is_set()
    assert len(receiver.received) == 1

    let_go.set()
    receiver.wait_for(2)
    settled()


# --------------------------------------------------------------------- guarded to the end


def test_a_redirect_is_not_followed(client, receiver, campaign, gm):
    elsewhere = Receiver()
    try:
        receiver.replies = [Reply(302, {"Location": elsewhere.url("/inside")})]
        set_webhook(client, gm, campaign, receiver.url())
        response = client.post(
            reverse("campaign_webhook_test", args=[campaign.pk]), HTTP_HX_REQUEST="true"
        )
        assert "Not delivered: the receiver answered 302 (a redirect, which is not followed)" in (
            response.content.decode()
        )
        assert elsewhere.received == []
    finally:
        elsewhere.close()


def test_a_name_that_now_resolves_inside_is_refused_at_sending(
    client, receiver, campaign, gm, settings
):
    webhook = set_webhook(client, gm, campaign, receiver.url())
    # Saved when allowed; the allow-list now names the host by a name that resolves to
    # this machine: only an address listed itself may be internal.
    settings.WEBHOOK_ALLOWED_HOSTS = [f"localhost:{receiver.port}"]
    Webhook.objects.filter(pk=webhook.pk).update(url=f"http://localhost:{receiver.port}/hook")
    start_session(client, gm, campaign)

    settled()
    assert receiver.received == []
    assert Webhook.objects.get().last_error.startswith(
        "Refused: localhost resolves to 127.0.0.1, an internal address (loopback"
    )


def test_the_url_is_in_no_log_and_no_error(client, receiver, campaign, gm, caplog, settings):
    settings.WEBHOOK_MAX_ATTEMPTS = 2
    url = receiver.url(f"/api/webhooks/1234567890/{TOKEN}")
    # A receiver that echoes the address it was asked for in its error.
    echo = f"no webhook at {url}".encode()
    receiver.replies = [Reply(500, body=echo), Reply(500, body=echo)]
    set_webhook(client, gm, campaign, url)
    with caplog.at_level(logging.DEBUG):
        start_session(client, gm, campaign)
        receiver.wait_for(2)
        settled()
    assert "the receiver answered 500" in caplog.text
    assert TOKEN not in caplog.text
    webhook = Webhook.objects.get()
    assert TOKEN not in webhook.last_error
    assert TOKEN not in WebhookMessage.objects.get().last_error
    page = client.get(reverse("campaign_webhook", args=[campaign.pk])).content.decode()
    assert TOKEN not in page and TOKEN[-4:] in page


# --------------------------------------------------------------------- the test button


def test_the_test_button_shows_the_answer_in_words(client, receiver, campaign, gm, settings):
    set_webhook(client, gm, campaign, receiver.url())
    url = reverse("campaign_webhook_test", args=[campaign.pk])

    delivered = client.post(url, HTTP_HX_REQUEST="true").content.decode()
    assert "Delivered (the receiver answered 204)." in delivered
    [got] = receiver.wait_for(1)
    assert got.text.startswith("**The Sunken Crown** — a test message from QuestWorlds Table")

    receiver.replies = [Reply(404, body=b"Not here")]
    missing = client.post(url, HTTP_HX_REQUEST="true").content.decode()
    assert "Not delivered: the receiver answered 404" in missing
    assert "Last error" in missing and "Test message: Not delivered" in missing

    settings.WEBHOOK_ALLOWED_HOSTS = ["discord.com"]
    refused = client.post(url, HTTP_HX_REQUEST="true").content.decode()
    assert f"Refused: {receiver.host} is an internal address (loopback" in refused
    assert len(receiver.received) == 2

    # Without htmx: the page again, the answer on top.
    response = client.post(url, follow=True)
    assert "Refused: " in response.content.decode()


def test_the_test_button_is_rate_limited(client, receiver, campaign, gm, settings):
    settings.WEBHOOK_TEST_LIMIT = "2/minute"
    set_webhook(client, gm, campaign, receiver.url())
    url = reverse("campaign_webhook_test", args=[campaign.pk])
    for _ in range(2):
        assert client.post(url, HTTP_HX_REQUEST="true").status_code == 200
    refused = client.post(url, HTTP_HX_REQUEST="true")
    assert refused.status_code == 400
    assert "Too many test messages" in refused.content.decode()
    plain = client.post(url)
    assert plain.status_code == 429 and "Retry-After" in plain
    assert len(receiver.received) == 2
