"""The chronicle shows what people typed as text: names, titles and the genre with
markup in them never become HTML or Markdown in the file (issue 27)."""

from __future__ import annotations

import html
from html.parser import HTMLParser

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from campaigns import services
from campaigns.markdown import render_markdown
from campaigns.models import Membership, Role
from characters import services as character_services

GM_NAME = 'Gwen <script>alert("gm")</script>'
CAMPAIGN = 'The <img src=x onerror="alert(1)"> Crown'
GENRE = "*Bronze* _age_ [fantasy](https://example.org)"
SEASON = "# Drowned & <b>deep</b>"
TITLE = "Flood | `ticks` ![pic](https://example.org/p.png) \\o/ ~~gone~~"
TAMSIN = 'Tamsin <script>alert("pc")</script> **Reed**walker'
BRANNOC = "1. Brannoc <img src=x onerror=alert(2)> Iron_mouth_"
TYPED = (GM_NAME, CAMPAIGN, GENRE, SEASON, TITLE)


class _Text(HTMLParser):
    """The words a reader sees in HTML, and the tags it has."""

    def __init__(self) -> None:
        super().__init__()
        self.words, self.tags = [], set()

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.add(tag)

    def handle_data(self, data) -> None:
        self.words.append(data)


def _seen(markdown: str) -> tuple[str, set[str]]:
    reader = _Text()
    reader.feed(str(render_markdown(markdown)))
    return " ".join("".join(reader.words).split()), reader.tags


@pytest.fixture
def marked_up(db, alice):
    """A GM who signed up with markup in their name, and a campaign, season, session and
    characters named with it, made as the site makes them."""
    signup = Client()
    response = signup.post(
        reverse("signup"),
        {
            "username": "gwen",
            "display_name": GM_NAME,
            "password1": "a long river password",
            "password2": "a long river password",
        },
    )
    assert response.status_code == 302
    gm = get_user_model().objects.get(username="gwen")
    campaign = services.campaign_create(gm=gm, name=CAMPAIGN, genre=GENRE)
    Membership.objects.create(campaign=campaign, user=alice, role=Role.PLAYER)
    characters = [
        character_services.character_create(player=alice, name=name, campaign=campaign)
        for name in (TAMSIN, BRANNOC)
    ]
    services.season_start(campaign=campaign, actor=gm, name=SEASON)
    services.session_start(campaign=campaign, actor=gm, title=TITLE, attendees=characters)
    return campaign


def test_the_chronicle_shows_names_as_typed_never_as_markup(marked_up, alice):
    reader = Client()
    reader.force_login(alice)
    response = reader.get(reverse("campaign_export_markdown", args=[marked_up.pk]))
    text = response.content.decode()
    # The file itself: no tag a Markdown viewer would pass through to a browser.
    for markup in ("<script", "<img", "<b>", "[fantasy]("):
        assert markup not in text, markup
    # Rendered, every name reads exactly as it was typed, and nothing in them became
    # a tag: the document's own headings and italics are all there is.
    seen, tags = _seen(text)
    for typed in (*TYPED, TAMSIN, BRANNOC):
        assert typed in seen, typed
    assert tags <= {"h1", "h2", "h3", "p", "em"}, tags
    assert "Attendees: " + html.unescape(f"{BRANNOC}, {TAMSIN}") in seen
