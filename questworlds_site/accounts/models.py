from django.contrib.auth.models import AbstractUser
from django.db import models

from questworlds_site.limits import hint


class User(AbstractUser):
    """A person at the table. `display_name` is what other players see."""

    display_name = models.CharField(
        max_length=60,
        blank=True,
        help_text="The name other people at your table see. Defaults to your username. " + hint(60),
    )

    @property
    def shown_name(self) -> str:
        return self.display_name or self.username

    def __str__(self) -> str:
        return self.shown_name
