"""Forms of the campaign pages. They read input; services decide and validate."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib.auth import get_user_model

from characters.models import Character
from questworlds_site import inputs, limits
from questworlds_site.uploads import read_json

from .models import (
    WEBHOOK_URL_MAX,
    Campaign,
    LongContestType,
    Npc,
    ResistanceProgression,
    Role,
    RollVisibility,
    WebhookKind,
)
from .recap import pickable_chat
from .services import INVITATION_DAYS_DEFAULT, INVITATION_DAYS_MAX


class CampaignForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = ["name", "genre", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 4})}


class CampaignOptionsForm(forms.Form):
    """The campaign options of RULINGS.md, as the GM sets them."""

    base_resistance = inputs.WholeNumberField(
        label="Base resistance", help_text="R2: moderate resistance (default 14)."
    )
    better_roll = forms.ChoiceField(
        label="Better roll",
        choices=[("high", "High roll wins a tie of results"), ("low", "Low roll wins")],
        help_text="R6: who wins when both sides get the same result.",
    )
    quick_augment_rounding = forms.ChoiceField(
        label="Quick augment rounding",
        choices=[("down", "Round down (2.2)"), ("up", "Round up (1e)")],
        help_text="R8: a quick augment is the augmenting rating ÷ 5.",
    )
    hero_point_economy = forms.ChoiceField(
        label="Hero point economy",
        choices=[
            ("advances", "Advances: 1 HP a session, unspent HP become XP (§7)"),
            ("classic", "Classic: 3 HP a session, unspent HP are lost (1e §6)"),
        ],
        help_text="R15.",
    )
    keywords = forms.ChoiceField(
        label="Keywords",
        choices=[("umbrella", "Umbrella (breakouts add to the keyword)"), ("packages", "Packages")],
        help_text="§3.3.",
    )
    long_contest_default = forms.ChoiceField(
        label="Default long contest", choices=LongContestType.choices
    )
    apply_consequences = forms.BooleanField(
        label="Apply consequences and benefits mechanically (§2.11)", required=False
    )
    roll_visibility = forms.ChoiceField(label="Roll visibility", choices=RollVisibility.choices)
    physical_dice = forms.BooleanField(
        label="Players may enter the rolls of their own dice", required=False
    )
    resistance_progression = forms.TypedChoiceField(
        label="Resistance progression between seasons (§2.9)",
        choices=ResistanceProgression.choices,
        coerce=inputs.coerce_whole,
    )

    @classmethod
    def for_campaign(cls, campaign: Campaign, data=None) -> CampaignOptionsForm:
        initial = {
            **campaign.rules_options.to_json(),
            "long_contest_default": campaign.long_contest_default,
            "apply_consequences": campaign.apply_consequences,
            "roll_visibility": campaign.roll_visibility,
            "physical_dice": campaign.physical_dice,
            "resistance_progression": campaign.resistance_progression,
        }
        return cls(data, initial=initial)

    def summary(self) -> list[tuple[str, str]]:
        """The options in words, for members who read them."""
        rows = []
        for name, field in self.fields.items():
            value = self.initial.get(name)
            if isinstance(field, forms.BooleanField):
                text = "Yes" if value else "No"
            elif isinstance(field, forms.ChoiceField):
                # Django keeps a ChoiceField's choices as (value, label) pairs (these
                # options have no groups); django-stubs allows every form they come in.
                pairs = cast("list[tuple[Any, str]]", field.choices)
                text = str(dict(pairs).get(value, value))
            else:
                text = str(value)
            rows.append((str(field.label), text))
        return rows


class InvitationForm(forms.Form):
    role = forms.ChoiceField(
        choices=[(Role.PLAYER, Role.PLAYER.label), (Role.SPECTATOR, Role.SPECTATOR.label)]
    )
    days = inputs.WholeNumberField(
        label="Valid for (days)",
        min_value=1,
        max_value=INVITATION_DAYS_MAX,
        initial=INVITATION_DAYS_DEFAULT,
    )
    max_uses = inputs.WholeNumberField(
        label="Number of people who may use it",
        min_value=1,
        initial=1,
        required=False,
        help_text="Leave empty for any number until it expires.",
    )


class JoinForm(forms.Form):
    """A player joins with one of their free characters, or joins first and creates one
    next in the character wizard, whose first page asks how to build it (§3)."""

    character = inputs.IdChoiceField(
        queryset=Character.objects.none(),
        required=False,
        empty_label="— none yet: create a new character after joining —",
        label="Join with",
    )

    def __init__(self, *args, user, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        inputs.model_choices(self, "character").queryset = Character.objects.filter(
            player=user, campaign__isnull=True
        ).order_by("name", "id")


class HandOverForm(forms.Form):
    new_gm = inputs.IdChoiceField(queryset=None, label="New GM")

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        new_gm = inputs.id_choices(self, "new_gm")
        new_gm.queryset = get_user_model().objects.filter(memberships__campaign=campaign)
        new_gm.label_of = lambda user: user.shown_name


class NpcForm(forms.Form):
    name = forms.CharField(max_length=120)
    rating = forms.CharField(
        max_length=12, help_text="As written on a sheet: 14, 7M, 3M2 (or a total such as 27)."
    )
    description = forms.CharField(
        required=False,
        max_length=limits.DESCRIPTION,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=f"What the players may know. {limits.hint(limits.DESCRIPTION)}",
    )
    notes = forms.CharField(
        required=False,
        max_length=limits.NOTES,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="GM only: never shown to players or on the public link. "
        + limits.hint(limits.NOTES),
    )

    @staticmethod
    def initial_for(npc: Npc) -> dict:
        return {
            "name": npc.name,
            "rating": npc.rating_text,
            "description": npc.description,
            "notes": npc.notes,
        }


class SeasonStartForm(forms.Form):
    name = forms.CharField(required=False, max_length=120)
    progression = forms.TypedChoiceField(
        label="Resistance rises by",
        choices=ResistanceProgression.choices,
        coerce=inputs.coerce_whole,
        help_text="§2.9; the campaign's progression is selected.",
    )


class SessionStartForm(forms.Form):
    title = forms.CharField(required=False, max_length=200)
    attendees = inputs.IdMultipleChoiceField(
        queryset=Character.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Their hero points refresh as the session starts.",
    )

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        characters = campaign.characters.order_by("name", "id")
        inputs.model_choices(self, "attendees").queryset = characters
        self.initial.setdefault("attendees", list(characters))


class SessionEndForm(forms.Form):
    recap = forms.CharField(
        required=False,
        max_length=limits.RECAP,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text=f"Markdown: **bold**, *italics*, lists, links. {limits.hint(limits.RECAP)}",
    )


class _ChatLines(inputs.IdMultipleChoiceField):
    """The session's lines said in character, each labelled as the table shows it."""

    def label_from_instance(self, obj) -> str:
        return obj.as_text()


class SessionEditForm(forms.Form):
    """A session's title and recap, and which of the recap page's buttons was pressed."""

    SAVE, PUBLISH, WITHDRAW, REDRAFT = "save", "publish", "withdraw", "redraft"

    title = forms.CharField(required=False, max_length=200)
    recap = forms.CharField(
        required=False,
        max_length=limits.RECAP,
        widget=forms.Textarea(attrs={"rows": 14}),
        help_text=f"Markdown: **bold**, *italics*, lists, links. {limits.hint(limits.RECAP)}",
    )
    chat = _ChatLines(
        queryset=None,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Lines from the chat for a new draft",
        help_text="What the characters said or did at the table; none unless you pick them.",
        error_messages={
            "invalid_choice": "That line is not one the characters said in this session.",
            "invalid_pk_value": "That is not a line of this session's chat.",
        },
    )
    intent = forms.ChoiceField(
        required=False,
        choices=[(SAVE, "Save"), (PUBLISH, "Publish"), (WITHDRAW, "Withdraw"), (REDRAFT, "Draft")],
        widget=forms.HiddenInput,
        error_messages={"invalid_choice": "That is not one of this page's buttons."},
    )

    def __init__(self, *args, session, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        inputs.model_choices(self, "chat").queryset = pickable_chat(session)


class WebhookForm(forms.Form):
    """The campaign's webhook, as the GM sets it. The URL is a secret: the field is
    never filled in with it (blank keeps the one set); whether this server may send to
    it is for `webhook_set` to say."""

    url = forms.CharField(
        label="Webhook URL",
        required=False,
        max_length=WEBHOOK_URL_MAX,
        strip=True,
        widget=forms.TextInput(
            attrs={
                "autocomplete": "off",
                "spellcheck": "false",
                "placeholder": "https://discord.com/api/webhooks/…",
            }
        ),
        help_text="In Discord: the channel's settings, Integrations, Webhooks, Copy Webhook URL.",
    )
    kinds = forms.MultipleChoiceField(
        label="Relay when",
        choices=WebhookKind.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args, has_webhook: bool, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if has_webhook:
            self.fields["url"].help_text += " Leave it blank to keep the one set."


IMPORT_MAX_BYTES = 10 * 1024 * 1024


class CampaignImportForm(forms.Form):
    """A campaign's JSON export, read into `cleaned_data["export"]`; whether it holds a
    valid campaign is for `campaign_import` to say."""

    export = forms.FileField(
        label="Campaign export (JSON)",
        help_text="The file a GM downloads with Export (JSON), at most 10 MB.",
        widget=forms.FileInput(attrs={"accept": ".json,application/json"}),
    )

    def clean_export(self):
        upload = self.cleaned_data["export"]
        if upload.size > IMPORT_MAX_BYTES:
            raise forms.ValidationError(
                f"The file is {upload.size / 1024 / 1024:.1f} MB; the limit is "
                f"{IMPORT_MAX_BYTES // 1024 // 1024} MB."
            )
        try:
            # utf-8-sig: a byte-order mark, as some editors save one, is not an error.
            text = upload.read().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise forms.ValidationError("The file is not UTF-8 text.") from exc
        # No NUL, no lone surrogate, no absurd nesting: what the database could not store.
        return read_json(text)
