"""The GM's Discord relay page (issue 30): the URLs this server refuses to send to, each
with its reason and nothing saved; the secret shown only masked and never exported;
who may see and change it, checked at each POST."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from campaigns import services
from campaigns.models import Webhook
from campaigns.transfer import campaign_export, campaign_import
from campaigns.webhooks.addresses import scrub

pytestmark = pytest.mark.django_db

TOKEN = "Zq3xT0kenThatIsSecret_abcdefghijklmnopqrstuvwxyz0123456789"
DISCORD = f"https://discord.com/api/webhooks/1234567890/{TOKEN}"


def page(campaign) -> str:
    return reverse("campaign_webhook", args=[campaign.pk])


def save(client, user, campaign, url: str, kinds=("session_started",)):
    client.force_login(user)
    return client.post(page(campaign), {"url": url, "kinds": list(kinds)})


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://127.0.0.1/hook", "127.0.0.1 is an internal address (loopback: this server"),
        ("https://10.1.2.3/hook", "10.1.2.3 is an internal address (a private network)"),
        (
            "https://169.254.169.254/latest/meta-data/",
            "169.254.169.254 is an internal address (link-local, where cloud servers keep",
        ),
        ("https://[::1]:8443/hook", "[::1]:8443 is an internal address (loopback"),
        ("https://discord.com@127.0.0.1/api/webhooks/1/x", "An address with a name and @ before"),
        ("http://discord.com/api/webhooks/1/x", "Only https:// addresses are accepted"),
        ("https://example.org/hook", "example.org is not a host this server sends to."),
        ("https://discord.com:8443/api/webhooks/1/x", "discord.com:8443 is not a host this"),
        ("ftp://discord.com/x", "A webhook&#x27;s address starts with https://"),
        ("https://2130706433/", "2130706433 is not a host this server sends to"),
        ("https://[::1/", "That address cannot be read"),
        ("https://discord.com:99999/x", "That address cannot be read"),
    ],
    ids=lambda value: value[:30],
)
def test_an_address_this_server_may_not_send_to_is_refused(client, campaign, gm, url, reason):
    response = save(client, gm, campaign, url)
    assert response.status_code == 400
    assert reason in response.content.decode()
    assert not Webhook.objects.exists()


def test_a_name_that_resolves_to_this_machine_is_refused(client, campaign, gm, settings):
    """Even on the allow-list: only an address listed itself may be internal."""
    settings.WEBHOOK_ALLOWED_HOSTS = ["localhost:8765"]
    settings.WEBHOOK_ALLOW_HTTP = True
    response = save(client, gm, campaign, "http://localhost:8765/hook")
    assert response.status_code == 400
    assert (
        "localhost resolves to 127.0.0.1, an internal address (loopback: this server itself)"
        in response.content.decode()
    )
    assert not Webhook.objects.exists()


def test_an_address_listed_itself_may_be_local(client, campaign, gm, settings):
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1:8765"]
    settings.WEBHOOK_ALLOW_HTTP = True
    assert save(client, gm, campaign, "http://127.0.0.1:8765/hook").status_code == 302
    # Another port of the same address is another host.
    response = save(client, gm, campaign, "http://127.0.0.1:8766/hook")
    assert response.status_code == 400
    assert Webhook.objects.get().url == "http://127.0.0.1:8765/hook"


def test_the_page_shows_an_empty_state_then_the_secret_masked(client, campaign, gm):
    client.force_login(gm)
    empty = client.get(page(campaign)).content.decode()
    assert "No webhook is set" in empty
    assert "Send a test message" not in empty and "Remove the webhook" not in empty

    assert (
        save(client, gm, campaign, DISCORD, ["session_started", "contest_outcome"]).status_code
        == 302
    )
    html = client.get(page(campaign)).content.decode()
    assert TOKEN not in html and "1234567890" not in html
    assert "discord.com…6789" in html
    assert "A session starts; A contest&#x27;s outcome is decided (in words)" in html
    # The field is never filled in with the secret.
    assert 'name="url" value' not in html
    assert "Send a test message" in html and "Remove the webhook" in html


def test_a_blank_address_keeps_the_webhook_and_changes_what_it_relays(client, campaign, gm):
    save(client, gm, campaign, DISCORD, ["session_started"])
    assert save(client, gm, campaign, "", ["session_ended", "recap_published"]).status_code == 302
    webhook = Webhook.objects.get()
    assert webhook.url == DISCORD
    assert webhook.kinds == ["session_ended", "recap_published"]
    campaign.refresh_from_db()
    assert campaign.relayed_kinds == ["session_ended", "recap_published"]


def test_a_blank_address_without_a_webhook_says_what_is_missing(client, campaign, gm):
    response = save(client, gm, campaign, "")
    assert response.status_code == 400
    assert "Give the webhook&#x27;s address" in response.content.decode()


def test_an_unknown_kind_is_refused(client, campaign, gm):
    response = save(client, gm, campaign, DISCORD, ["session_started", "whispers"])
    assert response.status_code == 400
    assert not Webhook.objects.exists()


def test_the_gm_removes_the_webhook(client, campaign, gm):
    save(client, gm, campaign, DISCORD)
    response = client.post(reverse("campaign_webhook_remove", args=[campaign.pk]), follow=True)
    assert "The webhook is removed" in response.content.decode()
    assert not Webhook.objects.exists()
    # The campaign's own copy of what it relays goes with it (read by every action).
    campaign.refresh_from_db()
    assert campaign.relayed_kinds == []


def test_a_new_address_starts_with_a_clean_status(client, campaign, gm):
    save(client, gm, campaign, DISCORD)
    Webhook.objects.update(last_error="Not delivered", last_success_at="2026-01-01T00:00Z")
    save(client, gm, campaign, DISCORD.replace("1234567890", "987654321"))
    webhook = Webhook.objects.get()
    assert webhook.last_error == "" and webhook.last_success_at is None


# --------------------------------------------------------------------- the secret


def test_the_export_holds_no_webhook_and_the_import_makes_none(client, campaign, gm):
    save(client, gm, campaign, DISCORD, ["session_started", "session_ended"])
    services.session_start(campaign=campaign, actor=gm)
    text = json.dumps(campaign_export(campaign))
    assert TOKEN not in text and "1234567890" not in text and "webhook" not in text.lower()
    client.force_login(gm)
    download = client.get(reverse("campaign_export_json", args=[campaign.pk]))
    assert TOKEN not in download.content.decode()

    campaign.name = "Elsewhere"
    campaign.save()
    copy = campaign_import(data=json.loads(text))
    assert not Webhook.objects.filter(campaign=copy).exists()


def test_an_error_is_scrubbed_of_the_address():
    said = f"could not reach {DISCORD} (refused); path /api/webhooks/1234567890/{TOKEN}"
    assert TOKEN not in scrub(said, DISCORD)
    assert "webhooks" in scrub("no webhooks here", DISCORD)


# --------------------------------------------------------------------- who may


@pytest.mark.parametrize("who", ["alice", "sam"])
def test_players_and_spectators_may_not_see_or_change_it(client, campaign, gm, who, request):
    save(client, gm, campaign, DISCORD)
    client.force_login(request.getfixturevalue(who))
    assert client.get(page(campaign)).status_code == 403
    assert client.post(page(campaign), {"url": "", "kinds": []}).status_code == 403
    for name in ("campaign_webhook_test", "campaign_webhook_remove"):
        assert client.post(reverse(name, args=[campaign.pk])).status_code == 403
    assert Webhook.objects.get().kinds == ["session_started"]


def test_outsiders_find_nothing(client, campaign, gm, charlie):
    client.force_login(charlie)
    assert client.get(page(campaign)).status_code == 404
    for name in ("campaign_webhook_test", "campaign_webhook_remove"):
        assert client.post(reverse(name, args=[campaign.pk])).status_code == 404


def test_a_gm_who_handed_the_campaign_over_with_the_page_open_is_refused(
    client, campaign, gm, alice
):
    save(client, gm, campaign, DISCORD)
    client.force_login(gm)
    assert client.get(page(campaign)).status_code == 200
    services.campaign_gm_hand_over(campaign=campaign, actor=gm, new_gm=alice)

    assert save(client, gm, campaign, "", ["session_ended"]).status_code == 403
    for name in ("campaign_webhook_test", "campaign_webhook_remove"):
        assert client.post(reverse(name, args=[campaign.pk])).status_code == 403
    assert Webhook.objects.get().kinds == ["session_started"]
    # The new GM has it.
    client.force_login(alice)
    assert "discord.com…6789" in client.get(page(campaign)).content.decode()


def test_the_service_checks_the_gm_at_the_moment_it_runs(campaign, gm, alice):
    from django.core.exceptions import PermissionDenied

    from campaigns.webhooks.services import webhook_remove, webhook_set, webhook_test

    stale = type(campaign).objects.get(pk=campaign.pk)  # read while gm was the GM
    services.campaign_gm_hand_over(campaign=campaign, actor=gm, new_gm=alice)
    with pytest.raises(PermissionDenied):
        webhook_set(campaign=stale, actor=gm, url=DISCORD, kinds=[])
    with pytest.raises(PermissionDenied):
        webhook_test(campaign=stale, actor=gm)
    with pytest.raises(PermissionDenied):
        webhook_remove(campaign=stale, actor=gm)
    assert not Webhook.objects.exists()
