"""Bad input on every form gets a 400 with a message and changes nothing (issue 12,
items 2 and 3): a NUL character anywhere, a value longer than any field takes, text
past its field's limit (which the form shows), and uploads the database could not
store."""

from __future__ import annotations

import json
import re

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from campaigns.models import Campaign, Npc
from characters.models import Character
from tests.form_limits import Form, assert_limits_shown, cases, check_limit, snapshot, text

pytestmark = pytest.mark.django_db


def _routes(patterns=None, prefix=""):
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(entry, URLResolver):
            yield from _routes(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry


def _path(route: str, values: dict[str, int]) -> str:
    path = re.sub(r"<(?:int|id):(\w+)>", lambda m: str(values.get(m.group(1), 1)), route)
    path = re.sub(r"<(?:str:)?(\w+)>", "x", path)
    return "/" + path.lstrip("^").rstrip("$")


def _every_row() -> dict[str, int]:
    return {m._meta.label: m.objects.count() for m in apps.get_models()}


SKIP = ("admin/", "static/", "__")


@pytest.fixture
def routes(campaign):
    values = {"campaign_id": campaign.pk}
    return sorted(
        {
            _path(route, values)
            for route, _pattern in _routes()
            if not route.startswith(SKIP) and not route.endswith((".json", ".md", ".css"))
        }
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("Grey\x00River", "NUL character"),
        ("x" * 25_000, "longer than any field takes"),
    ],
    ids=["nul", "oversized"],
)
def test_every_form_refuses_bad_text_with_400_and_changes_nothing(
    client, gm, routes, value, message
):
    client.force_login(gm)
    before = _every_row()
    checked = 0
    for path in routes:
        if path.endswith("/table/act/"):
            continue  # the table's own typed boundary answers in its error line
        response = client.post(path, {"name": value, "description": value})
        if response.status_code in (404, 405):
            continue
        assert response.status_code == 400, (path, response.status_code)
        assert message in response.content.decode(), path
        checked += 1
    assert checked > 30  # every form of the site, not a handful
    assert _every_row() == before


def test_a_nul_in_a_query_string_or_a_long_search_is_refused(client, campaign, gm):
    client.force_login(gm)
    search = reverse("archive_search", args=[campaign.pk])
    assert client.get(search, {"q": "ford"}).status_code == 200
    response = client.get(search, {"q": "f\x00rd"})
    assert response.status_code == 400 and "NUL" in response.content.decode()
    response = client.get(search, {"q": "x" * 1_001})
    assert response.status_code == 400 and "too long" in response.content.decode()


def test_a_portrait_past_its_limit_is_refused_and_the_form_shows_the_limit(client, alice):
    client.force_login(alice)
    character = Character.objects.create(name="Kara", player=alice)
    url = reverse("characters:field", args=[character.pk, "portrait"])
    form = client.get(url + "?edit=1", headers={"HX-Request": "true"}).content.decode()
    assert 'maxlength="1000"' in form and "Up to 1,000 characters." in form
    response = client.post(url, {"portrait": "x" * 1_001}, headers={"HX-Request": "true"})
    assert response.status_code == 400
    assert "at most 1000 characters" in response.content.decode()
    character.refresh_from_db()
    assert character.portrait == ""
    response = client.post(url, {"portrait": "x" * 1_000}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    character.refresh_from_db()
    assert len(character.portrait) == 1_000


def test_a_campaign_description_and_npc_notes_past_their_limits(client, campaign, gm):
    client.force_login(gm)
    edit = reverse("campaign_edit", args=[campaign.pk])
    assert "Up to 4,000 characters." in client.get(edit).content.decode()
    response = client.post(edit, {"name": "Renamed", "description": "x" * 4_001})
    assert response.status_code == 400
    campaign.refresh_from_db()
    assert campaign.name != "Renamed"
    npcs = reverse("npc_list", args=[campaign.pk])
    assert 'maxlength="10000"' in client.get(npcs).content.decode()
    response = client.post(npcs, {"name": "Voss", "rating": "5M", "notes": "x" * 10_001})
    assert response.status_code == 400
    assert not Npc.objects.exists()


def _upload(client, body: str | bytes):
    data = body if isinstance(body, bytes) else body.encode()
    return client.post(
        reverse("characters:import"), {"file": SimpleUploadedFile("kara.json", data)}
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (json.dumps({"name": "Ka\x00ra"}), "contains a NUL character"),
        (json.dumps({"name": "Ka\ud800ra"}), "unpaired surrogate"),
        ("[" * 3_000 + "]" * 3_000, "nested too deeply"),
        ('{"a": ' * 3_000 + "1" + "}" * 3_000, "nested too deeply"),
    ],
    ids=["nul-name", "surrogate", "deep-list", "deep-object"],
)
def test_a_character_import_the_database_could_not_store_is_refused(client, alice, body, message):
    client.force_login(alice)
    response = _upload(client, body)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Character.objects.exists()


def test_a_campaign_import_with_a_nul_is_refused(client, make_user):
    admin = make_user("ada", "Ada")
    admin.is_staff = True
    admin.save()
    client.force_login(admin)
    body = json.dumps({"campaign": {"name": "The \x00 Crown"}}).encode()
    response = client.post(
        reverse("campaign_import_json"), {"export": SimpleUploadedFile("c.json", body)}
    )
    assert response.status_code == 400
    assert "NUL character" in response.content.decode()
    assert not Campaign.objects.exists()


PASSWORD = "correct horse battery staple"
ACCOUNT_FORMS = {
    "signup": Form(
        url=lambda _: reverse("signup"),
        data=lambda _: {"username": "rook", "password1": PASSWORD, "password2": PASSWORD},
        fields={"username": 150, "display_name": 60},
        user="",
        subject="db",
    ),
    "profile": Form(
        url=lambda _: reverse("profile"),
        data=lambda _: {"display_name": "Al"},
        fields={"display_name": 60},
        subject="db",
    ),
}


@pytest.mark.parametrize(("form", "field"), cases(ACCOUNT_FORMS))
def test_the_account_forms_refuse_nul_and_overlong_text(client, request, form, field):
    spec = ACCOUNT_FORMS[form]
    if spec.user:
        client.force_login(request.getfixturevalue(spec.user))
    check_limit(client, spec, request.getfixturevalue(spec.subject), field)


@pytest.mark.parametrize(
    ("username", "message"),
    [("al\x00ice", "NUL character"), ("a" * 151, "enter a correct username and password")],
    ids=["nul", "overlong"],
)
def test_a_login_with_a_nul_or_an_overlong_name_is_a_400(client, alice, username, message):
    response = client.post(reverse("login"), {"username": username, "password": "x"})
    assert response.status_code == 400 and message in text(response)
    assert "_auth_user_id" not in client.session


def test_a_password_change_with_a_nul_or_a_wrong_password_is_a_400(client, alice):
    client.force_login(alice)
    url = reverse("password_change")
    before = snapshot()
    new = {"new_password1": PASSWORD, "new_password2": PASSWORD}
    response = client.post(url, {"old_password": "correct\x00horse", **new})
    assert response.status_code == 400 and "NUL character" in text(response)
    response = client.post(url, {"old_password": "wrong horse", **new})
    assert response.status_code == 400 and "incorrectly" in text(response)
    assert snapshot() == before


@pytest.mark.parametrize(("name", "inputs"), [("signup", 2), ("profile", 1), ("login", 1)])
def test_the_account_pages_show_their_limits(client, alice, name, inputs):
    if name == "profile":
        client.force_login(alice)
    page = text(client.get(reverse(name)))
    assert assert_limits_shown(page) == inputs
    if name != "login":
        assert "Up to 60 characters." in page
