"""Every form of the campaign pages refuses a NUL or text past its limit with a 400,
a message and no change, and takes text at the limit (issue 12, items 2 and 3); the
pages show each limit; the archive refuses a search past 200 characters; a campaign
import with text longer than its column imports nothing."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaigns import services
from campaigns.models import Invitation
from campaigns.transfer import campaign_export
from characters import services as character_services
from tests.form_limits import Form, assert_limits_shown, cases, check_limit, snapshot, text

from .conftest import ability, play_against

pytestmark = pytest.mark.django_db


@pytest.fixture
def npc(campaign, gm):
    return services.npc_create(campaign=campaign, actor=gm, name="Captain Voss", rating="5M")


@pytest.fixture
def open_session(campaign, gm):
    return services.session_start(campaign=campaign, actor=gm, title="The flood")


@pytest.fixture
def ended_session(open_session, gm):
    return services.session_end(session=open_session, actor=gm, recap="The *flood* came.")


CAMPAIGN = {"name": 120, "genre": 120, "description": 4_000}
NPC = {"name": 120, "description": 4_000, "notes": 10_000}

FORMS = {
    "create": Form(
        url=lambda _: reverse("campaign_create"),
        data=lambda _: {"name": "The Flood"},
        fields=CAMPAIGN,
        user="charlie",
    ),
    "edit": Form(
        url=lambda c: reverse("campaign_edit", args=[c.pk]),
        data=lambda c: {"name": c.name},
        fields=CAMPAIGN,
        user="gm",
    ),
    "npc-create": Form(
        url=lambda c: reverse("npc_list", args=[c.pk]),
        data=lambda c: {"name": "Voss", "rating": "5M"},
        fields=NPC,
        user="gm",
    ),
    "npc-edit": Form(
        url=lambda n: reverse("npc_edit", args=[n.campaign_id, n.pk]),
        data=lambda n: {"name": n.name, "rating": "5M"},
        fields=NPC,
        user="gm",
        subject="npc",
    ),
    "season-start": Form(
        url=lambda c: reverse("season_start", args=[c.pk]),
        data=lambda c: {"progression": "3"},
        fields={"name": 120},
        user="gm",
    ),
    "session-start": Form(
        url=lambda c: reverse("session_start", args=[c.pk]),
        data=lambda c: {},
        fields={"title": 200},
        user="gm",
    ),
    "session-end": Form(
        url=lambda s: reverse("session_end", args=[s.campaign_id, s.number]),
        data=lambda s: {},
        fields={"recap": 20_000},
        user="gm",
        subject="open_session",
    ),
    "session-edit": Form(
        url=lambda s: reverse("session_edit", args=[s.campaign_id, s.number]),
        data=lambda s: {"title": s.title},
        fields={"title": 200, "recap": 20_000},
        user="gm",
        subject="ended_session",
    ),
}


@pytest.mark.parametrize(("form", "field"), cases(FORMS))
def test_nul_and_overlong_text_are_refused(client, request, form, field):
    spec = FORMS[form]
    client.force_login(request.getfixturevalue(spec.user))
    check_limit(client, spec, request.getfixturevalue(spec.subject), field)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("campaign_options", {"base_resistance": "fourteen"}),
        ("invitation_create", {"role": "player", "days": "0"}),
        ("campaign_hand_over", {"new_gm": "0"}),
    ],
)
def test_the_gm_forms_without_text_answer_400_to_bad_input(client, campaign, gm, name, data):
    client.force_login(gm)
    before = snapshot()
    response = client.post(reverse(name, args=[campaign.pk]), data)
    assert response.status_code == 400
    assert 'class="errorlist' in text(response)
    assert snapshot() == before
    assert not Invitation.objects.exists()


@pytest.mark.parametrize(
    "url",
    [
        lambda c: reverse("campaign_create"),
        lambda c: reverse("campaign_edit", args=[c.pk]),
        lambda c: reverse("npc_list", args=[c.pk]),
        lambda c: reverse("session_start", args=[c.pk]),
        lambda c: reverse("season_start", args=[c.pk]),
        lambda c: reverse("archive_search", args=[c.pk]),
        lambda c: reverse("archive_contests", args=[c.pk]),
    ],
    ids=["create", "edit", "npcs", "session", "season", "search", "contests"],
)
def test_the_pages_show_every_limit(client, campaign, gm, url):
    client.force_login(gm)
    assert assert_limits_shown(text(client.get(url(campaign)))) >= 1


@pytest.mark.parametrize(
    "url", ["session_end", "session_edit"], ids=["recap-on-ending", "recap-edited"]
)
def test_a_recap_shows_its_limit(client, open_session, gm, url):
    client.force_login(gm)
    page = text(client.get(reverse(url, args=[open_session.campaign_id, open_session.number])))
    assert assert_limits_shown(page) >= 1 and "Up to 20,000 characters." in page


@pytest.mark.parametrize("name", ["archive_search", "archive_contests"])
def test_a_search_past_200_characters_is_refused_with_a_message(client, campaign, gm, name):
    client.force_login(gm)
    url = reverse(name, args=[campaign.pk])
    assert client.get(url, {"q": "x" * 200}).status_code == 200
    response = client.get(url, {"q": "x" * 201})
    assert response.status_code == 400
    assert "search for at most 200" in text(response)
    response = client.get(url, {"q": "x" * 201}, headers={"HX-Request": "true"})
    assert response.status_code == 400 and "search for at most 200" in text(response)


def test_a_public_search_past_200_characters_is_refused(client, campaign, gm):
    services.campaign_publish(campaign=campaign, actor=gm)
    campaign.refresh_from_db()
    url = reverse("public_search", args=[campaign.public_token])
    assert client.get(url, {"q": "x" * 200}).status_code == 200
    assert client.get(url, {"q": "x" * 201}).status_code == 400


@pytest.fixture
def exported(campaign, gm, alice, open_session):
    """The campaign's export after a contest played (the import makes a new one)."""
    tamsin = character_services.character_create(
        player=alice, name="Tamsin", concept="river guide", campaign=campaign
    )
    play_against(campaign, gm, tamsin, ability(tamsin, "Swimming", 15))
    services.npc_create(campaign=campaign, actor=gm, name="Captain Voss", rating="5M")
    services.session_end(session=open_session, actor=gm, recap="The flood came.")
    return json.loads(json.dumps(campaign_export(campaign)))


PATHS = {
    "campaign-description": (("campaign", "description"), 4_000),
    "npc-notes": (("npcs", 0, "notes"), 10_000),
    "session-recap": (("sessions", 0, "recap"), 20_000),
    "ledger-note": (("characters", 0, "ledger", 0, "entries", 0, "note"), 300),
    "participant-name": (("contests", 0, "participants", 0, "name"), 120),
}


@pytest.mark.parametrize("where", PATHS)
def test_a_campaign_import_with_text_past_a_limit_imports_nothing(
    client, exported, make_user, where
):
    path, limit = PATHS[where]
    staff = make_user("root")
    staff.is_staff = True
    staff.save()
    client.force_login(staff)
    item = exported
    for key in path[:-1]:
        item = item[key]
    item[path[-1]] = "x" * (limit + 1)
    upload = SimpleUploadedFile("c.json", json.dumps(exported).encode())
    before = snapshot()
    response = client.post(reverse("campaign_import_json"), {"export": upload})
    assert response.status_code == 400
    assert "Nothing was imported" in text(response)
    assert f"at most {limit}" in text(response).replace(",", "")
    assert snapshot() == before
