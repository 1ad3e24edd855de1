"""Contests as an append-only log of events (issue 6), and who is at each table.

A contest's state is the rules engine's state rebuilt from its events; `state` is a
cached snapshot of it, rewritten in the same transaction as each event.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.crypto import salted_hmac

from questworlds_site.limits import CHAT_LINE, NOTES, text_limit

from .core.terms import PROPOSED_KINDS
from .events import event_choices


class ContestKind(models.TextChoices):
    SIMPLE = "simple", "Simple contest"
    GROUP_SIMPLE = "group_simple", "Group simple contest"
    SCORED = "scored", "Scored contest"
    GROUP_SCORED = "group_scored", "Group scored contest"
    EXTENDED = "extended", "Extended contest"
    GROUP_EXTENDED = "group_extended", "Group extended contest"
    CHAINED = "chained", "Chained contest"
    AUTOMATIC = "automatic", "Automatic victory"


class ContestStatus(models.TextChoices):
    FRAMING = "framing", "Being framed"
    RUNNING = "running", "Running"
    RESOLVING = "resolving", "Consequences pending"
    FINISHED = "finished", "Finished"
    ABANDONED = "abandoned", "Abandoned"


class Contest(models.Model):
    """One contest at a campaign's table, from framing to consequences."""

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="contests"
    )
    session = models.ForeignKey(
        "campaigns.Session", on_delete=models.PROTECT, related_name="contests"
    )
    number = models.PositiveIntegerField(help_text="Order within the campaign, from 1.")
    kind = models.CharField(max_length=16, choices=ContestKind.choices)
    status = models.CharField(
        max_length=10, choices=ContestStatus.choices, default=ContestStatus.FRAMING
    )
    prize = models.CharField(max_length=300, blank=True)
    obstacle = models.CharField(max_length=300, blank=True)
    resistance_name = models.CharField(max_length=120, blank=True)
    resistance_rating = models.IntegerField(null=True, blank=True)
    framing = models.JSONField(default=dict, blank=True)
    state = models.JSONField(default=dict, blank=True)
    seq = models.PositiveIntegerField(default=0, help_text="The latest event's number.")
    winner = models.CharField(max_length=40, blank=True)
    degree = models.CharField(max_length=10, blank=True)
    outcome_level = models.SmallIntegerField(
        null=True,
        blank=True,
        help_text="For the PC side: +4 complete victory .. -4 complete defeat.",
    )
    narration = models.CharField(max_length=300, blank=True)
    gm_notes = models.TextField(blank=True, **text_limit(NOTES))
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "number"], name="contest_number_per_campaign"
            )
        ]
        indexes = [
            models.Index(fields=["campaign", "kind"]),
            models.Index(fields=["campaign", "outcome_level"]),
            models.Index(fields=["session", "number"]),
        ]

    def __str__(self) -> str:
        return f"#{self.number} {self.get_kind_display()}: {self.prize or self.obstacle}"


class ContestParticipant(models.Model):
    """A character (or an NPC) in a contest, on one side."""

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="participants")
    character = models.ForeignKey(
        "characters.Character",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="contest_entries",
    )
    name = models.CharField(max_length=120)
    side = models.CharField(max_length=40)
    ability = models.CharField(max_length=120, blank=True)
    rating = models.IntegerField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["character", "contest"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.side})"


class ProposalStatus(models.TextChoices):
    """Where a player's proposal stands; the labels are the words the table shows."""

    OPEN = "open", "Waiting for the GM"
    WITHDRAWN = "withdrawn", "Withdrawn"
    FRAMED = "framed", "Framed"
    DECLINED = "declined", "Declined"


class Proposal(models.Model):
    """A player's proposal of a contest at an open session (issue 30): what their
    character wants (the prize), the ability they mean to use, the kind they suggest and
    in a few words how. QuestWorlds frames contests by conversation: the GM frames it as
    proposed with a resistance of their own, frames it amended, or declines it with a
    reason shown to the table; its player may withdraw it until then. One open proposal
    per player; an open one lapses with its session (`lapsed`)."""

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="proposals"
    )
    session = models.ForeignKey(
        "campaigns.Session", on_delete=models.CASCADE, related_name="proposals"
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    character = models.ForeignKey(
        "characters.Character", on_delete=models.CASCADE, related_name="proposals"
    )
    ability = models.ForeignKey(
        "characters.Ability", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The ability as it was named when proposed (it may be renamed or removed since).
    ability_name = models.CharField(max_length=120)
    prize = models.CharField(max_length=300)
    kind = models.CharField(max_length=16, choices=ContestKind.choices)
    how = models.CharField(max_length=300, blank=True)
    status = models.CharField(
        max_length=10, choices=ProposalStatus.choices, default=ProposalStatus.OPEN
    )
    # Why the GM declined it (shown to the table).
    reason = models.CharField(max_length=300, blank=True)
    # The contest it was framed as, and whether the GM changed it first.
    contest = models.ForeignKey(
        Contest, on_delete=models.SET_NULL, null=True, blank=True, related_name="proposals"
    )
    amended = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "player"],
                condition=models.Q(status="open"),
                name="one_open_proposal_per_player",
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=ProposalStatus.values), name="proposal_status_known"
            ),
            models.CheckConstraint(
                condition=models.Q(kind__in=PROPOSED_KINDS),
                name="proposal_kind_one_on_one",
            ),
            models.CheckConstraint(condition=~models.Q(prize=""), name="proposal_has_a_prize"),
        ]

    def __str__(self) -> str:
        return f"{self.character} wants {self.prize[:40]}"

    @property
    def lapsed(self) -> bool:
        """Still open when its session ended: proposals end with the session."""
        return self.status == ProposalStatus.OPEN and self.session.ended_at is not None


class ContestEvent(models.Model):
    """One action at the table, never changed once written (append-only).

    `idempotency_key` comes from the client: a double click or a resend of the same
    action finds the existing event instead of writing a second one.
    """

    contest = models.ForeignKey(Contest, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    type = models.CharField(max_length=40, choices=event_choices)
    # Shaped by `type` (contests/events.py), checked where events are written.
    payload = models.JSONField(default=dict)
    idempotency_key = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seq"]
        constraints = [
            models.UniqueConstraint(fields=["contest", "seq"], name="event_seq_per_contest"),
            models.UniqueConstraint(
                fields=["contest", "idempotency_key"], name="event_key_per_contest"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.contest_id}#{self.seq} {self.type}"


class TablePresence(models.Model):
    """One open websocket at a campaign's table.

    Kept in the database (not process memory) so that every server process behind the
    Redis channel layer reports the same people at the table. Each row belongs to the
    server process holding the socket (`server`), which refreshes `seen_at` on a
    heartbeat: a process that dies (`kill -9`) leaves rows that expire, and clearing
    stale rows never touches a live process's (contests/presence.py).
    """

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="presences"
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    channel_name = models.CharField(max_length=200, unique=True)
    role = models.CharField(max_length=10)
    connected_at = models.DateTimeField(auto_now_add=True)
    server = models.CharField(max_length=100, default="", db_index=True)
    seen_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["connected_at", "id"]
        indexes = [models.Index(fields=["campaign", "connected_at"])]

    def __str__(self) -> str:
        return f"{self.user} at {self.campaign} ({self.channel_name})"


class ChatKind(models.TextChoices):
    """What a line of table chat is; the labels are the words the table shows."""

    IN_CHARACTER = "in_character", "In character"
    OUT_OF_CHARACTER = "out_of_character", "Out of character"
    EMOTE = "emote", "Emote"
    WHISPER = "whisper", "Whisper to the GM"


class ChatMessage(models.Model):
    """One line of table chat, kept with the session in which it was said.

    A whisper to the GM is read only by the GM and by whoever whispered it
    (`contests.selectors.chat_lines`); every other line by everyone at the table."""

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="chat_messages"
    )
    session = models.ForeignKey(
        "campaigns.Session", on_delete=models.CASCADE, related_name="chat_messages"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    # The author's own character they speak as (in character, an emote), or None.
    character = models.ForeignKey(
        "characters.Character",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="chat_messages",
    )
    kind = models.CharField(max_length=20, choices=ChatKind.choices)
    text = models.CharField(max_length=CHAT_LINE)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(kind__in=ChatKind.values), name="chat_kind_is_known"
            ),
            models.CheckConstraint(condition=~models.Q(text=""), name="chat_text_not_empty"),
        ]
        indexes = [models.Index(fields=["session", "created_at"])]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.text[:40]}"

    @property
    def speaker(self) -> str:
        """Who speaks: the character, else the author's name."""
        if self.character is not None:
            return self.character.name
        return self.author.shown_name if self.author is not None else "someone"

    @property
    def ref(self) -> str:
        """The line's identifier on a page (`data-chat-line`, which the page's chat
        de-duplicates by): a keyed hash of its id, not the id, so a player, who does not
        see others' whispers to the GM, cannot count them from gaps in the ids."""
        return salted_hmac(
            "contests.ChatMessage.ref", str(self.pk), algorithm="sha256"
        ).hexdigest()[:16]

    def as_text(self) -> str:
        """The line in words, as the table, the archive and the chronicle show it:
        "*Tamsin draws her knife*", "Tamsin: “Hold the boat!”", "Alice (out of
        character): back in five", "Alice (whisper to the GM): I pocket the ring"."""
        if self.kind == ChatKind.EMOTE:
            return f"*{self.speaker} {self.text}*"
        if self.kind == ChatKind.IN_CHARACTER:
            return f"{self.speaker}: “{self.text}”"
        label = self.get_kind_display()
        return f"{self.speaker} ({label[0].lower()}{label[1:]}): {self.text}"
