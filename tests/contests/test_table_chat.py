"""Table chat through the browsers' path: the chat form beside the roll log, posted by
htmx, as each persona (the GM, players, a spectator, an outsider)."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from contests.models import ChatMessage

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def chat_form(page: str) -> str:
    form = re.search(r"<form[^>]*data-chat-form.*?</form>", page, re.S)
    assert form, "the page has no chat form"
    return form.group(0)


def field_names(form: str) -> set[str]:
    return set(re.findall(r'<(?:input|select|textarea)[^>]*name="([^"]+)"', form))


def say(client, campaign, text: str, kind: str = "out_of_character", character="") -> object:
    """The chat form as the browser posts it (its fields: kind, character, text)."""
    return client.post(
        reverse("table_chat", args=[campaign.pk]),
        {"kind": kind, "character": str(character), "text": text},
        headers=HTMX,
    )


def page(client, campaign) -> str:
    return client.get(reverse("table", args=[campaign.pk])).content.decode()


def error_line(response) -> str:
    line = re.search(r'<p id="table-error"[^>]*>(.*?)</p>', response.content.decode(), re.S)
    return html.unescape(line.group(1)) if line else ""


def test_the_table_shows_a_chat_form_with_its_kinds_in_words(client, session, alice, tamsin):
    client.force_login(alice)
    form = chat_form(page(client, session.campaign))
    assert field_names(form) == {"kind", "character", "text"}
    assert ">In character<" in form and ">Out of character<" in form
    assert ">Emote<" in form and ">Whisper to the GM<" in form
    assert ">Tamsin<" in form and 'maxlength="500"' in form


def test_the_gm_is_not_offered_a_whisper_to_themself(client, session, gm):
    client.force_login(gm)
    form = chat_form(page(client, session.campaign))
    assert "Whisper to the GM" not in form and field_names(form) == {"kind", "text"}


@pytest.mark.parametrize(
    ("kind", "character", "shown"),
    [
        ("in_character", True, "Tamsin: “We cross at dawn.”"),
        ("in_character", False, "Alice: “We cross at dawn.”"),
        ("out_of_character", False, "Alice (out of character): We cross at dawn."),
        ("emote", True, "*Tamsin We cross at dawn.*"),
        ("whisper", False, "Alice (whisper to the GM): We cross at dawn."),
    ],
)
def test_a_player_says_each_kind_of_line(client, session, alice, tamsin, kind, character, shown):
    client.force_login(alice)
    response = say(
        client, session.campaign, "  We cross at dawn. ", kind, tamsin.pk if character else ""
    )
    assert response.status_code == 200
    assert shown in html.unescape(response.content.decode())  # the sender's list
    assert error_line(response) == ""
    line = ChatMessage.objects.get()
    assert (line.session, line.author, line.kind, line.text) == (
        session,
        alice,
        kind,
        "We cross at dawn.",
    )
    assert shown in html.unescape(page(client, session.campaign))  # and after a reload


def test_an_emote_reads_as_the_character_doing_it(client, session, alice, tamsin):
    client.force_login(alice)
    say(client, session.campaign, "draws her knife", "emote", tamsin.pk)
    assert "*Tamsin draws her knife*" in page(client, session.campaign)


def test_a_character_is_kept_only_for_lines_said_as_one(client, session, alice, tamsin):
    client.force_login(alice)
    say(client, session.campaign, "brb", "out_of_character", tamsin.pk)
    assert ChatMessage.objects.get().character is None


def test_the_gm_chats_too(client, session, gm):
    client.force_login(gm)
    assert say(client, session.campaign, "The river rises.", "in_character").status_code == 200
    assert "Gwen: “The river rises.”" in html.unescape(page(client, session.campaign))


def test_text_is_escaped_everywhere(client, session, alice, gm):
    client.force_login(alice)
    response = say(client, session.campaign, "<script>alert(1)</script>")
    assert response.status_code == 200
    assert "<script>alert(1)" not in response.content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in response.content.decode()
    client.force_login(gm)
    assert "<script>alert(1)" not in page(client, session.campaign)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"text": "x" * 501}, "at most 500 characters (this one has 501)"),
        ({"text": "   "}, "an empty message is not sent"),
        ({"text": ""}, "an empty message is not sent"),
        ({"kind": "shout"}, "Choose what kind of line it is"),
        ({"kind": ""}, "Choose what kind of line it is"),
        ({"character": "abc"}, "only as one of your own characters"),
        ({"character": "999999"}, "only as one of your own characters"),
    ],
)
def test_bad_input_is_refused_with_a_message_and_nothing_is_stored(
    client, session, alice, fields, message
):
    client.force_login(alice)
    data = {"kind": "in_character", "character": "", "text": "Hello", **fields}
    response = client.post(reverse("table_chat", args=[session.campaign.pk]), data, headers=HTMX)
    assert response.status_code == 400
    assert message in error_line(response) and "Nothing was sent." in error_line(response)
    assert not ChatMessage.objects.exists()


def test_text_of_exactly_the_limit_is_taken(client, session, alice):
    client.force_login(alice)
    assert say(client, session.campaign, "x" * 500).status_code == 200
    assert len(ChatMessage.objects.get().text) == 500


def test_nobody_speaks_as_someone_elses_character(client, session, alice, bob, brannoc):
    client.force_login(alice)
    response = say(client, session.campaign, "I am Brannoc", "in_character", brannoc.pk)
    assert response.status_code == 400
    assert "only as one of your own characters" in error_line(response)
    assert not ChatMessage.objects.exists()


def test_a_character_of_another_campaign_is_refused(client, session, alice, gm):
    from campaigns.models import Campaign
    from characters.models import Character

    other = Campaign.objects.create(name="Elsewhere", gm=gm)
    elsewhere = Character.objects.create(name="Ysolde", player=alice, campaign=other)
    client.force_login(alice)
    assert say(client, session.campaign, "Hi", "in_character", elsewhere.pk).status_code == 400
    assert not ChatMessage.objects.exists()


def test_a_spectator_reads_but_may_not_chat(client, session, sam, alice):
    client.force_login(alice)
    say(client, session.campaign, "Hello, all")
    client.force_login(sam)
    shown = page(client, session.campaign)
    assert "data-chat-form" not in shown and "Hello, all" in shown
    response = say(client, session.campaign, "Can I join?")
    assert response.status_code == 400
    assert "Spectators read the chat" in error_line(response)
    assert ChatMessage.objects.count() == 1


def test_an_outsider_is_not_told_the_table_exists(client, session, charlie):
    client.force_login(charlie)
    assert say(client, session.campaign, "Hello?").status_code == 404
    assert not ChatMessage.objects.exists()


def test_anonymous_visitors_cannot_chat(client, session):
    response = say(client, session.campaign, "Hello?")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not ChatMessage.objects.exists()


def test_roles_are_read_when_the_line_is_sent(client, session, alice):
    """A page opened as a player, then the GM made Alice a spectator: her form is
    still on her page, and refused."""
    client.force_login(alice)
    assert "data-chat-form" in page(client, session.campaign)
    session.campaign.memberships.filter(user=alice).update(role="spectator")
    response = say(client, session.campaign, "Still here")
    assert response.status_code == 400 and "Spectators read the chat" in error_line(response)
    assert not ChatMessage.objects.exists()


def test_chat_needs_an_open_session(client, campaign, alice):
    client.force_login(alice)
    shown = page(client, campaign)
    assert "data-chat-form" not in shown and "the chat opens when the GM starts one" in shown
    response = say(client, campaign, "Anyone?")
    assert response.status_code == 400
    assert "No session is in progress" in error_line(response)
    assert not ChatMessage.objects.exists()


def test_an_ended_session_takes_no_more_chat(client, session, alice):
    session.ended_at = timezone.now()
    session.save()
    client.force_login(alice)
    assert say(client, session.campaign, "Anyone?").status_code == 400
    assert not ChatMessage.objects.exists()


def test_a_nul_character_is_refused_before_the_view(client, session, alice):
    client.force_login(alice)
    response = say(client, session.campaign, "Grey\x00River")
    assert response.status_code == 400 and "NUL character" in response.content.decode()
    assert not ChatMessage.objects.exists()


def test_chat_shares_the_table_actions_rate_limit(client, session, alice, gm, settings):
    settings.ACTION_RATE_LIMIT = "3/minute"
    client.force_login(alice)
    for n in range(3):
        assert say(client, session.campaign, f"line {n}").status_code == 200
    refused = say(client, session.campaign, "one too many")
    assert refused.status_code == 400 and 0 < int(refused["Retry-After"]) <= 60
    assert "Too many actions at once: wait" in error_line(refused)
    # A plain form post (no htmx) over the limit gets 429.
    url = reverse("table_chat", args=[session.campaign.pk])
    plain = client.post(url, {"kind": "emote", "text": "waves"})
    assert plain.status_code == 429 and "Retry-After" in plain
    assert ChatMessage.objects.count() == 3
    client.force_login(gm)  # the limit is Alice's own
    assert say(client, session.campaign, "Slow down, Alice").status_code == 200


def test_the_table_shows_the_latest_lines_of_the_open_session_only(client, session, alice):
    from campaigns.models import Session

    old = Session.objects.create(
        campaign=session.campaign, number=0, started_at=timezone.now(), ended_at=timezone.now()
    )
    ChatMessage.objects.create(
        campaign=session.campaign, session=old, author=alice, kind="emote", text="old news"
    )
    for n in range(55):
        ChatMessage.objects.create(
            campaign=session.campaign, session=session, author=alice, kind="emote", text=f"n{n}!"
        )
    client.force_login(alice)
    shown = page(client, session.campaign)
    assert "old news" not in shown
    assert "n4!" not in shown and "n5!" in shown and "n54!" in shown
    assert shown.index("n5!") < shown.index("n54!")  # oldest first, the newest at the bottom
