"""Fixtures for the live table: an open session and characters with sheets."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.table import ability, key

__all__ = ["ability", "key"]


@pytest.fixture
def session(campaign):
    from campaigns.models import Session

    return Session.objects.create(campaign=campaign, number=1, started_at=timezone.now())


@pytest.fixture
def tamsin(campaign, alice):
    """Alice's character, with a standalone ability (Boatcraft 17) and Sharp eyes 15."""
    from characters.models import Ability, Character

    character = Character.objects.create(name="Tamsin", player=alice, campaign=campaign)
    Ability.objects.create(character=character, name="Boatcraft", rating=17)
    Ability.objects.create(character=character, name="Sharp eyes", rating=15)
    return character


@pytest.fixture
def brannoc(campaign, bob):
    """Bob's character, a temple singer (27)."""
    from characters.models import Ability, Character

    character = Character.objects.create(name="Brannoc", player=bob, campaign=campaign)
    Ability.objects.create(character=character, name="Temple singer", rating=27)
    return character


@pytest.fixture
def sheets(tamsin, brannoc):
    """Each character's private ability and flaw, and hero points for the evening
    (tests/contests/every_kind.py)."""
    from .every_kind import give_sheets

    return give_sheets(tamsin, brannoc)
