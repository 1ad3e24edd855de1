"""Security headers (issue 12): a CSP of the app's own scripts and styles, no-store for
logged-in pages and downloads, Referrer-Policy, nosniff, never framed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from campaigns import services

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def test_the_landing_page_has_the_policy_and_the_headers(client):
    response = client.get(reverse("landing"))
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "style-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"
    assert "no-store" not in response.get("Cache-Control", "")  # public: may be cached


def test_logged_in_pages_and_fragments_are_not_stored(client, campaign, gm):
    client.force_login(gm)
    for url in (
        reverse("home"),
        reverse("campaign_detail", args=[campaign.pk]),
        reverse("table", args=[campaign.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 200
        assert "no-store" in response["Cache-Control"], url
        assert "Content-Security-Policy" in response


def test_exports_are_not_stored(client, campaign, gm):
    client.force_login(gm)
    for name in ("campaign_export_json", "campaign_export_markdown"):
        response = client.get(reverse(name, args=[campaign.pk]))
        assert response.status_code == 200, name
        assert "attachment" in response.get("Content-Disposition", "") or name.endswith("markdown")
        assert "no-store" in response["Cache-Control"], name


def test_a_character_export_is_not_stored(client, alice):
    from characters.services import character_create

    character = character_create(player=alice, name="Kara")
    client.force_login(alice)
    response = client.get(reverse("characters:export", args=[character.pk]))
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    assert "no-store" in response["Cache-Control"]


def test_a_public_archive_link_is_not_stored_either(client, campaign, gm):
    token = services.campaign_publish(campaign=campaign, actor=gm)
    response = client.get(reverse("public_timeline", args=[token]))
    assert response.status_code == 200
    assert "Content-Security-Policy" in response


@pytest.mark.parametrize("path", sorted(TEMPLATES.rglob("*.html")), ids=lambda p: p.name)
def test_no_template_has_inline_script_or_style(path):
    """The CSP blocks inline code: a template with any would break in the browser."""
    text = path.read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), "inline <script>"
    assert "<style" not in text, "<style> block"
    assert not re.search(r"\sstyle=", text), "style= attribute"
    assert not re.search(r"\son[a-z]+=|hx-on|javascript:", text), "inline handler"
