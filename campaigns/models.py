from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from contests.core.rules.errors import RulesError
from contests.core.rules.options import RulesOptions
from contests.core.rules.ratings import Rating
from questworlds_site.limits import DESCRIPTION, NOTES, RECAP, text_limit


class Role(models.TextChoices):
    GM = "gm", "Game master"
    PLAYER = "player", "Player"
    SPECTATOR = "spectator", "Spectator"


class LongContestType(models.TextChoices):
    """The long contest the GM frames by default (§2.8.1, §5)."""

    SCORED = "scored", "Scored contest (§5.1)"
    EXTENDED = "extended", "Extended contest (§5.3)"
    CHAINED = "chained", "Chained contest (§5.4)"


class RollVisibility(models.TextChoices):
    PUBLIC = "public", "Every roll is shown to everyone"
    GM_HIDDEN = "gm_hidden", "The GM's rolls are hidden until revealed"


class ResistanceProgression(models.IntegerChoices):
    """How much the base resistance rises at each new season (§2.9)."""

    NONE = 0, "No progression (§2.9.1)"
    PLUS_3 = 3, "+3 each new season"
    PLUS_6 = 6, "+6 each new season"
    PLUS_9 = 9, "+9 each new season"


class Campaign(models.Model):
    """A group's game. The GM owns it; players and spectators join as members.

    The options of RULINGS.md that the rules engine reads live in `rules` (validated
    by `RulesOptions`); the app's own table options are fields.
    """

    name = models.CharField(max_length=120)
    genre = models.CharField(max_length=120, blank=True)
    description = models.TextField(blank=True, **text_limit(DESCRIPTION))
    gm = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="campaigns_run"
    )
    rules = models.JSONField(
        default=dict,
        blank=True,
        help_text="Campaign options of RULINGS.md (see contests.core.rules.options.RulesOptions).",
    )
    long_contest_default = models.CharField(
        "default long contest",
        max_length=10,
        choices=LongContestType.choices,
        default=LongContestType.SCORED,
    )
    apply_consequences = models.BooleanField(
        "apply consequences and benefits mechanically",
        default=True,
        help_text="Off: outcomes are narrated only, no states are recorded (§2.11).",
    )
    roll_visibility = models.CharField(
        "roll visibility",
        max_length=10,
        choices=RollVisibility.choices,
        default=RollVisibility.PUBLIC,
    )
    physical_dice = models.BooleanField("players may enter rolls of physical dice", default=False)
    resistance_progression = models.PositiveSmallIntegerField(
        "resistance progression between seasons",
        choices=ResistanceProgression.choices,
        default=ResistanceProgression.NONE,
    )
    public_token = models.CharField(
        max_length=64,
        null=True,
        blank=True,
        unique=True,
        help_text="Set while the archive has a public read-only link.",
    )
    relayed_kinds = models.JSONField(
        default=list,
        blank=True,
        editable=False,
        help_text="What the campaign's webhook relays (a copy of Webhook.kinds): read with "
        "the campaign, so an action of a campaign that relays nothing costs no query.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        try:
            RulesOptions.from_json(self.rules or {})
        except (RulesError, TypeError) as exc:
            raise ValidationError({"rules": str(exc)}) from exc

    @property
    def rules_options(self) -> RulesOptions:
        """The campaign's rules options; options never set take their defaults."""
        return RulesOptions.from_json(self.rules or {})

    @property
    def table_group_name(self) -> str:
        """The channel-layer group of this campaign's live table (ASCII, < 100 chars)."""
        return f"table.{self.pk}"

    def open_session(self) -> "Session | None":
        """The session in progress, or None: at most one is open at a time (the
        `one_open_session_per_campaign` constraint). One query each call."""
        return self.sessions.filter(ended_at__isnull=True).first()


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
    invitation = models.ForeignKey(
        "Invitation", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
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
    recap = models.TextField(blank=True, **text_limit(RECAP, "Markdown."))
    recap_published_at = models.DateTimeField(
        null=True, blank=True, help_text="Empty: the recap is the GM's draft, not shown to players."
    )
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


class Invitation(models.Model):
    """A link that lets people join a campaign in one role, until it expires, is used
    up or is revoked."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invitations")
    token = models.CharField(max_length=64, unique=True)
    role = models.CharField(
        max_length=10,
        choices=[(Role.PLAYER, Role.PLAYER.label), (Role.SPECTATOR, Role.SPECTATOR.label)],
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    max_uses = models.PositiveIntegerField(
        null=True, blank=True, help_text="Empty: anyone with the link may join until it expires."
    )
    uses = models.PositiveIntegerField(default=0)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(role__in=[Role.PLAYER, Role.SPECTATOR]),
                name="invitation_role_is_player_or_spectator",
            ),
            models.CheckConstraint(
                condition=models.Q(max_uses__isnull=True) | models.Q(max_uses__gte=1),
                name="invitation_max_uses_at_least_one",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_role_display()} invitation to {self.campaign}"

    def problem(self, now=None) -> str | None:
        """Why this invitation cannot be used now, in words for the invitee; None if it can."""
        now = now or timezone.now()
        if self.revoked_at is not None:
            return "This invitation was revoked by the GM. Ask them for a new link."
        if self.expires_at <= now:
            return "This invitation has expired. Ask the GM for a new link."
        if self.max_uses is not None and self.uses >= self.max_uses:
            return "This invitation has already been used. Ask the GM for a new link."
        return None

    @property
    def is_usable(self) -> bool:
        return self.problem() is None


class Npc(models.Model):
    """A named opponent or resistance in the campaign's library, reused when framing."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="npcs")
    name = models.CharField(max_length=120)
    rating = models.IntegerField(help_text="A total (27 is 7M).")
    description = models.TextField(
        blank=True, **text_limit(DESCRIPTION, "What the players may know.")
    )
    notes = models.TextField(blank=True, **text_limit(NOTES, "GM-only notes."))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = "NPC or resistance"
        constraints = [
            models.UniqueConstraint(
                Lower("name"),
                "campaign",
                name="npc_name_unique_per_campaign",
                violation_error_message="The library already has an entry of that name.",
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def rating_text(self) -> str:
        return str(Rating(self.rating))


class WebhookKind(models.TextChoices):
    """What a campaign's webhook may relay (campaigns.webhooks.announce), in the GM's words."""

    SESSION_STARTED = "session_started", "A session starts"
    SESSION_ENDED = "session_ended", "A session ends"
    CONTEST_FRAMED = "contest_framed", "The GM frames a contest"
    CONTEST_OUTCOME = "contest_outcome", "A contest's outcome is decided (in words)"
    RECAP_PUBLISHED = "recap_published", "The GM publishes a session's recap"


# Discord refuses a message's content past 2,000 characters.
WEBHOOK_TEXT_MAX = 2_000
WEBHOOK_URL_MAX = 500


class Webhook(models.Model):
    """Where a campaign's news goes (a Discord webhook, or another allowed host), what is
    relayed, and how the latest deliveries went.

    The URL is a secret (whoever has it may post in the channel): it is shown only
    masked (`masked_url`), never logged, never exported (campaigns/transfer)."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="webhook")
    url = models.CharField(max_length=WEBHOOK_URL_MAX)
    kinds = models.JSONField(default=list, blank=True, help_text="WebhookKind values relayed.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    last_error_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Webhook of {self.campaign_id} to {self.masked_url}"

    __repr__ = __str__  # never the URL, even in a traceback's locals

    @property
    def masked_url(self) -> str:
        """The host and the last 4 characters: enough to recognise it, not to use it."""
        return mask_url(self.url)

    def relays(self, kind: str) -> bool:
        return kind in (self.kinds or [])

    def kind_labels(self) -> list[str]:
        return [label for value, label in WebhookKind.choices if value in (self.kinds or [])]


def mask_url(url: str) -> str:
    """`https://discord.com/api/webhooks/1/abcd…wxyz` as `discord.com…wxyz`."""
    try:
        host = urlsplit(url).netloc.rpartition("@")[2]
    except ValueError:
        host = ""
    return f"{host or '?'}…{url[-4:] if len(url) > 12 else ''}"


class WebhookMessage(models.Model):
    """One message on its way to a campaign's webhook (the outbox): written once its
    action has committed, sent by the process's relay thread, retried until sent or
    given up (campaigns/webhooks/outbox.py)."""

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="messages")
    kind = models.CharField(max_length=20, choices=WebhookKind.choices)
    text = models.TextField(max_length=WEBHOOK_TEXT_MAX)
    created_at = models.DateTimeField(auto_now_add=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_try_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)
    gave_up_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(
                fields=["next_try_at"],
                condition=models.Q(sent_at__isnull=True, gave_up_at__isnull=True),
                name="webhook_message_due",
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk}"

    @property
    def waiting(self) -> bool:
        return self.sent_at is None and self.gave_up_at is None
