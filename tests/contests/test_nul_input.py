"""A NUL character anywhere in a request gets a 400 with a message and changes nothing
(PostgreSQL stores no NUL in text: these were server errors)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns import services as campaign_services
from contests.models import ContestEvent
from questworlds_site.middleware import NUL_REFUSED

pytestmark = pytest.mark.django_db


def refused(response) -> None:
    assert response.status_code == 400
    assert response.content.decode() == NUL_REFUSED


def test_the_archive_search_refuses_a_nul(client, campaign, gm):
    client.force_login(gm)
    url = reverse("archive_search", args=[campaign.pk])
    refused(client.get(url, {"q": "river\x00"}))
    assert client.get(url, {"q": "river"}).status_code == 200


def test_the_public_links_search_and_token_refuse_a_nul(client, campaign, gm):
    token = campaign_services.campaign_publish(campaign=campaign, actor=gm)
    refused(client.get(reverse("public_search", args=[token]), {"q": "\x00"}))
    refused(client.get("/archive/%00/"))
    assert client.get(reverse("public_search", args=[token]), {"q": "x"}).status_code == 200


def test_an_invitation_link_refuses_a_nul(client, charlie):
    client.force_login(charlie)
    refused(client.get("/join/%00/"))


def test_a_table_action_with_a_nul_is_refused_in_the_tables_error_line(
    client, table, session, gm, tamsin
):
    contest = table.frame(pc=tamsin)
    client.force_login(gm)
    before = ContestEvent.objects.count()
    url = reverse("table_act", args=[table.campaign.pk])
    for fields in (
        {"key": "k\x00", "side": "pc", "tactic": "wade"},
        {"key": "k1", "side": "pc", "tactic": "a\x00b"},
    ):
        response = client.post(url, {"action": "set_tactic", "contest": contest.pk, **fields})
        assert response.status_code == 400
        assert "must not contain NUL" in response.content.decode()
    assert ContestEvent.objects.count() == before
