"""A campaign's focal community and its resources (§8).

The rules live in `contests.core.rules.community`: `Community.to_rules()` builds the rules
engine's state object from these rows and `Community.apply_rules()` writes it back.
Every change the engine makes is kept as a `ResourceChange` under the `CommunityStep`
(one action of the GM or a player) that caused it; `IntervalRecord` keeps each finished
interval's notation table, for the history and the chart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from contests.core.rules.community import MAX_RESOURCES, describe_level, own_augments_allowed
from contests.core.rules.community import Community as RulesCommunity
from contests.core.rules.ratings import Rating
from questworlds_site.limits import DESCRIPTION, text_limit

GLYPH = "W"  # §8.1.3 writes masteries as W (12W); the rules engine's notation() does too


def rating_text(total: int) -> str:
    """A rating in the community's notation: 32 is `12W` (R1: W is a mastery)."""
    return str(Rating(total)).replace("M", GLYPH)


class AnswerMode(models.TextChoices):
    """How the players answer the setup questionnaire (§8.1.3)."""

    CONSENSUS = "consensus", "One answer for the group (consensus or vote)"
    PER_PLAYER = "per_player", "Each player answers; the scores add up"


class Community(models.Model):
    """A campaign's focal community (§8): a campaign tracks at most one."""

    campaign = models.OneToOneField(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="community"
    )
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True, **text_limit(DESCRIPTION))
    interval_name = models.CharField(
        max_length=40, default="season", help_text="Season, voyage, campaign… (§8.1.2)."
    )
    interval_number = models.PositiveIntegerField(default=1)
    background_done = models.BooleanField(
        default=False, help_text="This interval's background events are rolled (§8.2.4)."
    )
    crisis_tests_session = models.ForeignKey(
        "campaigns.Session",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The session whose crisis tests were run last (§8.2.5).",
    )
    answer_mode = models.CharField(
        "questionnaire answers",
        max_length=12,
        choices=AnswerMode.choices,
        default=AnswerMode.CONSENSUS,
    )
    social_penalties_linger = models.BooleanField(
        "lingering social penalties",
        default=False,
        help_text=(
            "Optional rule (§8.2): a failed draw's social penalty outlasts its interval; "
            "characters shed 3 points of it at the end of each interval, until it is gone."
        ),
    )

    class Meta:
        verbose_name_plural = "communities"
        constraints = [
            models.CheckConstraint(
                condition=Q(interval_number__gte=1), name="community_interval_from_one"
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def interval_label(self) -> str:
        """ "season 2", "voyage 3"."""
        return f"{self.interval_name} {self.interval_number}"

    def to_rules(self, resources: Sequence[Resource], *, better_roll: str) -> RulesCommunity:
        """The rules engine's state of this community, from its resource rows (in order)."""
        return RulesCommunity.from_json(
            {
                "interval": self.interval_number,
                "background_done": self.background_done,
                "better_roll": better_roll,
                "resources": [resource.to_rules_json() for resource in resources],
            }
        )

    def apply_rules(self, state: RulesCommunity, resources: Sequence[Resource]) -> None:
        """Write the engine's state back to this community and its resource rows (the
        caller saves them). A crisis that ended takes its narration with it."""
        self.interval_number = state.interval
        self.background_done = state.background_done
        for resource in resources:
            rules_resource = state.resource(resource.name)
            for column in Resource.COLUMNS:
                setattr(resource, column, getattr(rules_resource, column))
            if not resource.crisis:
                resource.crisis_note = ""


class Resource(models.Model):
    """One of up to five resources (§8.1.1) with its notation columns (§8.1.4).

    `rating` is a total (32 is 12W); `total` the Total column, every modifier now;
    `pc` the PC column; `background` this interval's uncemented background bonus;
    `crisis` 0 for none, 1 started, more when it worsened (§8.2.5).
    """

    COLUMNS = ("rating", "total", "pc", "background", "crisis")

    community = models.ForeignKey(Community, on_delete=models.CASCADE, related_name="resources")
    name = models.CharField(max_length=60)
    position = models.PositiveSmallIntegerField(help_text=f"1 to {MAX_RESOURCES}.")
    rating = models.IntegerField(help_text="A total (32 is 12W).")
    total = models.IntegerField(default=0)
    pc = models.IntegerField(default=0)
    background = models.IntegerField(default=0)
    crisis = models.PositiveSmallIntegerField(default=0)
    crisis_note = models.CharField(
        max_length=500, blank=True, help_text="What the GM narrates of the crisis."
    )

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            # §8.1.1: at most five resources, as positions 1..5 each used once.
            models.CheckConstraint(
                condition=Q(position__gte=1) & Q(position__lte=MAX_RESOURCES),
                name="resource_position_one_to_five",
            ),
            models.UniqueConstraint(
                fields=["community", "position"], name="resource_position_per_community"
            ),
            models.UniqueConstraint(
                Lower("name"),
                "community",
                name="resource_name_unique_per_community",
                violation_error_message="The community already has a resource of that name.",
            ),
            models.CheckConstraint(
                condition=Q(pc__gte=0) & Q(background__gte=0), name="resource_bonuses_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.rating_text}"

    @property
    def rating_text(self) -> str:
        return rating_text(self.rating)

    @property
    def effective_total(self) -> int:
        """The rating to use now, as an ability or an augment: rating plus the Total
        column (§8.2)."""
        return self.rating + self.total

    @property
    def effective_text(self) -> str:
        return rating_text(self.effective_total)

    def to_rules_json(self) -> dict[str, Any]:
        return {"name": self.name, **{column: getattr(self, column) for column in self.COLUMNS}}


class StepKind(models.TextChoices):
    SETUP = "setup", "Setup"
    LOBBYING = "lobbying", "Lobbying to draw on a resource"
    DEPLETION = "depletion", "Depletion"
    WITHDRAWAL = "withdrawal", "Withdrawal"
    PENALTY = "penalty", "Penalty from a defeat"
    BOLSTER = "bolster", "Bolstering"
    BACKGROUND = "background", "Background events"
    CRISIS = "crisis", "Crisis tests"
    CRISIS_NOTE = "crisis_note", "Crisis narrated"
    CEMENT = "cement", "Cementing"
    INTERVAL_END = "interval_end", "End of interval"
    PLOT = "plot", "Plot event"


class CommunityStep(models.Model):
    """One action on the community: who, when, in which interval and session, why, the
    contest that caused it, and the rolls made (the engine's test log)."""

    community = models.ForeignKey(Community, on_delete=models.CASCADE, related_name="steps")
    interval = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=StepKind.choices)
    summary = models.CharField(max_length=300)
    note = models.CharField(max_length=300, blank=True, help_text="The GM's reason.")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    session = models.ForeignKey(
        "campaigns.Session", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    contest = models.ForeignKey(
        "contests.Contest",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="community_steps",
    )
    draw = models.ForeignKey(
        "ResourceDraw", on_delete=models.SET_NULL, null=True, blank=True, related_name="steps"
    )
    rolls = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["community", "interval"])]

    def __str__(self) -> str:
        return self.summary


class ChangeColumn(models.TextChoices):
    RATING = "rating", "Rating"
    TOTAL = "total", "Total"
    PC = "pc", "PC"
    BACKGROUND = "background", "Background bonus"
    CRISIS = "crisis", "Crisis"


class ResourceChange(models.Model):
    """One column of one resource changed, and why (the rules engine's reason)."""

    step = models.ForeignKey(CommunityStep, on_delete=models.CASCADE, related_name="changes")
    resource = models.ForeignKey(Resource, on_delete=models.CASCADE, related_name="changes")
    column = models.CharField(max_length=12, choices=ChangeColumn.choices)
    before = models.IntegerField(null=True, blank=True, help_text="Empty: a new resource.")
    after = models.IntegerField()
    reason = models.CharField(max_length=300)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.resource.name} {self.column}: {self.before} -> {self.after}"

    @property
    def before_text(self) -> str:
        return self._text(self.before) if self.before is not None else "new"

    @property
    def after_text(self) -> str:
        return self._text(self.after)

    def _text(self, value: int) -> str:
        if self.column == ChangeColumn.RATING:
            return rating_text(value)
        if self.column == ChangeColumn.CRISIS:
            return str(value)
        return f"{value:+d}" if value else "0"


class IntervalRecord(models.Model):
    """A finished interval's notation table as it stood at its end, before §8.3
    changed the ratings: one row per resource (id, name, rating total and text, Total,
    PC, background, crisis)."""

    community = models.ForeignKey(Community, on_delete=models.CASCADE, related_name="intervals")
    number = models.PositiveIntegerField()
    rows = models.JSONField(default=list)
    ended_at = models.DateTimeField(auto_now_add=True)
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(
                fields=["community", "number"], name="interval_record_once_per_number"
            )
        ]

    def __str__(self) -> str:
        return f"{self.community} {self.community.interval_name} {self.number}"


class UsedAs(models.TextChoices):
    ABILITY = "ability", "as the ability"
    AUGMENT = "augment", "as an augment"


class DrawStatus(models.TextChoices):
    REFUSED = "refused", "Refused: the lobbying failed"
    APPROVED = "approved", "Approved: to be used in a contest"
    SETTLED = "settled", "Settled: depleted"


class ResourceDraw(models.Model):
    """A character draws on a resource (§8.2): the lobbying contest, then, once the
    contest that used the resource is decided, the depletion and any social penalty."""

    community = models.ForeignKey(Community, on_delete=models.CASCADE, related_name="draws")
    # Not a column: the social penalty still in force, set by the page's selector.
    penalty_in_force: int
    # RESTRICT: a resource with draws is never deleted alone, only with its community.
    resource = models.ForeignKey(Resource, on_delete=models.RESTRICT, related_name="draws")
    character = models.ForeignKey(
        "characters.Character",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="resource_draws",
    )
    character_name = models.CharField(max_length=120)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    session = models.ForeignKey(
        "campaigns.Session", on_delete=models.SET_NULL, null=True, related_name="+"
    )
    interval = models.PositiveIntegerField()
    purpose = models.CharField(max_length=300, help_text="What the resource is for (framing).")
    used_as = models.CharField(max_length=8, choices=UsedAs.choices, default=UsedAs.ABILITY)
    required_action = models.CharField(
        max_length=120, blank=True, help_text="A required resource use (§8.2.1), if it is one."
    )
    ability_name = models.CharField(max_length=120)
    ability_rating = models.IntegerField()
    resistance_level = models.CharField(max_length=20)
    resistance_rating = models.IntegerField()
    modifier = models.IntegerField(default=0)
    lobbying = models.JSONField(default=dict, help_text="The lobbying contest's outcome.")
    lobbying_level = models.SmallIntegerField()
    status = models.CharField(max_length=10, choices=DrawStatus.choices)
    outcome_level = models.SmallIntegerField(
        null=True, blank=True, help_text="The contest's outcome, -4..4 for the PC side."
    )
    depletion = models.SmallIntegerField(null=True, blank=True)
    social_penalty = models.SmallIntegerField(default=0)
    contest = models.ForeignKey(
        "contests.Contest",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="resource_draws",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["community", "interval"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(outcome_level__isnull=True)
                | (Q(outcome_level__gte=-4) & Q(outcome_level__lte=4)),
                name="draw_outcome_level_in_range",
            ),
            models.CheckConstraint(
                condition=~Q(status="settled")
                | (Q(outcome_level__isnull=False) & Q(depletion__isnull=False)),
                name="settled_draw_has_outcome",
            ),
            models.CheckConstraint(condition=Q(social_penalty__lte=0), name="social_penalty_le_0"),
        ]

    def __str__(self) -> str:
        return f"{self.character_name} draws on {self.resource.name}"

    @property
    def own_augments_allowed(self) -> int:
        """Own augments the character may use in the contest: two when this draw is a
        required resource use serving as an augment (§8.2.1), else one (R8)."""
        return own_augments_allowed(
            required_resource_augment=bool(self.required_action) and self.used_as == UsedAs.AUGMENT
        )

    @property
    def lobbying_text(self) -> str:
        return describe_level(self.lobbying_level)

    @property
    def outcome_text(self) -> str:
        return "" if self.outcome_level is None else describe_level(self.outcome_level)


class RequiredResourceUse(models.Model):
    """Setting design (§8.2.1): an action that always requires drawing on a resource."""

    community = models.ForeignKey(Community, on_delete=models.CASCADE, related_name="required_uses")
    resource = models.ForeignKey(Resource, on_delete=models.CASCADE, related_name="required_uses")
    action = models.CharField(max_length=120)

    class Meta:
        ordering = ["action", "id"]
        constraints = [
            models.UniqueConstraint(
                Lower("action"),
                "community",
                name="required_use_action_unique",
                violation_error_message="That action already requires a resource.",
            )
        ]

    def __str__(self) -> str:
        return f"{self.action}: {self.resource.name}"


class Question(models.Model):
    """A multiple-choice question of the setup questionnaire (§8.1.3)."""

    community = models.ForeignKey(Community, on_delete=models.CASCADE, related_name="questions")
    position = models.PositiveSmallIntegerField(default=0)
    text = models.CharField(max_length=300)
    # Not columns: the answers as the questionnaire page shows them, set by its selector.
    group_answer: Answer | None
    my_answer: Answer | None
    answer_list: list[Answer]

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.text


class Choice(models.Model):
    """One answer to a question. `scores` (the GM's secret) maps resource ids (as
    text) to the points the answer gives that resource type."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="choices")
    position = models.PositiveSmallIntegerField(default=0)
    text = models.CharField(max_length=200)
    scores = models.JSONField(default=dict, blank=True)
    # Not a column: the scores in words for the GM's page, set by its selector.
    score_text: str

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.text


class Answer(models.Model):
    """A player's answer to a question; with consensus answers, the group's one answer
    (`user` is who recorded it)."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="answers")
    choice = models.ForeignKey(Choice, on_delete=models.CASCADE, related_name="answers")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    answered_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["question", "user"], name="one_answer_per_player")
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.choice}"
