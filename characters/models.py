"""Characters, their abilities, followers, conditions and the ledger of every change.

Ratings are stored as totals (RULINGS R1) and shown in mastery notation through the
rules engine; breakouts store their `+N` bonus over their keyword (§3.3).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from contests.core.rules import Rating
from contests.core.rules.options import RulesOptions
from contests.core.rules.outcomes import HEALING_RESISTANCE_CLASS
from contests.core.rules.states import State as RulesState
from questworlds_site.limits import NOTES, PORTRAIT, PROSE, SHORT_DESCRIPTION, text_limit


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
    portrait = models.TextField(
        blank=True, **text_limit(PORTRAIT, "What people see: a short description.")
    )
    creation_method = models.CharField(
        max_length=10, choices=CreationMethod.choices, default=CreationMethod.AS_YOU_GO
    )
    prose = models.TextField(
        blank=True, **text_limit(PROSE, "The ~100-word paragraph of the prose method.")
    )
    creation_complete = models.BooleanField(
        default=False,
        help_text="False while the sheet is being built; as-you-go sheets stay open in play.",
    )
    # R15: a new character has 3 hero points in either economy.
    hero_points = models.PositiveIntegerField(default=3)
    experience_points = models.PositiveIntegerField(default=0)
    # What the rules engine's advancement Character tracks besides the abilities (§7.1,
    # 1e §6): the running XP tally, the session in progress and pending catch-ups.
    # Abilities are referred to by id, so renaming one never loses an offer.
    experience_earned = models.PositiveIntegerField(default=0)
    in_session = models.BooleanField(default=False)
    awarded_this_session = models.PositiveIntegerField(default=0)
    raised_this_session = models.JSONField(
        default=list, blank=True, help_text="Ids of abilities raised this session (classic)."
    )
    catch_ups = models.JSONField(
        default=list, blank=True, help_text='Catch-ups on offer: [{"ability": id, "rating": n}].'
    )
    notes = models.TextField(blank=True, **text_limit(NOTES))
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

    # The constraints `constraint_violations` checks in memory: every one of them.
    CHECKED_IN_MEMORY = frozenset(
        {"character_hero_points_not_negative", "character_xp_not_negative"}
    )

    def constraint_violations(self) -> list[str]:
        """The messages of the constraints above that this row breaks, worked out in
        memory. Django's `validate_constraints` asks the database for each check in a
        savepoint of its own (three statements each), and a hero point spent at the
        table saves its character once. The database still enforces both."""
        broken = []
        if self.hero_points is not None and self.hero_points < 0:
            broken.append("character_hero_points_not_negative")
        if self.experience_points is not None and self.experience_points < 0:
            broken.append("character_xp_not_negative")
        constraints = {c.name: c for c in self._meta.constraints}
        return [str(constraints[n].get_violation_error_message()) for n in broken]

    @property
    def traits(self) -> list[str]:
        return [t for t in (self.trait_1, self.trait_2, self.trait_3) if t]

    @property
    def rules_options(self) -> RulesOptions:
        """The campaign's rules options; a character outside any campaign uses the defaults."""
        return self.campaign.rules_options if self.campaign is not None else RulesOptions()


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
    """A sidekick (at most one in service, §6.5.1) or a retainer (§6.5.3) of a character.

    A sidekick killed or gone from your service (§6.5.2) stays on record with `lost_at`
    and `lost_reason`; its abilities are no longer yours to use, and a new sidekick may
    take its place.
    """

    class Kind(models.TextChoices):
        SIDEKICK = "sidekick", "Sidekick"
        RETAINER = "retainer", "Retainer"

    owner = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="followers")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True, **text_limit(SHORT_DESCRIPTION))
    origin = models.TextField(
        blank=True,
        **text_limit(SHORT_DESCRIPTION, "How they came to be your follower (§6.5.1, §6.5.2)."),
    )
    lost_at = models.DateTimeField(null=True, blank=True)
    lost_reason = models.CharField(
        max_length=300, blank=True, help_text="How the sidekick was lost: killed, left..."
    )

    class Meta:
        ordering = ["kind", "name", "id"]
        constraints = [
            # A lost sidekick is history, not service: only those still serving count.
            models.UniqueConstraint(
                fields=["owner"],
                condition=Q(kind="sidekick", lost_at__isnull=True),
                name="one_sidekick_per_character",
                violation_error_message="A character has one sidekick at most (§6.5.1).",
            ),
            models.CheckConstraint(
                condition=Q(lost_at__isnull=True) | ~Q(lost_reason=""),
                name="a_lost_follower_has_a_reason",
                violation_error_message="Say how the sidekick was lost (§6.5.2).",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_kind_display()} of {self.owner})"

    @property
    def lost(self) -> bool:
        return self.lost_at is not None


class CreationRole(models.TextChoices):
    """The abilities §3.2 and §3.1 step 3 single out at creation."""

    DEFINING = "defining", "Defining ability"
    DISTINGUISHING = "distinguishing", "Distinguishing characteristic"
    FREE_KEYWORD = "free_keyword", "Free keyword"


class Ability(models.Model):
    """An ability, keyword, breakout, flaw or relationship on a character's sheet.

    A breakout stores its bonus over its keyword in `rating` (`Forensics +2`); its
    effective rating is the keyword's plus the bonus (§3.3, keywords as an umbrella).
    With keywords as packages, an ability of a keyword's package is a standalone
    ability with its own rating and `keyword` naming the package. A flaw that came with
    a keyword names it too. A sidekick's abilities point at the sidekick
    (`follower`) and at its owner (`character`). A flaw's rating is derived (§3.3).
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
    description = models.TextField(blank=True, **text_limit(SHORT_DESCRIPTION))
    creation_role = models.CharField(
        max_length=16, choices=CreationRole.choices, blank=True, default=""
    )
    phrase = models.CharField(
        max_length=200, blank=True, help_text="The words underlined in the prose (§3.6)."
    )
    position = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["position", "id"]
        verbose_name_plural = "abilities"
        constraints = [
            # §3.3: a breakout sits under a keyword; keywords and relationships never do.
            # Standalone abilities may (a keyword's package) and flaws may (from a keyword).
            models.CheckConstraint(
                condition=(Q(kind="breakout") & Q(keyword__isnull=False))
                | Q(kind__in=["standalone", "flaw"])
                | (Q(kind__in=["keyword", "relationship"]) & Q(keyword__isnull=True)),
                name="breakouts_have_a_keyword_keywords_do_not",
                violation_error_message=(
                    "A breakout sits under a keyword; keywords and relationships sit under "
                    "none (§3.3)."
                ),
            ),
            models.CheckConstraint(
                condition=Q(kind="relationship") | Q(relationship=""),
                name="only_relationships_have_a_relationship_kind",
            ),
            # The composite key the same-character foreign key of 0002 points at.
            models.UniqueConstraint(fields=["id", "character"], name="ability_id_character"),
            # The rules engine tells abilities apart by name (§3.1: "two abilities are
            # named ..."); so does the database, for the character's own abilities, its
            # flaws, and each sidekick's abilities.
            models.UniqueConstraint(
                Lower("name"),
                "character",
                condition=Q(follower__isnull=True) & ~Q(kind="flaw"),
                name="ability_names_unique_per_character",
                violation_error_message="This character already has an ability with that name.",
            ),
            models.UniqueConstraint(
                Lower("name"),
                "character",
                condition=Q(kind="flaw"),
                name="flaw_names_unique_per_character",
                violation_error_message="This character already has a flaw with that name.",
            ),
            models.UniqueConstraint(
                Lower("name"),
                "follower",
                condition=Q(follower__isnull=False),
                name="follower_ability_names_unique",
                violation_error_message="This sidekick already has an ability with that name.",
            ),
            models.UniqueConstraint(
                fields=["character", "creation_role"],
                condition=~Q(creation_role=""),
                name="one_ability_per_creation_role",
                violation_error_message="Another ability already has that role in the concept.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.rating_text}"

    # The constraints `constraint_violations` checks in memory: all but the composite key
    # (`ability_id_character`), which a row's own primary key satisfies.
    CHECKED_IN_MEMORY = frozenset(
        {
            "breakouts_have_a_keyword_keywords_do_not",
            "only_relationships_have_a_relationship_kind",
            "ability_names_unique_per_character",
            "flaw_names_unique_per_character",
            "follower_ability_names_unique",
            "one_ability_per_creation_role",
        }
    )

    def constraint_violations(self, rows: Iterable[Ability]) -> list[str]:
        """The messages of the constraints above that this row would break beside `rows`
        (the character's other abilities, its own and its followers', read under the
        character's lock), worked out in memory. Django's `validate_constraints` asks the
        database for each conditional constraint in a savepoint of its own: a dozen
        round trips an ability, which made adding abilities the costliest step of
        building a sheet. The database still enforces every one."""
        others = [r for r in rows if r is not self and (self.pk is None or r.pk != self.pk)]
        name = self.name.lower()  # as the constraints' Lower("name")

        def named_alike(row: Ability) -> bool:
            return row.character_id == self.character_id and row.name.lower() == name

        kind = self.kind
        broken = []
        if not (
            (kind == AbilityKind.BREAKOUT and self.keyword_id is not None)
            or kind in (AbilityKind.STANDALONE, AbilityKind.FLAW)
            or (kind in (AbilityKind.KEYWORD, AbilityKind.RELATIONSHIP) and self.keyword_id is None)
        ):
            broken.append("breakouts_have_a_keyword_keywords_do_not")
        if kind != AbilityKind.RELATIONSHIP and self.relationship != "":
            broken.append("only_relationships_have_a_relationship_kind")
        if (
            self.follower_id is None
            and kind != AbilityKind.FLAW
            and any(
                r.follower_id is None and r.kind != AbilityKind.FLAW and named_alike(r)
                for r in others
            )
        ):
            broken.append("ability_names_unique_per_character")
        if kind == AbilityKind.FLAW and any(
            r.kind == AbilityKind.FLAW and named_alike(r) for r in others
        ):
            broken.append("flaw_names_unique_per_character")
        if self.follower_id is not None and any(
            r.follower_id == self.follower_id and r.name.lower() == name for r in others
        ):
            broken.append("follower_ability_names_unique")
        if self.creation_role and any(
            r.character_id == self.character_id and r.creation_role == self.creation_role
            for r in others
        ):
            broken.append("one_ability_per_creation_role")
        constraints = {c.name: c for c in self._meta.constraints}
        return [str(constraints[n].get_violation_error_message()) for n in broken]

    @property
    def shown_name(self) -> str:
        """The name a pick list shows: a sidekick's ability says whose it is (§6.5.1)."""
        return self.name_shown(self.name, None if self.follower is None else self.follower.name)

    @staticmethod
    def name_shown(name: str, sidekick: str | None) -> str:
        """`shown_name` from the columns alone (a sheet read as rows, contests/live.py)."""
        return name if sidekick is None else f"{name} ({sidekick}, sidekick)"

    @staticmethod
    def usable_as_own() -> Q:
        """A character's own abilities and those of its sidekicks in service: "You may
        use any of your sidekick's abilities as your own" (§6.5.1); a lost sidekick's
        are not (§6.5.2). Filter a query of Ability with it."""
        return Q(follower__isnull=True) | Q(
            follower__kind=Follower.Kind.SIDEKICK, follower__lost_at__isnull=True
        )

    @property
    def rating_text(self) -> str:
        return self.text_of_rating(self.kind, self.rating)

    @staticmethod
    def text_of_rating(kind: str, rating: int) -> str:
        """`rating_text` from the columns alone: a breakout's +N, else 15, 5M, 1M2."""
        if kind == AbilityKind.BREAKOUT:
            return f"{rating:+d}"
        return str(Rating(rating))


class Condition(models.Model):
    """A state of adversity or fortune (§2.11) on some of a character's abilities.

    A condition is active until `ended_at`; healing, waning or the GM's clearing ends it
    with a reason (a healed condition that only improves is replaced by a milder one).
    """

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
    applied_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    end_reason = models.CharField(max_length=200, blank=True)

    class FinalAction(models.TextChoices):
        """A doomed character's contest of wherewithal (§2.11.1.5)."""

        NOT_TRIED = "", "Not tried"
        BUMP = "bump", "A final action, with a bump down"
        CLEAN = "clean", "A final action, the bump down waived"
        REFUSED = "refused", "No final action: the contest of wherewithal was lost"

    # §2.11.1.5 (R18.7): a failed intervention leaves a dying character doomed; only a
    # final action remains, after a contest of wherewithal.
    doomed = models.BooleanField(default=False)
    final_action = models.CharField(
        max_length=8, choices=FinalAction.choices, blank=True, default=FinalAction.NOT_TRIED
    )

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.get_state_display()} ({self.character})"

    @property
    def may_try_wherewithal(self) -> bool:
        return self.doomed and self.ended_at is None and not self.final_action

    @property
    def grants_final_action(self) -> bool:
        return self.doomed and self.final_action in (
            self.FinalAction.BUMP,
            self.FinalAction.CLEAN,
        )

    @property
    def heals(self) -> bool:
        """Healing removes hurt, impaired, injured and dying (§2.11.3), but a doomed
        character's one attempt is spent (§2.11.1.5)."""
        return RulesState(self.state) in HEALING_RESISTANCE_CLASS and not self.doomed


class LedgerReason(models.TextChoices):
    CREATION = "creation", "Creation"
    IMPORT = "import", "Imported"
    ADVANCE = "advance", "Advance"
    CATCH_UP = "catch_up", "Catch-up"
    DIRECTED = "directed", "Directed improvement"
    CLASSIC_IMPROVEMENT = "classic", "Hero point improvement"
    HERO_POINT_SPEND = "hp_spend", "Hero point spent"
    HERO_POINT_AWARD = "hp_award", "Hero point award"
    SESSION_START = "session_start", "Session start"
    SESSION_END = "session_end", "Session end"
    FOLLOWER = "follower", "Follower left"
    SIDEKICK_LOST = "sidekick_lost", "Sidekick lost"
    SIDEKICK_NEW = "sidekick_new", "New sidekick"
    SIDEKICK_PROMOTED = "promotion", "Retainer promoted to sidekick"
    SIDEKICK_IMPROVEMENT = "sidekick_raise", "Sidekick improvement"
    UNDO = "undo", "Undone"


# Steps that change who serves as the sidekick (§6.5.2); their `state_before` keeps the
# follower's fields, so the GM's undo puts the follower back as it was.
SIDEKICK_REASONS = frozenset(
    {LedgerReason.SIDEKICK_LOST, LedgerReason.SIDEKICK_NEW, LedgerReason.SIDEKICK_PROMOTED}
)


# What the GM may undo (while it is the latest change): the steps of play and
# advancement. Creation is edited by its player; an undo is not itself undone.
UNDOABLE_REASONS = frozenset(
    {
        LedgerReason.ADVANCE,
        LedgerReason.CATCH_UP,
        LedgerReason.DIRECTED,
        LedgerReason.CLASSIC_IMPROVEMENT,
        LedgerReason.HERO_POINT_SPEND,
        LedgerReason.HERO_POINT_AWARD,
        LedgerReason.SESSION_START,
        LedgerReason.SESSION_END,
        LedgerReason.SIDEKICK_IMPROVEMENT,
        *SIDEKICK_REASONS,
    }
)


class LedgerStep(models.Model):
    """One change to a character as its player or GM made it: who, when, why.

    Its entries say what changed; `state_before` keeps what the step overwrote (the
    ratings, kinds, hero points, XP and session state), so the GM can undo the step as
    a whole while it is the latest.
    """

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="ledger")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    reason = models.CharField(max_length=16, choices=LedgerReason.choices)
    note = models.CharField(max_length=300, blank=True)
    state_before = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    undone_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["character", "-created_at", "-id"], name="ledger_step_latest")
        ]

    def __str__(self) -> str:
        return f"{self.character}: {self.get_reason_display()} ({self.created_at:%Y-%m-%d})"

    @property
    def undoable_kind(self) -> bool:
        return self.reason in UNDOABLE_REASONS


class LedgerEntry(models.Model):
    """One line of a step: a rating, hero points or XP from `before` to `after`.

    A new ability has no `before`; a removed one no `after`. Catch-up lines record an
    offer (`after` = the trigger's rating) and its taking or declining (`before`).
    """

    class Field(models.TextChoices):
        RATING = "rating", "Rating"
        HERO_POINTS = "hero_points", "Hero points"
        XP = "experience_points", "Experience"
        NEW_ABILITY = "new_ability", "Ability"
        KIND = "kind", "Kind"
        CATCH_UP = "catch_up", "Catch-up"

    step = models.ForeignKey(LedgerStep, on_delete=models.CASCADE, related_name="entries")
    field = models.CharField(max_length=20, choices=Field.choices)
    ability = models.ForeignKey(
        Ability, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # A follower's ability is recorded as "<follower>: <ability>", two names of 120.
    ability_name = models.CharField(max_length=250, blank=True)
    before = models.IntegerField(null=True, blank=True)
    after = models.IntegerField(null=True, blank=True)
    note = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "ledger entries"

    def __str__(self) -> str:
        return f"{self.ability_name or self.get_field_display()}: {self.change_text}"

    def _value_text(self, value: int) -> str:
        if self.field in (self.Field.HERO_POINTS, self.Field.XP):
            return str(value)
        if self.ability is not None and self.ability.kind == AbilityKind.BREAKOUT:
            return f"{value:+d}"
        return str(Rating(value))

    @property
    def change_text(self) -> str:
        """E.g. "17 → 3M", "new at 13", "offered at 1M", in mastery notation (R1)."""
        if self.field == self.Field.KIND:
            return "kind changed"
        if self.field == self.Field.CATCH_UP:
            if self.after is not None:
                return f"catch-up offered at {self._value_text(self.after)}"
            return "catch-up closed"
        if self.before is None and self.after is not None:
            return f"new at {self._value_text(self.after)}"
        if self.after is None and self.before is not None:
            return f"removed (was {self._value_text(self.before)})"
        assert self.before is not None and self.after is not None, "an entry records a change"
        return f"{self._value_text(self.before)} → {self._value_text(self.after)}"
