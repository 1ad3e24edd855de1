"""Characters, their abilities, followers, conditions and the ledger of every change.

Ratings are stored as totals (RULINGS R1) and shown in mastery notation through the
rules engine; breakouts store their `+N` bonus over their keyword (§3.3).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from contests.rules import Rating


class CreationMethod(models.TextChoices):
    AS_YOU_GO = "as_you_go", "As you go (§3.1)"
    LIST = "list", "List (§3.5)"
    PROSE = "prose", "Prose (§3.6)"


class Character(models.Model):
    """A player character (§3)."""

    name = models.CharField(max_length=120)
    concept = models.CharField(
        max_length=200, blank=True, help_text="An adjective and an occupation: 'haughty priestess'."
    )
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
    trait_1 = models.CharField("first notable physical trait", max_length=120, blank=True)
    trait_2 = models.CharField("second notable physical trait", max_length=120, blank=True)
    trait_3 = models.CharField("third notable physical trait", max_length=120, blank=True)
    portrait = models.TextField(blank=True, help_text="What people see: a short description.")
    creation_method = models.CharField(
        max_length=10, choices=CreationMethod.choices, default=CreationMethod.AS_YOU_GO
    )
    prose = models.TextField(blank=True, help_text="The ~100-word paragraph of the prose method.")
    # R15: a new character has 3 hero points in either economy.
    hero_points = models.PositiveIntegerField(default=3)
    experience_points = models.PositiveIntegerField(default=0)
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(hero_points__gte=0), name="character_hero_points_not_negative"
            ),
            models.CheckConstraint(
                condition=Q(experience_points__gte=0), name="character_xp_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def traits(self) -> list[str]:
        return [t for t in (self.trait_1, self.trait_2, self.trait_3) if t]


class AbilityKind(models.TextChoices):
    STANDALONE = "standalone", "Ability"
    KEYWORD = "keyword", "Keyword"
    BREAKOUT = "breakout", "Breakout"
    FLAW = "flaw", "Flaw"
    RELATIONSHIP = "relationship", "Relationship"


class RelationshipKind(models.TextChoices):
    ALLY = "ally", "Ally"
    PATRON = "patron", "Patron"
    CONTACT = "contact", "Contact"
    DEPENDENT = "dependent", "Dependent"
    ADVERSARY = "adversary", "Adversary"


class Follower(models.Model):
    """A sidekick (at most one, §6.5.1) or a retainer (§6.5.3) of a character."""

    class Kind(models.TextChoices):
        SIDEKICK = "sidekick", "Sidekick"
        RETAINER = "retainer", "Retainer"

    owner = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="followers")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["kind", "name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner"], condition=Q(kind="sidekick"), name="one_sidekick_per_character"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_kind_display()} of {self.owner})"


class Ability(models.Model):
    """An ability, keyword, breakout, flaw or relationship on a character's sheet.

    A breakout stores its bonus over its keyword in `rating` (`Forensics +2`); its
    effective rating is the keyword's plus the bonus (§3.3). A follower's abilities
    point at the follower too.
    """

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="abilities")
    follower = models.ForeignKey(
        Follower, on_delete=models.CASCADE, null=True, blank=True, related_name="abilities"
    )
    name = models.CharField(max_length=120)
    kind = models.CharField(
        max_length=12, choices=AbilityKind.choices, default=AbilityKind.STANDALONE
    )
    relationship = models.CharField(
        max_length=10, choices=RelationshipKind.choices, blank=True, default=""
    )
    rating = models.IntegerField(help_text="A total (27 is 7M), or a breakout's bonus.")
    keyword = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="breakouts"
    )
    description = models.TextField(blank=True)
    position = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["position", "id"]
        verbose_name_plural = "abilities"
        constraints = [
            models.CheckConstraint(
                condition=(Q(kind="breakout") & Q(keyword__isnull=False))
                | (~Q(kind="breakout") & Q(keyword__isnull=True)),
                name="breakouts_and_only_breakouts_have_a_keyword",
            ),
            models.CheckConstraint(
                condition=Q(kind="relationship") | Q(relationship=""),
                name="only_relationships_have_a_relationship_kind",
            ),
            # The composite key the same-character foreign key below points at.
            models.UniqueConstraint(fields=["id", "character"], name="ability_id_character"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.rating_text}"

    @property
    def rating_text(self) -> str:
        if self.kind == AbilityKind.BREAKOUT:
            return f"{self.rating:+d}"
        return str(Rating(self.rating))


class Condition(models.Model):
    """A state of adversity or fortune (§2.11) on some of a character's abilities."""

    class State(models.TextChoices):
        HURT = "hurt", "Hurt"
        IMPAIRED = "impaired", "Impaired"
        INJURED = "injured", "Injured"
        DYING = "dying", "Dying"
        DEAD = "dead", "Dead"
        FRESH = "fresh", "Fresh"
        PUMPED = "pumped", "Pumped"
        INVIGORATED = "invigorated", "Invigorated"
        HEROIC = "heroic", "Heroic"

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="conditions")
    state = models.CharField(max_length=12, choices=State.choices)
    abilities = models.ManyToManyField(Ability, related_name="conditions", blank=True)
    cause = models.CharField(max_length=200, blank=True, help_text="What caused it.")
    contest_id = models.PositiveIntegerField(
        null=True, blank=True, help_text="The contest that caused it, when there was one."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.get_state_display()} ({self.character})"


class LedgerEntry(models.Model):
    """One change to a rating, hero points or XP: who, when, why (issue 4).

    Entries made by one step (an advance raises two abilities) share `step`, so the
    GM can undo the step as a whole while it is the latest.
    """

    class Reason(models.TextChoices):
        CREATION = "creation", "Creation"
        ADVANCE = "advance", "Advance"
        CATCH_UP = "catch_up", "Catch-up"
        DIRECTED = "directed", "Directed improvement"
        CLASSIC_IMPROVEMENT = "classic", "Hero point improvement"
        HERO_POINT_SPEND = "hp_spend", "Hero point spent"
        HERO_POINT_AWARD = "hp_award", "Hero point award"
        SESSION_START = "session_start", "Session start"
        SESSION_END = "session_end", "Session end"
        EDIT = "edit", "Edited"
        UNDO = "undo", "Undone"

    class Field(models.TextChoices):
        RATING = "rating", "Rating"
        HERO_POINTS = "hero_points", "Hero points"
        XP = "experience_points", "Experience"
        NEW_ABILITY = "new_ability", "New ability"

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="ledger")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    step = models.UUIDField(db_index=True)
    reason = models.CharField(max_length=16, choices=Reason.choices)
    field = models.CharField(max_length=20, choices=Field.choices)
    ability = models.ForeignKey(
        Ability, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    ability_name = models.CharField(max_length=120, blank=True)
    before = models.IntegerField(null=True)
    after = models.IntegerField(null=True)
    note = models.CharField(max_length=300, blank=True)
    undone = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "ledger entries"

    def __str__(self) -> str:
        return f"{self.character}: {self.get_field_display()} {self.before} → {self.after}"
