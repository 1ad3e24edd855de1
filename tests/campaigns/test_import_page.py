"""The staff page that imports a campaign's JSON export (the web side of
`manage.py import_campaign`)."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaigns import services
from campaigns.forms import IMPORT_MAX_BYTES
from campaigns.models import Campaign, Role
from campaigns.transfer import campaign_export
from characters.models import Character

URL = reverse("campaign_import_json")


@pytest.fixture
def exported(campaign, tamsin):
    """The fixture campaign's export, after the campaign and sam's account are gone."""
    services.npc_create(campaign=campaign, actor=campaign.gm, name="Captain Voss", rating="5M")
    session = services.session_start(campaign=campaign, actor=campaign.gm, title="Flood")
    services.session_end(session=session, actor=campaign.gm, recap="The *flood* came.")
    data = json.loads(json.dumps(campaign_export(campaign)))
    Character.objects.filter(campaign=campaign).delete()
    campaign.delete()
    get_user_model().objects.filter(username="sam").delete()
    return data


@pytest.fixture
def staff(make_user):
    user = make_user("root", "Root")
    user.is_staff = True
    user.save()
    return user


def upload(content: bytes, name: str = "campaign.json") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/json")


def as_file(data) -> SimpleUploadedFile:
    return upload(json.dumps(data, ensure_ascii=False).encode())


def counts() -> tuple[int, int, int]:
    return (
        Campaign.objects.count(),
        get_user_model().objects.count(),
        Character.objects.count(),
    )


def test_staff_see_the_form(client, staff):
    client.force_login(staff)
    response = client.get(URL)
    assert response.status_code == 200
    assert b'enctype="multipart/form-data"' in response.content
    assert b'type="file"' in response.content


def test_only_staff_see_the_link_on_the_home_page(client, staff, alice):
    client.force_login(staff)
    assert URL.encode() in client.get(reverse("home")).content
    client.force_login(alice)
    assert URL.encode() not in client.get(reverse("home")).content


def test_staff_import_an_export_and_inactive_accounts_are_named(client, exported, gm):
    gm.is_staff = True
    gm.save()
    client.force_login(gm)
    response = client.post(URL, {"export": as_file(exported)}, follow=True)

    campaign = Campaign.objects.get()
    assert response.redirect_chain == [(reverse("campaign_detail", args=[campaign.pk]), 302)]
    assert campaign.name == "The Sunken Crown" and campaign.gm == gm
    assert campaign.memberships.get(user__username="alice").role == Role.PLAYER
    assert campaign.characters.get().name == "Tamsin Reedwalker"
    assert campaign.sessions.get(number=1).title == "Flood"
    assert campaign.npcs.get().name == "Captain Voss"
    sam = get_user_model().objects.get(username="sam")
    assert not sam.is_active and campaign.memberships.get(user=sam).role == Role.SPECTATOR
    assert campaign_export(campaign) == exported
    text = " ".join(response.content.decode().split())
    assert "The Sunken Crown is imported" in text
    assert "1 account was created inactive (sam)" in text


def test_a_staff_outsider_returns_to_the_import_page(client, exported, staff):
    client.force_login(staff)
    response = client.post(URL, {"export": as_file(exported)}, follow=True)
    assert response.redirect_chain == [(URL, 302)]
    assert Campaign.objects.get().name == "The Sunken Crown"
    assert "The Sunken Crown is imported; its GM is Gwen." in response.content.decode()


def test_it_refuses_non_staff(client, exported, gm, alice):
    before = counts()
    for user in (gm, alice):
        client.force_login(user)
        assert client.get(URL).status_code == 403
        assert client.post(URL, {"export": as_file(exported)}).status_code == 403
    assert counts() == before


def test_it_asks_anonymous_visitors_to_sign_in(client, exported):
    response = client.post(URL, {"export": as_file(exported)})
    assert response.status_code == 302 and reverse("login") in response["Location"]
    assert not Campaign.objects.exists()


@pytest.mark.parametrize(
    ("make_file", "message"),
    [
        (lambda data: upload(b"{not json"), "The file is not valid JSON"),
        (lambda data: upload("{}".encode("utf-16")), "The file is not UTF-8 text."),
        (lambda data: as_file([1, 2, 3]), "Nothing was imported: This is not a campaign export"),
        (
            lambda data: as_file({**data, "version": 99}),
            "Nothing was imported: This export is version 99",
        ),
        (
            lambda data: as_file({**data, "npcs": [*data["npcs"], {"name": ""}]}),
            "Nothing was imported: ",
        ),
        (
            lambda data: as_file({**data, "members": "everyone"}),
            "Nothing was imported: the file: members is missing or not a list.",
        ),
        (
            lambda data: as_file({**data, "members": [1]}),
            "Nothing was imported: the file does not have the shape of a campaign export.",
        ),
        (lambda data: upload(b" " * (IMPORT_MAX_BYTES + 1)), "the limit is 10 MB"),
    ],
)
def test_a_bad_file_imports_nothing(client, exported, staff, make_file, message):
    client.force_login(staff)
    before = counts()
    response = client.post(URL, {"export": make_file(exported)})
    assert response.status_code == 400  # the form comes back with what is wrong
    assert message in response.content.decode()
    assert counts() == before
    assert not get_user_model().objects.filter(username="sam").exists()
