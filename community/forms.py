"""Forms of the community pages. They read and tidy input; services judge it."""

from __future__ import annotations

from collections.abc import Sequence

from django import forms

from characters.models import Ability
from contests.core.rules.community import STARTING_RATINGS, describe_level
from contests.core.rules.ratings import RESISTANCE_LEVELS
from contests.core.rules.states import ADVERSITY
from contests.models import Contest
from questworlds_site import inputs

from .models import Community, RequiredResourceUse, Resource, UsedAs

DEFAULT_RESOURCES = ("Wealth", "Diplomacy", "Morale", "Military", "Magic")  # §8.1.1
OUTCOMES = [(level, describe_level(level).capitalize()) for level in range(4, -5, -1)]
VICTORIES = [(level, text) for level, text in OUTCOMES if level > 0]
DEFEATS = [(level, text) for level, text in OUTCOMES if level < 0]
RESISTANCE_CHOICES = [(level, level.replace("_", " ").capitalize()) for level in RESISTANCE_LEVELS]
QUESTION_CHOICES = 4
ADVERSITY_NAMES = ", ".join(state.value for state in ADVERSITY)


class CommunityForm(forms.ModelForm):
    class Meta:
        model = Community
        fields = ["name", "description", "interval_name", "answer_mode", "social_penalties_linger"]
        labels = {"interval_name": "Interval"}


class FoundForm(forms.Form):
    """Five resources, highest first, for the §8.1.3 spread."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for index, (name, rating) in enumerate(
            zip(DEFAULT_RESOURCES, STARTING_RATINGS, strict=True), start=1
        ):
            self.fields[f"name_{index}"] = forms.CharField(
                label=f"Rated {rating}", max_length=60, initial=name
            )

    def ranked_names(self) -> list[str]:
        return [self.cleaned_data[f"name_{i}"] for i in range(1, len(STARTING_RATINGS) + 1)]


class ResourceForm(forms.Form):
    name = forms.CharField(max_length=60)
    rating = forms.CharField(max_length=8, help_text="14, 18, 12W, 9W…", required=False)


class _ResourcesForm(forms.Form):
    """A form that names one of the community's resources (choices from rows already
    loaded: no query)."""

    def __init__(self, *args, resources: Sequence[Resource], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.resources = {str(r.pk): r for r in resources}
        self.fields["resource"] = forms.ChoiceField(
            choices=[(str(r.pk), r.name) for r in resources]
        )
        self.order_fields(["resource"])

    def clean_resource(self) -> Resource:
        return self.resources[self.cleaned_data["resource"]]


class _ContestForm(forms.Form):
    """An optional contest of the campaign, by its number (#12): what the GM sees."""

    contest = inputs.WholeNumberField(
        label="Contest #", min_value=1, required=False, help_text="Optional: the contest's number."
    )

    def __init__(self, *args, campaign_id: int, **kwargs) -> None:
        self.campaign_id = campaign_id
        super().__init__(*args, **kwargs)
        self.order_fields([name for name in self.fields if name != "contest"] + ["contest"])

    def clean_contest(self) -> int | None:
        number = self.cleaned_data.get("contest")
        if number is None:
            return None
        contest_id = (
            Contest.objects.filter(campaign_id=self.campaign_id, number=number)
            .values_list("pk", flat=True)
            .first()
        )
        if contest_id is None:
            raise forms.ValidationError(f"There is no contest #{number} in this campaign.")
        return contest_id


class SpreadForm(forms.Form):
    """Rank the five resources, highest first (§8.1.3)."""

    def __init__(self, *args, resources: Sequence[Resource], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.resources = {str(r.pk): r for r in resources}
        choices = [(str(r.pk), r.name) for r in resources]
        for index, rating in enumerate(STARTING_RATINGS[: len(resources)], start=1):
            initial = choices[index - 1][0] if index <= len(choices) else None
            self.fields[f"rank_{index}"] = forms.ChoiceField(
                label=f"Rated {rating}", choices=choices, initial=initial
            )

    def ranked(self) -> list[Resource]:
        return [self.resources[self.cleaned_data[name]] for name in self.fields]


class RequiredUseForm(_ResourcesForm):
    action = forms.CharField(max_length=120, help_text="e.g. Hiring mercenaries")


class QuestionForm(forms.Form):
    """A question, up to four answers, and the secret points each gives each resource."""

    text = forms.CharField(label="Question", max_length=300)

    def __init__(self, *args, resources: Sequence[Resource], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.resources = list(resources)
        for index in range(1, QUESTION_CHOICES + 1):
            self.fields[f"choice_{index}"] = forms.CharField(
                label=f"Answer {index}", max_length=200, required=index <= 2
            )
            for resource in self.resources:
                self.fields[f"score_{index}_{resource.pk}"] = inputs.WholeNumberField(
                    label=f"{resource.name} points",
                    min_value=-9,
                    max_value=9,
                    initial=0,
                    required=False,
                )

    def answer_rows(self):
        """(choice field, [score fields]) for the template."""
        for index in range(1, QUESTION_CHOICES + 1):
            yield (
                self[f"choice_{index}"],
                [self[f"score_{index}_{r.pk}"] for r in self.resources],
            )

    def choices(self) -> list[tuple[str, dict[int, int]]]:
        data = self.cleaned_data
        return [
            (
                data[f"choice_{index}"],
                {r.pk: data.get(f"score_{index}_{r.pk}") or 0 for r in self.resources},
            )
            for index in range(1, QUESTION_CHOICES + 1)
            if data.get(f"choice_{index}")
        ]


class PlotEventForm(_ContestForm, _ResourcesForm):
    change = inputs.WholeNumberField(min_value=-20, max_value=20, help_text="e.g. +3 or -2")
    reason = forms.CharField(max_length=200)


class ReasonForm(_ContestForm):
    reason = forms.CharField(max_length=200, required=False)


class CrisisNoteForm(forms.Form):
    text = forms.CharField(
        label="What the community suffers", max_length=500, widget=forms.Textarea(attrs={"rows": 2})
    )


class IntervalEndForm(forms.Form):
    interval = inputs.WholeNumberField(min_value=1, widget=forms.HiddenInput)


class DrawStartForm(_ResourcesForm):
    """The GM starts a draw by hand: who lobbies, with which ability, for what."""

    ability = forms.ChoiceField(label="Who lobbies, with which ability")
    purpose = forms.CharField(label="What the resource is for", max_length=300)
    resistance_level = forms.ChoiceField(
        label="Lobbying resistance", choices=RESISTANCE_CHOICES, initial="moderate"
    )
    modifier = inputs.WholeNumberField(
        label="Augments and modifiers", min_value=-60, max_value=60, initial=0, required=False
    )
    used_as = forms.ChoiceField(label="The resource is used", choices=UsedAs.choices)
    required_action = forms.ChoiceField(label="Required use (§8.2.1)", required=False)

    def __init__(
        self,
        *args,
        resources: Sequence[Resource],
        abilities: Sequence[Ability],
        required_uses: Sequence[RequiredResourceUse],
        **kwargs,
    ) -> None:
        super().__init__(*args, resources=resources, **kwargs)
        self.abilities = {str(a.pk): a for a in abilities}
        inputs.choice_field(self, "ability").choices = [
            (str(a.pk), f"{a.character.name}: {a.name} ({a.get_kind_display().lower()})")
            for a in abilities
        ]
        inputs.choice_field(self, "required_action").choices = [("", "— not a required use —")] + [
            (use.action, f"{use.action} ({use.resource.name})") for use in required_uses
        ]

    def clean_ability(self) -> Ability:
        return self.abilities[self.cleaned_data["ability"]]


class SettleForm(_ContestForm):
    outcome_level = forms.TypedChoiceField(
        label="The contest's outcome", choices=OUTCOMES, coerce=inputs.coerce_whole
    )


class PenaltyForm(_ContestForm, _ResourcesForm):
    outcome_level = forms.TypedChoiceField(
        label="Simple contest: the defeat",
        choices=[("", "—"), *DEFEATS],
        coerce=inputs.coerce_whole,
        empty_value=None,
        required=False,
    )
    states = forms.CharField(
        label="Long contest: the defeated members' states",
        max_length=200,
        required=False,
        help_text=f"One per member, separated by commas ({ADVERSITY_NAMES}).",
    )
    reason = forms.CharField(max_length=200, required=False)

    def clean_states(self) -> list[str]:
        text = self.cleaned_data["states"]
        return [part.strip().lower() for part in text.split(",") if part.strip()]


class BolsterForm(_ContestForm, _ResourcesForm):
    outcome_level = forms.TypedChoiceField(
        label="The victory", choices=VICTORIES, coerce=inputs.coerce_whole
    )
    reason = forms.CharField(max_length=200, required=False)


class ConcedeForm(_ContestForm, _ResourcesForm):
    reason = forms.CharField(max_length=200, required=False)


class TableLobbyForm(DrawStartForm):
    """Lobbying at the live table (§8.2): the GM's form is the draws page's; a player
    lobbies with their own characters' abilities only, and the resistance and any
    modifiers stay the GM's to set (moderate and none, unless the GM lobbies for them)."""

    def __init__(self, *args, gm: bool, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        inputs.choice_field(self, "resource").choices = [
            (key, f"{resource.name} ({resource.effective_text})")
            for key, resource in self.resources.items()
        ]
        if not gm:
            del self.fields["resistance_level"]
            del self.fields["modifier"]
