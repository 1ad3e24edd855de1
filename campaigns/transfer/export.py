"""The campaign out as JSON-ready data, section by section as `schema.py` declares."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Prefetch

from characters.models import Ability, AbilityKind, Character, Condition, LedgerStep
from characters.selectors import character_export
from community.models import Answer, Choice, Community, Question, ResourceChange
from contests.models import ChatMessage, ContestEvent

from ..models import Campaign
from . import schema as s
from .rows import Exporter, Refs, row_out
from .schema import Table


def ability_key(ability: Ability, followers: dict[int, str]) -> str:
    """An ability's name-based key within its character (unique by the sheet's rules)."""
    if ability.follower_id:
        return f"{followers[ability.follower_id]}/{ability.name}"
    if ability.kind == AbilityKind.FLAW:
        return f"flaw:{ability.name}"
    return ability.name


def campaign_export(campaign: Campaign) -> dict[str, Any]:
    """Everything of the campaign, as JSON-ready data (see the package's docstring)."""
    refs = Refs()
    User = get_user_model()
    users: dict[int, Any] = {}

    def username(user_id: int | None) -> str | None:
        if user_id is None:
            return None
        if user_id not in users:
            users[user_id] = User.objects.only("id", "username", "display_name").get(pk=user_id)
        refs[Table.USERS][user_id] = users[user_id].username
        return users[user_id].username

    out = Exporter(refs, username)
    memberships = list(campaign.memberships.select_related("user"))
    for m in memberships:
        users[m.user_id] = m.user
    characters = list(
        Character.objects.filter(campaign=campaign)
        .select_related("player")
        .prefetch_related(
            "abilities",
            "followers",
            Prefetch("conditions", queryset=Condition.objects.prefetch_related("abilities")),
            Prefetch("ledger", queryset=LedgerStep.objects.prefetch_related("entries")),
        )
        .order_by("name", "id")
    )
    for key, character in enumerate(characters, 1):
        users[character.player_id] = character.player
        refs[Table.CHARACTERS][character.pk] = key
        followers = {f.pk: f.name for f in character.followers.all()}
        for pk, name in followers.items():
            refs[Table.FOLLOWERS][pk] = f"{key}:{name}"
        for ability in character.abilities.all():
            refs[Table.ABILITIES][ability.pk] = f"{key}:{ability_key(ability, followers)}"
        for n, condition in enumerate(character.conditions.all(), 1):
            refs[Table.CONDITIONS][condition.pk] = f"{key}:{n}"
    refs[Table.CONTESTS].update(campaign.contests.values_list("pk", "number"))
    refs[Table.SESSIONS].update(campaign.sessions.values_list("pk", "number"))
    refs[Table.SEASONS].update(campaign.seasons.values_list("pk", "number"))
    refs[Table.NPCS].update(campaign.npcs.values_list("pk", "name"))

    data: dict[str, Any] = {
        "format": s.EXPORT_FORMAT,
        "version": s.EXPORT_VERSION,
        "campaign": row_out(s.CAMPAIGN, campaign, out),
        "members": [row_out(s.MEMBER, m, out) for m in memberships],
    }
    data["characters"] = [_character_out(character, out) for character in characters]
    seasons = campaign.seasons.order_by("number")
    data["seasons"] = [row_out(s.SEASON, season, out) for season in seasons]
    sessions = campaign.sessions.prefetch_related(
        Prefetch("attendees", queryset=Character.objects.only("id"))
    )
    data["sessions"] = [row_out(s.SESSION, session, out) for session in sessions.order_by("number")]
    data["npcs"] = [row_out(s.NPC, npc, out) for npc in campaign.npcs.order_by("name", "id")]
    community = Community.objects.filter(campaign=campaign).first()
    data["community"] = _community_out(community, out) if community else None
    contests = list(campaign.contests.prefetch_related("participants", "events").order_by("number"))
    chat = list(ChatMessage.objects.filter(campaign=campaign).order_by("created_at", "id"))
    # Actors of events and authors of chat need usernames: fetch every one of them at once.
    actor_ids = set(
        ContestEvent.objects.filter(contest__campaign=campaign, actor__isnull=False).values_list(
            "actor_id", flat=True
        )
    )
    actor_ids |= {line.author_id for line in chat if line.author_id is not None}
    actor_ids -= set(users)
    users.update({u.pk: u for u in User.objects.filter(pk__in=actor_ids)})
    for user_id in list(users):
        refs[Table.USERS][user_id] = users[user_id].username
    for contest in contests:
        for n, participant in enumerate(contest.participants.all(), 1):
            refs[Table.PARTICIPANTS][participant.pk] = f"{contest.number}:{n}"
    data["contests"] = [
        row_out(
            s.CONTEST,
            contest,
            out,
            participants=[row_out(s.PARTICIPANT, p, out) for p in contest.participants.all()],
            events=[row_out(s.EVENT, e, out) for e in contest.events.all()],
        )
        for contest in contests
    ]
    data["chat"] = [row_out(s.CHAT, line, out) for line in chat]
    data["users"] = sorted(
        ({"username": u.username, "display_name": u.display_name} for u in users.values()),
        key=lambda u: u["username"],
    )
    return data


def _character_out(character: Character, out: Exporter) -> dict[str, Any]:
    out.username(character.player_id)  # known before its ledger's ids are rewritten
    steps = sorted(character.ledger.all(), key=lambda step: (step.created_at, step.pk))
    return row_out(
        s.CHARACTER,
        character,
        out,
        sheet=character_export(character),
        conditions=[row_out(s.CONDITION, c, out) for c in character.conditions.all()],
        ledger=[
            row_out(
                s.LEDGER_STEP,
                step,
                out,
                entries=[row_out(s.LEDGER_ENTRY, e, out) for e in step.entries.all()],
            )
            for step in steps
        ],
    )


def _community_out(community: Community, out: Exporter) -> dict[str, Any]:
    """The community whole: resources (keyed by name, unique in a community), the
    notation history (steps and their changes, finished intervals), draws (keyed by
    their place in the export), required uses and the questionnaire with its answers."""
    refs = out.refs
    resources = list(community.resources.order_by("position", "id"))
    refs[Table.RESOURCES].update((r.pk, r.name) for r in resources)
    draws = list(community.draws.order_by("created_at", "id"))
    refs[Table.DRAWS].update((d.pk, key) for key, d in enumerate(draws, 1))
    steps = community.steps.prefetch_related(
        Prefetch("changes", queryset=ResourceChange.objects.order_by("id"))
    ).order_by("created_at", "id")
    questions = community.questions.prefetch_related(
        Prefetch("choices", queryset=Choice.objects.order_by("position", "id")),
        Prefetch("answers", queryset=Answer.objects.order_by("id")),
    ).order_by("position", "id")

    def question_out(question: Question) -> dict[str, Any]:
        choices = list(question.choices.all())
        refs.tables[Table.CHOICES] = {c.pk: key for key, c in enumerate(choices, 1)}
        return row_out(
            s.QUESTION,
            question,
            out,
            choices=[row_out(s.CHOICE, c, out) for c in choices],
            answers=[row_out(s.ANSWER, a, out) for a in question.answers.all()],
        )

    return row_out(
        s.COMMUNITY,
        community,
        out,
        resources=[row_out(s.RESOURCE, r, out) for r in resources],
        required_uses=[
            row_out(s.REQUIRED_USE, u, out)
            for u in community.required_uses.order_by("action", "id")
        ],
        draws=[row_out(s.DRAW, d, out) for d in draws],
        steps=[
            row_out(
                s.STEP, step, out, changes=[row_out(s.CHANGE, c, out) for c in step.changes.all()]
            )
            for step in steps
        ],
        intervals=[row_out(s.INTERVAL, r, out) for r in community.intervals.order_by("number")],
        questions=[question_out(q) for q in questions],
    )
