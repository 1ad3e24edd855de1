"""The character sheet: laid out like the printed one, edited in place with htmx,
printable, and read in a bounded number of queries however big the sheet."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from characters import services
from characters.models import Ability, AbilityKind, Character, Condition, Follower

from .conftest import ability

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def text(response) -> str:
    return html.unescape(response.content.decode())


def test_the_sheet_reads_like_the_printed_one(client, kara, alice):
    client.force_login(alice)
    sheet = text(client.get(reverse("characters:sheet", args=[kara.pk])))
    headings = re.findall(r"<h2 id=\"[\w-]+\">([^<]+)</h2>", sheet)
    assert headings == [
        "Who",
        "Hero points",
        "Abilities",
        "Conditions",
        "Followers",
        "Advancement",
        "Notes",
        "History",
    ]
    # Breakouts sit under their keyword with the +N and the total in mastery notation.
    mercenary = sheet.split('<span class="ability-name">Mercenary</span>')[1]
    assert '<span class="rating" title="rating">2M</span>' in mercenary.split("</div>")[0]
    swordplay = mercenary.split('<ul class="breakouts">')[1].split("</ul>")[0]
    assert '<span class="ability-name">Swordplay</span>' in swordplay
    assert "+4 (6M)" in swordplay
    assert "Contact" in sheet.split("<h3>Relationships</h3>")[1]
    assert "scarred cheek" in sheet


class ControlFinder(HTMLParser):
    """Buttons and inputs that would print: not inside a form, <details> or .no-print."""

    def __init__(self):
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.printed: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        hidden = tag in ("form", "details") or "no-print" in (attrs.get("class") or "")
        inherited = any(h for _, h in self.stack)
        if tag in ("button", "input", "select", "textarea") and not (hidden or inherited):
            self.printed.append(f"<{tag} {attrs}>")
        if tag not in ("input", "br", "meta", "link", "img"):
            self.stack.append((tag, hidden))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break


@pytest.mark.parametrize("persona", ["alice", "gm"])
def test_the_printed_sheet_has_no_controls(client, kara, gm, alice, persona):
    client.force_login({"alice": alice, "gm": gm}[persona])
    sheet = text(client.get(reverse("characters:sheet", args=[kara.pk])))
    finder = ControlFinder()
    finder.feed(sheet.split('<article id="sheet"')[1].split("</article>")[0])
    assert finder.printed == []
    css = Path(settings.BASE_DIR, "static/css/site.css").read_text()
    print_block = css.split("@media print")[-1]
    assert ".no-print, details, form" in print_block


def test_a_detail_is_edited_in_place(client, kara, alice):
    client.force_login(alice)
    url = reverse("characters:field", args=[kara.pk, "concept"])
    form = text(client.get(url + "?edit=1", headers=HTMX))
    assert form.lstrip().startswith('<div id="field-concept"')
    assert "<html" not in form
    assert 'value="sardonic ex-mercenary"' in form
    shown = text(client.post(url, {"concept": "weary ex-mercenary"}, headers=HTMX))
    assert '<span class="value">weary ex-mercenary</span>' in shown
    assert (
        '<p id="sheet-concept" class="concept" hx-swap-oob="true">weary ex-mercenary</p>' in shown
    )
    assert "<html" not in shown
    kara.refresh_from_db()
    assert kara.concept == "weary ex-mercenary"


def test_renaming_updates_the_heading_too(client, kara, alice):
    client.force_login(alice)
    url = reverse("characters:field", args=[kara.pk, "name"])
    shown = text(client.post(url, {"name": "Kara the Grey"}, headers=HTMX))
    assert '<h1 id="sheet-name" hx-swap-oob="true">Kara the Grey</h1>' in shown
    refused = text(client.post(url, {"name": ""}, headers=HTMX))
    assert "This field is required." in refused
    kara.refresh_from_db()
    assert kara.name == "Kara the Grey"


def test_an_action_answers_htmx_with_the_sheet_fragment(client, kara, alice):
    client.force_login(alice)
    fragment = text(
        client.post(reverse("characters:spend", args=[kara.pk]), {"reason": "x"}, headers=HTMX)
    )
    assert fragment.lstrip().startswith('<article id="sheet"')
    assert '<strong id="hero-points">2</strong>' in fragment
    page = client.post(reverse("characters:spend", args=[kara.pk]), {"reason": "y"})
    assert page.url == reverse("characters:sheet", args=[kara.pk])


def big_sheet(player, campaign) -> Character:
    """30 abilities (keywords, breakouts, standalone, relationships, flaws, a sidekick's)
    and 5 conditions, written straight to the database."""
    character = Character.objects.create(
        name="Big", player=player, campaign=campaign, creation_complete=True
    )
    keywords = [
        Ability.objects.create(character=character, name=f"Keyword {i}", kind="keyword", rating=17)
        for i in range(3)
    ]
    rows = [
        Ability(
            character=character,
            name=f"Breakout {i}",
            kind="breakout",
            rating=2,
            keyword=keywords[i % 3],
        )
        for i in range(9)
    ]
    rows += [Ability(character=character, name=f"Ability {i}", rating=13 + i) for i in range(10)]
    rows += [
        Ability(
            character=character,
            name=f"Friend {i}",
            kind="relationship",
            relationship="ally",
            rating=14,
        )
        for i in range(3)
    ]
    rows += [
        Ability(character=character, name=f"Flaw {i}", kind="flaw", rating=15) for i in range(2)
    ]
    Ability.objects.bulk_create(rows)
    sidekick = Follower.objects.create(owner=character, kind="sidekick", name="Rex")
    Ability.objects.bulk_create(
        Ability(character=character, follower=sidekick, name=f"Rex {i}", rating=16)
        for i in range(3)
    )
    targets = list(character.abilities.exclude(kind=AbilityKind.FLAW))
    assert character.abilities.count() == 30
    for i, state in enumerate(["hurt", "impaired", "fresh", "pumped", "heroic"]):
        condition = Condition.objects.create(character=character, state=state, cause=f"cause {i}")
        condition.abilities.set(targets[i * 4 : i * 4 + 3])
    return character


@pytest.mark.parametrize("persona", ["alice", "gm"])
def test_a_big_sheet_renders_in_a_bounded_number_of_queries(
    client, alice, gm, campaign, django_assert_max_num_queries, persona
):
    big = big_sheet(alice, campaign)
    services.character_hero_point_spend(character=big, actor=alice)  # some history
    client.force_login({"alice": alice, "gm": gm}[persona])
    url = reverse("characters:sheet", args=[big.pk])
    with django_assert_max_num_queries(12):
        response = client.get(url)
    sheet = text(response)
    assert sheet.count('class="ability') >= 30
    assert sheet.count('class="condition condition-') == 5
    assert "TN 14" in sheet  # Keyword 0 (17) hurt: 17 - 3


def test_the_query_count_does_not_grow_with_the_sheet(client, alice, gm, campaign, kara):
    big = big_sheet(alice, campaign)
    services.character_hero_point_spend(character=big, actor=alice)
    services.character_condition_apply(
        character=kara, actor=gm, state="hurt", abilities=[ability(kara, "Riding")]
    )
    client.force_login(gm)
    counts = []
    for character in (kara, big):  # 12 abilities and 1 condition; 30 and 5
        with CaptureQueriesContext(connection) as queries:
            client.get(reverse("characters:sheet", args=[character.pk]))
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_the_wizard_counts_points_and_shows_what_finishing_needs(client, alice, build_kara):
    kara = build_kara(finish=False)
    services.character_ability_remove(character=kara, actor=alice, ability=ability(kara, "Wary"))
    client.force_login(alice)
    wizard = text(client.get(reverse("characters:wizard", args=[kara.pk])))
    assert "<strong>Points spent:</strong> 20 of 20" in wizard
    assert "§3.5: you have 11 of 12 abilities" in wizard.split("To finish:")[1]
