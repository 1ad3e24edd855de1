"""A session's recap drafted from what happened at the table (issue 30, part 2).

An evening is played through the services as the table plays it: a contest of every
kind (tests/contests/every_kind.py) with the GM's rolls open or hidden, hero points,
an advance, the community bolstered, and chat lines of every kind, a whisper among
them. The draft names every contest and every consequence applied and holds nothing
a player could not see; players read it only once the GM publishes it.
"""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client
from django.urls import reverse

from campaigns import services as campaign_services
from campaigns.access import ArchiveViewer
from campaigns.models import Session
from campaigns.recap import CUT_NOTE
from campaigns.selectors import visible_events
from characters import services as character_services
from community import services as community_services
from contests.models import ChatKind, Contest, ContestStatus
from contests.services.chat import chat_post
from questworlds_site.limits import CHAT_LINE, RECAP
from tests.table import ability

from .every_kind import scripts

pytestmark = pytest.mark.django_db

SAID = {
    "in_character": "Hold the boat, Brannoc!",
    "emote": "wrings the river out of her cloak",
    "out_of_character": "back in five, pizza",
    "whisper": "I pocket the drowned god's ring",
}
GM_NOTES = "Secretly, the Chief is the ferryman's brother."


def play_an_evening(table, gm, alice, bob, sheets, visibility: str) -> Session:
    """Everything a session may hold, played through the services; the session left open."""
    campaign = table.campaign
    campaign.roll_visibility = visibility
    campaign.save(update_fields=["roll_visibility"])
    community = community_services.community_create(campaign=campaign, actor=gm, name="Ashfen")
    community_services.community_found(
        community=community,
        actor=gm,
        ranked_names=["Wealth", "Diplomacy", "Magic", "Morale", "Military"],
    )
    session = campaign_services.session_start(
        campaign=campaign, actor=gm, title="The ford", attendees=list(sheets.values())
    )
    tamsin = sheets["tamsin"]
    chat_post(
        campaign=campaign, user=alice, kind="in_character", text=SAID["in_character"],
        character_id=tamsin.pk,
    )  # fmt: skip
    chat_post(
        campaign=campaign, user=alice, kind="emote", text=SAID["emote"], character_id=tamsin.pk
    )
    chat_post(campaign=campaign, user=bob, kind="out_of_character", text=SAID["out_of_character"])
    chat_post(campaign=campaign, user=alice, kind="whisper", text=SAID["whisper"])
    users = {"gm": gm, "alice": alice, "bob": bob}
    played = []
    for _kind, framing, steps in scripts(table, sheets):
        data = dict(framing)
        contest = table.frame(data.pop("kind"), **data)
        for who, action, rolls, step in steps:
            contest = table.act(contest, users[who], action, rolls=rolls, **step)
        played.append(contest)
    # The consequences once all is played (the scripts' dice are for unhurt sheets).
    for contest in played:
        if contest.status == ContestStatus.RESOLVING:
            table.act(contest, gm, "apply_consequences")
    # No table action writes a contest's GM notes yet (an imported archive brings them).
    Contest.objects.filter(campaign=campaign).update(gm_notes=GM_NOTES)
    character_services.character_directed_improvement(
        character=tamsin, actor=gm, ability=ability(tamsin, "Boatcraft"), amount=3,
        reason="the river taught her",
    )  # fmt: skip
    community_services.community_bolster(
        community=community,
        actor=gm,
        resource=community.resources.get(name="Morale"),
        outcome_level=2,
        reason="the ford was held",
    )
    return session


def public_viewer(campaign) -> ArchiveViewer:
    return ArchiveViewer(campaign=campaign, role=None)


def what_players_saw(campaign) -> tuple[list[str], set[str]]:
    """The consequence rows the archive shows a player, and every text only the GM saw."""
    rows, secret = [], {GM_NOTES, SAID["whisper"]}
    for contest in Contest.objects.filter(campaign=campaign).prefetch_related("participants"):
        events = list(contest.events.order_by("seq"))
        shown = visible_events(public_viewer(campaign), events, contest.participants.all())
        rows += [str(row) for event in shown for row in event.consequences]
        shown_text = " ".join(e.summary for e in shown)
        for event in events:
            gm_only = event.payload.get("gm_summary")
            if gm_only and gm_only not in shown_text:
                secret.add(gm_only)
    return rows, secret


@pytest.mark.parametrize("visibility", ["public", "gm_hidden"])
def test_the_draft_names_every_contest_and_consequence_and_nothing_hidden(
    table, gm, alice, bob, sheets, visibility
):
    session = play_an_evening(table, gm, alice, bob, sheets, visibility)
    draft = campaign_services.session_end(session=session, actor=gm).recap
    campaign = table.campaign
    contests = list(Contest.objects.filter(campaign=campaign).order_by("number"))
    assert len(contests) == 8
    for contest in contests:
        words = f"Contest {contest.number}, {contest.get_kind_display().lower()}: {contest.prize}"
        assert words in draft
    consequences, secret = what_players_saw(campaign)
    assert consequences, "the evening applied consequences"
    for row in consequences:
        assert row in draft
    assert "Outcome for Tamsin: **" in draft
    assert "Tamsin spent" in draft and "hero point" in draft
    assert "Tamsin (directed improvement): Boatcraft 17 → 20" in draft
    assert "Morale" in draft and "### The community" in draft
    # Nothing hidden, nothing out of character, no chat unless the GM picks it.
    if visibility == "gm_hidden":
        assert len(secret) > 2, "the GM's hidden rolls wrote their own summaries"
    for text in secret:
        assert text not in draft
    for text in SAID.values():
        assert text not in draft
    assert session.recap_published_at is None


def test_chat_lines_the_gm_picks_go_in_and_nothing_else_can(table, gm, alice, bob, sheets):
    session = play_an_evening(table, gm, alice, bob, sheets, "public")
    campaign_services.session_end(session=session, actor=gm, recap="Mine, as I wrote it.")
    lines = {line.kind: line for line in session.chat_messages.all()}
    gm_page = Client()
    gm_page.force_login(gm)
    url = reverse("session_edit", args=[session.campaign_id, session.number])
    picked = [lines[ChatKind.IN_CHARACTER].pk, lines[ChatKind.EMOTE].pk]
    page = gm_page.post(
        url, {"title": "The ford", "recap": "", "chat": picked, "intent": "redraft"}
    )
    assert page.status_code == 200
    text = page.content.decode()
    assert "Hold the boat, Brannoc!" in text and "wrings the river out of her cloak" in text
    assert "Nothing is saved yet" in text
    session.refresh_from_db()
    assert session.recap == "Mine, as I wrote it."  # a new draft replaces nothing until saved
    # A whisper, an out-of-character line, another's id or a Unicode digit: refused in words.
    for chat, error in (
        (lines[ChatKind.WHISPER].pk, "not one the characters said in this session"),
        (lines[ChatKind.OUT_OF_CHARACTER].pk, "not one the characters said in this session"),
        ("١", "not a line of this session"),
    ):
        page = gm_page.post(url, {"title": "", "recap": "", "chat": [chat], "intent": "redraft"})
        assert page.status_code == 400 and error in page.content.decode()
    page = gm_page.post(url, {"title": "", "recap": "x", "intent": "destroy"})
    assert page.status_code == 400 and "not one of this page" in page.content.decode()
    session.refresh_from_db()
    assert (session.title, session.recap) == ("The ford", "Mine, as I wrote it.")


def test_players_read_the_recap_only_once_published(table, gm, alice, bob, sheets):
    session = play_an_evening(table, gm, alice, bob, sheets, "public")
    campaign_services.session_end(session=session, actor=gm)
    campaign = table.campaign
    token = campaign_services.campaign_publish(campaign=campaign, actor=gm)
    marker = "Contest 1, simple contest"
    pages = {
        "session": reverse("archive_session", args=[campaign.pk, 1]),
        "timeline": reverse("archive_timeline", args=[campaign.pk]),
        "campaign": reverse("campaign_detail", args=[campaign.pk]),
        "chronicle": reverse("campaign_export_markdown", args=[campaign.pk]),
        "search": reverse("archive_search", args=[campaign.pk]) + "?q=hero+point",
    }
    public = reverse("public_session", args=[token, 1])
    player, gm_page, anyone = Client(), Client(), Client()
    player.force_login(alice)
    gm_page.force_login(gm)

    def read(client, url) -> str:
        response = client.get(url)
        assert response.status_code == 200
        return response.content.decode()

    for name, url in pages.items():
        assert marker not in read(player, url), name
    assert "No recap mentions" in read(player, pages["search"])
    assert marker not in read(anyone, public)
    gm_session = read(gm_page, pages["session"])
    assert marker in gm_session and "the players do not see this recap yet" in gm_session
    assert "recap is a draft the players do not see yet" in read(gm_page, pages["campaign"])

    edit = reverse("session_edit", args=[campaign.pk, 1])
    recap = session.__class__.objects.get(pk=session.pk).recap + "\nThe ferry sank at dawn."
    response = gm_page.post(edit, {"title": "The ford", "recap": recap, "intent": "publish"})
    assert response.status_code == 302
    for name in ("session", "timeline", "campaign", "chronicle"):
        assert marker in read(player, pages[name]) and "The ferry sank at dawn." in read(
            player, pages[name]
        ), name
    assert "Session 1: The ford</a>" in read(player, pages["search"])
    assert "The ferry sank at dawn." in read(anyone, public)
    # Taken back to a draft, it is gone from the players' pages again.
    gm_page.post(edit, {"title": "The ford", "recap": recap, "intent": "withdraw"})
    assert "The ferry sank at dawn." not in read(player, pages["session"])


def test_only_the_gm_may_draft_publish_or_withdraw(table, gm, alice, bob, sheets, charlie):
    session = play_an_evening(table, gm, alice, bob, sheets, "public")
    campaign_services.session_end(session=session, actor=gm)
    edit = reverse("session_edit", args=[session.campaign_id, 1])
    for user in (alice, charlie):
        client = Client()
        client.force_login(user)
        response = client.post(edit, {"title": "Mine", "recap": "Mine", "intent": "publish"})
        assert response.status_code in (403, 404)
    # The GM hands the campaign over while the page is open: the old page's publish is refused.
    campaign_services.campaign_gm_hand_over(campaign=table.campaign, actor=gm, new_gm=alice)
    client = Client()
    client.force_login(gm)
    response = client.post(edit, {"title": "Mine", "recap": "Mine", "intent": "publish"})
    assert response.status_code in (403, 404)
    session.refresh_from_db()
    assert session.recap_published_at is None and session.recap != "Mine"


def test_an_empty_recap_is_not_published(table, gm, alice, bob, sheets):
    session = play_an_evening(table, gm, alice, bob, sheets, "public")
    campaign_services.session_end(session=session, actor=gm)
    client = Client()
    client.force_login(gm)
    edit = reverse("session_edit", args=[session.campaign_id, 1])
    response = client.post(edit, {"title": "The ford", "recap": "  ", "intent": "publish"})
    assert response.status_code == 400
    assert "nothing to publish yet" in response.content.decode()
    session.refresh_from_db()
    assert session.recap_published_at is None
    assert session.recap.startswith("*With Brannoc, Tamsin.*")


def test_a_long_evening_is_cut_to_the_recap_limit_saying_so(table, gm, alice, bob, sheets):
    session = play_an_evening(table, gm, alice, bob, sheets, "public")
    tamsin = sheets["tamsin"]
    for n in range(RECAP // CHAT_LINE + 2):
        line = f"{n} " + "river " * (CHAT_LINE // 6 - 1)
        chat_post(campaign=table.campaign, user=alice, kind="in_character", text=line,
                  character_id=tamsin.pk)  # fmt: skip
    campaign_services.session_end(session=session, actor=gm)
    client = Client()
    client.force_login(gm)
    edit = reverse("session_edit", args=[session.campaign_id, 1])
    picked = list(
        session.chat_messages.filter(kind=ChatKind.IN_CHARACTER).values_list("pk", flat=True)
    )
    page = client.post(edit, {"title": "", "recap": "", "chat": picked, "intent": "redraft"})
    assert page.status_code == 200
    recap = html.unescape(
        re.search(r"<textarea[^>]*>\n?(.*?)</textarea>", page.content.decode(), re.S)[1]
    )
    assert len(recap) <= RECAP and recap.endswith(CUT_NOTE)
    assert "Contest 8" in recap  # the contests come first and are kept


def test_typed_words_stay_words_in_the_draft(table, gm, alice, bob, sheets):
    """A prize is plain text: its markup is shown as typed, never run."""
    session = play_an_evening(table, gm, alice, bob, sheets, "public")
    prize = "<script>alert(1)</script> **loud** [a](javascript:alert(2))"
    table.frame("simple", pc=sheets["tamsin"], prize=prize)
    campaign_services.session_end(session=session, actor=gm)
    campaign_services.session_recap_publish(session=session, actor=gm)
    client = Client()
    client.force_login(alice)
    page = client.get(reverse("archive_session", args=[session.campaign_id, 1])).content.decode()
    recap = page[page.index('<div class="recap">') :]
    recap = recap[: recap.index("</div>")]
    shown = "&lt;script&gt;alert(1)&lt;/script&gt; **loud** [a](javascript:alert(2))"
    assert shown in recap
    assert "<script" not in recap and "<strong>loud" not in recap and "<a " not in recap
