"""Improving a sidekick (§6.5.1): "You can improve these abilities through the
expenditure of hero points" — +1 to one of the sidekick's abilities for 1 hero point,
from the sheet, recorded in the ledger and undone by the GM."""

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
    assert "+1 to Rex (1 hero point, §6.5.1)" in sheet
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
