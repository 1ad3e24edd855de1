"""A session's table chat in the archive and the Markdown chronicle: everyone at the
table reads the public lines; a whisper to the GM only the GM and the player who
whispered it; the public link and other players never. (The chat in the campaign file:
tests/campaigns/test_transfer.py.)"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from campaigns import services
from campaigns.access import ArchiveViewer
from campaigns.models import Role
from campaigns.transfer import campaign_chronicle
from characters.models import Character
from contests.services import chat_post

pytestmark = pytest.mark.django_db

WHISPER = "I pocket the ring"


@pytest.fixture
def chatted(campaign, gm, alice, bob):
    """Session 1, ended, in which Alice's Tamsin waded in, Alice whispered to the GM, Bob
    wrote markup out of character and the GM spoke in character."""
    tamsin = Character.objects.create(name="Tamsin", player=alice, campaign=campaign)
    session = services.session_start(campaign=campaign, actor=gm, title="Low water")
    chat_post(campaign=campaign, user=alice, kind="emote", text="wades in", character_id=tamsin.pk)
    chat_post(campaign=campaign, user=alice, kind="whisper", text=WHISPER)
    chat_post(campaign=campaign, user=bob, kind="out_of_character", text="<b>brb</b>")
    chat_post(campaign=campaign, user=gm, kind="in_character", text="The river rises.")
    services.session_end(session=session, actor=gm)
    return session


def session_page(client, user, session) -> str:
    client.force_login(user)
    response = client.get(reverse("archive_session", args=[session.campaign_id, session.number]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_session_page_shows_its_chat_in_order(client, chatted, bob):
    shown = session_page(client, bob, chatted)
    assert shown.index("*Tamsin wades in*") < shown.index("Gwen: “The river rises.”")
    assert "Bob (out of character): &lt;b&gt;brb&lt;/b&gt;" in shown  # escaped, never markup


@pytest.mark.parametrize(
    ("who", "sees"), [("gm", True), ("alice", True), ("bob", False), ("sam", False)]
)
def test_a_whisper_to_the_gm_is_read_by_the_gm_and_its_author_only(
    client, chatted, who, sees, request
):
    shown = session_page(client, request.getfixturevalue(who), chatted)
    assert (WHISPER in shown) is sees
    assert "*Tamsin wades in*" in shown


def test_the_public_link_shows_public_chat_and_no_whisper(chatted, gm):
    token = services.campaign_publish(campaign=chatted.campaign, actor=gm)
    response = Client().get(reverse("public_session", args=[token, chatted.number]))
    shown = response.content.decode()
    assert "*Tamsin wades in*" in shown and WHISPER not in shown


def test_a_session_without_chat_says_so(client, campaign, gm):
    session = services.session_start(campaign=campaign, actor=gm)
    assert "Nothing was said in this session" in session_page(client, gm, session)


def test_the_chronicle_has_the_chat_each_reader_may_see(chatted, gm, alice, bob):
    campaign = chatted.campaign
    as_gm = campaign_chronicle(ArchiveViewer(campaign, Role.GM, user_id=gm.pk))
    as_alice = campaign_chronicle(ArchiveViewer(campaign, Role.PLAYER, user_id=alice.pk))
    as_bob = campaign_chronicle(ArchiveViewer(campaign, Role.PLAYER, user_id=bob.pk))
    # An emote reads as the table shows it, its stars as typed (not Markdown's italics).
    assert "#### Chat\n\n- \\*Tamsin wades in\\*\n" in as_bob
    assert "- Bob (out of character): &lt;b&gt;brb&lt;/b&gt;" in as_bob  # markup as typed
    assert WHISPER in as_gm and WHISPER in as_alice and WHISPER not in as_bob
