"""Every change to a contest: framing, each action at the table, and undo (issue 6).

Each call is one transaction that locks the contest row, checks who may act, validates
through the rules engine (via `TableFlow`), appends one `ContestEvent` and broadcasts
only after commit. A client idempotency key makes a double click, a resend or two
browsers submitting the same action at once give exactly one event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from campaigns.access import campaign_role
from campaigns.models import Campaign
from characters import services as character_services
from characters.models import Ability, Character, Condition
from characters.selectors import ability_rating, ability_states
from community.models import ResourceDraw
from community.services import community_draw_settle

from .events import EventType, checked_payload
from .live import broadcast_contest
from .models import Contest, ContestEvent, ContestParticipant, ContestStatus
from .rules import IllegalAction, Rating, RulesError, d20, quick_augment, resistance
from .rules.community import social_penalty_in_force
from .table import Actor, TableFlow, flow_class, load_flow

MAX_KEY_LENGTH = 64
# Group flows keep every die of an action under "dice".
# Keys only the server fills in: dice, and penalties read from the community (§8.2).
ROLL_KEYS = frozenset(
    {"pc_roll", "opponent_roll", "roll", "resistance_roll", "dice", "sheet_penalties"}
)
UNDOABLE = "undone"


class ContestError(Exception):
    """An action the table refuses, with a message for the person who tried it."""


@dataclass(frozen=True)
class ActionResult:
    contest: Contest
    event: ContestEvent
    created: bool  # False: the same idempotency key was already done ("already done")


def actor_for(campaign: Campaign, user) -> Actor:
    """The user as an actor at this campaign's table, or PermissionDenied."""
    role = campaign_role(campaign, user)
    if role is None:
        raise PermissionDenied("not a member of this campaign")
    if role != "player":
        # The GM acts for every character and a spectator for none: no lookup needed.
        return Actor(user_id=user.pk, role=str(role))
    characters = Character.objects.filter(campaign=campaign, player=user).values_list(
        "id", flat=True
    )
    return Actor(user_id=user.pk, role=str(role), character_ids=frozenset(characters))


def _check_key(key: str) -> str:
    if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY_LENGTH:
        raise ContestError("every action needs an idempotency key of 1 to 64 characters")
    return key


def _character_side(campaign: Campaign, raw: dict, side: str) -> dict:
    """Fill a side from a character's sheet: name, player and the chosen ability."""
    character_id = raw.get("character_id")
    character = Character.objects.filter(pk=character_id, campaign=campaign).first()
    if character is None:
        raise ContestError(f"the {side} side's character is not in this campaign")
    filled = {
        "name": character.name,
        "character_id": character.pk,
        "player_id": character.player_id,
    }
    ability_id = raw.get("ability_id")
    if ability_id:
        ability = Ability.objects.filter(pk=ability_id, character=character).first()
        if ability is None:
            raise ContestError(f"{character.name} has no such ability")
        filled.update(
            ability=ability.name, rating=ability_rating(ability), states=ability_states(ability)
        )
    return filled


def _group_participants(campaign: Campaign, data: dict) -> list[dict]:
    """A group contest's participants, each filled from the sheet or the library.

    `data["participants"]`: [{character_id, ability_id?, side?} for a character, or
    {name, level | rating | npc_id, ability?, side?} for the GM's, each with optional
    `role` and `owner` (scored followers; without a side a follower stands on its
    owner's)]. A name given with a library NPC names that one (two raiders from one
    entry). The frame form sends a shorter shape: `pc` and `characters` (ids) on the
    PCs' side against `opponent`, then its rows of further opponents and followers as
    `participants`, where a blank row is `{}` and skipped so that errors name the row.
    """
    rows = data.get("participants")
    if rows is not None and not isinstance(rows, list):
        raise ContestError("participants must be a list")
    participants = []
    if rows is None or data.get("pc") or data.get("characters"):
        participants = [
            _group_participant(campaign, entry)
            for entry in _framed_group(data, with_rows=bool(rows))
        ]
    for number, entry in enumerate(rows or [], start=1):
        if entry == {}:
            continue  # a blank row of the frame form
        try:
            participant = _group_participant(campaign, entry, row=True)
            if any(p["name"] == participant["name"] for p in participants):
                raise ContestError(
                    f"{participant['name']!r} is already taking part; "
                    "give each participant a name of its own"
                )
        except ContestError as error:
            raise ContestError(f"{_row_label(number, entry)}: {error}") from None
        participants.append(participant)
    for participant in participants:
        if "side" not in participant:  # a follower without a side: its owner's
            owner = next((p for p in participants if p["name"] == participant["owner"]), None)
            participant["side"] = owner.get("side", "opponent") if owner else "opponent"
    return participants


def _framed_group(data: dict, *, with_rows: bool) -> list[dict]:
    """The frame form's short shape: `pc` and the ticked `characters` on the PCs' side,
    against `opponent`, which may be left blank when the form's rows name the opposition."""
    pc = data.get("pc") if isinstance(data.get("pc"), dict) else {}
    more = data.get("characters") if isinstance(data.get("characters"), list) else []
    ids = [pc.get("character_id"), *more]
    framed = [{"character_id": c, "side": "pc"} for c in dict.fromkeys(ids) if c]
    opponent = data.get("opponent") or {}
    if not isinstance(opponent, dict):
        raise ContestError("the opponent must be an object")
    if opponent or not with_rows:
        framed.append({**opponent, "side": "opponent"})
    return framed


def _group_participant(campaign: Campaign, entry: Any, *, row: bool = False) -> dict:
    """One participant of a group contest: a character from their sheet, or the GM's
    from a class, a rating or the library. A row of `participants` must be complete:
    a name and exactly one of class, rating and library NPC (an NPC brings its name)."""
    if not isinstance(entry, dict):
        raise ContestError("each participant is an object")
    extra = {k: entry[k] for k in ("side", "role", "owner") if entry.get(k)}
    if row:
        for key in ("character_id", "ability_id", "npc_id"):
            value = entry.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ContestError(f"{key} must be a whole number")
    if entry.get("character_id"):
        extra.setdefault("side", "pc")
        return {**_character_side(campaign, entry, "participant"), **extra}
    name = entry.get("name") or ""
    if not isinstance(name, str):
        raise ContestError("a name is text")
    if row:
        given = [key for key in ("npc_id", "level", "rating") if entry.get(key) not in (None, "")]
        if not given:
            raise ContestError("give it a class, a rating or a library NPC")
        if len(given) > 1:
            raise ContestError("give it only one of a class, a rating or a library NPC")
        if not name.strip() and not entry.get("npc_id"):
            raise ContestError("give it a name")
    filled = _resistance_side(campaign, entry)
    if row and entry.get("npc_id") and name.strip():
        filled["name"] = name.strip()  # one library entry, several of them in the contest
    if not extra.get("owner"):
        extra.setdefault("side", "opponent")
    return {**filled, **extra}


def _row_label(number: int, entry: Any) -> str:
    name = entry.get("name") if isinstance(entry, dict) else None
    label = f"participant row {number}"
    return f"{label} ({name.strip()})" if isinstance(name, str) and name.strip() else label


def _roster(campaign: Campaign) -> list[dict]:
    """The campaign's characters and their abilities, for the table's forms (who may
    join a contest or help from outside it); ratings are read again when used."""
    roster: dict[int, dict] = {}
    characters = Character.objects.filter(campaign=campaign).order_by("name", "id")
    for character in characters:
        roster[character.pk] = {
            "character_id": character.pk,
            "name": character.name,
            "player_id": character.player_id,
            "abilities": [],
        }
    abilities = (
        Ability.objects.filter(character__campaign=campaign, follower__isnull=True)
        .exclude(kind="flaw")
        .select_related("keyword")
        .order_by("character_id", "position", "id")
    )
    for ability in abilities:
        roster[ability.character_id]["abilities"].append(
            {
                "ability_id": ability.pk,
                "name": ability.name,
                "rating": str(Rating(ability_rating(ability))),
            }
        )
    return list(roster.values())


def _resistance_side(campaign: Campaign, raw: dict) -> dict:
    """The opposition: a class from the base resistance, an explicit rating such as
    `5M`, or (done by the caller) a library NPC's rating (§2.3.3, R2)."""
    npc_id = raw.get("npc_id")
    if npc_id:
        npc = campaign.npcs.filter(pk=npc_id).first()
        if npc is None:
            raise ContestError("there is no such opponent in this campaign's library")
        return {"name": npc.name, "rating": npc.rating, "ability": raw.get("ability", "")}
    name = (raw.get("name") or "").strip() or "Resistance"
    level, rating = raw.get("level"), raw.get("rating")
    try:
        if level:
            total = resistance(level, campaign.rules_options.base_resistance).total
        elif rating not in (None, ""):
            total = Rating.parse(rating).total
        else:
            raise ContestError("give the resistance a class (moderate, high…) or a rating")
    except ValueError as error:
        raise ContestError(str(error)) from None
    return {"name": name, "rating": total, "ability": raw.get("ability", "")}


def _approved_draw(campaign: Campaign, draw_id: Any):

    if isinstance(draw_id, bool) or not isinstance(draw_id, int):
        raise ContestError("draw_id must be a whole number")
    draw = (
        ResourceDraw.objects.select_related("resource", "character")
        .filter(pk=draw_id, community__campaign=campaign, status="approved")
        .first()
    )
    if draw is None:
        raise ContestError("there is no approved, unsettled draw on a resource with that number")
    return draw


def _frame_resource_draw(campaign: Campaign, draw_id: Any, framing: dict) -> None:
    """Use an approved draw on a community resource (§8.2) in this contest: the resource
    is the PC's ability, or a quick augment to it; its depletion is settled when the GM
    confirms the consequences."""
    if draw_id in (None, ""):
        return
    draw = _approved_draw(campaign, draw_id)
    if draw.character_id != framing["pc"]["character_id"]:
        raise ContestError(f"that draw is {draw.character_name}'s; frame the contest for them")
    rating = draw.resource.effective_total
    framing["draw_id"] = draw.pk
    framing["draw_used_as"] = draw.used_as
    framing["pc"]["own_augments_allowed"] = draw.own_augments_allowed
    if draw.used_as == "augment":
        bonus = quick_augment(rating, rounding=campaign.rules_options.quick_augment_rounding)
        framing["pc"]["augments"] = [
            {
                "kind": "quick",
                "helper": draw.resource.name,
                "ability": "community resource",
                "bonus": bonus,
            }
        ]
    else:
        framing["pc"].update(ability=draw.resource.name, rating=rating, states=[])


def _settle_resource_draw(contest: Contest, flow: TableFlow, user) -> dict:

    draw_id = contest.framing.get("draw_id")
    level = flow.level_for_pc()
    if draw_id is None or level is None:
        return {}
    draw = _approved_draw(contest.campaign, draw_id)
    settled = community_draw_settle(
        draw=draw, actor=user, outcome_level=level, contest_id=contest.pk
    )
    return {
        "resource_draw": {
            "resource": draw.resource.name,
            "depletion": settled.draw.depletion,
            "social_penalty": settled.social_penalty,
        }
    }


def _emit(contest: Contest, event: ContestEvent) -> None:
    """Broadcast the contest once the action commits, from the objects it used."""
    # Imported here: rendering pulls in templates, which services need not load.

    transaction.on_commit(lambda: broadcast_contest(contest, event))


@transaction.atomic
def contest_frame(*, campaign: Campaign, user, data: dict, idempotency_key: str) -> ActionResult:
    """The GM frames a contest (§2.3.2): type, prize, obstacle, participants, resistance.

    `data`: kind, prize, obstacle, stakes, pc {character_id, ability_id?}, opponent
    {character_id, ability_id?} for PC vs PC or {name, level | rating} for a resistance.
    """
    key = _check_key(idempotency_key)
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    actor = actor_for(campaign, user)
    if not actor.is_gm:
        raise PermissionDenied("only the GM frames contests")
    earlier = (
        ContestEvent.objects.filter(contest__campaign=campaign, seq=1, idempotency_key=key)
        .select_related("contest")
        .first()
    )
    if earlier:
        return ActionResult(earlier.contest, earlier, created=False)
    session = campaign.open_session()
    if session is None:
        raise ContestError("start a session first: every contest belongs to a session")
    if not isinstance(data, dict):
        raise ContestError("the framing must be an object")
    framing = {
        "kind": data.get("kind") or "simple",
        "physical_dice": getattr(campaign, "physical_dice", False),
        "hide_gm_rolls": getattr(campaign, "roll_visibility", "public") == "gm_hidden",
        "apply_consequences": getattr(campaign, "apply_consequences", True),
        "prize": data.get("prize", ""),
        "secondary_prize": data.get("secondary_prize", ""),
        "variant": data.get("variant") or "normal",
        "obstacle": data.get("obstacle", ""),
        "stakes": data.get("stakes", "rising_action"),
        "better_roll": campaign.rules_options.better_roll,
    }
    if str(framing["kind"]).startswith("group_"):
        framing.update(
            participants=_group_participants(campaign, data),
            pc_side=data.get("pc_side") or "pc",
            order=data.get("order") or "daring",
            base_resistance=campaign.rules_options.base_resistance,
            roster=_roster(campaign),
        )
    else:
        rows = data.get("participants")
        if rows and (not isinstance(rows, list) or any(rows)):
            raise ContestError(
                "more opponents and followers are for group contests: choose a group type, "
                "or clear the extra participant rows"
            )
        framing["pc"] = _character_side(campaign, data.get("pc") or {}, "PC")
        opponent = data.get("opponent") or {}
        _frame_resource_draw(campaign, data.get("draw_id"), framing)
        framing["opponent"] = (
            _character_side(campaign, opponent, "opponent")
            if opponent.get("character_id")
            else _resistance_side(campaign, opponent)
        )
        if framing["kind"] == "extended":
            framing["roster"] = _roster(campaign)  # for AP gifts from outside (§5.3.11)
    try:
        flow = flow_class(framing["kind"]).frame(framing)
    except RulesError as error:
        raise ContestError(str(error)) from None
    number = (campaign.contests.aggregate(n=Max("number"))["n"] or 0) + 1
    contest = Contest.objects.create(
        campaign=campaign,
        session=session,
        number=number,
        kind=flow.kind,
        status=ContestStatus.RUNNING,
        prize=flow.state["prize"],
        obstacle=flow.state["obstacle"],
        resistance_name=flow.side("opponent")["name"],
        resistance_rating=flow.side("opponent")["rating"],
        framing=framing,
        state=flow.to_json(),
        seq=1,
    )
    for row in flow.participant_rows():
        ContestParticipant.objects.create(contest=contest, **row)
    summary = f"The GM frames a {contest.get_kind_display().lower()}"
    if flow.state["prize"]:
        summary += f": {flow.state['prize']}"
    event = ContestEvent.objects.create(
        contest=contest,
        seq=1,
        actor=user,
        type=EventType.FRAMED,
        payload=checked_payload(EventType.FRAMED, {"summary": summary, "data": framing}),
        idempotency_key=key,
    )
    _emit(contest, event)
    return ActionResult(contest, event, created=True)


@transaction.atomic
def contest_act(
    *,
    contest_id: int,
    user,
    action: str,
    data: dict,
    idempotency_key: str,
    expected_seq: int | None = None,
    roller=d20,
    campaign_id: int | None = None,
) -> ActionResult:
    """Perform one action at the table (see `TableFlow` for the actions).

    With `campaign_id` (the table the action came from) a contest of another campaign
    is refused as if it did not exist.
    """
    key = _check_key(idempotency_key)
    if not isinstance(data, dict):
        raise ContestError("an action's data must be an object")
    contests = Contest.objects.select_for_update().select_related("campaign")
    if campaign_id is not None:
        contests = contests.filter(campaign_id=campaign_id)
    contest = contests.filter(pk=contest_id).first()
    if contest is None:
        raise ContestError("there is no such contest at this table")
    actor = actor_for(contest.campaign, user)
    if actor.role == "spectator":
        raise ContestError("spectators watch; they cannot act in a contest")
    done = contest.events.filter(idempotency_key=key).first()
    if done:
        return ActionResult(contest, done, created=False)
    if expected_seq is not None and expected_seq != contest.seq:
        raise ContestError(
            f"the table has moved on (you saw step {expected_seq}, it is at {contest.seq}); "
            "your screen has been refreshed, try again"
        )
    if action == "undo":
        return _undo(contest, user, actor, key)
    flow = load_flow(contest.state)
    # Dice are rolled here, never taken from the browser (physical dice come in
    # through `enter_roll`); the completed data records the rolls for replay.
    data = {k: v for k, v in data.items() if k not in ROLL_KEYS}
    try:
        data = _from_sheet(contest, action, data, user)
        payload = flow.apply(action, data, actor, roller)
        side_effects = _apply_side_effects(contest, flow, action, payload, user)
    except (IllegalAction, RulesError, ValidationError) as error:
        raise ContestError(_message(error)) from None
    payload.update(side_effects)
    payload["data"] = data
    event = _append(contest, flow, user, action, payload, key)
    return ActionResult(contest, event, created=True)


def _message(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return "; ".join(error.messages)
    return str(error)


def _append(
    contest: Contest, flow: TableFlow, user, action: str, payload: dict, key: str
) -> ContestEvent:
    contest.seq += 1
    # No savepoint: the contest row is locked, so a clash here is a bug or a race the
    # lock did not cover, and the whole action rolls back with the error.
    try:
        event = ContestEvent.objects.create(
            contest=contest,
            seq=contest.seq,
            actor=user,
            type=action,
            payload=checked_payload(action, payload),
            idempotency_key=key,
        )
    except IntegrityError:
        raise ContestError(
            "that action was just done by someone else; nothing was changed"
        ) from None
    # Read before the new state replaces it (the flow only reads the dict it wraps).
    before = flow_class(contest.state["kind"])(contest.state).participant_rows()
    contest.state = flow.to_json()
    _sync_participants(contest, before, flow.participant_rows())
    _record_outcome(contest, flow)
    contest.save(
        update_fields=[
            "kind",
            "seq",
            "state",
            "status",
            "winner",
            "degree",
            "outcome_level",
            "narration",
            "finished_at",
        ]
    )
    _emit(contest, event)
    return event


def _sync_participants(contest: Contest, before: list[dict], after: list[dict]) -> None:
    """The participant records (what the archive lists: who used which ability at what
    rating) follow the abilities chosen at the table after the framing, and an undo."""
    earlier = {(row["side"], row["name"]): row for row in before}
    for row in after:
        old = earlier.get((row["side"], row["name"]))
        if old is not None and (old["ability"], old["rating"]) != (row["ability"], row["rating"]):
            ContestParticipant.objects.filter(
                contest=contest, side=row["side"], name=row["name"]
            ).update(ability=row["ability"] or "", rating=row["rating"])


def _record_outcome(contest: Contest, flow: TableFlow) -> None:
    outcome = flow.state.get("outcome") or {}
    contest.winner = outcome.get("winner") or ""
    contest.degree = outcome.get("degree") or ""
    contest.outcome_level = flow.level_for_pc()
    contest.kind = flow.kind  # a simple contest may escalate (§2.8.2)
    contest.narration = flow.state.get("narration", "")
    if flow.phase == "finished":
        contest.status = ContestStatus.FINISHED
        contest.finished_at = contest.finished_at or timezone.now()
    elif flow.phase == "resolved":
        contest.status = ContestStatus.RESOLVING
        contest.finished_at = None
    else:
        contest.status = ContestStatus.RUNNING
        contest.finished_at = None


def _apply_side_effects(
    contest: Contest, flow: TableFlow, action: str, payload: dict, user
) -> dict:
    """What an action changes outside the contest: hero points, conditions."""

    effects: dict[str, Any] = {}
    # A bump, a boost or a final action (§2.3.5.5, §4.5.3, §5.3.5): one point per event.
    if payload.get("hero_point"):
        character = Character.objects.get(pk=payload["hero_point"]["character_id"])
        if character.hero_points < 1:
            raise IllegalAction(f"{character.name} has no hero point left")
        reason = "a boost" if action == "boost" else "a bump"
        if action == "final_action":
            reason = "a final action"
        character_services.character_hero_point_spend(
            character=character, actor=user, reason=f"{reason} in contest #{contest.number}"
        )
    if action == "join":
        row = ContestParticipant.objects.create(contest=contest, **payload["joined"])
        effects["participant_row"] = row.pk
    if action == "apply_consequences":
        created = []
        for item in payload["applied"]:
            if item["character_id"] is None:
                continue
            if item.get("side") == "pc" and contest.framing.get("draw_used_as") == "ability":
                # The resource was the ability: its depletion replaces the PC's
                # consequences of defeat (§8.2).
                continue
            character = Character.objects.get(pk=item["character_id"])
            abilities = list(character.abilities.filter(name=item["ability"]))
            condition = character_services.character_condition_apply(
                character=character,
                actor=user,
                state=item["state"],
                abilities=abilities,
                cause=f"contest #{contest.number}: {contest.prize or contest.obstacle}"[:200],
                contest_id=contest.pk,
            )
            created.append(condition.pk)
        effects["conditions"] = created
        effects.update(_settle_resource_draw(contest, flow, user))
    return effects


def _undo(contest: Contest, user, actor: Actor, key: str) -> ActionResult:
    """The GM undoes the latest action: recorded as its own event, state rebuilt."""
    if not actor.is_gm:
        raise ContestError("only the GM can undo")
    events = list(contest.events.select_related("actor").order_by("seq"))
    undone = {e.payload.get("undoes") for e in events if e.type == UNDOABLE}
    live = [e for e in events[1:] if e.type != UNDOABLE and e.seq not in undone]
    if not live:
        raise ContestError("there is nothing to undo")
    target = live[-1]
    _reverse_side_effects(target, user)
    replayed = []
    for event in live[:-1]:
        replayed.append(
            (
                event.type,
                event.payload.get("data", {}),
                actor_for(contest.campaign, event.actor) if event.actor else actor,
            )
        )
    try:
        flow = flow_class(contest.framing["kind"]).replay(contest.framing, replayed)
    except (IllegalAction, RulesError) as error:
        raise ContestError(f"cannot rebuild the contest: {error}") from None
    payload = {
        "summary": f"The GM undid: {target.payload.get('summary', target.type)}",
        "undoes": target.seq,
    }
    event = _append(contest, flow, user, UNDOABLE, payload, key)
    return ActionResult(contest, event, created=True)


def _reverse_side_effects(event: ContestEvent, user) -> None:

    if event.payload.get("resource_draw"):
        raise ContestError(
            "the community resource's depletion is settled and stays; "
            "the GM can correct it with a plot event on the community page"
        )
    if event.payload.get("hero_point"):
        character = Character.objects.get(pk=event.payload["hero_point"]["character_id"])
        # The ledger undoes only its latest step; the spend must still be that step.
        step = character_services.undoable_step(character)
        if step is None or step.reason != "hp_spend":
            raise ContestError(
                f"{character.name}'s sheet has changed since that hero point was spent; "
                "it cannot be returned by undo"
            )
        character_services.character_step_undo(character=character, actor=user)
    if event.payload.get("participant_row"):
        ContestParticipant.objects.filter(pk=event.payload["participant_row"]).delete()
    if event.type == "apply_consequences":
        for condition in Condition.objects.filter(pk__in=event.payload.get("conditions", [])):
            character_services.character_condition_clear(
                character=condition.character,
                actor=user,
                condition=condition,
                reason="the GM undid the consequences",
            )


def social_penalties(ability: Ability) -> list[dict[str, Any]]:
    """§8.2: when a draw on a community resource failed its prize, the penalty also
    falls on the social ability the character lobbied the community with, for the
    rest of the interval. With the community's optional rule (`social_penalties_linger`)
    earlier intervals' penalties still apply, less 3 per interval ended since. One query."""

    current = F("community__interval_number")
    draws = (
        ResourceDraw.objects.filter(
            character_id=ability.character_id,
            ability_name=ability.name,
            social_penalty__lt=0,
        )
        .filter(
            Q(interval=current) | Q(community__social_penalties_linger=True, interval__lt=current)
        )
        .select_related("resource", "community")
        .order_by("interval", "created_at", "id")
    )
    lines = []
    for d in draws:
        community = d.community
        now = community.interval_number
        value = social_penalty_in_force(
            d.social_penalty, d.interval, now, linger=community.social_penalties_linger
        )
        if not value:
            continue  # shed entirely
        label = f"social penalty: drawing on {d.resource.name}"
        if d.interval < now:
            label += (
                f" ({value:+d} left of {d.social_penalty:+d},"
                f" since {community.interval_name} {d.interval})"
            )
        lines.append({"label": label, "value": value})
    return lines


def _from_sheet(contest: Contest, action: str, data: dict[str, Any], user) -> dict[str, Any]:
    """Ratings come from the character sheet, never from the browser.

    `choose_ability` with `ability_id` reads that ability's rating and states; with
    `new_ability` (as-you-go, §3.1) it first adds the ability to the sheet. In a group
    contest the character is the `participant`'s, and `switch_ability` and
    `final_action` read an `ability_id` the same way. `join` with `character_id` reads
    the character (and `ability_id`), else the GM's `{name, level | rating | npc_id}`.
    `augment` and `gift` with `helper_ability_id` read the helper's rating.
    """
    data = dict(data)
    if action in ("choose_ability", "switch_ability", "final_action"):
        group = "participant" in data
        character_id = _acting_character(contest, data)
        wanted = action == "choose_ability" or data.get("ability_id") or data.get("new_ability")
        if character_id is None:
            return data  # the GM sets an NPC's ability and rating directly
        if not wanted:
            # A character's rating is never taken from the browser.
            data.pop("rating", None)
            data.pop("states", None)
            return data
        ability = _sheet_ability(
            contest, character_id, data, user, as_you_go=action == "choose_ability"
        )
        data.update(
            ability=ability.name, rating=ability_rating(ability), states=ability_states(ability)
        )
        if not group and action == "choose_ability":
            data["sheet_penalties"] = social_penalties(ability)
        data.pop("new_ability", None)
        if group:
            data["ability_id"] = ability.pk  # the table shows it as chosen
        else:
            data.pop("ability_id", None)
    elif action == "join":
        if data.get("ability_id") and not data.get("character_id"):
            # The table's join form picks an ability; its character joins with it.
            chosen = Ability.objects.filter(
                pk=data["ability_id"], character__campaign=contest.campaign
            ).first()
            if chosen is None:
                raise ContestError("there is no such ability in this campaign")
            data["character_id"] = chosen.character_id
        if data.get("character_id"):
            data.update(_character_side(contest.campaign, data, "joining"))
        else:
            data.pop("player_id", None)
            data.update(_resistance_side(contest.campaign, data))
    elif action in ("augment", "gift"):
        # Who helps is read from their ability, never taken from the browser.
        data.pop("helper_character_id", None)
        if data.get("helper_ability_id"):
            ability = (
                Ability.objects.select_related("character")
                .filter(pk=data["helper_ability_id"], character__campaign=contest.campaign)
                .first()
            )
            if ability is None:
                raise ContestError("there is no such helping ability in this campaign")
            data.update(
                helper=ability.character.name,
                helper_character_id=ability.character_id,
                ability=ability.name,
                rating=ability_rating(ability),
            )
            data.pop("helper_ability_id")
    return data


def _acting_character(contest: Contest, data: dict[str, Any]) -> int | None:
    """The character behind the `participant` (group contests) or the `side`."""
    if "participant" in data:
        for participant in contest.state.get("participants", []):
            if participant.get("name") == data["participant"]:
                return participant.get("character_id")
        return None
    return (contest.state.get("sides", {}).get(data.get("side")) or {}).get("character_id")


def _sheet_ability(
    contest: Contest, character_id: int, data: dict[str, Any], user, *, as_you_go: bool
) -> Ability:
    """The chosen ability on the sheet, or with `new_ability` (as you go, §3.1) a new
    one added to it first."""

    if not (as_you_go and data.get("new_ability")):
        chosen = (
            Ability.objects.select_related("character")
            .filter(pk=data.get("ability_id"), character_id=character_id)
            .first()
        )
        if chosen is not None:
            return chosen
    character = Character.objects.get(pk=character_id)
    if as_you_go and data.get("new_ability"):
        if character.player_id != user.pk and contest.campaign.gm_id != user.pk:
            raise ContestError(f"only {character.name}'s player or the GM can add abilities")
        try:
            return character_services.character_ability_add(
                character=character,
                actor=user,
                name=str(data["new_ability"])[:120],
                rating=Rating.parse(data.get("rating", 13)).total,
            )
        except (ValidationError, ValueError, TypeError) as error:
            messages = getattr(error, "messages", [str(error)])
            raise ContestError("; ".join(messages)) from None
    ability = Ability.objects.filter(pk=data.get("ability_id"), character=character).first()
    if ability is None:
        raise ContestError(f"{character.name} has no such ability")
    return ability
