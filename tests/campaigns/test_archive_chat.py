"""A session's table chat in the archive, the Markdown chronicle and the campaign file:
everyone at the table reads the public lines; a whisper to the GM only the GM and the
player who whispered it; the public link and other players never."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from campaigns import services
from campaigns.access import ArchiveViewer
from campaigns.models import Campaign, Role
from campaigns.transfer import campaign_chronicle, campaign_export, campaign_import
from characters.models import Character
from contests.models import ChatMessage
from contests.services import chat_post

from .test_transfer import played_campaign, wipe

__all__ = ["played_campaign"]

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


def test_chat_survives_the_campaign_files_round_trip(played_campaign):
    """The played campaign's open session gets a line of each kind; the file carries
    them (authors by username, characters by key) and imports them as they were."""
    campaign = played_campaign
    gm = campaign.gm
    tamsin = Character.objects.get(name="Tamsin Reedwalker")
    alice = tamsin.player
    chat_post(
        campaign=campaign, user=alice, kind="in_character", text="Hold!", character_id=tamsin.pk
    )
    chat_post(campaign=campaign, user=alice, kind="whisper", text=WHISPER)
    chat_post(campaign=campaign, user=gm, kind="emote", text="smiles")
    exported = json.loads(json.dumps(campaign_export(campaign)))
    keys = {c["sheet"]["name"]: c["key"] for c in exported["characters"]}
    assert [(line["author"], line["kind"], line["character"]) for line in exported["chat"]] == [
        ("alice", "in_character", keys["Tamsin Reedwalker"]),
        ("alice", "whisper", None),
        ("gm", "emote", None),
    ]
    wipe(campaign)
    imported = campaign_import(data=exported)
    assert json.loads(json.dumps(campaign_export(imported))) == exported
    lines = list(ChatMessage.objects.filter(campaign=imported).order_by("created_at", "id"))
    assert [line.as_text() for line in lines][0] == "Tamsin Reedwalker: “Hold!”"
    assert {line.session.number for line in lines} == {imported.open_session().number}


def test_an_export_without_chat_still_imports(played_campaign):
    exported = json.loads(json.dumps(campaign_export(played_campaign)))
    del exported["chat"]
    wipe(played_campaign)
    assert not ChatMessage.objects.filter(campaign=campaign_import(data=exported)).exists()


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        ({"kind": "shout"}, "chat line 1: Value 'shout' is not a valid choice."),
        ({"text": ""}, "chat line 1: This field cannot be blank."),
        ({"text": "x" * 501}, "chat line 1: Ensure this value has at most 500 characters"),
        ({"session": 99}, "chat line 1"),
    ],
)
def test_a_bad_chat_line_imports_nothing(played_campaign, spoil, message):
    chat_post(campaign=played_campaign, user=played_campaign.gm, kind="emote", text="smiles")
    exported = json.loads(json.dumps(campaign_export(played_campaign)))
    exported["chat"][0].update(spoil)
    wipe(played_campaign)
    count = Campaign.objects.count()
    with pytest.raises(ValidationError) as refused:
        campaign_import(data=exported)
    assert message in str(refused.value)
    assert Campaign.objects.count() == count
