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


class Season(models.Model):
    """A stretch of a campaign; the base resistance may progress between seasons (§2.9)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveIntegerField()
    name = models.CharField(max_length=120, blank=True)
    base_resistance = models.IntegerField(default=14)
    started_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "number"], name="season_number_per_campaign"
            )
        ]

    def __str__(self) -> str:
        return self.name or f"Season {self.number}"


class Session(models.Model):
    """One evening of play. Contests belong to the session in which they were played."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="sessions")
    season = models.ForeignKey(
        Season, on_delete=models.SET_NULL, null=True, blank=True, related_name="sessions"
    )
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=200, blank=True)
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    recap = models.TextField(blank=True, help_text="Markdown.")
    attendees = models.ManyToManyField(
        "characters.Character", related_name="sessions_attended", blank=True
    )

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "number"], name="session_number_per_campaign"
            ),
            models.UniqueConstraint(
                fields=["campaign"],
                condition=models.Q(ended_at__isnull=True),
                name="one_open_session_per_campaign",
            ),
        ]
        indexes = [models.Index(fields=["campaign", "started_at"])]

    def __str__(self) -> str:
        return self.title or f"Session {self.number}"

    @property
    def is_open(self) -> bool:
        return self.ended_at is None
