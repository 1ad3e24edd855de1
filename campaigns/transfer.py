"""A whole campaign as JSON (export and re-import) and as a Markdown chronicle.

The JSON names people by username and refers to rows by stable keys, never by
database ids, so it imports into a fresh install and exports again to the same file:
characters by their place in the export (`1`, `2`, ...), abilities by character and
name (`1:Boatcraft`, `1:flaw:Greedy`, `1:Oro/Sharp eyes`), sessions and contests by
number. Ids inside JSON columns (a contest's framing and state, event payloads, ledger
snapshots) are rewritten the same way: keys ending in `character_id`, `player_id`,
`user_id`, `ability_id` and `npc_id` (NPCs by name). The community's resources go by
name and its draws by their place in the export; the resource ids in questionnaire
scores and in finished intervals' rows become names too.

Each character's sheet goes through the characters app's own export and import
(`character_export`, `character_import`); the campaign adds what belongs to the table:
session counters, conditions and the ledger. Invitations and the public link are
secrets and are not exported.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Prefetch
from django.utils.dateparse import parse_datetime

from characters.models import Ability, AbilityKind, Character, Condition, LedgerEntry, LedgerStep
from characters.selectors import character_export
from characters.services import character_import
from community.models import (
    Answer,
    AnswerMode,
    Choice,
    Community,
    CommunityStep,
    IntervalRecord,
    Question,
    RequiredResourceUse,
    Resource,
    ResourceChange,
    ResourceDraw,
    UsedAs,
)
from contests.models import Contest, ContestEvent, ContestParticipant
from contests.rules.ratings import Rating

from .access import ArchiveViewer
from .models import Campaign, Membership, Npc, Season, Session
from .selectors import outcome_text, visible_events

EXPORT_FORMAT = "questworlds-table/campaign"
EXPORT_VERSION = 1


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _parse_when(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    parsed = parse_datetime(value) if isinstance(value, str) else None
    if parsed is None:
        raise ValidationError(f"{where}: {value!r} is not a date and time.")
    return parsed


def ability_key(ability: Ability, followers: dict[int, str]) -> str:
    """An ability's name-based key within its character (unique by the sheet's rules)."""
    if ability.follower_id:
        return f"{followers[ability.follower_id]}/{ability.name}"
    if ability.kind == AbilityKind.FLAW:
        return f"flaw:{ability.name}"
    return ability.name


class _Refs:
    """Ids -> export keys for an export; export keys -> new ids for an import."""

    def __init__(self) -> None:
        # Exporting: id -> key. Importing: key -> new id.
        self.characters: dict[Any, Any] = {}  # key: 1, 2, ...
        self.abilities: dict[Any, Any] = {}  # key: "1:Boatcraft"
        self.users: dict[Any, Any] = {}  # key: the username
        self.npcs: dict[Any, Any] = {}  # key: the name (unique in a campaign)


def _rewrite_ids(value: Any, table: Callable[[str], dict | None]) -> Any:
    """`value` with every id under a known key replaced through `table(key)`."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            mapping = table(key)
            if mapping is not None and not isinstance(item, dict | list):
                out[key] = mapping.get(item) if item is not None else None
            elif mapping is not None and isinstance(item, list):
                out[key] = [mapping.get(i) for i in item]
            else:
                out[key] = _rewrite_ids(item, table)
        return out
    if isinstance(value, list):
        return [_rewrite_ids(item, table) for item in value]
    return value


def _id_tables(refs: _Refs) -> Callable[[str], dict | None]:
    def table(key: str) -> dict | None:
        if key.endswith(("character_id", "character_ids")):
            return refs.characters
        if key.endswith(("player_id", "user_id")):
            return refs.users
        if key.endswith(("ability_id", "ability_ids")):
            return refs.abilities
        if key.endswith(("npc_id", "npc_ids")):
            return refs.npcs
        return None

    return table


# --------------------------------------------------------------------- export


def _snapshot_out(state: Any, refs: _Refs) -> Any:
    """A ledger step's `state_before` with ability ids as keys."""
    if not isinstance(state, dict):
        return state
    out = dict(state)
    if isinstance(state.get("abilities"), dict):
        out["abilities"] = {
            refs.abilities[int(pk)]: row
            for pk, row in state["abilities"].items()
            if int(pk) in refs.abilities
        }
    if isinstance(state.get("character"), dict):
        out["character"] = _counters_out(state["character"], refs)
    return out


def _counters_out(counters: dict, refs: _Refs) -> dict:
    out = dict(counters)
    if "raised_this_session" in counters:
        out["raised_this_session"] = [
            refs.abilities[i] for i in counters["raised_this_session"] if i in refs.abilities
        ]
    if "catch_ups" in counters:
        out["catch_ups"] = [
            {**c, "ability": refs.abilities[c["ability"]]}
            for c in counters["catch_ups"]
            if c.get("ability") in refs.abilities
        ]
    return out


def campaign_export(campaign: Campaign) -> dict[str, Any]:
    """Everything of the campaign, as JSON-ready data (see the module docstring)."""
    refs = _Refs()
    User = get_user_model()
    users: dict[int, Any] = {}

    def username(user_id: int | None) -> str | None:
        if user_id is None:
            return None
        if user_id not in users:
            users[user_id] = User.objects.only("id", "username", "display_name").get(pk=user_id)
        refs.users[user_id] = users[user_id].username
        return users[user_id].username

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
        refs.characters[character.pk] = key
        followers = {f.pk: f.name for f in character.followers.all()}
        for ability in character.abilities.all():
            refs.abilities[ability.pk] = f"{key}:{ability_key(ability, followers)}"
    contest_numbers = dict(campaign.contests.values_list("pk", "number"))
    refs.npcs = dict(campaign.npcs.values_list("pk", "name"))

    data: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "campaign": {
            "name": campaign.name,
            "genre": campaign.genre,
            "description": campaign.description,
            "gm": username(campaign.gm_id),
            "rules": campaign.rules_options.to_json(),
            "long_contest_default": campaign.long_contest_default,
            "apply_consequences": campaign.apply_consequences,
            "roll_visibility": campaign.roll_visibility,
            "physical_dice": campaign.physical_dice,
            "resistance_progression": campaign.resistance_progression,
            "created_at": _when(campaign.created_at),
        },
        "members": [
            {"username": username(m.user_id), "role": m.role, "joined_at": _when(m.joined_at)}
            for m in memberships
        ],
    }
    data["characters"] = [
        _character_out(character, refs, contest_numbers, username) for character in characters
    ]
    data["seasons"] = [
        {
            "number": s.number,
            "name": s.name,
            "base_resistance": s.base_resistance,
            "started_at": _when(s.started_at),
        }
        for s in campaign.seasons.order_by("number")
    ]
    sessions = campaign.sessions.select_related("season").prefetch_related(
        Prefetch("attendees", queryset=Character.objects.only("id"))
    )
    data["sessions"] = [
        {
            "number": s.number,
            "season": s.season.number if s.season else None,
            "title": s.title,
            "started_at": _when(s.started_at),
            "ended_at": _when(s.ended_at),
            "recap": s.recap,
            "attendees": sorted(
                refs.characters[c.pk] for c in s.attendees.all() if c.pk in refs.characters
            ),
        }
        for s in sessions.order_by("number")
    ]
    data["npcs"] = [
        {
            "name": n.name,
            "rating": n.rating,
            "description": n.description,
            "notes": n.notes,
            "created_at": _when(n.created_at),
        }
        for n in campaign.npcs.order_by("name", "id")
    ]
    community = Community.objects.filter(campaign=campaign).first()
    data["community"] = (
        _community_out(
            community,
            refs,
            dict(campaign.sessions.values_list("pk", "number")),
            contest_numbers,
            username,
        )
        if community
        else None
    )
    contests = campaign.contests.select_related("session").prefetch_related(
        "participants", "events"
    )
    table = _id_tables(refs)
    # Actors of events need usernames: fetch every one of them at once.
    actor_ids = set(
        ContestEvent.objects.filter(contest__campaign=campaign, actor__isnull=False).values_list(
            "actor_id", flat=True
        )
    ) - set(users)
    users.update({u.pk: u for u in User.objects.filter(pk__in=actor_ids)})
    for user_id in list(users):
        refs.users[user_id] = users[user_id].username
    data["contests"] = [
        {
            "number": c.number,
            "session": c.session.number,
            "kind": c.kind,
            "status": c.status,
            "prize": c.prize,
            "obstacle": c.obstacle,
            "resistance_name": c.resistance_name,
            "resistance_rating": c.resistance_rating,
            "framing": _rewrite_ids(c.framing, table),
            "state": _rewrite_ids(c.state, table),
            "seq": c.seq,
            "winner": c.winner,
            "degree": c.degree,
            "outcome_level": c.outcome_level,
            "narration": c.narration,
            "gm_notes": c.gm_notes,
            "created_at": _when(c.created_at),
            "finished_at": _when(c.finished_at),
            "participants": [
                {
                    "character": refs.characters.get(p.character_id),
                    "name": p.name,
                    "side": p.side,
                    "ability": p.ability,
                    "rating": p.rating,
                }
                for p in c.participants.all()
            ],
            "events": [
                {
                    "seq": e.seq,
                    "actor": username(e.actor_id),
                    "type": e.type,
                    "payload": _rewrite_ids(e.payload, table),
                    "idempotency_key": e.idempotency_key,
                    "created_at": _when(e.created_at),
                }
                for e in c.events.all()
            ],
        }
        for c in contests.order_by("number")
    ]
    data["users"] = sorted(
        ({"username": u.username, "display_name": u.display_name} for u in users.values()),
        key=lambda u: u["username"],
    )
    return data


def _character_out(
    character: Character, refs: _Refs, contest_numbers: dict[int, int], username
) -> dict[str, Any]:
    key = refs.characters[character.pk]
    table = _id_tables(refs)
    steps = sorted(character.ledger.all(), key=lambda s: (s.created_at, s.pk))
    return {
        "key": key,
        "player": username(character.player_id),
        "sheet": character_export(character),
        "created_at": _when(character.created_at),
        "in_session": character.in_session,
        "awarded_this_session": character.awarded_this_session,
        "raised_this_session": _counters_out(
            {"raised_this_session": character.raised_this_session}, refs
        )["raised_this_session"],
        "conditions": [
            {
                "state": c.state,
                "abilities": sorted(
                    refs.abilities[a.pk] for a in c.abilities.all() if a.pk in refs.abilities
                ),
                "cause": c.cause,
                "contest": contest_numbers.get(c.contest_id),
                "applied_by": username(c.applied_by_id),
                "created_at": _when(c.created_at),
                "ended_at": _when(c.ended_at),
                "ended_by": username(c.ended_by_id),
                "end_reason": c.end_reason,
            }
            for c in character.conditions.all()
        ],
        "ledger": [
            {
                "actor": username(step.actor_id),
                "reason": step.reason,
                "note": step.note,
                "state_before": _rewrite_ids(_snapshot_out(step.state_before, refs), table)
                if step.state_before is not None
                else None,
                "created_at": _when(step.created_at),
                "undone_at": _when(step.undone_at),
                "undone_by": username(step.undone_by_id),
                "entries": [
                    {
                        "field": e.field,
                        "ability": refs.abilities.get(e.ability_id),
                        "ability_name": e.ability_name,
                        "before": e.before,
                        "after": e.after,
                        "note": e.note,
                    }
                    for e in step.entries.all()
                ],
            }
            for step in steps
        ],
    }


def _community_out(
    community: Community,
    refs: _Refs,
    session_numbers: dict[int, int],
    contest_numbers: dict[int, int],
    username,
) -> dict[str, Any]:
    """The community whole: resources (keyed by name, unique in a community), the
    notation history (steps and their changes, finished intervals), draws (keyed by
    their place in the export), required uses and the questionnaire with its answers."""
    table = _id_tables(refs)
    resources = list(community.resources.order_by("position", "id"))
    names = {r.pk: r.name for r in resources}
    by_text = {str(pk): name for pk, name in names.items()}
    draws = list(community.draws.order_by("created_at", "id"))
    draw_keys = {d.pk: key for key, d in enumerate(draws, 1)}
    steps = community.steps.prefetch_related(
        Prefetch("changes", queryset=ResourceChange.objects.order_by("id"))
    ).order_by("created_at", "id")
    questions = community.questions.prefetch_related(
        Prefetch("choices", queryset=Choice.objects.order_by("position", "id")),
        Prefetch("answers", queryset=Answer.objects.order_by("id")),
    ).order_by("position", "id")

    def question_out(question: Question) -> dict[str, Any]:
        choices = list(question.choices.all())
        choice_keys = {c.pk: key for key, c in enumerate(choices, 1)}
        return {
            "position": question.position,
            "text": question.text,
            "choices": [
                {
                    "position": c.position,
                    "text": c.text,
                    # Scores map resource ids (as text) to points: by name here.
                    "scores": {by_text[k]: v for k, v in c.scores.items() if k in by_text},
                }
                for c in choices
            ],
            "answers": [
                {
                    "choice": choice_keys[a.choice_id],
                    "user": username(a.user_id),
                    "answered_at": _when(a.answered_at),
                }
                for a in question.answers.all()
            ],
        }

    return {
        "name": community.name,
        "description": community.description,
        "interval_name": community.interval_name,
        "interval_number": community.interval_number,
        "background_done": community.background_done,
        "crisis_tests_session": session_numbers.get(community.crisis_tests_session_id),
        "answer_mode": community.answer_mode,
        "social_penalties_linger": community.social_penalties_linger,
        "resources": [
            {
                "name": r.name,
                "position": r.position,
                **{column: getattr(r, column) for column in Resource.COLUMNS},
                "crisis_note": r.crisis_note,
            }
            for r in resources
        ],
        "required_uses": [
            {"resource": names[u.resource_id], "action": u.action}
            for u in community.required_uses.order_by("action", "id")
        ],
        "draws": [
            {
                "key": draw_keys[d.pk],
                "resource": names[d.resource_id],
                "character": refs.characters.get(d.character_id),
                "character_name": d.character_name,
                "actor": username(d.actor_id),
                "session": session_numbers.get(d.session_id),
                "interval": d.interval,
                "purpose": d.purpose,
                "used_as": d.used_as,
                "required_action": d.required_action,
                "ability_name": d.ability_name,
                "ability_rating": d.ability_rating,
                "resistance_level": d.resistance_level,
                "resistance_rating": d.resistance_rating,
                "modifier": d.modifier,
                "lobbying": _rewrite_ids(d.lobbying, table),
                "lobbying_level": d.lobbying_level,
                "status": d.status,
                "outcome_level": d.outcome_level,
                "depletion": d.depletion,
                "social_penalty": d.social_penalty,
                "contest": contest_numbers.get(d.contest_id),
                "created_at": _when(d.created_at),
                "settled_at": _when(d.settled_at),
            }
            for d in draws
        ],
        "steps": [
            {
                "interval": s.interval,
                "kind": s.kind,
                "summary": s.summary,
                "note": s.note,
                "actor": username(s.actor_id),
                "session": session_numbers.get(s.session_id),
                "contest": contest_numbers.get(s.contest_id),
                "draw": draw_keys.get(s.draw_id),
                "rolls": _rewrite_ids(s.rolls, table),
                "created_at": _when(s.created_at),
                "changes": [
                    {
                        "resource": names[c.resource_id],
                        "column": c.column,
                        "before": c.before,
                        "after": c.after,
                        "reason": c.reason,
                    }
                    for c in s.changes.all()
                ],
            }
            for s in steps
        ],
        "intervals": [
            {
                "number": record.number,
                # Each row names its resource by id: by name here.
                "rows": [
                    {**row, "id": names.get(row["id"])}
                    if isinstance(row, dict) and "id" in row
                    else row
                    for row in record.rows
                ],
                "ended_at": _when(record.ended_at),
                "ended_by": username(record.ended_by_id),
            }
            for record in community.intervals.order_by("number")
        ],
        "questions": [question_out(q) for q in questions],
    }


# --------------------------------------------------------------------- import


def _require(data: Any, key: str, kind: type, where: str) -> Any:
    value = data.get(key) if isinstance(data, dict) else None
    if not isinstance(value, kind):
        raise ValidationError(f"{where}: {key} is missing or not a {kind.__name__}.")
    return value


@transaction.atomic
def campaign_import(*, data: Any) -> Campaign:
    """Recreate a campaign from `campaign_export` data; a bad file creates nothing.

    People are matched by username; anyone missing gets an inactive account (no
    password) that an administrator can activate.
    """
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise ValidationError(f"This is not a campaign export (format {EXPORT_FORMAT!r}).")
    if data.get("version") != EXPORT_VERSION:
        raise ValidationError(
            f"This export is version {data.get('version')!r}; "
            f"this site reads version {EXPORT_VERSION}."
        )
    refs = _Refs()  # filled with export keys -> new ids
    users = _import_users(_require(data, "users", list, "the file"))
    for user in users.values():
        refs.users[user.username] = user.pk
    info = _require(data, "campaign", dict, "the file")

    def user(name: Any, where: str):
        if name is None:
            return None
        if name not in users:
            raise ValidationError(f"{where}: {name!r} is not among the file's users.")
        return users[name]

    campaign = Campaign(
        name=_require(info, "name", str, "campaign"),
        genre=info.get("genre", ""),
        description=info.get("description", ""),
        gm=user(info.get("gm"), "campaign"),
        rules=info.get("rules", {}),
    )
    for name in (
        "long_contest_default",
        "apply_consequences",
        "roll_visibility",
        "physical_dice",
        "resistance_progression",
    ):
        if name in info:
            setattr(campaign, name, info[name])
    campaign.full_clean()
    campaign.save()
    Campaign.objects.filter(pk=campaign.pk).update(
        created_at=_parse_when(info.get("created_at"), "campaign") or campaign.created_at
    )
    for item in _require(data, "members", list, "the file"):
        membership = Membership(
            campaign=campaign, user=user(item.get("username"), "member"), role=item.get("role")
        )
        membership.full_clean()
        membership.save()
        if item.get("joined_at"):
            Membership.objects.filter(pk=membership.pk).update(
                joined_at=_parse_when(item["joined_at"], "member")
            )

    characters_data = _require(data, "characters", list, "the file")
    pending_conditions: list[tuple[Condition, Any]] = []
    for item in characters_data:
        character = _import_character(campaign, item, refs, user, pending_conditions)
        refs.characters[item["key"]] = character.pk
    for n, item in enumerate(characters_data, 1):
        character = Character.objects.get(pk=refs.characters[item["key"]])
        _import_ledger(character, item.get("ledger", []), refs, user, n)

    seasons = {}
    for item in _require(data, "seasons", list, "the file"):
        season = Season(
            campaign=campaign,
            number=item.get("number"),
            name=item.get("name", ""),
            base_resistance=item.get("base_resistance", 14),
        )
        season.full_clean()
        season.save()
        Season.objects.filter(pk=season.pk).update(
            started_at=_parse_when(item.get("started_at"), "season") or season.started_at
        )
        seasons[season.number] = season
    sessions = {}
    for item in _require(data, "sessions", list, "the file"):
        where = f"session {item.get('number')}"
        session = Session(
            campaign=campaign,
            season=seasons.get(item.get("season")),
            number=item.get("number"),
            title=item.get("title", ""),
            started_at=_parse_when(item.get("started_at"), where),
            ended_at=_parse_when(item.get("ended_at"), where),
            recap=item.get("recap", ""),
        )
        session.full_clean()
        session.save()
        session.attendees.set(
            [refs.characters[k] for k in item.get("attendees", []) if k in refs.characters]
        )
        sessions[session.number] = session
    for item in _require(data, "npcs", list, "the file"):
        npc = Npc(
            campaign=campaign,
            name=item.get("name", ""),
            rating=item.get("rating"),
            description=item.get("description", ""),
            notes=item.get("notes", ""),
        )
        npc.full_clean()
        npc.save()
        refs.npcs[npc.name] = npc.pk
        if item.get("created_at"):
            Npc.objects.filter(pk=npc.pk).update(created_at=_parse_when(item["created_at"], "npc"))
    contest_ids = _import_contests(campaign, data.get("contests", []), sessions, refs, user)
    for condition, contest in pending_conditions:
        condition.contest_id = contest_ids.get(contest)
        condition.save(update_fields=["contest_id"])
    if data.get("community"):
        community_data = _require(data, "community", dict, "the file")
        _import_community(campaign, community_data, refs, sessions, contest_ids, user)
    return Campaign.objects.get(pk=campaign.pk)


def missing_usernames(data: Any) -> list[str]:
    """The file's usernames with no account here yet: the ones `campaign_import` would
    create inactive. Anything malformed is left for the import to report."""
    items = data.get("users") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return []
    names = {i.get("username") for i in items if isinstance(i, dict)}
    names = {name for name in names if isinstance(name, str) and name}
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


def _import_character(campaign, item, refs: _Refs, user, pending_conditions) -> Character:
    where = f"character {item.get('key')}"
    character = character_import(player=user(item.get("player"), where), data=item.get("sheet"))
    # The campaign's file restores the character's whole history below; the sheet
    # import's own "imported" step would be a second, false beginning.
    character.ledger.all().delete()
    key = item["key"]
    followers = {f.pk: f.name for f in character.followers.all()}
    for ability in character.abilities.all():
        refs.abilities[f"{key}:{ability_key(ability, followers)}"] = ability.pk
    character.campaign = campaign
    character.in_session = bool(item.get("in_session", False))
    character.awarded_this_session = item.get("awarded_this_session", 0)
    character.raised_this_session = [
        refs.abilities[k] for k in item.get("raised_this_session", []) if k in refs.abilities
    ]
    character.full_clean()
    character.save()
    if item.get("created_at"):
        Character.objects.filter(pk=character.pk).update(
            created_at=_parse_when(item["created_at"], where)
        )
    for entry in item.get("conditions", []):
        condition = Condition(
            character=character,
            state=entry.get("state"),
            cause=entry.get("cause", ""),
            applied_by=user(entry.get("applied_by"), where),
            ended_at=_parse_when(entry.get("ended_at"), where),
            ended_by=user(entry.get("ended_by"), where),
            end_reason=entry.get("end_reason", ""),
        )
        condition.full_clean()
        condition.save()
        condition.abilities.set(
            [refs.abilities[k] for k in entry.get("abilities", []) if k in refs.abilities]
        )
        if entry.get("created_at"):
            Condition.objects.filter(pk=condition.pk).update(
                created_at=_parse_when(entry["created_at"], where)
            )
        pending_conditions.append((condition, entry.get("contest")))
    return character


def _snapshot_in(state: Any, refs: _Refs) -> Any:
    if not isinstance(state, dict):
        return state
    out = dict(state)
    if isinstance(state.get("abilities"), dict):
        out["abilities"] = {
            str(refs.abilities[k]): row
            for k, row in state["abilities"].items()
            if k in refs.abilities
        }
    counters = state.get("character")
    if isinstance(counters, dict):
        counters = dict(counters)
        if "raised_this_session" in counters:
            counters["raised_this_session"] = [
                refs.abilities[k] for k in counters["raised_this_session"] if k in refs.abilities
            ]
        if "catch_ups" in counters:
            counters["catch_ups"] = [
                {**c, "ability": refs.abilities[c["ability"]]}
                for c in counters["catch_ups"]
                if c.get("ability") in refs.abilities
            ]
        out["character"] = counters
    return out


def _import_ledger(character: Character, steps: list, refs: _Refs, user, n: int) -> None:
    where = f"character {n}'s ledger"
    table = _id_tables(refs)
    for item in steps:
        step = LedgerStep(
            character=character,
            actor=user(item.get("actor"), where),
            reason=item.get("reason"),
            note=item.get("note", ""),
            state_before=_snapshot_in(_rewrite_ids(item["state_before"], table), refs)
            if item.get("state_before") is not None
            else None,
            undone_at=_parse_when(item.get("undone_at"), where),
            undone_by=user(item.get("undone_by"), where),
        )
        step.full_clean()
        step.save()
        if item.get("created_at"):
            LedgerStep.objects.filter(pk=step.pk).update(
                created_at=_parse_when(item["created_at"], where)
            )
        LedgerEntry.objects.bulk_create(
            LedgerEntry(
                step=step,
                field=e.get("field"),
                ability_id=refs.abilities.get(e.get("ability")),
                ability_name=e.get("ability_name", ""),
                before=e.get("before"),
                after=e.get("after"),
                note=e.get("note", ""),
            )
            for e in item.get("entries", [])
        )


def _import_contests(campaign, items: list, sessions, refs: _Refs, user) -> dict[Any, int]:
    """Contests, participants and events in three bulk inserts (a campaign has thousands)."""
    table = _id_tables(refs)
    contests = []
    for item in items:
        where = f"contest {item.get('number')}"
        if item.get("session") not in sessions:
            raise ValidationError(f"{where}: session {item.get('session')!r} is not in the file.")
        contest = Contest(
            campaign=campaign,
            session=sessions[item["session"]],
            number=item.get("number"),
            kind=item.get("kind"),
            status=item.get("status"),
            prize=item.get("prize", ""),
            obstacle=item.get("obstacle", ""),
            resistance_name=item.get("resistance_name", ""),
            resistance_rating=item.get("resistance_rating"),
            framing=_rewrite_ids(item.get("framing", {}), table),
            state=_rewrite_ids(item.get("state", {}), table),
            seq=item.get("seq", 0),
            winner=item.get("winner", ""),
            degree=item.get("degree", ""),
            outcome_level=item.get("outcome_level"),
            narration=item.get("narration", ""),
            gm_notes=item.get("gm_notes", ""),
            finished_at=_parse_when(item.get("finished_at"), where),
        )
        # Checked field by field; the numbers' uniqueness is left to the database, as
        # one query per contest would make a large import slow.
        contest.full_clean(validate_unique=False, validate_constraints=False)
        contests.append(contest)
    Contest.objects.bulk_create(contests)
    # bulk_create stamps "now" on created_at; put back when each contest was framed.
    for contest, item in zip(contests, items, strict=True):
        contest.created_at = _parse_when(item.get("created_at"), "contest") or contest.created_at
    Contest.objects.bulk_update(contests, ["created_at"], batch_size=500)
    participants, events, stamps = [], [], []
    for contest, item in zip(contests, items, strict=True):
        for p in item.get("participants", []):
            participants.append(
                ContestParticipant(
                    contest=contest,
                    character_id=refs.characters.get(p.get("character")),
                    name=p.get("name", ""),
                    side=p.get("side", ""),
                    ability=p.get("ability", ""),
                    rating=p.get("rating"),
                )
            )
        for e in item.get("events", []):
            events.append(
                ContestEvent(
                    contest=contest,
                    seq=e.get("seq"),
                    actor=user(e.get("actor"), f"contest {contest.number}"),
                    type=e.get("type", ""),
                    payload=_rewrite_ids(e.get("payload", {}), table),
                    idempotency_key=e.get("idempotency_key", ""),
                )
            )
            stamps.append(_parse_when(e.get("created_at"), f"contest {contest.number}"))
    ContestParticipant.objects.bulk_create(participants, batch_size=1000)
    ContestEvent.objects.bulk_create(events, batch_size=1000)
    # bulk_create stamps "now" on created_at; put back when each event was written.
    stamped = []
    for event, when in zip(events, stamps, strict=True):
        if when is not None:
            event.created_at = when
            stamped.append(event)
    ContestEvent.objects.bulk_update(stamped, ["created_at"], batch_size=1000)
    return {c.number: c.pk for c in contests}


def _key(table: dict, key: Any, what: str, where: str) -> Any:
    """`table[key]`, None for no key, or a ValidationError naming what is missing."""
    if key is None:
        return None
    if key not in table:
        raise ValidationError(f"{where}: {what} {key!r} is not in the file.")
    return table[key]


def _import_community(campaign, item: dict, refs: _Refs, sessions, contest_ids, user) -> Community:
    """The community and everything under it, parents first: resources, draws (they
    name resources, characters, sessions and contests), steps (they name draws), their
    changes, finished intervals, required uses, then questions, choices and answers."""
    where = "the community"
    community = Community(
        campaign=campaign,
        name=item.get("name", ""),
        description=item.get("description", ""),
        interval_name=item.get("interval_name", "season"),
        interval_number=item.get("interval_number", 1),
        background_done=bool(item.get("background_done", False)),
        crisis_tests_session=_key(sessions, item.get("crisis_tests_session"), "session", where),
        answer_mode=item.get("answer_mode", AnswerMode.CONSENSUS),
        # Absent from older exports: the standard rule (§8.2).
        social_penalties_linger=bool(item.get("social_penalties_linger", False)),
    )
    community.full_clean()
    community.save()
    resources: dict[str, int] = {}
    for row in item.get("resources", []):
        resource = Resource(
            community=community,
            name=row.get("name", ""),
            position=row.get("position"),
            rating=row.get("rating"),
            **{column: row.get(column, 0) for column in Resource.COLUMNS if column != "rating"},
            crisis_note=row.get("crisis_note", ""),
        )
        resource.full_clean()
        resource.save()
        resources[resource.name] = resource.pk
    by_text = {name: str(pk) for name, pk in resources.items()}
    table = _id_tables(refs)

    def resource_id(name: Any, at: str) -> int:
        if name not in resources:
            raise ValidationError(f"{at}: resource {name!r} is not in the file.")
        return resources[name]

    draws, draw_stamps, draw_ids = [], [], {}
    for d in item.get("draws", []):
        at = f"community draw {d.get('key')}"
        draw = ResourceDraw(
            community=community,
            resource_id=resource_id(d.get("resource"), at),
            character_id=_key(refs.characters, d.get("character"), "character", at),
            character_name=d.get("character_name", ""),
            actor=user(d.get("actor"), at),
            session=_key(sessions, d.get("session"), "session", at),
            interval=d.get("interval"),
            purpose=d.get("purpose", ""),
            used_as=d.get("used_as", UsedAs.ABILITY),
            required_action=d.get("required_action", ""),
            ability_name=d.get("ability_name", ""),
            ability_rating=d.get("ability_rating"),
            resistance_level=d.get("resistance_level", ""),
            resistance_rating=d.get("resistance_rating"),
            modifier=d.get("modifier", 0),
            lobbying=_rewrite_ids(d.get("lobbying", {}), table),
            lobbying_level=d.get("lobbying_level"),
            status=d.get("status"),
            outcome_level=d.get("outcome_level"),
            depletion=d.get("depletion"),
            social_penalty=d.get("social_penalty", 0),
            contest_id=_key(contest_ids, d.get("contest"), "contest", at),
            settled_at=_parse_when(d.get("settled_at"), at),
        )
        # Links were resolved above (a lost session or actor stays empty).
        draw.full_clean(
            exclude=["community", "resource", "character", "actor", "session", "contest"],
            validate_constraints=False,
        )
        draws.append(draw)
        draw_stamps.append(_parse_when(d.get("created_at"), at))
    ResourceDraw.objects.bulk_create(draws)
    for draw, d, when in zip(draws, item.get("draws", []), draw_stamps, strict=True):
        draw_ids[d.get("key")] = draw.pk
        draw.created_at = when or draw.created_at
    ResourceDraw.objects.bulk_update(draws, ["created_at"], batch_size=500)

    steps, step_stamps, changes = [], [], []
    for n, s in enumerate(item.get("steps", []), 1):
        at = f"community step {n}"
        step = CommunityStep(
            community=community,
            interval=s.get("interval"),
            kind=s.get("kind"),
            summary=s.get("summary", ""),
            note=s.get("note", ""),
            actor=user(s.get("actor"), at),
            session=_key(sessions, s.get("session"), "session", at),
            contest_id=_key(contest_ids, s.get("contest"), "contest", at),
            draw_id=_key(draw_ids, s.get("draw"), "draw", at),
            rolls=_rewrite_ids(s.get("rolls", []), table),
        )
        step.full_clean(exclude=["community", "actor", "session", "contest", "draw"])
        steps.append(step)
        step_stamps.append(_parse_when(s.get("created_at"), at))
    CommunityStep.objects.bulk_create(steps, batch_size=500)
    for n, (step, s, when) in enumerate(
        zip(steps, item.get("steps", []), step_stamps, strict=True), 1
    ):
        step.created_at = when or step.created_at
        for c in s.get("changes", []):
            change = ResourceChange(
                step=step,
                resource_id=resource_id(c.get("resource"), f"community step {n}"),
                column=c.get("column"),
                before=c.get("before"),
                after=c.get("after"),
                reason=c.get("reason", ""),
            )
            change.full_clean(exclude=["step", "resource"])
            changes.append(change)
    CommunityStep.objects.bulk_update(steps, ["created_at"], batch_size=500)
    ResourceChange.objects.bulk_create(changes, batch_size=1000)

    for record_data in item.get("intervals", []):
        at = f"community interval {record_data.get('number')}"
        record = IntervalRecord(
            community=community,
            number=record_data.get("number"),
            rows=[
                {**row, "id": resources.get(row["id"])}
                if isinstance(row, dict) and "id" in row
                else row
                for row in record_data.get("rows", [])
            ],
            ended_by=user(record_data.get("ended_by"), at),
        )
        record.full_clean(exclude=["ended_by"])
        record.save()
        if record_data.get("ended_at"):
            IntervalRecord.objects.filter(pk=record.pk).update(
                ended_at=_parse_when(record_data["ended_at"], at)
            )
    for u in item.get("required_uses", []):
        use = RequiredResourceUse(
            community=community,
            resource_id=resource_id(u.get("resource"), "a required use"),
            action=u.get("action", ""),
        )
        use.full_clean(exclude=["resource"])
        use.save()
    for n, q in enumerate(item.get("questions", []), 1):
        at = f"community question {n}"
        question = Question(
            community=community, position=q.get("position", 0), text=q.get("text", "")
        )
        question.full_clean()
        question.save()
        choices = {}
        for key, c in enumerate(q.get("choices", []), 1):
            choice = Choice(
                question=question,
                position=c.get("position", 0),
                text=c.get("text", ""),
                scores={by_text[k]: v for k, v in c.get("scores", {}).items() if k in by_text},
            )
            choice.full_clean()
            choice.save()
            choices[key] = choice
        for a in q.get("answers", []):
            answer = Answer(
                question=question,
                choice=_key(choices, a.get("choice"), "choice", at),
                user=user(a.get("user"), at),
            )
            answer.full_clean()
            answer.save()
            if a.get("answered_at"):
                Answer.objects.filter(pk=answer.pk).update(
                    answered_at=_parse_when(a["answered_at"], at)
                )
    return community


# --------------------------------------------------------------------- the chronicle


def _md_line(text: str) -> str:
    return " ".join(str(text).split())


def campaign_chronicle(viewer: ArchiveViewer) -> str:
    """The campaign as a readable Markdown document, as this viewer may see it."""
    campaign = viewer.campaign
    lines = [f"# {campaign.name}", ""]
    lines.append(f"*{campaign.genre or 'No genre'}* · GM: {campaign.gm.shown_name}")
    lines.append("")
    if campaign.description:
        lines += [campaign.description, ""]
    sessions = (
        campaign.sessions.select_related("season")
        .prefetch_related(
            Prefetch("attendees", queryset=Character.objects.only("id", "name")),
            Prefetch(
                "contests",
                queryset=Contest.objects.prefetch_related("participants", "events").order_by(
                    "number"
                ),
                to_attr="played",
            ),
        )
        .order_by("number")
    )
    season_number = None
    for session in sessions:
        if session.season and session.season.number != season_number:
            season_number = session.season.number
            lines += [f"## {session.season}", ""]
            lines += [f"Base resistance {session.season.base_resistance}.", ""]
        title = f"Session {session.number}" + (f": {session.title}" if session.title else "")
        lines += [f"### {title}", ""]
        when = session.started_at.strftime("%Y-%m-%d")
        attendees = ", ".join(c.name for c in session.attendees.all()) or "nobody recorded"
        lines += [f"*{when}* · Attendees: {attendees}", ""]
        if session.recap:
            lines += [session.recap, ""]
        for contest in session.played:
            lines += _contest_chronicle(viewer, contest)
    return "\n".join(lines).rstrip() + "\n"


def _contest_chronicle(viewer: ArchiveViewer, contest: Contest) -> list[str]:
    heading = f"#### Contest {contest.number}: {contest.get_kind_display()}"
    if contest.prize:
        heading += f" — {_md_line(contest.prize)}"
    lines = [heading, ""]
    if contest.obstacle:
        lines.append(f"- Obstacle: {_md_line(contest.obstacle)}")
    if contest.resistance_name or contest.resistance_rating is not None:
        rating = contest.resistance_rating
        rating = f" ({Rating(rating)})" if rating is not None else ""
        lines.append(f"- Resistance: {_md_line(contest.resistance_name)}{rating}")
    participants = list(contest.participants.all())
    for p in participants:
        ability = f", {p.ability}" if p.ability else ""
        rating = f" {Rating(p.rating)}" if p.rating is not None else ""
        lines.append(f"- {_md_line(p.name)} ({p.side}{ability}{rating})")
    events = visible_events(viewer, list(contest.events.all()), participants)
    if events:
        lines.append("")
    for event in events:
        if not (event.summary or event.consequences):
            continue
        item = f"{event.seq}. "
        lines.append(f"{item}{_md_line(event.summary or event.label)}")
        # Who took which consequence or benefit, on which ability, as the archive shows
        # them: a list nested in the event's item (indented past its number).
        indent = " " * max(4, len(item))
        lines += [f"{indent}- {_md_line(str(row))}" for row in event.consequences]
    lines += ["", f"**Outcome:** {outcome_text(contest.outcome_level)}."]
    if contest.narration:
        lines.append(f"{_md_line(contest.narration)}")
    if viewer.is_gm and contest.gm_notes:
        lines.append(f"*GM notes:* {_md_line(contest.gm_notes)}")
    lines.append("")
    return lines
