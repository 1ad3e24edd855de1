"""Forms: they read what the player typed; the services and the rules engine judge it."""

from __future__ import annotations

import json

from django import forms
from django.core.exceptions import ValidationError

from campaigns.models import Campaign, Role
from contests.core.rules import Rating
from contests.core.rules.advancement import (
    ADVANCE_OPTIONS,
    DIRECTED_AMOUNTS,
    NEW_ABILITY_RATING,
    AdvanceChoice,
)
from contests.core.rules.errors import RulesError
from contests.core.rules.simple import describe_level
from questworlds_site import inputs, limits
from questworlds_site.uploads import read_json

from .models import (
    Ability,
    AbilityKind,
    Character,
    Condition,
    CreationRole,
    Follower,
    RelationshipKind,
)
from .translate import sidekick_raise_cost

IMPORT_MAX_BYTES = 256 * 1024


def parse_rating(text: str, *, breakout: bool = False) -> int:
    """A rating as typed: `17`, `7M`, `3M2`, `12W` (R1), or a breakout's `+2`."""
    text = (text or "").strip()
    if breakout:
        bonus = inputs.whole(text, minimum=None, signed=True)
        if bonus is None:
            raise ValidationError(f"{text!r} is not a breakout bonus: write +2, or 2 (§3.3).")
        return bonus
    try:
        return Rating.parse(text).total
    except RulesError as exc:
        raise ValidationError(str(exc)) from None


def player_campaigns(user):
    """Campaigns the user plays in: where their characters may go."""
    return Campaign.objects.filter(memberships__user=user, memberships__role=Role.PLAYER)


class CharacterCreateForm(forms.ModelForm):
    campaign = inputs.IdChoiceField(
        queryset=Campaign.objects.none(),
        required=False,
        empty_label="No campaign yet",
        help_text="A campaign you play in. You can join one later.",
    )

    class Meta:
        model = Character
        fields = [
            "name",
            "concept",
            "creation_method",
            "campaign",
            "trait_1",
            "trait_2",
            "trait_3",
            "portrait",
        ]
        widgets = {
            "creation_method": forms.RadioSelect,
            "portrait": forms.Textarea(attrs={"rows": 3}),
        }
        help_texts = {
            "concept": "An adjective and an occupation: 'sardonic ex-mercenary' (§3.1).",
        }

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        inputs.model_choices(self, "campaign").queryset = player_campaigns(user)


class DetailForm(forms.ModelForm):
    """One text of the sheet, edited in place."""

    class Meta:
        model = Character
        fields = ["name", "concept", "trait_1", "trait_2", "trait_3", "portrait", "notes"]
        widgets = {
            "portrait": forms.Textarea(attrs={"rows": 3}),
            "notes": forms.Textarea(attrs={"rows": 4}),
        }

    def __init__(self, *args, field: str, **kwargs):
        super().__init__(*args, **kwargs)
        for name in list(self.fields):
            if name != field:
                del self.fields[name]
        if field == "name":
            self.fields[field].required = True


class CampaignForm(forms.Form):
    campaign = inputs.IdChoiceField(
        queryset=Campaign.objects.none(), required=False, empty_label="No campaign"
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        inputs.model_choices(self, "campaign").queryset = player_campaigns(user)


def _own_abilities(character: Character):
    return character.abilities.filter(follower__isnull=True).exclude(kind=AbilityKind.FLAW)


def _keywords(character: Character):
    return _own_abilities(character).filter(kind=AbilityKind.KEYWORD)


class AbilityForm(forms.Form):
    """A new ability, keyword, breakout, flaw or relationship (§3)."""

    name = forms.CharField(max_length=120)
    kind = forms.ChoiceField(choices=AbilityKind.choices, initial=AbilityKind.STANDALONE)
    rating = forms.CharField(
        max_length=12,
        required=False,
        help_text="17, 7M or 3M2; a breakout's bonus as +2; flaws are rated for you.",
    )
    keyword = inputs.IdChoiceField(
        queryset=Ability.objects.none(),
        required=False,
        empty_label="(none)",
        help_text="For a breakout, a package ability or a flaw that came with a keyword.",
    )
    relationship = forms.ChoiceField(
        choices=[("", "(not a relationship)"), *RelationshipKind.choices], required=False
    )
    creation_role = forms.ChoiceField(
        choices=[("", "(neither)"), *CreationRole.choices], required=False, label="Concept"
    )
    description = forms.CharField(
        required=False,
        max_length=limits.SHORT_DESCRIPTION,
        help_text=limits.hint(limits.SHORT_DESCRIPTION),
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    phrase = forms.CharField(
        max_length=200,
        required=False,
        label="Words in your paragraph",
        help_text="The words you underline in your prose (§3.6).",
    )

    def __init__(self, *args, character: Character, **kwargs):
        super().__init__(*args, **kwargs)
        inputs.model_choices(self, "keyword").queryset = _keywords(character)

    def clean(self):
        super().clean()
        data = self.cleaned_data
        kind = data.get("kind")
        if kind and kind != AbilityKind.FLAW:
            try:
                data["rating"] = parse_rating(
                    data.get("rating", ""), breakout=kind == AbilityKind.BREAKOUT
                )
            except ValidationError as exc:
                self.add_error("rating", exc)
        else:
            data["rating"] = None
        return data


class AbilityEditForm(forms.Form):
    name = forms.CharField(max_length=120)
    description = forms.CharField(
        required=False,
        max_length=limits.SHORT_DESCRIPTION,
        help_text=limits.hint(limits.SHORT_DESCRIPTION),
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    rating = forms.CharField(max_length=12, required=False)

    def __init__(self, *args, ability: Ability, **kwargs):
        self.ability = ability
        super().__init__(*args, **kwargs)

    def clean_rating(self):
        text = self.cleaned_data["rating"]
        if not text.strip():
            return None
        return parse_rating(text, breakout=self.ability.kind == AbilityKind.BREAKOUT)


class ConceptForm(forms.Form):
    defining = inputs.IdChoiceField(
        queryset=Ability.objects.none(),
        required=False,
        empty_label="(not chosen)",
        help_text="Usually your occupation keyword; starts at 17 (§3.2).",
    )
    distinguishing = inputs.IdChoiceField(
        queryset=Ability.objects.none(),
        required=False,
        empty_label="(not chosen)",
        label="Distinguishing characteristic",
        help_text="The adjective of your concept; 17, or +4 as a breakout (§3.2).",
    )
    free_keyword = inputs.IdChoiceField(
        queryset=Ability.objects.none(),
        required=False,
        empty_label="(none)",
        help_text="A culture or religion keyword the series gives for free (§3.1).",
    )

    def __init__(self, *args, character: Character, **kwargs):
        super().__init__(*args, **kwargs)
        inputs.model_choices(self, "defining").queryset = _own_abilities(character)
        inputs.model_choices(self, "distinguishing").queryset = _own_abilities(character)
        inputs.model_choices(self, "free_keyword").queryset = _keywords(character)


class SidekickForm(forms.Form):
    """The sidekick and its three abilities (§6.5.1): 16, 13, 13 plus 15 points."""

    name = forms.CharField(max_length=120)
    description = forms.CharField(
        required=False,
        max_length=limits.SHORT_DESCRIPTION,
        help_text=limits.hint(limits.SHORT_DESCRIPTION),
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    ROWS = 3

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for i in range(1, self.ROWS + 1):
            self.fields[f"ability_{i}"] = forms.CharField(
                max_length=120, required=False, label=f"Ability {i}"
            )
            self.fields[f"rating_{i}"] = forms.CharField(
                max_length=12, required=False, label=f"Rating {i}"
            )
            self.fields[f"keyword_{i}"] = forms.BooleanField(
                required=False, label=f"Ability {i} is a keyword"
            )

    def ability_rows(self) -> list[tuple]:
        """(name, rating, keyword) bound fields of each of the three abilities."""
        return [
            (self[f"ability_{i}"], self[f"rating_{i}"], self[f"keyword_{i}"])
            for i in range(1, self.ROWS + 1)
        ]

    def clean(self):
        super().clean()
        data = self.cleaned_data
        rows = []
        for i in range(1, self.ROWS + 1):
            name = (data.get(f"ability_{i}") or "").strip()
            text = data.get(f"rating_{i}") or ""
            if not name and not text.strip():
                continue
            if not name:
                self.add_error(f"ability_{i}", "Name this ability, or clear its rating.")
                continue
            try:
                rating = parse_rating(text)
            except ValidationError as exc:
                self.add_error(f"rating_{i}", exc)
                continue
            kind = AbilityKind.KEYWORD if data.get(f"keyword_{i}") else AbilityKind.STANDALONE
            rows.append((name, rating, kind))
        data["abilities"] = rows
        return data


class NewSidekickForm(SidekickForm):
    """A sidekick in play when you have none (§6.5.2): a new follower, or the retainer
    `promoting` raised to sidekick, with §6.5.1's abilities and how they came to you."""

    origin = forms.CharField(
        label="How they came to be your follower",
        max_length=limits.SHORT_DESCRIPTION,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="You must explain how the new sidekick has come to be your follower "
        f"(§6.5.2). {limits.hint(limits.SHORT_DESCRIPTION)}",
    )
    retainer = inputs.WholeNumberField(required=False, widget=forms.HiddenInput)

    promoting: Follower | None = None  # the retainer being promoted, set by the view


class SidekickLoseForm(forms.Form):
    reason = forms.CharField(
        max_length=300,
        label="How was the sidekick lost?",
        help_text="Killed, or gone from your service for good, and how (§6.5.2).",
    )


class RetainerForm(forms.Form):
    name = forms.CharField(max_length=120)
    description = forms.CharField(
        required=False,
        max_length=limits.SHORT_DESCRIPTION,
        help_text=limits.hint(limits.SHORT_DESCRIPTION),
        widget=forms.Textarea(attrs={"rows": 2}),
    )


class ProseForm(forms.Form):
    prose = forms.CharField(
        max_length=limits.PROSE,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text="About 100 words, complete sentences, no lists (§3.6). "
        + limits.hint(limits.PROSE),
    )


OPTION_CHOICES = [("", "(choose)"), *ADVANCE_OPTIONS.items()]


class AdvanceForm(forms.Form):
    """An advance: two different options of the §7.1 list."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for i in (1, 2):
            self.fields[f"option_{i}"] = forms.ChoiceField(
                choices=OPTION_CHOICES, label=f"Option {i}"
            )
            self.fields[f"ability_{i}"] = forms.CharField(
                max_length=120,
                label=f"Ability {i}",
                help_text="The ability to raise, or the new ability's name.",
            )
            self.fields[f"keyword_{i}"] = forms.CharField(
                max_length=120,
                required=False,
                label=f"Keyword {i}",
                help_text="For a new breakout: the keyword it sits under.",
            )
            self.fields[f"breakout_{i}"] = forms.CharField(
                max_length=120,
                required=False,
                label=f"New breakout {i}",
                help_text="For a new keyword: its first +1 breakout.",
            )

    def clean(self):
        super().clean()
        data = self.cleaned_data
        choices = []
        for i in (1, 2):
            if f"option_{i}" not in data or f"ability_{i}" not in data:
                return data
            try:
                choices.append(
                    AdvanceChoice(
                        data[f"option_{i}"],
                        data[f"ability_{i}"].strip(),
                        keyword=data.get(f"keyword_{i}", "").strip() or None,
                        breakout=data.get(f"breakout_{i}", "").strip() or None,
                    )
                )
            except RulesError as exc:
                self.add_error(f"option_{i}", str(exc))
        data["choices"] = choices
        return data


class CatchUpForm(forms.Form):
    targets = inputs.IdMultipleChoiceField(
        queryset=Ability.objects.none(), required=False, widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args, character: Character, **kwargs):
        super().__init__(*args, **kwargs)
        inputs.model_choices(self, "targets").queryset = _own_abilities(character)


class OwnAbilityForm(forms.Form):
    ability = inputs.IdChoiceField(queryset=Ability.objects.none())

    def __init__(self, *args, character: Character, **kwargs):
        super().__init__(*args, **kwargs)
        inputs.model_choices(self, "ability").queryset = _own_abilities(character)


class SidekickAbilityForm(forms.Form):
    """An ability of the character's sidekick in service (§6.5.1)."""

    ability = inputs.IdChoiceField(queryset=Ability.objects.none(), label="Sidekick's ability")

    def __init__(self, *args, character: Character, **kwargs):
        super().__init__(*args, **kwargs)
        inputs.model_choices(self, "ability").queryset = character.abilities.filter(
            follower__kind=Follower.Kind.SIDEKICK, follower__lost_at__isnull=True
        ).select_related("follower")
        inputs.id_choices(self, "ability").label_of = lambda a: (
            f"{a.follower.name}: {a.name} ({sidekick_raise_cost(character, a)} HP)"
        )


class ClassicNewAbilityForm(forms.Form):
    name = forms.CharField(max_length=120)
    keyword = inputs.IdChoiceField(
        queryset=Ability.objects.none(),
        required=False,
        empty_label="(a standalone ability at 13)",
        help_text="Or a breakout at +1 under this keyword.",
    )

    def __init__(self, *args, character: Character, **kwargs):
        super().__init__(*args, **kwargs)
        inputs.model_choices(self, "keyword").queryset = _keywords(character)


class SpendForm(forms.Form):
    reason = forms.CharField(max_length=200, required=False, initial="a bump in a contest")


class AwardForm(forms.Form):
    count = inputs.WholeNumberField(min_value=1, initial=1, label="Hero points")
    reason = forms.CharField(max_length=200, help_text="The significant action (§7.1).")


class DirectedForm(forms.Form):
    ability = inputs.IdChoiceField(queryset=Ability.objects.none())
    amount = forms.TypedChoiceField(coerce=inputs.coerce_whole, choices=())
    reason = forms.CharField(max_length=200, required=False)

    def __init__(self, *args, character: Character, **kwargs):
        super().__init__(*args, **kwargs)
        inputs.model_choices(self, "ability").queryset = _own_abilities(character)
        amounts = DIRECTED_AMOUNTS[character.rules_options.hero_point_economy]
        inputs.choice_field(self, "amount").choices = [(a, f"+{a}") for a in amounts]


class DirectedNewAbilityForm(forms.Form):
    name = forms.CharField(max_length=120)
    rating = forms.CharField(max_length=12, initial=str(NEW_ABILITY_RATING))
    reason = forms.CharField(max_length=200, required=False)

    def clean_rating(self):
        return parse_rating(self.cleaned_data["rating"])


class ConditionForm(forms.Form):
    state = forms.ChoiceField(choices=Condition.State.choices)
    abilities = inputs.IdMultipleChoiceField(
        queryset=Ability.objects.none(), widget=forms.CheckboxSelectMultiple
    )
    cause = forms.CharField(max_length=200, required=False)

    def __init__(self, *args, character: Character, **kwargs):
        super().__init__(*args, **kwargs)
        # A lost sidekick's abilities (§6.5.2) are history, no longer in play.
        inputs.model_choices(self, "abilities").queryset = character.abilities.exclude(
            kind=AbilityKind.FLAW
        ).exclude(follower__lost_at__isnull=False)


HEALING_OUTCOMES = [(level, describe_level(level).capitalize()) for level in range(4, -5, -1)]


class HealForm(forms.Form):
    outcome = forms.TypedChoiceField(
        coerce=inputs.coerce_whole,
        choices=HEALING_OUTCOMES,
        help_text="The healing contest's outcome.",
    )
    reason = forms.CharField(max_length=150, required=False)


class WherewithalForm(forms.Form):
    outcome = forms.TypedChoiceField(
        coerce=inputs.coerce_whole,
        choices=HEALING_OUTCOMES,
        help_text="The outcome of the contest of wherewithal against a moderate resistance.",
    )
    waive_bump = forms.BooleanField(
        required=False,
        label="Waive the bump down (a major or complete victory only)",
    )
    reason = forms.CharField(max_length=150, required=False)


class ClearForm(forms.Form):
    reason = forms.CharField(max_length=200)


class WaneForm(forms.Form):
    at = forms.ChoiceField(
        choices=[("session_end", "End of a session"), ("storyline_end", "End of a storyline")]
    )
    reason = forms.CharField(max_length=150, required=False)


class ImportForm(forms.Form):
    file = forms.FileField(help_text="A character exported from this site (JSON).")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > IMPORT_MAX_BYTES:
            raise ValidationError(
                f"The file is {upload.size // 1024} KB; a character export is under "
                f"{IMPORT_MAX_BYTES // 1024} KB."
            )
        try:
            text = upload.read().decode("utf-8")
        except UnicodeDecodeError:
            raise ValidationError("The file is not text (UTF-8 JSON).") from None
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValidationError(
                f"The file is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}."
            ) from None
        except RecursionError:
            pass  # read_json says so in words
        # No NUL, no lone surrogate, no absurd nesting: what the database could not store.
        return read_json(text)
