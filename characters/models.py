from django.conf import settings
from django.db import models


class Character(models.Model):
    """A player character. The characters issue adds abilities, conditions and the ledger."""

    name = models.CharField(max_length=120)
    concept = models.CharField(max_length=200, blank=True)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="characters"
    )
    campaign = models.ForeignKey(
        "campaigns.Campaign",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="characters",
    )
    hero_points = models.PositiveIntegerField(default=3)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(hero_points__gte=0), name="character_hero_points_not_negative"
            )
        ]

    def __str__(self) -> str:
        return self.name
