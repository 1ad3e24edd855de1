"""Brute force is throttled (issue 12, item 7): sign-in failures per account and per
address, sign-ups per address, and links whose secret token leads nowhere."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from campaigns import services

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"


def log_in(client, username: str, password: str):
    return client.post(reverse("login"), {"username": username, "password": password})


def test_after_five_wrong_passwords_even_the_right_one_waits(client, alice, bob_user):
    for n in range(5):
        response = log_in(client, "alice", f"wrong {n}")
        assert response.status_code == 400
        assert "enter a correct username and password" in response.content.decode()
    response = log_in(client, "alice", PASSWORD)
    assert response.status_code == 429
    assert "Too many failed sign-ins" in response.content.decode()
    assert 0 < int(response["Retry-After"]) <= 15 * 60
    assert "_auth_user_id" not in client.session
    # Letter case does not make a new account name to guess on.
    assert log_in(client, "ALICE", PASSWORD).status_code == 429
    # Someone else signs in from the same address.
    assert log_in(client, "bob", PASSWORD).status_code == 302


def test_a_success_forgets_earlier_failures(client, alice):
    for n in range(4):
        assert log_in(client, "alice", f"wrong {n}").status_code == 400
    assert log_in(client, "alice", PASSWORD).status_code == 302
    client.logout()
    for n in range(4):
        assert log_in(client, "alice", f"wrong again {n}").status_code == 400
    assert log_in(client, "alice", PASSWORD).status_code == 302


def test_one_address_guessing_many_accounts_is_stopped(client, settings, alice):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = "8/15 minutes"
    for n in range(8):
        assert log_in(client, f"someone{n}", "guess").status_code == 400
    assert log_in(client, "alice", PASSWORD).status_code == 429


def test_sign_ups_from_one_address_are_limited(client, settings):
    settings.SIGNUP_LIMIT = "3/hour"
    users = get_user_model().objects
    for n in range(3):
        client.post(
            reverse("signup"),
            {
                "username": f"new{n}",
                "display_name": f"New {n}",
                "password1": "a long enough passphrase",
                "password2": "a long enough passphrase",
            },
        )
        client.logout()
    assert users.filter(username__startswith="new").count() == 3
    response = client.post(
        reverse("signup"),
        {
            "username": "new3",
            "password1": "a long enough passphrase",
            "password2": "a long enough passphrase",
        },
    )
    assert response.status_code == 429
    assert "Too many sign-ups" in response.content.decode()
    assert not users.filter(username="new3").exists()


def test_guessing_invitation_tokens_is_stopped_even_for_a_real_one(
    client, settings, campaign, gm, charlie
):
    settings.INVITATION_FAILURE_LIMIT = "5/hour"
    invitation = services.invitation_create(campaign=campaign, actor=gm)
    client.force_login(charlie)
    for n in range(5):
        response = client.get(reverse("invitation_accept", args=[f"guess{n}"]))
        assert response.status_code == 404
    response = client.get(reverse("invitation_accept", args=[invitation.token]))
    assert response.status_code == 429
    assert "Too many links that lead nowhere" in response.content.decode()


def test_guessing_public_archive_links_is_stopped(client, settings, campaign, gm):
    settings.INVITATION_FAILURE_LIMIT = "3/hour"
    token = services.campaign_publish(campaign=campaign, actor=gm)
    assert client.get(reverse("public_timeline", args=[token])).status_code == 200
    for n in range(3):
        assert client.get(reverse("public_timeline", args=[f"guess{n}"])).status_code == 404
    assert client.get(reverse("public_search", args=[token])).status_code == 429


@pytest.fixture
def bob_user(make_user):
    return make_user("bob", "Bob")
