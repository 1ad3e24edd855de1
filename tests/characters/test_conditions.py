"""States of adversity and fortune on the sheet (§2.11, R10): the GM applies them to the
abilities they affect, the sheet shows each ability's TN with them, and they end by
healing, waning or the GM's word, each with a reason."""

from __future__ import annotations

import html
import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from characters import services
from characters.models import Condition

from .conftest import ability

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def sheet_line(client, kara, name):
    sheet = html.unescape(client.get(reverse("characters:sheet", args=[kara.pk])).content.decode())
    pk = ability(kara, name).pk
    return re.search(rf'<li id="ability-{pk}".*?</div>', sheet, re.S).group()


def apply(kara, gm, state, *names, cause="the ambush"):
    return services.character_condition_apply(
        character=kara,
        actor=gm,
        state=state,
        abilities=[ability(kara, n) for n in names],
        cause=cause,
        contest_id=7,
    )


def test_the_gm_applies_a_state_and_the_sheet_shows_the_tn(client, kara, gm):
    client.force_login(gm)
    response = client.post(
        reverse("characters:condition_apply", args=[kara.pk]),
        {
            "state": "impaired",
            "abilities": [ability(kara, "Riding").pk, ability(kara, "Tough").pk],
            "cause": "thrown by the camel",
        },
        headers=HTMX,
    )
    assert "Impaired recorded." in response.content.decode()
    condition = Condition.objects.get()
    assert (condition.applied_by, condition.cause) == (gm, "thrown by the camel")
    assert "TN 9" in sheet_line(client, kara, "Riding")  # 15 - 6
    assert "TN" not in sheet_line(client, kara, "Haggling")


def test_states_stack_and_a_keywords_state_bears_on_its_breakouts(client, kara, gm):
    apply(kara, gm, "hurt", "Mercenary")
    apply(kara, gm, "pumped", "Mercenary", "Riding")
    client.force_login(kara.player)
    assert "TN 5M" in sheet_line(client, kara, "Mercenary")  # 22 - 3 + 6 = 25
    assert "TN 9M" in sheet_line(client, kara, "Swordplay")  # 22 + 4, then -3 + 6 = 29
    assert "TN 1M" in sheet_line(client, kara, "Riding")  # 15 + 6 = 21


def test_heroic_is_a_bump_and_dying_allows_no_action(client, kara, gm):
    apply(kara, gm, "heroic", "Riding")
    apply(kara, gm, "dying", "Tough")
    client.force_login(kara.player)
    assert "TN 15 +1 bump" in sheet_line(client, kara, "Riding")
    assert "dying: no action but a final action (§2.11.1.5)" in sheet_line(client, kara, "Tough")


def test_a_defeat_ends_freshness_on_the_abilities_it_touches(kara, gm):
    fresh = apply(kara, gm, "fresh", "Riding", "Haggling")
    apply(kara, gm, "hurt", "Riding")
    fresh.refresh_from_db()
    assert [a.name for a in fresh.abilities.all()] == ["Haggling"]
    assert fresh.ended_at is None
    apply(kara, gm, "impaired", "Haggling", cause="the market brawl")
    fresh.refresh_from_db()
    assert (fresh.ended_at is not None, fresh.end_reason) == (
        True,
        "ended by a defeat: the market brawl",
    )


@pytest.mark.parametrize(
    ("state", "outcome", "after"),
    [
        ("injured", 2, "hurt"),  # a minor victory removes two steps
        ("hurt", 1, None),
        ("impaired", -3, "injured"),  # a major defeat worsens it one step
        ("dying", 0, "dying"),  # §2.11.1.5, R18.7: a failed intervention: doomed
        ("dying", 2, "injured"),  # a successful one, whatever its degree...
        ("dying", 4, "impaired"),  # ... but a complete victory
    ],
)
def test_healing_follows_the_healing_table(client, kara, gm, state, outcome, after):
    condition = apply(kara, gm, state, "Tough")
    client.force_login(gm)
    client.post(
        reverse("characters:condition_heal", args=[kara.pk, condition.pk]),
        {"outcome": outcome, "reason": "the temple healer"},
        headers=HTMX,
    )
    condition.refresh_from_db()
    assert condition.ended_at is not None
    assert condition.end_reason.endswith(": the temple healer")
    active = Condition.objects.filter(ended_at__isnull=True)
    assert [c.state for c in active] == ([after] if after else [])
    if after:
        assert [a.name for a in active.get().abilities.all()] == ["Tough"]
    doomed = "doomed: a final action at most (§2.11.1.5)" in condition.end_reason
    assert doomed == (state == "dying" and outcome <= 0)


def test_only_adversity_is_healed(client, kara, gm):
    condition = apply(kara, gm, "pumped", "Tough")
    with pytest.raises(ValidationError) as refused:
        services.character_condition_heal(character=kara, actor=gm, condition=condition, outcome=2)
    assert "pumped cannot be healed (§2.11.3): only hurt to dying can" in str(refused.value)


def test_states_wane_at_a_session_and_a_storyline_end(client, kara, gm):
    for state in ("hurt", "impaired", "fresh", "pumped"):
        apply(kara, gm, state, "Riding")
    client.force_login(gm)
    response = client.post(
        reverse("characters:conditions_wane", args=[kara.pk]),
        {"at": "session_end", "reason": "a night's rest"},
        headers=HTMX,
    )
    assert "2 condition(s) waned." in response.content.decode()
    active = Condition.objects.filter(ended_at__isnull=True)
    assert sorted(c.state for c in active) == ["impaired", "pumped"]
    services.character_conditions_wane(character=kara, actor=gm, at="storyline_end")
    assert [c.state for c in active.all()] == ["impaired"]
    assert (
        Condition.objects.get(state="hurt").end_reason
        == "waned at the session's end: a night's rest"
    )


def test_the_gm_clears_a_condition_with_a_reason(client, kara, gm):
    condition = apply(kara, gm, "injured", "Riding")
    client.force_login(gm)
    url = reverse("characters:condition_clear", args=[kara.pk, condition.pk])
    page = client.post(url, {"reason": ""}, headers=HTMX).content.decode()
    assert "This field is required." in page
    condition.refresh_from_db()
    assert condition.ended_at is None
    client.post(url, {"reason": "a miracle of the river god"}, headers=HTMX)
    condition.refresh_from_db()
    assert (condition.ended_by, condition.end_reason) == (gm, "a miracle of the river god")
    assert "TN" not in sheet_line(client, kara, "Riding")


def test_a_state_goes_only_on_the_characters_own_abilities(kara, gm, build_kara, bob):
    other = build_kara(player=bob)
    with pytest.raises(ValidationError) as refused:
        services.character_condition_apply(
            character=kara, actor=gm, state="hurt", abilities=[ability(other, "Riding")]
        )
    assert "abilities of this character" in str(refused.value)
    with pytest.raises(ValidationError) as refused:
        services.character_condition_apply(
            character=kara, actor=gm, state="sleepy", abilities=[ability(kara, "Riding")]
        )
    assert "'sleepy' is not a state" in str(refused.value)
    assert not Condition.objects.exists()


def test_a_doomed_pcs_record_fits_with_the_longest_reason(client, kara, gm):
    """R18.7: a failed intervention on a dying PC is recorded as doomed, whatever the
    length of the GM's reason (the form takes 150 characters)."""
    condition = apply(kara, gm, "dying", "Tough")
    client.force_login(gm)
    response = client.post(
        reverse("characters:condition_heal", args=[kara.pk, condition.pk]),
        {"outcome": -4, "reason": "r" * 150},
        headers=HTMX,
    )
    assert response.status_code == 200
    (dying,) = Condition.objects.filter(ended_at__isnull=True)
    assert dying.state == "dying" and "doomed" in dying.cause and len(dying.cause) <= 200
