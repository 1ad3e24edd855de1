"""Fixtures for the community tests: Ashfen with the §8.1.3 spread, a character with
a relationship to it, and helpers to open and close sessions."""

from __future__ import annotations

import pytest

from campaigns import services as campaign_services
from characters.models import Ability, AbilityKind, Character
from community import services
from community.models import Community
from contests.core.rules import fixed_rolls

SPREAD = {"Wealth": 32, "Diplomacy": 29, "Magic": 18, "Morale": 18, "Military": 12}


@pytest.fixture
def community(campaign, gm) -> Community:
    community = services.community_create(campaign=campaign, actor=gm, name="Ashfen")
    services.community_found(community=community, actor=gm, ranked_names=list(SPREAD))
    return community


@pytest.fixture
def tamsin(campaign, alice) -> Character:
    return Character.objects.create(name="Tamsin", player=alice, campaign=campaign)


@pytest.fixture
def ashfen_born(tamsin) -> Ability:
    """Tamsin's relationship to the community, 13: the ability she lobbies with."""
    return Ability.objects.create(
        character=tamsin, name="Ashfen Born", kind=AbilityKind.RELATIONSHIP, rating=13
    )


@pytest.fixture
def session(campaign, gm, tamsin):
    return campaign_services.session_start(campaign=campaign, actor=gm)


def resource(community: Community, name: str):
    return community.resources.get(name=name)


def columns(community: Community) -> dict[str, tuple[int, int, int, int, int]]:
    """Each resource's (rating, total, pc, background, crisis)."""
    return {
        r.name: (r.rating, r.total, r.pc, r.background, r.crisis) for r in community.resources.all()
    }


def start_draw(community, actor, character, ability, name="Wealth", rolls=(1, 20), **kwargs):
    """Lobby to draw on resource `name`. Ashfen Born 13 against moderate (14): the
    default rolls, 1 against 20, are a complete victory, so the draw is approved."""
    kwargs.setdefault("purpose", "grain for the winter")
    return services.community_draw_start(
        community=community,
        actor=actor,
        resource=resource(community, name),
        character=character,
        ability=ability,
        roller=fixed_rolls(*rolls),
        **kwargs,
    )
