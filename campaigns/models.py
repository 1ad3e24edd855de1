from django.conf import settings
from django.db import models

from contests.rules.options import RulesOptions


class Role(models.TextChoices):
    GM = "gm", "Game master"
    PLAYER = "player", "Player"
    SPECTATOR = "spectator", "Spectator"


class Campaign(models.Model):
    """A group's game. The GM owns it; players and spectators join as members."""

    name = models.CharField(max_length=120)
    genre = models.CharField(max_length=120, blank=True)
    description = models.TextField(blank=True)
    gm = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="campaigns_run"
    )
    rules = models.JSONField(
        default=dict,
        blank=True,
        help_text="Campaign options of RULINGS.md (see contests.rules.options.RulesOptions).",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    @property
    def rules_options(self) -> RulesOptions:
        """The campaign's rules options; options never set take their defaults."""
        return RulesOptions.from_json(self.rules or {})

    @property
    def table_group_name(self) -> str:
        """The channel-layer group of this campaign's live table (ASCII, < 100 chars)."""
        return f"table.{self.pk}"


class Membership(models.Model):
    """A player's or spectator's place in a campaign (the GM is `Campaign.gm`)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(
        max_length=10,
        choices=[(Role.PLAYER, Role.PLAYER.label), (Role.SPECTATOR, Role.SPECTATOR.label)],
    )
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="one_membership_per_user"),
            models.CheckConstraint(
                condition=models.Q(role__in=[Role.PLAYER, Role.SPECTATOR]),
                name="membership_role_is_player_or_spectator",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.campaign}"
