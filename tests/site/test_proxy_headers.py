"""Forwarded headers are believed only from the configured proxy (issue 12, item 10)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

HTTPS = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"}


def invitation_link(client, campaign, **extra) -> str:
    response = client.post(
        reverse("invitation_create", args=[campaign.pk]),
        {"role": "player", "days": "7", "max_uses": "1"},
        follow=True,
        **extra,
    )
    return re.search(r"link: (\S+?)</li>", response.content.decode()).group(1)


def test_without_a_proxy_no_forwarded_header_is_believed(client, campaign, gm, settings):
    settings.TRUSTED_PROXIES = []
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    client.force_login(gm)
    link = invitation_link(client, campaign, headers=HTTPS, REMOTE_ADDR="198.51.100.9")
    assert link.startswith("http://testserver/join/")


def test_the_configured_proxy_is_believed_and_only_it(client, campaign, gm, settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/24"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    client.force_login(gm)
    assert invitation_link(client, campaign, headers=HTTPS, REMOTE_ADDR="10.0.0.5").startswith(
        "https://"
    )
    spoofed = invitation_link(client, campaign, headers=HTTPS, REMOTE_ADDR="198.51.100.9")
    assert spoofed.startswith("http://")


def test_the_client_address_comes_from_the_proxy_for_rate_limits(client, settings, alice):
    """Sign-in failures are counted per client: behind the proxy, the forwarded one."""
    settings.TRUSTED_PROXIES = ["10.0.0.5"]
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = "2/15 minutes"
    for n in range(2):
        client.post(
            reverse("login"),
            {"username": f"nobody{n}", "password": "x"},
            REMOTE_ADDR="10.0.0.5",
            headers={"X-Forwarded-For": "203.0.113.7"},
        )
    blocked = client.post(
        reverse("login"),
        {"username": "alice", "password": "correct horse battery"},
        REMOTE_ADDR="10.0.0.5",
        headers={"X-Forwarded-For": "203.0.113.7"},
    )
    assert blocked.status_code == 429
    other = client.post(
        reverse("login"),
        {"username": "alice", "password": "correct horse battery"},
        REMOTE_ADDR="10.0.0.5",
        headers={"X-Forwarded-For": "203.0.113.8"},
    )
    assert other.status_code == 302


def test_a_client_inside_a_trusted_network_cannot_choose_its_address(client, settings, alice):
    """Behind a proxy that appends to X-Forwarded-For, a client on the trusted network
    (10.1.2.3) writes a new address before its own each time: the limit still counts it
    as one (uvicorn's --forwarded-allow-ips would skip the trusted entry and believe the
    forged one; proxy.py says why the app keeps its own)."""
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = "2/15 minutes"

    def sign_in(username: str, password: str, forged: str):
        return client.post(
            reverse("login"),
            {"username": username, "password": password},
            REMOTE_ADDR="10.0.0.5",
            headers={"X-Forwarded-For": f"{forged}, 10.1.2.3"},
        )

    for n in range(2):
        assert sign_in(f"nobody{n}", "x", f"203.0.113.{n}").status_code == 400
    assert sign_in("alice", "correct horse battery", "203.0.113.9").status_code == 429


def test_a_forged_forwarded_header_never_reaches_a_view(rf, settings):
    """From an untrusted peer the headers are removed, not merely ignored."""
    from questworlds_site.proxy import TrustedProxyMiddleware

    settings.TRUSTED_PROXIES = ["10.0.0.5"]
    seen = {}
    middleware = TrustedProxyMiddleware(lambda request: seen.update(request.META))
    forged = {"X-Forwarded-For": "203.0.113.7", "X-Forwarded-Proto": "https", "Forwarded": "for=1"}
    middleware(rf.get("/", REMOTE_ADDR="198.51.100.9", headers=forged))
    assert seen["REMOTE_ADDR"] == "198.51.100.9"
    assert not {"HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_PROTO", "HTTP_FORWARDED"} & set(seen)
