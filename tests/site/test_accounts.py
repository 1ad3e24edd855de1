"""Sign up, log in, log out, password change, display name; login required (issue 2)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_the_landing_page_is_public(client):
    response = client.get("/")
    assert response.status_code == 200
    assert b"Log in" in response.content


def test_the_landing_page_sends_signed_in_people_to_their_campaigns(client, alice):
    client.force_login(alice)
    assert client.get("/").url == reverse("home")


@pytest.mark.parametrize(
    "url", ["/home/", "/accounts/profile/", "/accounts/password/", "/campaigns/1/table/"]
)
def test_everything_else_requires_login(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_signing_up_creates_an_account_and_logs_in(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "newbie",
            "display_name": "New Bie",
            "password1": "a-long-passphrase-9",
            "password2": "a-long-passphrase-9",
        },
    )
    assert response.status_code == 302
    user = get_user_model().objects.get(username="newbie")
    assert user.shown_name == "New Bie"
    assert client.get(reverse("home")).status_code == 200


def test_signing_up_with_mismatched_passwords_says_so_and_creates_nothing(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "newbie",
            "password1": "a-long-passphrase-9",
            "password2": "other-passphrase-9",
        },
    )
    assert response.status_code == 400
    assert b"password fields didn" in response.content
    assert not get_user_model().objects.filter(username="newbie").exists()


def test_log_in_and_log_out(client, alice):
    response = client.post(
        reverse("login"), {"username": "alice", "password": "correct horse battery"}
    )
    assert response.status_code == 302
    assert client.get(reverse("home")).status_code == 200
    client.post(reverse("logout"))
    assert client.get(reverse("home")).status_code == 302


def test_a_wrong_password_is_refused(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    assert response.status_code == 400
    assert b"correct username and password" in response.content


def test_changing_the_password(client, alice):
    client.force_login(alice)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": "correct horse battery",
            "new_password1": "fresh-passphrase-42",
            "new_password2": "fresh-passphrase-42",
        },
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("fresh-passphrase-42")


def test_setting_a_display_name(client, alice):
    client.force_login(alice)
    client.post(reverse("profile"), {"display_name": "  Alice of Ashfen "})
    alice.refresh_from_db()
    assert alice.shown_name == "Alice of Ashfen"


def test_a_blank_display_name_falls_back_to_the_username(client, alice):
    client.force_login(alice)
    client.post(reverse("profile"), {"display_name": ""})
    alice.refresh_from_db()
    assert alice.shown_name == "alice"


def test_forms_enforce_csrf(alice):
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        reverse("login"), {"username": "alice", "password": "correct horse battery"}
    )
    assert response.status_code == 403


@pytest.mark.parametrize(
    ("who", "status"), [("gm", 200), ("alice", 200), ("sam", 200), ("charlie", 404)]
)
def test_the_table_page_is_for_members_only(client, campaign, request, who, status):
    client.force_login(request.getfixturevalue(who))
    assert client.get(reverse("table", args=[campaign.pk])).status_code == status
    assert client.get(reverse("campaign_detail", args=[campaign.pk])).status_code == status


def test_the_table_page_connects_its_websocket_with_htmx_from_django_htmx(client, campaign, alice):
    client.force_login(alice)
    html = client.get(reverse("table", args=[campaign.pk])).content.decode()
    assert f'ws-connect="/ws/tables/{campaign.pk}/"' in html
    assert "django_htmx/htmx-2.min.js" in html and "django_htmx/ext/hx-ws-2.min.js" in html
    assert 'hx-headers=\'{"X-CSRFToken"' in html


def test_home_lists_only_my_campaigns(client, campaign, charlie, alice):
    client.force_login(alice)
    assert campaign.name.encode() in client.get(reverse("home")).content
    client.force_login(charlie)
    response = client.get(reverse("home"))
    assert campaign.name.encode() not in response.content
    assert b"not in any campaign yet" in response.content
