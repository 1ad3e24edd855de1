"""The campaign in from an export, section by section as `schema.py` declares: parents
first, each key turned into the new row's id, and nothing created if the file is bad."""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import models, transaction

from characters.models import Character, Condition, LedgerEntry, LedgerStep
from characters.services import character_import
from community.models import (
    Answer,
    Choice,
    Community,
    CommunityStep,
    IntervalRecord,
    Question,
    RequiredResourceUse,
    Resource,
    ResourceChange,
    ResourceDraw,
)
from contests.events import EventContractError, checked_payload
from contests.models import ChatMessage, Contest, ContestEvent, ContestParticipant

from ..models import Campaign, Membership, Npc, Season, Session
from . import schema as s
from .export import ability_key
from .rows import Importer, Refs, Row, ref_in, row_in
from .schema import Kind, Section, Table

M = TypeVar("M", bound=models.Model)


def _require(data: Any, key: str, kind: type, where: str) -> Any:
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, kind):
        raise ValidationError(f"{where}: {key} is missing or not a {kind.__name__}.")
    return value


def _saved(obj: M, row: Row, **clean: Any) -> M:
    """`obj` checked, saved, its many-to-many rows set and its stamps put back."""
    obj.full_clean(**clean)
    obj.save()
    row.saved(obj)
    return obj


def _fits(obj: M, where: str) -> M:
    """A row inserted in bulk, without `full_clean`: its text checked against its
    columns' lengths, which PostgreSQL would refuse with an error, not a message."""
    for f in type(obj)._meta.concrete_fields:
        value = getattr(obj, f.attname)
        if f.max_length and isinstance(value, str) and len(value) > f.max_length:
            raise ValidationError(
                f"{where}: the {f.verbose_name} is {len(value):,} characters long; "
                f"it takes at most {f.max_length:,}."
            )
    return obj


def _stamp_all(section: Section, objs: list, rows: list[Row], batch_size: int) -> None:
    """After a bulk insert, which stamps "now": put back the file's stamps."""
    stamped = []
    for obj, row in zip(objs, rows, strict=True):
        if row.stamps:
            row.stamp(obj)
            stamped.append(obj)
    fields = [f.column for f in section.fields if f.kind is Kind.STAMP]
    if stamped and fields:
        type(stamped[0]).objects.bulk_update(stamped, fields, batch_size=batch_size)


@transaction.atomic
def campaign_import(*, data: Any) -> Campaign:
    """Recreate a campaign from `campaign_export` data; a bad file creates nothing.

    People are matched by username; anyone missing gets an inactive account (no
    password) that an administrator can activate.
    """
    if not isinstance(data, dict) or data.get("format") != s.EXPORT_FORMAT:
        raise ValidationError(f"This is not a campaign export (format {s.EXPORT_FORMAT!r}).")
    if data.get("version") != s.EXPORT_VERSION:
        raise ValidationError(
            f"This export is version {data.get('version')!r}; "
            f"this site reads version {s.EXPORT_VERSION}."
        )
    refs = Refs()  # filled with export keys -> new ids
    users = _import_users(_require(data, "users", list, "the file"))
    refs[Table.USERS].update((name, user.pk) for name, user in users.items())
    into = Importer(refs, users)
    info = _require(data, "campaign", dict, "the file")
    _require(info, "name", str, "campaign")
    row = row_in(s.CAMPAIGN, info, into, "campaign")
    campaign = _saved(row.new(Campaign), row)
    for item in _require(data, "members", list, "the file"):
        row = row_in(s.MEMBER, item, into, "member")
        _saved(row.new(Membership, campaign=campaign), row)

    characters_data = _require(data, "characters", list, "the file")
    pending: list[tuple[Condition, dict]] = []  # conditions whose contests come later
    for item in characters_data:
        _import_character(campaign, item, into, pending)
    for n, item in enumerate(characters_data, 1):
        character = Character.objects.get(pk=refs[Table.CHARACTERS][item["key"]])
        _import_ledger(character, item.get("ledger", []), into, n)

    for item in _require(data, "seasons", list, "the file"):
        row = row_in(s.SEASON, item, into, "season")
        season = _saved(row.new(Season, campaign=campaign), row)
        refs[Table.SEASONS][season.number] = season.pk
    for item in _require(data, "sessions", list, "the file"):
        row = row_in(s.SESSION, item, into, f"session {item.get('number')}")
        new = row.new(Session, campaign=campaign)
        if "recap_published_at" not in item and new.recap and new.ended_at:
            # A file from before drafts: its recaps were everyone's, and stay so.
            new.recap_published_at = new.ended_at
        session = _saved(new, row)
        refs[Table.SESSIONS][session.number] = session.pk
    for item in _require(data, "npcs", list, "the file"):
        row = row_in(s.NPC, item, into, "npc")
        npc = _saved(row.new(Npc, campaign=campaign), row)
        refs[Table.NPCS][npc.name] = npc.pk
    _import_contests(campaign, data.get("contests", []), into)
    _import_chat(campaign, data.get("chat", []), into)
    contest = s.CONDITION.field("contest")
    for condition, entry in pending:
        condition.contest_id = ref_in(contest, entry, into, "a condition")
        condition.save(update_fields=["contest_id"])
    if data.get("community"):
        _import_community(campaign, _require(data, "community", dict, "the file"), into)
    return Campaign.objects.get(pk=campaign.pk)


def missing_usernames(data: Any) -> list[str]:
    """The file's usernames with no account here yet: the ones `campaign_import` would
    create inactive. Anything malformed is left for the import to report."""
    items = data.get("users") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return []
    given = {i.get("username") for i in items if isinstance(i, dict)}
    names = {name for name in given if isinstance(name, str) and name}
    found = set(
        get_user_model().objects.filter(username__in=names).values_list("username", flat=True)
    )
    return sorted(names - found)


def _import_users(items: list) -> dict[str, Any]:
    User = get_user_model()
    names = [i.get("username") for i in items if isinstance(i, dict)]
    found = {u.username: u for u in User.objects.filter(username__in=names)}
    for item in items:
        name = item.get("username") if isinstance(item, dict) else None
        if not isinstance(name, str) or not name:
            raise ValidationError(f"A user in the file has no username: {item!r}.")
        if name not in found:
            new = User(username=name, display_name=item.get("display_name", ""), is_active=False)
            new.set_unusable_password()
            new.full_clean()
            new.save()
            found[name] = new
    return found


def _import_character(campaign, item: dict, into: Importer, pending: list) -> Character:
    key = item["key"]
    where = f"character {key}"
    refs = into.refs
    player = into.user(item.get("player"), where)
    character = character_import(player=player, data=item.get("sheet"))
    # The campaign's file restores the character's whole history below; the sheet
    # import's own "imported" step would be a second, false beginning.
    character.ledger.all().delete()
    followers = {f.pk: f.name for f in character.followers.all()}
    for pk, name in followers.items():
        refs[Table.FOLLOWERS][f"{key}:{name}"] = pk
    for ability in character.abilities.all():
        refs[Table.ABILITIES][f"{key}:{ability_key(ability, followers)}"] = ability.pk
    row = row_in(s.CHARACTER, item, into, where)
    row.apply(character)
    character.campaign = campaign
    _saved(character, row)
    refs[Table.CHARACTERS][key] = character.pk
    for n, entry in enumerate(item.get("conditions", []), 1):
        row = row_in(s.CONDITION, entry, into, where)
        condition = _saved(row.new(Condition, character=character), row)
        refs[Table.CONDITIONS][f"{key}:{n}"] = condition.pk
        pending.append((condition, entry))
    return character


def _import_ledger(character: Character, steps: list, into: Importer, n: int) -> None:
    where = f"character {n}'s ledger"
    for item in steps:
        row = row_in(s.LEDGER_STEP, item, into, where)
        step = _saved(row.new(LedgerStep, character=character), row)
        LedgerEntry.objects.bulk_create(
            _fits(row_in(s.LEDGER_ENTRY, e, into, where).new(LedgerEntry, step=step), where)
            for e in item.get("entries", [])
        )


def _import_contests(campaign, items: list, into: Importer) -> None:
    """Contests, participants and events in three bulk inserts (a campaign has
    thousands); the participants first, as the events' payloads name them."""
    refs = into.refs
    contests, rows = [], []
    for item in items:
        row = row_in(s.CONTEST, item, into, f"contest {item.get('number')}")
        contest = row.new(Contest, campaign=campaign)
        # Checked field by field; the numbers' uniqueness is left to the database, as
        # one query per contest would make a large import slow.
        contest.full_clean(validate_unique=False, validate_constraints=False)
        contests.append(contest)
        rows.append(row)
    Contest.objects.bulk_create(contests)
    _stamp_all(s.CONTEST, contests, rows, batch_size=500)
    refs[Table.CONTESTS].update((c.number, c.pk) for c in contests)

    participants, keys = [], []
    for contest, item in zip(contests, items, strict=True):
        where = f"contest {contest.number}"
        for n, p in enumerate(item.get("participants", []), 1):
            row = row_in(s.PARTICIPANT, p, into, where)
            participants.append(_fits(row.new(ContestParticipant, contest=contest), where))
            keys.append(f"{contest.number}:{n}")
    ContestParticipant.objects.bulk_create(participants, batch_size=1000)
    refs[Table.PARTICIPANTS].update(zip(keys, (p.pk for p in participants), strict=True))

    events, rows = [], []
    for contest, item in zip(contests, items, strict=True):
        where = f"contest {contest.number}"
        for e in item.get("events", []):
            row = row_in(s.EVENT, e, into, where)
            event = _fits(row.new(ContestEvent, contest=contest), where)
            try:
                # The file's events follow the same contract as the table's own.
                checked_payload(event.type, event.payload)
            except EventContractError as error:
                raise ValidationError(f"{where}, event {event.seq}: {error}") from None
            events.append(event)
            rows.append(row)
    ContestEvent.objects.bulk_create(events, batch_size=1000)
    _stamp_all(s.EVENT, events, rows, batch_size=1000)


def _import_chat(campaign, items: list, into: Importer) -> None:
    """The table chat, in one bulk insert (a campaign has thousands of lines)."""
    lines, rows = [], []
    for n, item in enumerate(items, 1):
        where = f"chat line {n}"
        row = row_in(s.CHAT, item, into, where)
        line = row.new(ChatMessage, campaign=campaign)
        # Links were resolved above (a lost author or character stays empty); the
        # fields' own checks (a known kind, text neither empty nor too long) are the
        # constraints', without a query a line.
        try:
            line.full_clean(
                exclude=["campaign", "session", "author", "character"],
                validate_unique=False,
                validate_constraints=False,
            )
        except ValidationError as error:
            raise ValidationError(f"{where}: {'; '.join(error.messages)}") from None
        lines.append(line)
        rows.append(row)
    ChatMessage.objects.bulk_create(lines, batch_size=1000)
    _stamp_all(s.CHAT, lines, rows, batch_size=1000)


def _import_community(campaign, item: dict, into: Importer) -> Community:
    """The community and everything under it, parents first: resources, draws (they
    name resources, characters, sessions and contests), steps (they name draws), their
    changes, finished intervals, required uses, then questions, choices and answers."""
    refs = into.refs
    row = row_in(s.COMMUNITY, item, into, "the community")
    community = _saved(row.new(Community, campaign=campaign), row)
    for r in item.get("resources", []):
        row = row_in(s.RESOURCE, r, into, "a resource")
        resource = _saved(row.new(Resource, community=community), row)
        refs[Table.RESOURCES][resource.name] = resource.pk

    draws, rows = [], []
    for d in item.get("draws", []):
        row = row_in(s.DRAW, d, into, f"community draw {d.get('key')}")
        draw = row.new(ResourceDraw, community=community)
        # Links were resolved above (a lost session or actor stays empty).
        draw.full_clean(
            exclude=["community", "resource", "character", "actor", "session", "contest"],
            validate_constraints=False,
        )
        draws.append(draw)
        rows.append(row)
    ResourceDraw.objects.bulk_create(draws)
    _stamp_all(s.DRAW, draws, rows, batch_size=500)
    refs[Table.DRAWS].update((row.key, draw.pk) for draw, row in zip(draws, rows, strict=True))

    steps, rows, changes = [], [], []
    for n, data in enumerate(item.get("steps", []), 1):
        row = row_in(s.STEP, data, into, f"community step {n}")
        step = row.new(CommunityStep, community=community)
        step.full_clean(exclude=["community", "actor", "session", "contest", "draw"])
        steps.append(step)
        rows.append(row)
    CommunityStep.objects.bulk_create(steps, batch_size=500)
    _stamp_all(s.STEP, steps, rows, batch_size=500)
    for n, (step, data) in enumerate(zip(steps, item.get("steps", []), strict=True), 1):
        for c in data.get("changes", []):
            change = row_in(s.CHANGE, c, into, f"community step {n}").new(ResourceChange, step=step)
            change.full_clean(exclude=["step", "resource"])
            changes.append(change)
    ResourceChange.objects.bulk_create(changes, batch_size=1000)

    for data in item.get("intervals", []):
        row = row_in(s.INTERVAL, data, into, f"community interval {data.get('number')}")
        _saved(row.new(IntervalRecord, community=community), row, exclude=["ended_by"])
    for data in item.get("required_uses", []):
        row = row_in(s.REQUIRED_USE, data, into, "a required use")
        _saved(row.new(RequiredResourceUse, community=community), row, exclude=["resource"])
    for n, q in enumerate(item.get("questions", []), 1):
        where = f"community question {n}"
        row = row_in(s.QUESTION, q, into, where)
        question = _saved(row.new(Question, community=community), row)
        refs.tables[Table.CHOICES] = {}
        for key, c in enumerate(q.get("choices", []), 1):
            row = row_in(s.CHOICE, c, into, where)
            refs[Table.CHOICES][key] = _saved(row.new(Choice, question=question), row).pk
        for a in q.get("answers", []):
            row = row_in(s.ANSWER, a, into, where)
            _saved(row.new(Answer, question=question), row)
    return community
