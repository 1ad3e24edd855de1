"""Recaps are Markdown rendered sanitised; the demo campaign has a first archive page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.demo import demo_campaign_create
from campaigns.markdown import render_markdown


def test_markdown_renders_the_usual_formatting():
    html = render_markdown("# Night\n\n**Bold** and *soft*\n\n- one\n- two\n\n[map](https://x.org)")
    assert "<h1>Night</h1>" in html
    assert "<strong>Bold</strong> and <em>soft</em>" in html
    assert "<li>one</li>" in html
    assert '<a href="https://x.org" rel="noopener noreferrer nofollow">map</a>' in html


@pytest.mark.parametrize(
    ("evil", "gone"),
    [
        ("<script>alert('x')</script>", "alert"),
        ('<img src="x" onerror="alert(1)">', "onerror"),
        ("[click](javascript:alert(1))", "javascript:"),
        ('<a href="#" onclick="steal()">x</a>', "onclick"),
        ("<style>body{display:none}</style>", "display:none"),
        ('<iframe src="https://evil.example"></iframe>', "iframe"),
    ],
)
def test_markdown_never_lets_scripts_through(evil, gone):
    assert gone not in render_markdown(f"Before {evil} after")


def test_empty_recaps_render_as_nothing():
    assert render_markdown("") == ""


def test_the_demo_campaign_has_season_one_and_a_finished_session(client, db):
    campaign = demo_campaign_create()
    season = campaign.seasons.get()
    session = campaign.sessions.get()
    assert (season.number, season.base_resistance) == (1, 14)
    assert not session.is_open and session.season == season
    assert set(session.attendees.all()) == set(campaign.characters.all())
    # Written as history: the sheets keep a new character's hero points.
    assert all(c.hero_points == 3 and not c.in_session for c in campaign.characters.all())
    client.force_login(campaign.gm)
    page = client.get(reverse("archive_timeline", args=[campaign.pk])).content.decode()
    assert "The ferry that would not sink" in page and "<strong>Grey River</strong>" in page
