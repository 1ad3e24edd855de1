"""No number from input gives a server error, and none is read from anything but the
digits 0 to 9 (issue 27, item 5).

`"²".isdigit()` is true but `int("²")` raises: the table's chat (`character=²`) and the
archive's filter (`?character=²`, for members and on the public link) answered 500;
`int("١")` is 1, so Arabic-Indic digits were taken as an id.

The walk: every URL pattern the resolver knows, filled with the ids of a campaign built
through the services, as each person (anonymous, an outsider, a spectator, a player,
the GM): GET with every query parameter the pages' links and forms use, and POST with
every field name of every form the pages show, each set to one value of every kind
that could raise where a number is read (a Unicode digit int() refuses, a decimal,
nothing, a sign, a huge value) and NUL: never a 5xx. Each form the pages show is then
posted as shown but for one numeric field (a number input, a select of ids, a hidden id)
set to each value that is not a number (Unicode digits int() reads, spaces, underscores,
signs, a decimal, a huge value): a 4xx or the form again, and nothing changed. Each
route's ids, too large for the database, are a 404.
"""

from __future__ import annotations

import logging
from urllib.parse import urlencode

import pytest
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.urls import reverse

from contests.models import ChatMessage

from .input_walk import (
    HOSTILE,
    HUGE_IDS,
    NOT_NUMBERS,
    NUL,
    NamesRead,
    build_world,
    every_route,
    names_read_in_code,
    read_page,
    rolled_back,
    rows_digest,
)

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "outsider", "spectator", "player", "gm")
FORM = "application/x-www-form-urlencoded"
# Logging out would end the walk's login (its POST is rolled back, the cookie not).
NOT_POSTED = ("logout",)


@pytest.fixture
def unthrottled(settings):
    """The walk posts hundreds of times a minute from one address: the rate limits
    would answer 429 before the views read anything."""
    for name in (
        "ACTION_RATE_LIMIT",
        "LOGIN_FAILURE_LIMIT",
        "LOGIN_ADDRESS_FAILURE_LIMIT",
        "SIGNUP_LIMIT",
        "INVITATION_FAILURE_LIMIT",
    ):
        setattr(settings, name, "1000000/hour")


@pytest.fixture(scope="module")
def world_once(django_db_setup, django_db_blocker):
    """The walk's campaign, built once a module (a worker) and committed: every request
    of the walk is rolled back (`rolled_back`) and each test runs in a transaction
    rolled back at its end, so no test sees another's doings. Emptied afterwards as
    Django empties the database after a transactional test (`flush`)."""
    with django_db_blocker.unblock():
        with transaction.atomic():
            world = build_world()
        yield world
        call_command("flush", interactive=False, verbosity=0)


@pytest.fixture
def world(world_once, db, unthrottled):
    # Thousands of refusals: Django's log of each 4xx (a traceback for a 403) would cost
    # more than the requests. A server error is still logged (ERROR).
    request_log = logging.getLogger("django.request")
    level = request_log.level
    request_log.setLevel(logging.ERROR)
    yield world_once
    request_log.setLevel(level)


def _client(world, role: str) -> Client:
    client = Client(raise_request_exception=False)
    if role != "anonymous":
        client.force_login(world.users[role])
    return client


def _request(client: Client, cookies, method: str, path: str, data=None):
    """One request, undone afterwards, with the login as it was before."""
    client.cookies = cookies.__class__(cookies)
    with rolled_back():
        return _send(client, method, path, data)


def _send(client: Client, method: str, path: str, data=None):
    if method == "get":
        return client.get(path, data or {})
    # As a browser posts a form without files (the test client's multipart default
    # costs more to parse than the views do to answer).
    return client.post(path, urlencode(data or {}), content_type=FORM)


# Answers that say the person cannot reach the view at all (its reading is never run).
UNREACHED = (302, 403, 404, 405)


@pytest.mark.parametrize("role", ROLES)
def test_no_route_field_or_parameter_gives_a_server_error(world, role, monkeypatch):
    client = _client(world, role)
    cookies = client.cookies.__class__(client.cookies)
    paths = {route.fill(world): route for route in every_route()}
    params: set[str] = set()
    fields: set[str] = set()
    forms = []
    gets, posts = [], []
    errors = []
    for path, route in paths.items():
        response = _request(client, cookies, "get", path)
        if response.status_code == 200:
            gets.append(path)
            if "html" in response.get("Content-Type", ""):
                page = read_page(path, response.content.decode())
                params |= page.params
                forms += page.forms
                fields |= {name for form in page.forms for name in form.fields}
        errors.append(("GET", path, "", response.status_code))
        if route.name not in NOT_POSTED and not route.route.startswith("admin/"):
            answer = _request(client, cookies, "post", path)
            if answer.status_code not in UNREACHED:
                posts.append(path)
            errors.append(("POST", path, "", answer.status_code))
        # A NUL anywhere: refused before any view.
        nul = _request(client, cookies, "get", path, dict.fromkeys(params or ["x"], NUL))
        errors.append(("GET", path, NUL, nul.status_code))
    params |= names_read_in_code()
    fields = (fields | names_read_in_code()) - {"csrfmiddlewaretoken"}
    if role != "anonymous":
        assert {"character", "page", "interval", "retainer"} <= params, sorted(params)
    # Which views read any of them (a view that reads none answers every value alike).
    read = NamesRead(monkeypatch)
    readers = []
    for method, path, names in [("get", p, params) for p in gets] + [
        ("post", p, fields) for p in posts
    ]:
        read.reset()
        _request(client, cookies, method, path, dict.fromkeys(names, "1"))
        if read.reset() & names:
            readers.append((method, path, names))
    for value in HOSTILE:
        for method, path, names in readers:
            response = _request(client, cookies, method, path, dict.fromkeys(names, value))
            errors.append((method, path, value, response.status_code))
    assert [error for error in errors if error[3] >= 500] == []
    checked = _check_forms(client, cookies, forms, role)
    # Not a walk that reached nothing: the pages, posts and number fields each person has.
    least = {
        "anonymous": (5, 5, 2, 0),
        "outsider": (10, 10, 5, 0),
        "spectator": (25, 20, 10, 0),
        "player": (30, 35, 25, 10),
        "gm": (40, 60, 50, 20),
    }[role]
    counts = (len(gets), len(posts), len(readers), checked)
    assert all(count >= floor for count, floor in zip(counts, least, strict=True)), counts


def _check_forms(client, cookies, forms, role) -> int:
    """Each form as shown, one numeric field at a time set to what is not a number:
    refused (4xx, or the form again) and nothing changed. The fields checked."""
    before = rows_digest()
    done: set = set()
    problems = []
    checked = 0
    for form in forms:
        if form.method != "post" or (form.action, tuple(sorted(form.fields))) in done:
            continue
        done.add((form.action, tuple(sorted(form.fields))))
        for name in sorted(form.numeric):
            checked += 1
            signs = [] if name in form.signed else ["+1", "-1"]
            for value in [v for v in NOT_NUMBERS if v != "٣"] + signs:  # "١"'s kind
                client.cookies = cookies.__class__(cookies)
                with rolled_back():
                    response = _send(client, "post", form.action, {**form.fields, name: value})
                    changed = rows_digest() != before
                status = response.status_code
                if status >= 500 or changed or 300 <= status < 400:
                    problems.append((role, form.action, name, value, status, changed))
    assert problems == []
    return checked


@pytest.mark.parametrize("character", ["²", "١"])
def test_a_chat_line_as_a_character_named_in_unicode_digits_is_refused(world, character):
    """The report's `POST .../table/chat/` with `character=²` (a player): a 500."""
    player = _client(world, "player")
    before = ChatMessage.objects.count()
    response = player.post(
        reverse("table_chat", args=[world.campaign.pk]),
        {"kind": "say", "text": "hello", "character": character},
    )
    assert response.status_code == 400
    assert "only as one of your own characters" in response.content.decode()
    assert ChatMessage.objects.count() == before


def test_the_archives_filter_by_a_unicode_digit_is_no_filter(world):
    """The report's `GET .../archive/contests/?character=%C2%B2` (a member): a 500."""
    player = _client(world, "player")
    archive = reverse("archive_contests", args=[world.campaign.pk])
    response = player.get(archive + "?character=%C2%B2")
    assert response.status_code == 200
    assert "cross the flooded ford" in response.content.decode()  # unfiltered


def test_the_public_archives_filter_by_a_unicode_digit_is_no_filter(world):
    """The same on the public link, for anyone holding it, no login: a 500."""
    public = reverse("public_contests", args=[world.campaign.public_token])
    response = Client().get(public + "?character=%C2%B2")
    assert response.status_code == 200
    assert "cross the flooded ford" in response.content.decode()  # unfiltered


def test_arabic_indic_one_is_no_id(world):
    """`١` is not the id 1: the archive's filter ignores it, as any other non-number."""
    campaign = world.campaign
    tamsin = world.captures["character_id"]
    player = _client(world, "player")
    archive = reverse("archive_contests", args=[campaign.pk])
    by_id = player.get(archive, {"character": tamsin}).content.decode()
    assert f'value="{tamsin}" selected' in by_id
    arabic = "".join("٠١٢٣٤٥٦٧٨٩"[int(c)] for c in tamsin)
    page = player.get(archive, {"character": arabic}).content.decode()
    assert f'value="{tamsin}" selected' not in page


def test_an_id_too_large_for_the_database_is_a_404(world):
    """Every route's every id, one past the largest PostgreSQL integer and far beyond,
    as the GM (who reaches every view): 404 by GET and POST, before any view runs (an
    `<int:...>` route gave the view the number; a POST-only view then answered 405 to a
    GET, and any view that wrote it would have met a DataError)."""
    client = _client(world, "gm")
    problems = []
    checked = 0
    for route in every_route():
        for name in [name for converter, name in route.captures if converter in ("int", "id")]:
            for huge in HUGE_IDS:
                path = route.fill(world, **{name: huge})
                for method in ("get", "post"):
                    with rolled_back():
                        status = getattr(client, method)(path).status_code
                    checked += 1
                    if status != 404:
                        problems.append((method, path, status))
    assert checked > 300
    assert problems == []
