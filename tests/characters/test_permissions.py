"""Who may see and do what with a character, as a matrix (issue 4): its player edits it;
the campaign's GM sees it and applies conditions, awards, directed improvements and
undo; everyone else gets 404 (anonymous visitors are sent to log in). A refused request
changes nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse

from campaigns.models import Campaign, Membership, Role
from characters import services
from characters.models import Character

from .conftest import ability, kara_create

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}

PERSONAS = ["alice", "gm", "bob", "sam", "charlie", "anonymous"]


@pytest.fixture
def people(alice, gm, bob, sam, charlie):
    return {"alice": alice, "gm": gm, "bob": bob, "sam": sam, "charlie": charlie}


# The matrix's tests share one Kara, built once on one worker.
MATRIX = pytest.mark.xdist_group("character_permissions")
DISPLAY = {"alice": "Alice", "gm": "Gwen", "bob": "Bob", "sam": "Sam", "charlie": "Charlie"}


@pytest.fixture(scope="module")
def matrix_once(django_db_setup, django_db_blocker):
    """The personas (users of their own: the persona fixtures' are the other tests'),
    tests/conftest.py's campaign, and alice's Kara mid-session, so every GM action is
    possible: committed once for this module. Each test runs in a transaction rolled
    back at its end, so what one request changes no other test sees."""
    with django_db_blocker.unblock(), transaction.atomic():
        User = get_user_model()
        people = {
            persona: User.objects.create_user(
                username=f"matrix-{persona}", password=None, display_name=display
            )
            for persona, display in DISPLAY.items()
        }
        campaign = Campaign.objects.create(
            name="The Sunken Crown", genre="Fantasy", gm=people["gm"]
        )
        for persona, role in (
            ("alice", Role.PLAYER),
            ("sam", Role.SPECTATOR),
            ("bob", Role.PLAYER),
        ):
            Membership.objects.create(campaign=campaign, user=people[persona], role=role)
        kara = kara_create(player=people["alice"], campaign=campaign)
        services.character_session_start(character=kara, actor=people["gm"])
    yield people, kara.pk
    with django_db_blocker.unblock():
        Character.objects.filter(campaign=campaign).delete()
        campaign.delete()
        User.objects.filter(username__in=[f"matrix-{p}" for p in DISPLAY]).delete()


@pytest.fixture
def matrix(db, matrix_once):
    people, kara = matrix_once
    return people, Character.objects.get(pk=kara)


def requests(kara):
    """(name, method, url, data): what each kind of request sends."""
    riding = ability(kara, "Riding")
    url = lambda name, *args: reverse(f"characters:{name}", args=[kara.pk, *args])  # noqa: E731
    return {
        "view": [
            ("sheet", "get", url("sheet"), None),
            ("export", "get", url("export"), None),
            ("field", "get", url("field", "concept"), None),
        ],
        "owner": [
            ("edit field", "get", url("field", "concept") + "?edit=1", None),
            ("wizard", "get", url("wizard"), None),
            ("save field", "post", url("field", "concept"), {"concept": "grumpy ex-mercenary"}),
            ("spend", "post", url("spend"), {"reason": "a bump"}),
            ("retainer", "post", url("retainer_add"), {"name": "Camel Drivers"}),
            ("edit ability", "post", url("ability", riding.pk), {"name": "Horse Riding"}),
        ],
        "gm": [
            ("award", "post", url("award"), {"count": 1, "reason": "a duel"}),
            (
                "condition",
                "post",
                url("condition_apply"),
                {"state": "hurt", "abilities": [riding.pk]},
            ),
            ("directed", "post", url("directed"), {"ability": riding.pk, "amount": 3}),
            ("directed new", "post", url("directed_new"), {"name": "Favour", "rating": "13"}),
            ("undo", "post", url("undo"), {}),
        ],
    }


def state_of(kara):
    kara.refresh_from_db()
    return (
        kara.concept,
        kara.hero_points,
        kara.conditions.count(),
        kara.followers.count(),
        kara.ledger.count(),
        sorted(kara.abilities.values_list("name", "rating")),
    )


EXPECTED = {
    # persona: status for (view, owner, gm) requests
    "alice": {"view": 200, "owner": "ok", "gm": 403},
    "gm": {"view": 200, "owner": 403, "gm": "ok"},
    "bob": {"view": 404, "owner": 404, "gm": 404},
    "sam": {"view": 404, "owner": 404, "gm": 404},
    "charlie": {"view": 404, "owner": 404, "gm": 404},
    "anonymous": {"view": "login", "owner": "login", "gm": "login"},
}


@MATRIX
@pytest.mark.parametrize("kind", ["view", "owner", "gm"])
@pytest.mark.parametrize("persona", PERSONAS)
def test_the_permission_matrix(client, matrix, persona, kind):
    people, played = matrix
    if persona != "anonymous":
        client.force_login(people[persona])
    expected = EXPECTED[persona][kind]
    for name, method, url, data in requests(played)[kind]:
        before = state_of(played)
        response = getattr(client, method)(url, data, headers=HTMX)
        if expected == "login":
            assert response.status_code == 302, name
            assert response.url.startswith(reverse("login")), name
        elif expected == "ok":
            assert response.status_code in (200, 302), name
            assert b"Only the" not in response.content, name
        else:
            assert response.status_code == expected, name
        if expected != "ok" and method == "post":
            assert state_of(played) == before, f"{persona} changed {name}"


@MATRIX
def test_the_owner_and_gm_succeed_at_what_they_may_do(client, matrix):
    people, played = matrix
    alice, gm = people["alice"], people["gm"]
    plan = requests(played)
    client.force_login(alice)
    for _, method, url, data in plan["owner"]:
        getattr(client, method)(url, data, headers=HTMX)
    client.force_login(gm)
    for _, method, url, data in plan["gm"][:-1]:
        getattr(client, method)(url, data, headers=HTMX)
    played.refresh_from_db()
    assert played.concept == "grumpy ex-mercenary"
    assert played.followers.get().name == "Camel Drivers"
    assert ability(played, "Horse Riding").rating == 18  # +3 directed
    assert played.conditions.get().state == "hurt"
    assert ability(played, "Favour").rating == 13
    assert played.hero_points == 4 - 1 + 1  # session start, spent one, awarded one


def test_only_the_gm_sees_the_roster(client, campaign, people, kara):
    url = reverse("characters:roster", args=[campaign.pk])
    expected = {"gm": 200, "alice": 403, "bob": 403, "sam": 403, "charlie": 404}
    for persona, status in expected.items():
        client.force_login(people[persona])
        assert client.get(url).status_code == status, persona
    client.force_login(people["gm"])
    roster = client.get(url).content.decode()
    assert "Kara" in roster and "Alice" in roster


def test_my_characters_lists_only_mine(client, alice, bob, build_kara):
    build_kara(player=bob)
    mine = build_kara(player=alice)
    mine.name = "Kara of Alice"
    mine.save()
    client.force_login(alice)
    page = client.get(reverse("characters:list")).content.decode()
    assert "Kara of Alice" in page
    assert page.count('class="card"') == 1


def test_a_player_cannot_bring_a_character_into_a_campaign_they_do_not_play(
    client, kara, alice, gm, make_user
):
    from campaigns.models import Campaign

    elsewhere = Campaign.objects.create(name="Elsewhere", gm=make_user("other-gm"))
    client.force_login(alice)
    response = client.post(
        reverse("characters:campaign", args=[kara.pk]), {"campaign": elsewhere.pk}, headers=HTMX
    )
    assert "Select a valid choice" in response.content.decode()
    kara.refresh_from_db()
    assert kara.campaign.name == "The Sunken Crown"


def test_a_player_brings_a_character_into_a_campaign_they_play_in(client, alice, campaign, kara):
    services.character_campaign_join(character=kara, actor=alice, campaign=None)
    client.force_login(alice)
    client.post(
        reverse("characters:campaign", args=[kara.pk]), {"campaign": campaign.pk}, headers=HTMX
    )
    kara.refresh_from_db()
    assert kara.campaign == campaign
