"""Who may see or change a character (every view asks here).

Its player may see and change it; the GM of its campaign may see it and apply
conditions, awards, directed improvements and undo; either may record a sidekick lost,
replaced or promoted (§6.5.2). Anyone else gets 404, so they
learn nothing; someone who may see it but not do what they asked gets 403.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.http import Http404

from .models import Character


@dataclass(frozen=True)
class CharacterAccess:
    is_owner: bool
    is_gm: bool

    @property
    def can_edit(self) -> bool:
        """The player's own: creation, details, advancement, hero point spending."""
        return self.is_owner

    @property
    def can_direct(self) -> bool:
        """The GM's: conditions, awards, directed improvements, undo."""
        return self.is_gm

    @property
    def can_tend_followers(self) -> bool:
        """The player's or the GM's: a sidekick lost, replaced or promoted (§6.5.2)."""
        return self.is_owner or self.is_gm


def get_character_for_user(user, character_id: int) -> tuple[Character, CharacterAccess]:
    """The character and what the user may do with it; 404 unless they may see it."""
    character = (
        Character.objects.select_related("campaign", "campaign__gm", "player")
        .filter(pk=character_id)
        .first()
    )
    if character is None or not getattr(user, "is_authenticated", False):
        raise Http404("No such character")
    access = CharacterAccess(
        is_owner=character.player_id == user.pk,
        is_gm=character.campaign is not None and character.campaign.gm_id == user.pk,
    )
    if not (access.is_owner or access.is_gm):
        raise Http404("No such character")
    return character, access


def get_character_for_owner(user, character_id: int) -> tuple[Character, CharacterAccess]:
    """The user's own character; the GM who may only look gets 403."""
    character, access = get_character_for_user(user, character_id)
    if not access.can_edit:
        raise PermissionDenied("Only the character's player may do that.")
    return character, access


def get_character_for_gm(user, character_id: int) -> tuple[Character, CharacterAccess]:
    """A character of a campaign the user runs; its player gets 403."""
    character, access = get_character_for_user(user, character_id)
    if not access.can_direct:
        raise PermissionDenied("Only the campaign's GM may do that.")
    return character, access


def get_character_for_player_or_gm(user, character_id: int) -> tuple[Character, CharacterAccess]:
    """A character its player or its campaign's GM may change (followers, §6.5.2)."""
    character, access = get_character_for_user(user, character_id)
    if not access.can_tend_followers:
        raise PermissionDenied("Only the character's player or the campaign's GM may do that.")
    return character, access
