"""Campaign options (RULINGS.md), seasons with resistance progression (§2.9), NPCs."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from campaigns import services
from campaigns.models import Npc

GOOD_OPTIONS = {
    "base_resistance": 10,
    "better_roll": "low",
    "quick_augment_rounding": "up",
    "hero_point_economy": "classic",
    "keywords": "packages",
    "long_contest_default": "extended",
    "apply_consequences": "",
    "roll_visibility": "gm_hidden",
    "physical_dice": "on",
    "resistance_progression": "6",
}


def test_the_gm_sets_every_option_from_the_form(client, campaign, gm):
    client.force_login(gm)
    response = client.post(reverse("campaign_options", args=[campaign.pk]), GOOD_OPTIONS)
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.rules == {
        "base_resistance": 10,
        "better_roll": "low",
        "quick_augment_rounding": "up",
        "hero_point_economy": "classic",
        "keywords": "packages",
    }
    options = campaign.rules_options
    assert (options.better_roll, options.hero_point_economy) == ("low", "classic")
    assert campaign.long_contest_default == "extended"
    assert campaign.apply_consequences is False
    assert campaign.roll_visibility == "gm_hidden"
    assert campaign.physical_dice is True
    assert campaign.resistance_progression == 6


def test_members_read_the_options_but_cannot_change_them(client, campaign, alice):
    client.force_login(alice)
    page = client.get(reverse("campaign_options", args=[campaign.pk])).content.decode()
    assert "Base resistance" in page and "<dd>14</dd>" in page
    assert "High roll wins" in page and "Save the options" not in page
    response = client.post(reverse("campaign_options", args=[campaign.pk]), GOOD_OPTIONS)
    assert response.status_code == 403
    campaign.refresh_from_db()
    assert campaign.rules_options.better_roll == "high"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"better_roll": "middle"}, "better_roll must be one of 'high', 'low', not 'middle'"),
        ({"hero_point_economy": "gold"}, "hero_point_economy must be one of"),
        ({"base_resistance": "hard"}, "base_resistance must be a whole number"),
        ({"keywords": "tags"}, "keywords must be one of 'umbrella', 'packages'"),
        ({"roll_visibility": "secret"}, "Value 'secret' is not a valid choice"),
        ({"resistance_progression": 4}, "Value 4 is not a valid choice"),
        ({"long_contest_default": "simple"}, "Value 'simple' is not a valid choice"),
        ({"initiative": "fast"}, "Unknown campaign option(s): initiative"),
    ],
)
def test_bad_options_are_refused_with_a_clear_message(campaign, gm, options, message):
    with pytest.raises(ValidationError) as raised:
        services.campaign_options_update(campaign=campaign, actor=gm, **options)
    assert any(message in m for m in raised.value.messages)
    campaign.refresh_from_db()
    assert campaign.rules_options.to_json()["better_roll"] == "high"
    assert campaign.roll_visibility == "public"


def test_the_options_form_shows_a_bad_value_next_to_the_field(client, campaign, gm):
    client.force_login(gm)
    response = client.post(
        reverse("campaign_options", args=[campaign.pk]), {**GOOD_OPTIONS, "better_roll": "x"}
    )
    assert "Select a valid choice" in response.content.decode()
    campaign.refresh_from_db()
    assert campaign.rules == {}


def test_only_the_gm_changes_options(campaign, alice):
    with pytest.raises(PermissionDenied):
        services.campaign_options_update(campaign=campaign, actor=alice, better_roll="low")


def test_resistance_rises_by_the_progression_at_each_new_season(campaign, gm):
    services.campaign_options_update(
        campaign=campaign, actor=gm, base_resistance=14, resistance_progression=3
    )
    first = services.season_start(campaign=campaign, actor=gm)
    second = services.season_start(campaign=campaign, actor=gm, name="The Flood")
    third = services.season_start(campaign=campaign, actor=gm, progression=9)
    assert [s.base_resistance for s in (first, second, third)] == [14, 17, 26]
    campaign.refresh_from_db()
    assert campaign.rules_options.base_resistance == 26  # what the table now uses


def test_no_progression_keeps_the_resistance(campaign, gm):
    services.season_start(campaign=campaign, actor=gm)
    assert services.season_start(campaign=campaign, actor=gm).base_resistance == 14


def test_changing_the_base_resistance_changes_the_current_season(campaign, gm):
    season = services.season_start(campaign=campaign, actor=gm)
    services.campaign_options_update(campaign=campaign, actor=gm, base_resistance=11)
    season.refresh_from_db()
    assert season.base_resistance == 11


def test_a_season_progression_is_plus_3_6_or_9(campaign, gm):
    with pytest.raises(ValidationError, match=r"\+3, \+6 or \+9"):
        services.season_start(campaign=campaign, actor=gm, progression=5)


# --------------------------------------------------------------------- NPC library


def test_the_gm_keeps_a_library_of_opponents(client, campaign, gm, alice):
    client.force_login(gm)
    client.post(
        reverse("npc_list", args=[campaign.pk]),
        {
            "name": "Captain Voss",
            "rating": "5M",
            "description": "Harbour master",
            "notes": "Bribed",
        },
    )
    voss = Npc.objects.get()
    assert voss.rating == 25 and voss.rating_text == "5M"
    client.force_login(alice)
    page = client.get(reverse("npc_list", args=[campaign.pk])).content.decode()
    assert "Captain Voss" in page and "5M" in page and "Harbour master" in page
    assert "Bribed" not in page  # GM notes stay with the GM


def test_an_npc_rating_must_read_as_a_rating(client, campaign, gm):
    client.force_login(gm)
    response = client.post(reverse("npc_list", args=[campaign.pk]), {"name": "X", "rating": "21M"})
    assert "the number before the mastery must be 1 to 20" in response.content.decode()
    assert not Npc.objects.exists()


def test_npc_names_are_unique_in_a_campaign(campaign, gm):
    services.npc_create(campaign=campaign, actor=gm, name="Voss", rating="14")
    with pytest.raises(ValidationError, match="already has an entry of that name"):
        services.npc_create(campaign=campaign, actor=gm, name="voss", rating="17")


def test_the_gm_edits_and_deletes_library_entries(client, campaign, gm):
    npc = services.npc_create(campaign=campaign, actor=gm, name="Voss", rating=14)
    client.force_login(gm)
    client.post(
        reverse("npc_edit", args=[campaign.pk, npc.pk]),
        {"name": "Voss the Elder", "rating": "3M", "description": "", "notes": ""},
    )
    npc.refresh_from_db()
    assert (npc.name, npc.rating) == ("Voss the Elder", 23)
    client.post(reverse("npc_delete", args=[campaign.pk, npc.pk]))
    assert not Npc.objects.exists()


def test_players_cannot_change_the_library(campaign, alice, gm):
    with pytest.raises(PermissionDenied):
        services.npc_create(campaign=campaign, actor=alice, name="Voss", rating=14)
