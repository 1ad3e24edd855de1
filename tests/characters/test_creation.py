"""The creation wizard, one method at a time (§3, §2.20, §6.5.1, R16): every rule the
engine checks shows as a message naming the rule and the numbers, and a refused change
leaves the sheet as it was."""

from __future__ import annotations

import html

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from characters import services
from characters.models import Ability, AbilityKind, Character, CreationRole, LedgerStep

from .conftest import KARA_ABILITIES, ability, add_abilities

pytestmark = pytest.mark.django_db

METHODS = ["as_you_go", "list", "prose"]
HTMX = {"HX-Request": "true"}

PROSE = (
    "Kara is a sardonic ex-mercenary who guards caravans across the Salt Waste with her "
    "old sword. She learnt swordplay in the free companies and riding on the long roads, "
    "and she still haggles like a fishwife over every coin. Years of ambushes made her wary "
    "and tough, and she knows the salt waste lore of wells and storms better than any "
    "guide alive. She gambles with dice in every caravanserai, speaks the languages of the "
    "trade roads, and trusts only the caravan guards who have bled beside her. She is "
    "greedy, and she drinks when the nights are cold and long."
)


@pytest.fixture
def start(alice, campaign):
    """A new character of `method`, its wizard open in alice's browser."""

    def start(method: str, client=None) -> Character:
        character = services.character_create(
            player=alice,
            name="Kara",
            concept="sardonic ex-mercenary",
            creation_method=method,
            campaign=campaign,
        )
        if method == "prose":
            services.character_prose_set(character=character, actor=alice, prose=PROSE)
        return character

    return start


def add(client, character, **data):
    """Post the wizard's ability form as htmx does; returns the page text."""
    payload = {"kind": "standalone", "page": "wizard", **data}
    response = client.post(
        reverse("characters:ability_add", args=[character.pk]), payload, headers=HTMX
    )
    page = html.unescape(response.content.decode())
    # A refused change (its errors on the page) is a 400, which htmx swaps all the same.
    assert response.status_code == (400 if 'class="errorlist' in page else 200)
    return page


def test_the_wizard_starts_with_a_concept_and_a_method(client, alice, campaign):
    client.force_login(alice)
    page = client.get(reverse("characters:create")).content.decode()
    for method in ("As you go (§3.1)", "List (§3.5)", "Prose (§3.6)"):
        assert method in page
    response = client.post(
        reverse("characters:create"),
        {
            "name": "Kara",
            "concept": "sardonic ex-mercenary",
            "creation_method": "list",
            "campaign": campaign.pk,
            "trait_1": "scarred cheek",
        },
    )
    kara = Character.objects.get(name="Kara")
    assert response.url == reverse("characters:wizard", args=[kara.pk])
    assert (kara.player, kara.campaign, kara.hero_points) == (alice, campaign, 3)  # R15
    wizard = client.get(response.url).content.decode()
    assert "all <strong>20 points</strong>" in wizard


def test_a_character_joins_only_a_campaign_its_player_plays_in(client, charlie, campaign):
    client.force_login(charlie)
    response = client.post(
        reverse("characters:create"),
        {"name": "Spy", "creation_method": "list", "campaign": campaign.pk},
    )
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert not Character.objects.exists()


@pytest.mark.parametrize("method", METHODS)
def test_the_concept_abilities_start_at_17_and_the_others_at_13(client, alice, start, method):
    kara = start(method)
    client.force_login(alice)
    page = add(
        client, kara, name="Mercenary", kind="keyword", rating="16", creation_role="defining"
    )
    assert "§3.2: Mercenary is rated 16 but starts at 17; points only raise ratings" in page
    page = add(client, kara, name="Riding", rating="12")
    assert "§3.2: Riding is rated 12 but starts at 13; points only raise ratings" in page
    assert not kara.abilities.exists()
    page = add(
        client, kara, name="Mercenary", kind="keyword", rating="17", creation_role="defining"
    )
    assert "Mercenary is on the sheet." in page
    assert ability(kara, "Mercenary").creation_role == CreationRole.DEFINING


@pytest.mark.parametrize("method", METHODS)
def test_at_most_10_points_go_on_one_ability(client, alice, start, method):
    kara = start(method)
    client.force_login(alice)
    page = add(client, kara, name="Riding", rating="4M")  # 24 = 13 + 11
    assert "§3.2: Riding has 11 extra points; at most 10 on one ability" in page
    assert not kara.abilities.exists()
    add(client, kara, name="Riding", rating="3M")  # 23 = 13 + 10
    assert ability(kara, "Riding").rating == 23


@pytest.mark.parametrize("method", METHODS)
def test_20_points_in_all(client, alice, build_kara, method):
    kara = build_kara(method=method, finish=False)
    client.force_login(alice)
    wizard = client.get(reverse("characters:wizard", args=[kara.pk])).content.decode()
    assert "<strong>Points spent:</strong> 20 of 20" in wizard
    riding = ability(kara, "Riding")
    response = client.post(
        reverse("characters:ability", args=[kara.pk, riding.pk]),
        {"name": "Riding", "rating": "16", "page": "wizard"},
        headers=HTMX,
    )
    assert "§3.2: you spent 21 of 20 points" in html.unescape(response.content.decode())
    assert ability(kara, "Riding").rating == 15


@pytest.mark.parametrize("method", ["as_you_go", "list"])
def test_a_character_has_12_abilities(client, alice, build_kara, method):
    kara = build_kara(method=method, finish=False)
    client.force_login(alice)
    page = add(client, kara, name="Swimming", rating="13")
    rule = "§3.1" if method == "as_you_go" else "§3.5"
    assert f"{rule}: you have 13 abilities; a character has 12 (a free keyword aside)" in page
    assert kara.abilities.count() == 12


def test_a_free_keyword_is_not_one_of_the_12(client, alice, build_kara):
    kara = build_kara(finish=False)
    client.force_login(alice)
    page = add(
        client, kara, name="Ashfen Born", kind="keyword", rating="13", creation_role="free_keyword"
    )
    assert "Ashfen Born is on the sheet." in page
    services.character_creation_finish(character=kara, actor=kara.player)


def test_the_prose_method_has_no_limit_on_abilities(alice, build_kara):
    kara = build_kara(method="prose", finish=False)
    services.character_ability_add(character=kara, actor=alice, name="Swimming", rating=13)
    services.character_creation_finish(character=kara, actor=alice)
    assert kara.abilities.count() == 13


@pytest.mark.parametrize("method", ["as_you_go", "list"])
def test_finishing_asks_for_all_12_abilities(client, alice, method, start):
    kara = start(method)
    add_abilities(kara, alice, KARA_ABILITIES[:11])
    client.force_login(alice)
    response = client.post(
        reverse("characters:finish", args=[kara.pk]), {"page": "wizard"}, headers=HTMX
    )
    rule = "§3.1" if method == "as_you_go" else "§3.5"
    assert f"{rule}: you have 11 of 12 abilities" in html.unescape(response.content.decode())
    kara.refresh_from_db()
    assert not kara.creation_complete


def test_the_list_method_spends_all_20_points_before_play(alice, start):
    kara = start("list")
    rows = [*KARA_ABILITIES[:-1], ("Wary", AbilityKind.STANDALONE, 13, None, {})]
    rows[3] = ("Riding", AbilityKind.STANDALONE, 14, None, {})  # one point unspent
    add_abilities(kara, alice, rows)
    with pytest.raises(ValidationError) as refused:
        services.character_creation_finish(character=kara, actor=alice)
    assert refused.value.messages == [
        "§2.20.1: you spent 19 of 20 points; the list method spends them all before play"
    ]


def test_an_as_you_go_character_may_keep_points_for_later(alice, start):
    kara = start("as_you_go")
    rows = list(KARA_ABILITIES)
    rows[3] = ("Riding", AbilityKind.STANDALONE, 14, None, {})
    add_abilities(kara, alice, rows)
    services.character_creation_finish(character=kara, actor=alice)
    assert kara.creation_complete


def test_unmarked_concept_abilities_spend_points_from_13(alice, start):
    kara = start("list")
    rows = [(n, k, r, kw, {}) for n, k, r, kw, _ in KARA_ABILITIES[:3]]
    add_abilities(kara, alice, rows)  # Mercenary 22 and Sardonic 20 cost 9 + 7, Swordplay 4
    with pytest.raises(ValidationError) as refused:
        services.character_ability_add(character=kara, actor=alice, name="Riding", rating=15)
    assert refused.value.messages == ["§3.2: you spent 22 of 20 points"]
    services.character_concept_set(
        character=kara,
        actor=alice,
        defining=ability(kara, "Mercenary"),
        distinguishing=ability(kara, "Sardonic"),
    )
    services.character_ability_add(character=kara, actor=alice, name="Riding", rating=15)


def test_finishing_names_the_concept_abilities_not_chosen(alice, start):
    kara = start("as_you_go")
    rows = [
        (name, kind, 0 if kind == "breakout" else 13, keyword, extra)
        for name, kind, _, keyword, extra in KARA_ABILITIES[2:]
    ]
    rows = [("Mercenary", "keyword", 17, None, {}), ("Sardonic", "standalone", 17, None, {}), *rows]
    add_abilities(kara, alice, rows)
    with pytest.raises(ValidationError) as refused:
        services.character_creation_finish(character=kara, actor=alice)
    assert refused.value.messages == [
        "§3.2: name your defining ability (it starts at 17)",
        "§3.2: name your distinguishing characteristic (it starts at 17)",
    ]


def test_up_to_three_flaws_rated_from_the_abilities(client, alice, build_kara):
    kara = build_kara(finish=False)
    client.force_login(alice)
    for name in ("Greedy", "Drinks", "Vain"):
        add(client, kara, name=name, kind="flaw")
    # §3.3: highest (Swordplay 22 + 4), second-highest (Mercenary 22), then the lowest.
    assert {f.name: f.rating for f in kara.abilities.filter(kind="flaw")} == {
        "Greedy": 26,
        "Drinks": 22,
        "Vain": 13,
    }
    page = add(client, kara, name="Lazy", kind="flaw")
    assert "§3.3: you chose 4 flaws; at most 3 (flaws from keywords aside)" in page
    mercenary = ability(kara, "Mercenary")
    page = add(client, kara, name="Hunted", kind="flaw", keyword=mercenary.pk)
    assert "Hunted is on the sheet." in page
    sheet = client.get(reverse("characters:sheet", args=[kara.pk])).content.decode()
    assert "-5 as a penalty" in sheet  # Greedy 26 / 5, rounded half up (R9)


def test_flaws_follow_the_sheet_while_it_is_created(alice, build_kara):
    kara = build_kara(finish=False)
    services.character_ability_add(character=kara, actor=alice, name="Greedy", kind="flaw")
    services.character_ability_update(
        character=kara, actor=alice, ability=ability(kara, "Swordplay"), rating=3
    )
    assert ability(kara, "Greedy").rating == 25


def test_a_flaw_needs_abilities_to_be_rated_from(alice, start):
    kara = start("list")
    with pytest.raises(ValidationError) as refused:
        services.character_ability_add(character=kara, actor=alice, name="Greedy", kind="flaw")
    assert "flaws are rated from the character's abilities (§3.3); there are none" in str(
        refused.value
    )
    assert not kara.abilities.exists()


SIDEKICK = {
    "name": "Rex",
    "ability_1": "Loyal Dog",
    "rating_1": "26",
    "ability_2": "Tracking",
    "rating_2": "18",
    "ability_3": "Fierce",
    "rating_3": "13",
}


def post_sidekick(client, character, **changes):
    response = client.post(
        reverse("characters:sidekick", args=[character.pk]),
        {**SIDEKICK, "page": "wizard", **changes},
        headers=HTMX,
    )
    return html.unescape(response.content.decode())


def test_a_sidekick_has_16_13_13_and_15_points(client, alice, start):
    kara = start("list")
    add_abilities(kara, alice, KARA_ABILITIES[:11])
    client.force_login(alice)
    page = post_sidekick(client, kara, rating_1="27")
    assert "§6.5.1: Rex's Loyal Dog has 11 extra points; at most 10 on one ability" in page
    page = post_sidekick(client, kara, rating_3="14")
    assert "§6.5.1: Rex: you spent 16 of 15 points" in page
    page = post_sidekick(client, kara, rating_3="12")
    assert "§6.5.1: Rex's Fierce is rated 12 but starts at 13; points only raise ratings" in page
    assert not kara.followers.exists()
    page = post_sidekick(client, kara)
    assert "Rex is your sidekick." in page
    # The sidekick is the twelfth ability (§3.5 step 5).
    services.character_creation_finish(character=kara, actor=alice)
    assert [a.rating for a in kara.followers.get().abilities.all()] == [26, 18, 13]


def test_a_sidekick_spends_all_its_points_and_fills_one_of_the_12(alice, build_kara):
    kara = build_kara(finish=False)
    with pytest.raises(ValidationError) as refused:
        services.character_sidekick_set(
            character=kara, actor=alice, name="Rex", abilities=[("Loyal Dog", 16, "keyword")]
        )
    assert "§3.5: you have 13 abilities; a character has 12 (a free keyword aside)" in (
        refused.value.messages
    )
    services.character_ability_remove(character=kara, actor=alice, ability=ability(kara, "Wary"))
    services.character_sidekick_set(
        character=kara, actor=alice, name="Rex", abilities=[("Loyal Dog", 16, "keyword")]
    )
    with pytest.raises(ValidationError) as refused:
        services.character_creation_finish(character=kara, actor=alice)
    assert refused.value.messages == [
        "§6.5.1: a sidekick starts with three abilities; Rex has 1",
        "§6.5.1: Rex: you spent 0 of 15 points; allocate them all",
    ]


def test_the_prose_method_underlines_words_of_the_paragraph(client, alice, start):
    kara = start("prose")
    client.force_login(alice)
    page = add(client, kara, name="Sea Lore", rating="13", phrase="sea lore")
    assert "§3.6: 'sea lore' does not occur in the paragraph" in page
    page = add(client, kara, name="Guards Caravans", rating="17", phrase="guards   caravans")
    assert "Guards Caravans is on the sheet." in page
    assert ability(kara, "Guards Caravans").phrase == "guards caravans"
    wizard = client.get(reverse("characters:wizard", args=[kara.pk])).content.decode()
    assert '"phrase": "guards caravans"' in wizard  # underlined by characters.js
    # The paragraph cannot lose a phrase already taken.
    response = client.post(
        reverse("characters:prose", args=[kara.pk]),
        {"prose": PROSE.replace("guards caravans", "escorts wagons"), "page": "wizard"},
        headers=HTMX,
    )
    text = html.unescape(response.content.decode())
    assert "§3.6: 'guards caravans' does not occur in the paragraph" in text
    kara.refresh_from_db()
    assert kara.prose == PROSE


def test_a_short_paragraph_gets_advice_not_a_refusal(client, alice, start):
    kara = start("prose")
    services.character_prose_set(character=kara, actor=alice, prose="Kara guards caravans.")
    client.force_login(alice)
    wizard = html.unescape(
        client.get(reverse("characters:wizard", args=[kara.pk])).content.decode()
    )
    assert "the paragraph has 3 words; the prose method asks for about 100 (75 to 125)" in wizard


def test_a_prose_character_finishes_with_its_phrases(alice, start):
    kara = start("prose")
    rows = [
        ("Mercenary", "keyword", 27, {"creation_role": "defining", "phrase": "ex-mercenary"}),
        ("Sardonic", "standalone", 27, {"creation_role": "distinguishing", "phrase": "sardonic"}),
        ("Old Sword", "standalone", 13, {"phrase": "old sword"}),
    ]
    for name, kind, rating, extra in rows:
        services.character_ability_add(
            character=kara, actor=alice, name=name, kind=kind, rating=rating, **extra
        )
    services.character_creation_finish(character=kara, actor=alice)
    assert kara.creation_complete


def test_an_as_you_go_character_plays_unfinished_and_grows_in_play(client, alice, gm, start):
    kara = start("as_you_go")
    services.character_ability_add(
        character=kara,
        actor=alice,
        name="Mercenary",
        kind="keyword",
        rating=17,
        creation_role="defining",
    )
    client.force_login(alice)
    sheet = client.get(reverse("characters:sheet", args=[kara.pk])).content.decode()
    assert "Add an ability on the spot" in sheet
    # A contest needs an ability: the player makes it up on the sheet (§3.1 step 4).
    response = client.post(
        reverse("characters:ability_add", args=[kara.pk]),
        {"name": "Climbing", "kind": "standalone", "rating": "15", "page": "sheet"},
        headers=HTMX,
    )
    assert 'id="sheet"' in response.content.decode()
    climbing = ability(kara, "Climbing")
    client.force_login(gm)
    assert "Climbing" in client.get(reverse("characters:sheet", args=[kara.pk])).content.decode()
    step = LedgerStep.objects.filter(character=kara).first()
    assert (step.reason, step.actor, step.entries.get().ability) == ("creation", alice, climbing)


def test_a_refusal_without_htmx_comes_back_as_the_page_with_its_message(client, alice, start):
    kara = start("list")
    client.force_login(alice)
    response = client.post(
        reverse("characters:ability_add", args=[kara.pk]),
        {"name": "Riding", "kind": "standalone", "rating": "12", "page": "wizard"},
    )
    assert response.status_code == 400
    page = html.unescape(response.content.decode())
    assert "<title>Creating Kara" in page and "starts at 13" in page
    assert not kara.abilities.exists()


def test_a_rating_that_is_not_a_rating_says_how_to_write_one(client, alice, start):
    kara = start("list")
    client.force_login(alice)
    page = add(client, kara, name="Riding", rating="lots")
    assert "'lots' is not a rating: write a number such as 14" in page
    page = add(client, kara, name="Mercenary", kind="keyword", rating="17")
    mercenary = ability(kara, "Mercenary")
    page = add(client, kara, name="Swordplay", kind="breakout", rating="x", keyword=mercenary.pk)
    assert "'x' is not a breakout bonus: write +2, or 2 (§3.3)." in page
    assert kara.abilities.count() == 1


def test_after_creation_ratings_change_only_through_advancement(alice, kara):
    riding = ability(kara, "Riding")
    with pytest.raises(ValidationError) as refused:
        services.character_ability_update(character=kara, actor=alice, ability=riding, rating=20)
    assert "abilities now change through advances, directed improvements or hero points" in str(
        refused.value
    )
    services.character_ability_update(
        character=kara, actor=alice, ability=riding, name="Horse Riding", description="bareback"
    )
    assert Ability.objects.get(pk=riding.pk).name == "Horse Riding"
    with pytest.raises(ValidationError):
        services.character_ability_add(character=kara, actor=alice, name="Swimming", rating=13)


def test_the_ability_form_opens_in_place_and_removes_during_creation(client, alice, build_kara):
    kara = build_kara(finish=False)
    client.force_login(alice)
    wary = ability(kara, "Wary")
    form = client.get(
        reverse("characters:ability", args=[kara.pk, wary.pk]) + "?page=wizard", headers=HTMX
    ).content.decode()
    assert form.startswith(f'\n<li id="ability-{wary.pk}"')
    assert "Remove" in form
    client.post(
        reverse("characters:ability_remove", args=[kara.pk, wary.pk]),
        {"page": "wizard"},
        headers=HTMX,
    )
    assert not kara.abilities.filter(name="Wary").exists()
    removed = LedgerStep.objects.filter(character=kara).first().entries.get()
    assert (removed.ability_name, removed.before, removed.after) == ("Wary", 13, None)


def test_keywords_as_packages_hold_abilities_with_their_own_ratings(client, alice, campaign, start):
    campaign.rules = {"keywords": "packages"}
    campaign.save()
    kara = start("list")
    client.force_login(alice)
    add(client, kara, name="Mercenary", kind="keyword", rating="17", creation_role="defining")
    mercenary = ability(kara, "Mercenary")
    page = add(client, kara, name="Swordplay", kind="breakout", rating="+2", keyword=mercenary.pk)
    assert "This campaign treats keywords as packages (§3.3)" in page
    page = add(client, kara, name="Swordplay", kind="standalone", rating="15", keyword=mercenary.pk)
    assert "Swordplay is on the sheet." in page
    sheet = html.unescape(client.get(reverse("characters:sheet", args=[kara.pk])).content.decode())
    package = sheet.split('<span class="ability-name">Mercenary</span>')[1].split("</ul>")[0]
    assert '<span class="rating" title="rating">15</span>' in package  # its own rating


def test_under_an_umbrella_a_specialised_ability_is_a_breakout(client, alice, start):
    kara = start("list")
    client.force_login(alice)
    add(client, kara, name="Mercenary", kind="keyword", rating="17", creation_role="defining")
    mercenary = ability(kara, "Mercenary")
    page = add(client, kara, name="Swordplay", kind="standalone", rating="15", keyword=mercenary.pk)
    assert "a specialised ability is a breakout with a +N bonus (§3.3)" in page
    page = add(client, kara, name="Swordplay", kind="breakout", rating="+2", keyword=mercenary.pk)
    assert ability(kara, "Swordplay").keyword == mercenary
