"""Every form of the character pages refuses a NUL or text past its limit with a 400,
a message and no change, and takes text at the limit (issue 12, items 2 and 3); the
pages show each limit; an import that names a character too long imports nothing."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaigns import services as campaign_services
from characters import services
from characters.models import Character
from characters.selectors import character_export
from tests.form_limits import HTMX, Form, assert_limits_shown, cases, check_limit, snapshot, text

from .conftest import KARA_ABILITIES, ability

pytestmark = pytest.mark.django_db

REX = [("Loyal Dog", 26, "keyword"), ("Tracking", 18, "standalone"), ("Fierce", 13, "standalone")]
SIDEKICK = {
    "ability_1": "Loyal Dog",
    "rating_1": "26",
    "keyword_1": "on",
    "ability_2": "Tracking",
    "rating_2": "18",
    "ability_3": "Fierce",
    "rating_3": "13",
}


@pytest.fixture
def sketch(build_kara):
    """Kara, created as you go: two abilities so far."""
    return build_kara(finish=False, method="as_you_go", rows=KARA_ABILITIES[:2])


@pytest.fixture
def draft(alice, build_kara):
    """Kara, still in creation (the list method), with room for a sidekick."""
    kara = build_kara(finish=False)
    services.character_ability_remove(character=kara, actor=alice, ability=ability(kara, "Wary"))
    return kara


@pytest.fixture
def prose_draft(build_kara):
    return build_kara(finish=False, method="prose", rows=KARA_ABILITIES[:2])


@pytest.fixture
def kara_with_rex(alice, build_kara):
    """Kara in play with her sidekick Rex (the twelfth ability, §3.5)."""
    kara = build_kara(finish=False)
    services.character_ability_remove(character=kara, actor=alice, ability=ability(kara, "Wary"))
    services.character_sidekick_set(character=kara, actor=alice, name="Rex", abilities=REX)
    services.character_creation_finish(character=kara, actor=alice)
    return kara


@pytest.fixture
def kara_hurt(kara, gm):
    services.character_condition_apply(
        character=kara, actor=gm, state="hurt", abilities=[ability(kara, "Riding")], cause="a fall"
    )
    return kara


@pytest.fixture
def kara_in_session(kara, campaign, gm):
    campaign_services.session_start(campaign=campaign, actor=gm)
    return kara


def _url(name: str, *args) -> str:
    return reverse(f"characters:{name}", args=args)


def _field(field: str, limit: int) -> Form:
    return Form(
        url=lambda c: _url("field", c.pk, field),
        data=lambda c: {field: "Kara"},
        fields={field: limit},
        subject="kara",
        htmx=True,
    )


FORMS = {
    "create": Form(
        url=lambda _: _url("create"),
        data=lambda _: {"name": "Tamsin", "creation_method": "as_you_go"},
        fields={
            "name": 120,
            "concept": 200,
            "trait_1": 120,
            "trait_2": 120,
            "trait_3": 120,
            "portrait": 1_000,
        },
    ),
    **{
        f"field-{name}": _field(name, limit)
        for name, limit in {
            "name": 120,
            "concept": 200,
            "trait_1": 120,
            "portrait": 1_000,
            "notes": 10_000,
        }.items()
    },
    "ability-add": Form(
        url=lambda c: _url("ability_add", c.pk),
        data=lambda c: {"name": "Climbing", "kind": "standalone", "rating": "13", "page": "wizard"},
        fields={"name": 120, "description": 2_000, "phrase": 200},
        subject="sketch",
        htmx=True,
    ),
    "ability-edit": Form(
        url=lambda c: _url("ability", c.pk, ability(c, "Sardonic").pk),
        data=lambda c: {"name": "Sardonic", "rating": "17", "page": "wizard"},
        fields={"name": 120, "description": 2_000},
        subject="sketch",
        htmx=True,
    ),
    "prose": Form(
        url=lambda c: _url("prose", c.pk),
        data=lambda c: {"prose": "Kara rides.", "page": "wizard"},
        fields={"prose": 2_000},
        subject="prose_draft",
        htmx=True,
    ),
    "sidekick": Form(
        url=lambda c: _url("sidekick", c.pk),
        data=lambda c: {"name": "Rex", **SIDEKICK, "page": "wizard"},
        fields={"name": 120, "description": 2_000, "ability_1": 120},
        subject="draft",
        htmx=True,
    ),
    "sidekick-new": Form(
        url=lambda c: _url("sidekick_new", c.pk),
        data=lambda c: {"name": "Mira", "origin": "Found in the ruins", **SIDEKICK},
        fields={"name": 120, "description": 2_000, "origin": 2_000, "ability_2": 120},
        subject="kara",
        htmx=True,
    ),
    "sidekick-lose": Form(
        url=lambda c: _url("sidekick_lose", c.pk, c.followers.get().pk),
        data=lambda c: {"reason": "killed"},
        fields={"reason": 300},
        subject="kara_with_rex",
        htmx=True,
    ),
    "retainer": Form(
        url=lambda c: _url("retainer_add", c.pk),
        data=lambda c: {"name": "Bert"},
        fields={"name": 120, "description": 2_000},
        subject="kara",
        htmx=True,
    ),
    "spend": Form(
        url=lambda c: _url("spend", c.pk),
        data=lambda c: {"reason": "a bump"},
        fields={"reason": 200},
        subject="kara",
        htmx=True,
    ),
    "advance": Form(
        url=lambda c: _url("advance", c.pk),
        data=lambda c: {"option_1": "new_ability", "ability_1": "Swimming"},
        fields={"ability_1": 120, "keyword_2": 120, "breakout_1": 120},
        subject="kara",
        htmx=True,
        accepts=False,  # 10 XP
    ),
    "classic-new": Form(
        url=lambda c: _url("classic_new", c.pk),
        data=lambda c: {"name": "Swimming"},
        fields={"name": 120},
        subject="kara",
        htmx=True,
        accepts=False,  # the classic economy
    ),
    "award": Form(
        url=lambda c: _url("award", c.pk),
        data=lambda c: {"count": "1", "reason": "the bridge"},
        fields={"reason": 200},
        user="gm",
        subject="kara_in_session",
        htmx=True,
    ),
    "directed": Form(
        url=lambda c: _url("directed", c.pk),
        data=lambda c: {"ability": ability(c, "Riding").pk, "amount": "3"},
        fields={"reason": 200},
        user="gm",
        subject="kara",
        htmx=True,
    ),
    "directed-new": Form(
        url=lambda c: _url("directed_new", c.pk),
        data=lambda c: {"name": "Swimming", "rating": "13"},
        fields={"name": 120, "reason": 200},
        user="gm",
        subject="kara",
        htmx=True,
    ),
    "condition": Form(
        url=lambda c: _url("condition_apply", c.pk),
        data=lambda c: {"state": "hurt", "abilities": [ability(c, "Riding").pk]},
        fields={"cause": 200},
        user="gm",
        subject="kara",
        htmx=True,
    ),
    "heal": Form(
        url=lambda c: _url("condition_heal", c.pk, c.conditions.get().pk),
        data=lambda c: {"outcome": "1"},
        fields={"reason": 150},
        user="gm",
        subject="kara_hurt",
        htmx=True,
    ),
    "clear": Form(
        url=lambda c: _url("condition_clear", c.pk, c.conditions.get().pk),
        data=lambda c: {"reason": "rest"},
        fields={"reason": 200},
        user="gm",
        subject="kara_hurt",
        htmx=True,
    ),
    "wane": Form(
        url=lambda c: _url("conditions_wane", c.pk),
        data=lambda c: {"at": "storyline_end"},
        fields={"reason": 150},
        user="gm",
        subject="kara_hurt",
        htmx=True,
    ),
}


@pytest.mark.parametrize(("form", "field"), cases(FORMS))
def test_nul_and_overlong_text_are_refused(client, request, form, field):
    spec = FORMS[form]
    client.force_login(request.getfixturevalue(spec.user))
    check_limit(client, spec, request.getfixturevalue(spec.subject), field)


@pytest.mark.parametrize("form", ["create", "retainer", "directed-new"])
def test_without_htmx_a_refusal_is_the_whole_page_as_a_400(client, request, form):
    spec = FORMS[form]
    client.force_login(request.getfixturevalue(spec.user))
    subject = request.getfixturevalue(spec.subject)
    before = snapshot()
    response = client.post(spec.url(subject), {**spec.data(subject), "name": "x" * 121})
    assert response.status_code == 400
    assert "<html" in text(response) and "at most 120 characters" in text(response)
    assert snapshot() == before


@pytest.mark.parametrize(
    ("user", "subject", "page"),
    [
        ("alice", None, "create"),
        ("alice", "draft", "wizard"),
        ("alice", "sketch", "wizard"),
        ("alice", "prose_draft", "wizard"),
        ("alice", "draft", "sheet"),
        ("alice", "kara", "sheet"),
        ("gm", "kara_hurt", "sheet"),
    ],
)
def test_the_pages_show_every_limit(client, request, user, subject, page):
    client.force_login(request.getfixturevalue(user))
    args = [request.getfixturevalue(subject).pk] if subject else []
    shown = assert_limits_shown(text(client.get(_url(page, *args))))
    assert shown >= 3


@pytest.mark.parametrize(
    ("field", "hint"),
    [("portrait", "Up to 1,000 characters."), ("notes", "Up to 10,000 characters.")],
)
def test_a_text_edited_in_place_shows_its_limit(client, kara, alice, field, hint):
    client.force_login(alice)
    form = text(client.get(_url("field", kara.pk, field) + "?edit=1", headers=HTMX))
    assert assert_limits_shown(form) == 1 and hint in form


def test_the_ability_and_sidekick_forms_in_place_show_their_limits(client, kara, alice):
    client.force_login(alice)
    line = text(client.get(_url("ability", kara.pk, ability(kara, "Riding").pk), headers=HTMX))
    assert assert_limits_shown(line) == 2 and "Up to 2,000 characters." in line
    new = text(client.get(_url("sidekick_new", kara.pk), headers=HTMX))
    assert assert_limits_shown(new) == 9 and "Up to 2,000 characters." in new


@pytest.mark.parametrize(("key", "limit"), [("name", 120), ("portrait", 1_000), ("notes", 10_000)])
def test_an_import_with_text_past_a_limit_imports_nothing(client, kara, alice, key, limit):
    client.force_login(alice)
    export = character_export(kara)
    export[key] = "x" * (limit + 1)
    upload = SimpleUploadedFile("kara.json", json.dumps(export).encode())
    before = Character.objects.count()
    response = client.post(_url("import"), {"file": upload})
    assert response.status_code == 400
    assert f"at most {limit} characters" in text(response)
    assert Character.objects.count() == before
