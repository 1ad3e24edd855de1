"""Account state changes."""

from django.db import transaction

from .models import User


@transaction.atomic
def user_update_display_name(*, user: User, display_name: str) -> User:
    """Set the name other players see; blank falls back to the username."""
    user.display_name = display_name.strip()
    user.full_clean()
    user.save(update_fields=["display_name"])
    return user
