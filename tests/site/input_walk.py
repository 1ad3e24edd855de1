"""What tests/site/test_unicode_input.py walks: a campaign with one of everything a URL
names, built by playing through the services, every route of the resolver filled with
those ids, and the forms, fields and query parameters each page shows its reader.

Nothing here lists the site's fields by hand: they are read from the pages as each
person sees them (the inputs, selects, textareas and buttons of every form, and the
query parameters of every link and htmx request).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urljoin, urlsplit

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils.datastructures import MultiValueDict

from campaigns import services as campaigns
from campaigns.demo import demo_campaign_create
from campaigns.models import Role
from characters import services as characters
from characters.models import Character
from community.models import Community
from community.services import community_draw_start, question_add, required_use_add
from tests.table import Table

# What a person might type or forge where a number is read.
UNICODE_DIGITS = ["²", "١", "٣", "１"]
# Refused wherever a number is read, nothing done: not digits 0-9, or beyond any id.
NOT_NUMBERS = [*UNICODE_DIGITS, " 1 ", "1_0", str(10**30), "1.5"]
# Numbers in some places (a signed modifier, an optional field): never a server error.
ODD = ["+1", "-1", ""]
# The walk for server errors sends one value of each kind a view could stumble on if it
# read a number on its own: "²" (isdigit() but not int()), a decimal, nothing, a sign
# and a number beyond any column. What int() reads but a person does not type ("١",
# "１", " 1 ", "1_0", "+1") cannot raise: it is checked where it could do harm, in
# every numeric field of every form (`NOT_NUMBERS`, tests/site/test_unicode_input.py
# `_check_forms`), and by the one reader itself (tests/site/test_inputs.py). A NUL is
# refused before any view (RejectNulMiddleware): one request a route shows it.
HOSTILE = ["²", "1.5", "", "-1", str(10**30)]
NUL = "1\x00"
# Too large for a PostgreSQL integer, in a route's <id:...>.
HUGE_IDS = ["99999999999999999999", str(2**31)]


@dataclass
class World:
    campaign: Any
    users: dict[str, Any]
    captures: dict[str, str]  # a route's capture name -> a real value (as text)
    numbers: dict[str, str]  # `number` by the route's words: session or contest


def build_world() -> World:
    """The demo campaign (a GM, Alice and Bob with their characters, a founded
    community, an archived session), then through the services: Sam a spectator by
    invitation, Charlie with an account and no campaign, an NPC, a spare invitation, a
    public link, a session in progress with a contest framed, a condition, a retainer, a
    required use, a question and a draw on a resource."""
    campaign = demo_campaign_create()
    User = get_user_model()
    gm = campaign.gm
    alice, bob = User.objects.get(username="alice"), User.objects.get(username="bob")
    sam = User.objects.create_user(username="sam", password="x", display_name="Sam")
    charlie = User.objects.create_user(username="charlie", password="x", display_name="C")
    spectating = campaigns.invitation_create(campaign=campaign, actor=gm, role=Role.SPECTATOR)
    membership = campaigns.invitation_accept(token=spectating.token, user=sam)
    spare = campaigns.invitation_create(campaign=campaign, actor=gm, max_uses=None)
    npc = campaigns.npc_create(campaign=campaign, actor=gm, name="Temple Guard", rating="5M")
    public = campaigns.campaign_publish(campaign=campaign, actor=gm)
    tamsin = Character.objects.get(name="Tamsin Reedwalker")
    session = campaigns.session_start(campaign=campaign, actor=gm, title="High water")
    contest = Table(campaign, gm).frame(pc=tamsin)
    ability = tamsin.abilities.get(name="Swimming")
    condition = characters.character_condition_apply(
        character=tamsin, actor=gm, state="hurt", abilities=[ability]
    )
    retainer = characters.character_follower_add(character=tamsin, actor=alice, name="Pell")
    community = Community.objects.get(campaign=campaign)
    resources = list(community.resources.order_by("position"))
    use = required_use_add(
        community=community, actor=gm, resource=resources[0], action="Hiring mercenaries"
    )
    question = question_add(
        community=community,
        actor=gm,
        text="Who rules the river?",
        choices=[("The guilds", {resources[0].pk: 2}), ("The gods", {resources[2].pk: 2})],
    )
    draw = community_draw_start(
        community=community,
        actor=gm,
        resource=resources[1],
        character=tamsin,
        ability=tamsin.abilities.get(name="Ashfen Born"),
        purpose="Ask the council for boats",
    )
    captures = {
        "campaign_id": campaign.pk,
        "membership_id": membership.pk,
        "invitation_id": spare.pk,
        "npc_id": npc.pk,
        "character_id": tamsin.pk,
        "ability_id": ability.pk,
        "follower_id": retainer.pk,
        "condition_id": condition.pk,
        "resource_id": resources[0].pk,
        "use_id": use.pk,
        "question_id": question.pk,
        "draw_id": draw.pk,
        "field": "name",
        "object_id": campaign.pk,
    }
    return World(
        campaign=campaign,
        users={"gm": gm, "player": alice, "spectator": sam, "outsider": charlie, "bob": bob},
        captures={name: str(value) for name, value in captures.items()},
        numbers={
            "sessions": str(session.number),
            "contests": str(contest.number),
            "join": spare.token,
            "archive": public,
        },
    )


# -- the routes -------------------------------------------------------------------------------

CAPTURE = re.compile(r"<(?:(\w+):)?(\w+)>")
REGEX_GROUP = re.compile(r"\(\?P<(\w+)>([^)]*)\)")


@dataclass(frozen=True)
class Route:
    route: str  # as declared, e.g. "campaigns/<id:campaign_id>/npcs/<id:npc_id>/"
    name: str

    def fill(self, world: World, **override: str) -> str:
        """The route with real values, or `override`'s for the named captures."""

        def value(converter: str | None, name: str, at: int) -> str:
            if name in override:
                return override[name]
            if name == "number":
                words = self.route[:at]
                return world.numbers["contests" if "contests/" in words else "sessions"]
            if name == "token":
                return world.numbers["join" if self.route.startswith("join/") else "archive"]
            return world.captures.get(name, "1")

        path = CAPTURE.sub(lambda m: value(m.group(1), m.group(2), m.start()), self.route)
        # The admin's regex routes (^(?P<app_label>auth|...)/$): their first choice.
        path = REGEX_GROUP.sub(lambda m: m.group(2).split("|")[0].strip("^$"), path)
        return "/" + path.replace("^", "").replace("$", "").replace("\\", "")

    @property
    def captures(self) -> list[tuple[str, str]]:
        return [(m.group(1) or "str", m.group(2)) for m in CAPTURE.finditer(self.route)]


def every_route(patterns=None, prefix: str = "") -> list[Route]:
    """Every URL pattern the resolver knows, includes followed."""
    found = []
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(entry, URLResolver):
            found += every_route(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            found.append(Route(prefix + str(entry.pattern), entry.name or ""))
    return found


# -- what the pages read ----------------------------------------------------------------------


@dataclass
class FormSeen:
    action: str
    method: str
    fields: dict[str, str] = field(default_factory=dict)  # name -> the value shown
    numeric: set[str] = field(default_factory=set)  # fields that carry a number
    signed: set[str] = field(default_factory=set)  # ... that may be negative


class PageReader(HTMLParser):
    """The forms (with their fields' values) and the query parameters of a page."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.page = page
        self.forms: list[FormSeen] = []
        self.params: set[str] = set()
        self.form: FormSeen | None = None
        self.select: str | None = None
        self.options: list[str] = []

    def _url(self, value: str | None) -> str | None:
        if not value or value.startswith(("#", "javascript:", "mailto:", "data:")):
            return None
        url = urlsplit(urljoin(self.page, value))
        if url.netloc not in ("", "testserver"):
            return None
        self.params.update(name for name, _ in parse_qsl(url.query, keep_blank_values=True))
        return url.path

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        for attr in ("href", "hx-get", "src"):
            self._url(a.get(attr))
        if tag == "form":
            post = a.get("hx-post") or (a.get("action") if a.get("method") == "post" else None)
            target = self._url(post or a.get("hx-get") or a.get("action") or self.page)
            self.form = FormSeen(target or self.page, "post" if post else "get")
            self.forms.append(self.form)
            return
        if self.form is None or not a.get("name"):
            return
        name = a["name"]
        if tag == "input":
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" not in a:
                self.form.fields.setdefault(name, "")
            else:
                self.form.fields[name] = a.get("value", "")
            if kind == "number" or re.fullmatch(r"[0-9]+", a.get("value", "")):
                self.form.numeric.add(name)
            if kind == "number" and a.get("min", "-").startswith("-"):
                self.form.signed.add(name)  # no minimum, or a negative one
        elif tag == "textarea":
            self.form.fields[name] = ""
        elif tag == "select":
            self.select, self.options = name, []
            self.form.fields[name] = ""
        elif tag == "button" and a.get("value") is not None:
            self.form.fields.setdefault(name, a["value"])

    def handle_startendtag(self, tag, attrs) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            if self.form is not None and self.form.method == "get":
                self.params.update(self.form.fields)
            self.form = None
        elif tag == "select" and self.form is not None and self.select:
            digits = [o for o in self.options if o]
            if digits and all(re.fullmatch(r"[0-9]+", o) for o in digits):
                self.form.numeric.add(self.select)
            self.select = None


class _OptionReader(PageReader):
    """PageReader with the options of selects (the first, or the selected, is sent)."""

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "option" and self.form is not None and self.select:
            a = {k: v or "" for k, v in attrs}
            value = a.get("value", "")
            self.options.append(value)
            if "selected" in a or not self.form.fields.get(self.select):
                self.form.fields[self.select] = value
            return
        super().handle_starttag(tag, attrs)


def read_page(path: str, page: str) -> _OptionReader:
    reader = _OptionReader(path)
    reader.feed(page)
    return reader


APPS = ("campaigns", "characters", "community", "contests", "questworlds_site")
# What a view reads from a request: request.GET / request.POST, or a QueryDict it was
# handed under one of these names (`source = request.GET if ... else request.POST`).
QUERY_DICTS = {"GET", "POST", "source", "query", "post"}


def names_read_in_code() -> set[str]:
    """Every field or parameter name the apps' code reads from a request by name
    (`request.GET.get("page")`, `source.get("retainer")`, `post.getlist("states")`),
    found by reading the source, for what no page shows (a page link only there when
    there is a second page). Read once a process: the code does not change in a run."""
    return set(_names_in_source())


@functools.cache
def _names_in_source() -> frozenset[str]:
    names = set()
    root = Path(settings.BASE_DIR)
    for app in APPS:
        for file in (root / app).rglob("*.py"):
            if "migrations" in file.parts or "rules" in file.parts:
                continue
            for node in ast.walk(ast.parse(file.read_text())):
                if not (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("get", "getlist")
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                ):
                    continue
                owner = node.func.value
                name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
                if name in QUERY_DICTS:
                    names.add(node.args[0].value)
    return frozenset(names)


class NamesRead:
    """The names a view reads from its request's query or form (`request.GET.get`,
    `request.POST[...]`, `in`, `getlist`, a form's widgets): a view that reads none is
    one whose answer no value can change, so the walk sends it none."""

    def __init__(self, monkeypatch) -> None:
        self.names: set[str] = set()
        for method in ("__getitem__", "_getlist", "__contains__"):
            original = getattr(MultiValueDict, method)
            monkeypatch.setattr(MultiValueDict, method, self._recording(original))

    def _recording(self, original):
        def read(query, key, *args, **kwargs):
            self.names.add(key)
            return original(query, key, *args, **kwargs)

        return read

    def reset(self) -> set[str]:
        """The names read since the last reset."""
        read, self.names = self.names, set()
        return read


def rows_digest() -> tuple:
    """A digest of every row of the apps' tables, in one query: equal before and after
    means nothing was stored or changed (tests/form_limits.py's snapshot, cheaper)."""
    tables = [
        model._meta.db_table
        for model in apps.get_models()
        if model._meta.app_label in ("accounts", "campaigns", "characters", "community", "contests")
        and model._meta.managed
    ]
    columns = ", ".join(
        f"(SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM \"{name}\" t)"
        for name in tables
    )
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns}")
        return cursor.fetchone()


class _Rollback(Exception):
    pass


@contextlib.contextmanager
def rolled_back():
    """Whatever the request did is undone afterwards (the walk posts to every URL, the
    GM's "end session" and the player's "leave" included, and goes on as before)."""
    with contextlib.suppress(_Rollback), transaction.atomic():
        yield
        raise _Rollback
