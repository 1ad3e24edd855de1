"""Improving a sidekick (§6.5.1): "You can improve these abilities through the
expenditure of hero points" — +1 to one of the sidekick's abilities for what +1 to one
of the PC's own costs (1 HP; a keyword 2 HP, or 1 as packages), from the sheet, recorded
in the ledger and undone by the GM."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from characters import services
from characters.models import Character, LedgerReason

from .conftest import ability
from .test_sidekick_replacement import lose_rex, rex_of

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def tracking(kara):
    return rex_of(kara).abilities.get(name="Tracking")


def raise_on_sheet(client, kara, row):
    return client.post(
        reverse("characters:sidekick_raise", args=[kara.pk]), {"ability": row.pk}, headers=HTMX
    )


def test_the_player_raises_the_sidekicks_ability_for_a_hero_point(client, alice, kara_with_rex):
    kara = kara_with_rex
    client.force_login(alice)
    sheet = client.get(reverse("characters:sheet", args=[kara.pk])).content.decode()
    assert "+1 to Rex for hero points (§6.5.1)" in sheet
    assert "Rex: Tracking (1 HP)" in sheet and "Rex: Loyal Dog (2 HP)" in sheet
    response = raise_on_sheet(client, kara, tracking(kara))
    assert response.status_code == 200
    kara.refresh_from_db()
    assert (kara.hero_points, tracking(kara).rating) == (3 - 1, 18 + 1)
    step = kara.ledger.filter(reason=LedgerReason.SIDEKICK_IMPROVEMENT).get()
    assert {e.ability_name for e in step.entries.all()} >= {"Rex: Tracking"}


def test_no_hero_point_no_improvement_and_nothing_changes(client, alice, kara_with_rex):
    kara = kara_with_rex
    Character.objects.filter(pk=kara.pk).update(hero_points=0)
    client.force_login(alice)
    response = raise_on_sheet(client, kara, tracking(kara))
    assert response.status_code == 400
    assert "costs 1 HP; you have 0" in response.content.decode()
    assert tracking(kara).rating == 18


def test_only_the_sidekicks_abilities_in_service(alice, gm, kara_with_rex):
    kara = kara_with_rex
    with pytest.raises(ValidationError, match="ability of your sidekick in service"):
        services.character_sidekick_raise(
            character=kara, actor=alice, ability=ability(kara, "Riding")
        )
    lose_rex(kara, gm)
    with pytest.raises(ValidationError, match="ability of your sidekick in service"):
        services.character_sidekick_raise(character=kara, actor=alice, ability=tracking(kara))


def test_another_player_cannot_improve_the_sidekick(client, bob, kara_with_rex):
    client.force_login(bob)
    response = raise_on_sheet(client, kara_with_rex, tracking(kara_with_rex))
    assert response.status_code in (403, 404)
    assert tracking(kara_with_rex).rating == 18


def test_the_gm_undoes_the_improvement(alice, gm, kara_with_rex):
    kara = kara_with_rex
    services.character_sidekick_raise(character=kara, actor=alice, ability=tracking(kara))
    services.character_step_undo(character=kara, actor=gm)
    kara.refresh_from_db()
    assert (kara.hero_points, tracking(kara).rating) == (3, 18)


def loyal_dog(kara):
    return rex_of(kara).abilities.get(name="Loyal Dog")


@pytest.mark.parametrize(("keywords", "cost"), [("umbrella", 2), ("packages", 1)])
def test_the_sidekicks_keyword_costs_what_the_pcs_own_would(
    client, alice, campaign, kara_with_rex, keywords, cost
):
    """§6.5.1 names no price: "as extensions of your character" (§2.3.5.5) a sidekick's
    keyword costs what the PC's own does (1e §6.2: 2 HP; 1 HP as a package, §3.3)."""
    campaign.rules = {**campaign.rules, "keywords": keywords}
    campaign.save()
    kara = Character.objects.get(pk=kara_with_rex.pk)
    client.force_login(alice)
    sheet = client.get(reverse("characters:sheet", args=[kara.pk])).content.decode()
    assert f"Rex: Loyal Dog ({cost} HP)" in sheet
    assert raise_on_sheet(client, kara, loyal_dog(kara)).status_code == 200
    kara.refresh_from_db()
    assert (kara.hero_points, loyal_dog(kara).rating) == (3 - cost, 26 + 1)
    step = kara.ledger.filter(reason=LedgerReason.SIDEKICK_IMPROVEMENT).get()
    assert step.note == "+1 to Rex: Loyal Dog"


def test_a_keyword_short_of_hero_points_is_refused_and_nothing_changes(
    client, alice, kara_with_rex
):
    kara = kara_with_rex
    Character.objects.filter(pk=kara.pk).update(hero_points=1)
    client.force_login(alice)
    response = raise_on_sheet(client, kara, loyal_dog(kara))
    assert response.status_code == 400
    assert "costs 2 HP; you have 1" in response.content.decode()
    kara.refresh_from_db()
    assert (kara.hero_points, loyal_dog(kara).rating) == (1, 26)
    assert not kara.ledger.filter(reason=LedgerReason.SIDEKICK_IMPROVEMENT).exists()


def test_the_gm_spends_no_hero_points_for_the_player(client, gm, kara_with_rex):
    """As the PC's own hero point improvements: the player's choice (the GM has directed
    improvements, §7.1.2); the GM is refused and nothing changes."""
    client.force_login(gm)
    assert raise_on_sheet(client, kara_with_rex, tracking(kara_with_rex)).status_code == 403
    kara_with_rex.refresh_from_db()
    assert (kara_with_rex.hero_points, tracking(kara_with_rex).rating) == (3, 18)
