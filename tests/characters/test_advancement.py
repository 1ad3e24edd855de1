"""Hero points and advancement in both economies of RULINGS R15 (§7, 1e §6): sessions,
awards, advances, catch-ups, directed improvements and the classic +1s, through the
sheet's forms and the services the live table will call."""

from __future__ import annotations

import html
import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from characters import services
from characters.models import AbilityKind, Character, LedgerStep
from contests.core.rules.advancement import AdvanceChoice

from .conftest import ability

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def post(client, character, name, data=None, *args):
    response = client.post(
        reverse(f"characters:{name}", args=[character.pk, *args]), data or {}, headers=HTMX
    )
    page = html.unescape(response.content.decode())
    # A refused change (its errors on the page) is a 400, which htmx swaps all the same.
    assert response.status_code == (400 if 'class="errorlist' in page else 200), page
    return page


def with_xp(character, xp):
    Character.objects.filter(pk=character.pk).update(experience_points=xp)
    character.refresh_from_db()
    return character


@pytest.fixture
def classic(campaign):
    campaign.rules = {"hero_point_economy": "classic"}
    campaign.save()
    return campaign


# --------------------------------------------------------------------- the advances economy


def test_a_session_gives_one_hero_point_and_unspent_ones_become_experience(kara, gm):
    assert kara.hero_points == 3  # R15: a new character
    services.character_session_start(character=kara, actor=gm)
    assert (kara.hero_points, kara.in_session) == (4, True)
    services.character_hero_point_spend(character=kara, actor=kara.player)
    services.character_session_end(character=kara, actor=gm)
    kara.refresh_from_db()
    assert (kara.hero_points, kara.experience_points, kara.experience_earned) == (0, 3, 3)
    assert [s.reason for s in LedgerStep.objects.filter(character=kara)[:3]] == [
        "session_end",
        "hp_spend",
        "session_start",
    ]


def test_a_session_cannot_start_twice(kara, gm):
    services.character_session_start(character=kara, actor=gm)
    with pytest.raises(ValidationError) as refused:
        services.character_session_start(character=kara, actor=gm)
    assert "a session has already started" in str(refused.value)


def test_the_gm_awards_at_most_five_hero_points_a_session(client, kara, gm):
    client.force_login(gm)
    page = post(client, kara, "award", {"count": 1, "reason": "held the bridge"})
    assert "the GM awards hero points during a session (§7.1); none is running" in page
    services.character_session_start(character=kara, actor=gm)
    page = post(client, kara, "award", {"count": 4, "reason": "held the bridge"})
    assert "Hero points awarded." in page
    page = post(client, kara, "award", {"count": 2, "reason": "again"})
    assert (
        "the GM awards at most 5 HP a session (§7.1): 4 awarded already, so 1 more at most, "
        "not 2" in page
    )
    kara.refresh_from_db()
    assert (kara.hero_points, kara.awarded_this_session) == (8, 4)
    step = LedgerStep.objects.filter(character=kara).first()
    assert (step.reason, step.actor, step.note) == ("hp_award", gm, "held the bridge")


def test_spending_the_last_hero_point_and_no_more(client, kara):
    client.force_login(kara.player)
    for _ in range(3):
        post(client, kara, "spend", {"reason": "a bump against the bandit chief"})
    page = post(client, kara, "spend", {"reason": "one more"})
    assert "a hero point costs 1 HP; you have 0" in page
    kara.refresh_from_db()
    assert kara.hero_points == 0


def test_an_advance_is_two_different_options_for_10_xp(client, kara):
    with_xp(kara, 12)
    client.force_login(kara.player)
    data = {
        "option_1": "plus_9",
        "ability_1": "Riding",
        "option_2": "new_ability",
        "ability_2": "Swimming",
    }
    page = post(client, kara, "advance", data)
    assert "Advance bought." in page
    kara.refresh_from_db()
    assert kara.experience_points == 2
    assert ability(kara, "Riding").rating == 24
    assert ability(kara, "Swimming").rating == 13
    entries = LedgerStep.objects.filter(character=kara).first().entries.all()
    assert [(e.field, e.ability_name, e.before, e.after) for e in entries] == [
        ("experience_points", "", 12, 2),
        ("rating", "Riding", 15, 24),
        ("new_ability", "Swimming", None, 13),
        ("catch_up", "Riding", None, 24),  # §7.1.1: 15 -> 24 crossed 20
    ]
    assert (
        entries[1].note
        == "§7.1 advance: +9 to a standalone or breakout ability, or +6 to a keyword"
    )


@pytest.mark.parametrize(
    ("xp", "second", "message"),
    [
        (12, "plus_9", "an advance is two different options (§7.1): you chose plus_9 twice"),
        (7, "plus_6", "an advance costs 10 XP (§7.1); you have 7"),
    ],
)
def test_an_advance_that_breaks_a_rule_changes_nothing(client, kara, xp, second, message):
    with_xp(kara, xp)
    client.force_login(kara.player)
    data = {"option_1": "plus_9", "ability_1": "Riding", "option_2": second, "ability_2": "Tough"}
    assert message in post(client, kara, "advance", data)
    kara.refresh_from_db()
    assert (kara.experience_points, ability(kara, "Riding").rating) == (xp, 15)


def test_an_advance_can_make_a_standalone_ability_a_keyword(kara):
    with_xp(kara, 10)
    services.character_advance_buy(
        character=kara,
        actor=kara.player,
        first=AdvanceChoice("new_keyword", "Riding", breakout="Horse Archery"),
        second=AdvanceChoice("new_ability_or_breakout", "Ambush", keyword="Mercenary"),
    )
    riding, archery = ability(kara, "Riding"), ability(kara, "Horse Archery")
    assert riding.kind == AbilityKind.KEYWORD
    assert (archery.kind, archery.keyword, archery.rating) == ("breakout", riding, 1)
    assert ability(kara, "Ambush").keyword == ability(kara, "Mercenary")


def test_with_keywords_as_packages_there_are_no_breakouts_to_buy(kara, campaign):
    campaign.rules = {"keywords": "packages"}
    campaign.save()
    kara = with_xp(Character.objects.get(pk=kara.pk), 10)
    with pytest.raises(ValidationError) as refused:
        services.character_advance_buy(
            character=kara,
            actor=kara.player,
            first=AdvanceChoice("plus_6", "Riding"),
            second=AdvanceChoice("new_ability_or_breakout", "Ambush", keyword="Mercenary"),
        )
    assert "treats keywords as packages (§3.3)" in str(refused.value)


# --------------------------------------------------------------------- catch-ups (§7.1.1)


def test_crossing_a_mastery_offers_a_catch_up_on_the_sheet(client, kara):
    with_xp(kara, 10)
    services.character_advance_buy(
        character=kara,
        actor=kara.player,
        first=AdvanceChoice("plus_9", "Riding"),
        second=AdvanceChoice("plus_6", "Tough"),
    )
    kara.refresh_from_db()
    client.force_login(kara.player)
    sheet = html.unescape(client.get(reverse("characters:sheet", args=[kara.pk])).content.decode())
    assert "Catch-up: Riding reached 4M (§7.1.1)" in sheet
    # Tough (20) is within 5 of 24 and breakouts never take one: neither is offered.
    riding = ability(kara, "Riding")
    offer = sheet.split("Catch-up: Riding")[1].split("</fieldset>")[0]
    assert re.findall(r'name="targets" value="\d+"> ([^(<]+) \(', offer) == [
        "Haggling",
        "Salt Waste Lore",
        "Old Sword",
        "Gambling",
        "Caravan Guards",
        "Languages",
        "Wary",
    ]
    targets = [ability(kara, n).pk for n in ("Haggling", "Languages", "Wary")]
    page = post(client, kara, "catch_up", {"targets": targets}, riding.pk)
    assert "Catch-up taken." in page
    assert [ability(kara, n).rating for n in ("Haggling", "Languages", "Wary")] == [18, 16, 16]
    kara.refresh_from_db()
    assert kara.catch_ups == []


def test_a_catch_up_raises_up_to_three_abilities_rated_five_below(client, kara):
    with_xp(kara, 10)
    services.character_advance_buy(
        character=kara,
        actor=kara.player,
        first=AdvanceChoice("plus_9", "Riding"),
        second=AdvanceChoice("plus_6", "Tough"),
    )
    client.force_login(kara.player)
    riding = ability(kara, "Riding")
    four = [ability(kara, n).pk for n in ("Haggling", "Languages", "Wary", "Gambling")]
    page = post(client, kara, "catch_up", {"targets": four}, riding.pk)
    assert "a catch-up raises up to 3 abilities (§7.1.1), not 4" in page
    page = post(client, kara, "catch_up", {"targets": [ability(kara, "Tough").pk]}, riding.pk)
    assert (
        "a catch-up raises abilities rated 5 or more below Riding's 4M (§7.1.1): "
        "Tough is 20, 1 too high" in page
    )
    page = post(client, kara, "catch_up", {"decline": "1"}, riding.pk)
    assert "Catch-up declined." in page
    kara.refresh_from_db()
    assert kara.catch_ups == []
    assert ability(kara, "Haggling").rating == 15


# --------------------------------------------------------------------- directed (§7.1.2)


def test_the_gm_directs_an_improvement_that_may_offer_a_catch_up(client, kara, gm):
    client.force_login(gm)
    sardonic = ability(kara, "Sardonic")
    page = post(
        client,
        kara,
        "directed",
        {"ability": sardonic.pk, "amount": 6, "reason": "faced down the Salt King"},
    )
    assert "Directed improvement made." in page
    assert ability(kara, "Sardonic").rating == 26
    kara.refresh_from_db()
    assert kara.catch_ups == [{"ability": sardonic.pk, "rating": 26}]
    page = post(client, kara, "directed", {"ability": sardonic.pk, "amount": 4})
    assert "Select a valid choice. 4 is not one of the available choices." in page


def test_the_gm_gives_a_new_ability(client, kara, gm):
    client.force_login(gm)
    page = post(client, kara, "directed_new", {"name": "Salt King's Favour", "rating": "13"})
    assert "New ability given." in page
    assert ability(kara, "Salt King's Favour").rating == 13


# --------------------------------------------------------------------- the classic economy (1e §6)


def test_classic_sessions_give_three_hero_points_and_unspent_ones_are_lost(classic, build_kara, gm):
    kara = build_kara()
    services.character_session_start(character=kara, actor=gm)
    assert kara.hero_points == 6
    services.character_session_end(character=kara, actor=gm)
    kara.refresh_from_db()
    assert (kara.hero_points, kara.experience_points) == (0, 0)


def test_classic_improvements_cost_hero_points_once_per_ability_a_session(
    client, classic, build_kara, gm
):
    kara = build_kara()
    services.character_session_start(character=kara, actor=gm)
    client.force_login(kara.player)
    riding, mercenary = ability(kara, "Riding"), ability(kara, "Mercenary")
    assert "+1 bought with hero points." in post(
        client, kara, "classic_raise", {"ability": riding.pk}
    )
    post(client, kara, "classic_raise", {"ability": mercenary.pk})
    kara.refresh_from_db()
    assert (
        kara.hero_points,
        ability(kara, "Riding").rating,
        ability(kara, "Mercenary").rating,
    ) == (
        3,
        16,
        23,
    )
    page = post(client, kara, "classic_raise", {"ability": riding.pk})
    assert "Riding was already raised this session; an ability improves by 1 point" in page
    post(client, kara, "classic_new", {"name": "Ambush", "keyword": mercenary.pk})
    post(client, kara, "classic_new", {"name": "Swimming"})
    kara.refresh_from_db()
    assert kara.hero_points == 1
    assert (ability(kara, "Ambush").kind, ability(kara, "Ambush").rating) == ("breakout", 1)
    assert ability(kara, "Swimming").rating == 13
    # A new session: Riding may rise again.
    services.character_session_end(character=kara, actor=gm)
    services.character_session_start(character=kara, actor=gm)
    post(client, kara, "classic_raise", {"ability": riding.pk})
    assert ability(kara, "Riding").rating == 17


def test_the_classic_economy_has_no_advances_nor_awards(classic, build_kara, gm):
    kara = with_xp(build_kara(), 10)
    with pytest.raises(ValidationError) as refused:
        services.character_advance_buy(
            character=kara,
            actor=kara.player,
            first=AdvanceChoice("plus_9", "Riding"),
            second=AdvanceChoice("plus_6", "Tough"),
        )
    assert "an advance belongs to the 'advances' hero point economy (R15)" in str(refused.value)
    services.character_session_start(character=kara, actor=gm)
    with pytest.raises(ValidationError):
        services.character_hero_points_award(character=kara, actor=gm, count=1)


def test_classic_directed_improvements_are_one_to_three(client, classic, build_kara, gm):
    kara = build_kara()
    client.force_login(gm)
    sheet = client.get(reverse("characters:sheet", args=[kara.pk])).content.decode()
    amounts = re.search(r'<select name="amount".*?</select>', sheet, re.S).group()
    assert re.findall(r">(\+\d)</option>", amounts) == ["+1", "+2", "+3"]
    with pytest.raises(ValidationError) as refused:
        services.character_directed_improvement(
            character=kara, actor=gm, ability=ability(kara, "Riding"), amount=6
        )
    assert "a directed improvement is +1, +2, +3 in the classic economy, not 6" in str(
        refused.value
    )


def test_a_player_cannot_raise_another_characters_ability(kara, bob, build_kara):
    brannoc = build_kara(player=bob)
    with pytest.raises(ValidationError) as refused:
        services.character_directed_improvement(
            character=brannoc, actor=bob, ability=ability(kara, "Riding"), amount=3
        )
    assert "Riding is not one of this character's own abilities." in str(refused.value)


def test_with_keywords_as_packages_a_keyword_rises_like_a_standalone_ability(kara, campaign):
    """§3.3 in play: an advance's +9 goes to a keyword in full (+6 under an umbrella)."""
    campaign.rules = {"keywords": "packages"}
    campaign.save()
    kara = with_xp(Character.objects.get(pk=kara.pk), 10)
    before = ability(kara, "Mercenary").rating
    services.character_advance_buy(
        character=kara,
        actor=kara.player,
        first=AdvanceChoice("plus_9", "Mercenary"),
        second=AdvanceChoice("plus_6", "Riding"),
    )
    assert ability(kara, "Mercenary").rating == before + 9
