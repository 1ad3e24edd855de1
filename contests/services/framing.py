"""Framing a contest: the GM's form or message, checked and resolved against the
campaign's sheets, NPC library and community draws (§2.3.2, §4, §8.2)."""

from __future__ import annotations

from typing import Any, cast

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import F, OuterRef, QuerySet, Subquery

from campaigns import webhooks
from campaigns.models import Campaign, Session, WebhookKind
from campaigns.webhooks import texts as webhook_texts
from characters.models import Ability, Character, Follower
from characters.selectors import ability_rating, ability_states
from questworlds_site.accounts.models import User
from questworlds_site.sql import PreparedRead, insert_family

from ..core.rules import Rating, RulesError, quick_augment, resistance
from ..core.table import flow_class
from ..events import FRAMED, checked_payload
from ..models import Contest, ContestEvent, ContestParticipant, ContestStatus
from .common import (
    ActionResult,
    ContestError,
    _approved_draw,
    _check_key,
    _emit,
    actor_for,
)


def _require_in_service(ability: Ability, owner: str) -> None:
    """A sidekick's ability is its owner's to use while the sidekick serves: "You may
    use any of your sidekick's abilities as your own" (§6.5.1); a lost one's are not
    (§6.5.2)."""
    follower = ability.follower
    if follower is not None and follower.lost:
        raise ContestError(
            f"{follower.name} is no longer in {owner}'s service (§6.5.2): "
            f"{ability.name} is not theirs to use"
        )


def _locking_campaign(campaign: int, key: str) -> QuerySet[Campaign]:
    return (
        Campaign.objects.select_for_update()
        .annotate(
            open_session_id=Subquery(
                Session.objects.filter(campaign=OuterRef("pk"), ended_at__isnull=True)
                .order_by()
                .values("pk")[:1]
            ),
            last_number=Subquery(
                Contest.objects.filter(campaign=OuterRef("pk"))
                .order_by("-number")
                .values("number")[:1]
            ),
            framed_already=Subquery(
                ContestEvent.objects.filter(
                    contest__campaign=OuterRef("pk"), seq=1, idempotency_key=key
                ).values("pk")[:1]
            ),
        )
        .filter(pk=campaign)
    )


# A framing's reads, built once (issue 29): the campaign's lock, and each character.
_CAMPAIGN_LOCK = PreparedRead(_locking_campaign)
_CHARACTER = PreparedRead(
    lambda character, campaign: Character.objects.filter(pk=character, campaign_id=campaign)[:1]
)


def _campaign_character(campaign_id: int, character_id: Any) -> Character | None:
    """The campaign's character with this id (None: no such character there)."""
    if type(character_id) is not int:  # no id names no character
        if character_id is None:
            return None
        return Character.objects.filter(pk=character_id, campaign_id=campaign_id).first()
    found = cast("list[Character]", _CHARACTER.objects(character_id, campaign_id))
    return found[0] if found else None


def _character_side(campaign: Campaign, raw: dict[str, Any], side: str) -> dict[str, Any]:
    """Fill a side from a character's sheet: name, player and the chosen ability."""
    character_id = raw.get("character_id")
    # No id names no character (the query would match none).
    character = _campaign_character(campaign.pk, character_id)
    if character is None:
        raise ContestError(f"the {side} side's character is not in this campaign")
    filled = {
        "name": character.name,
        "character_id": character.pk,
        "player_id": character.player_id,
    }
    ability_id = raw.get("ability_id")
    if ability_id:
        ability = (
            Ability.objects.filter(pk=ability_id, character=character)
            .select_related("follower")
            .first()
        )
        if ability is None:
            raise ContestError(f"{character.name} has no such ability")
        _require_in_service(ability, character.name)
        filled.update(
            ability=ability.name, rating=ability_rating(ability), states=ability_states(ability)
        )
    return filled


def _group_participants(campaign: Campaign, data: dict[str, Any]) -> list[dict[str, Any]]:
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


def _framed_group(data: dict[str, Any], *, with_rows: bool) -> list[dict[str, Any]]:
    """The frame form's short shape: `pc` and the ticked `characters` on the PCs' side,
    against `opponent`, which may be left blank when the form's rows name the opposition."""
    pc = given if isinstance(given := data.get("pc"), dict) else {}
    more = ticked if isinstance(ticked := data.get("characters"), list) else []
    ids = [pc.get("character_id"), *more]
    framed = [{"character_id": c, "side": "pc"} for c in dict.fromkeys(ids) if c]
    opponent = data.get("opponent") or {}
    if not isinstance(opponent, dict):
        raise ContestError("the opponent must be an object")
    if opponent or not with_rows:
        framed.append({**opponent, "side": "opponent"})
    return framed


def _group_participant(campaign: Campaign, entry: Any, *, row: bool = False) -> dict[str, Any]:
    """One participant of a group contest: a character from their sheet, or the GM's
    from a class, a rating or the library. A row of `participants` must be complete:
    a name and exactly one of class, rating and library NPC (an NPC brings its name)."""
    if not isinstance(entry, dict):
        raise ContestError("each participant is an object")
    extra = {k: entry[k] for k in ("side", "role", "owner") if entry.get(k)}
    if row:
        for key in ("character_id", "ability_id", "npc_id", "sidekick_ability_id"):
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
        sources = ("npc_id", "level", "rating", "sidekick_ability_id")
        given = [key for key in sources if entry.get(key) not in (None, "")]
        if not given:
            raise ContestError("give it a class, a rating, a library NPC or a sidekick")
        if len(given) > 1:
            raise ContestError("give it only one of a class, a rating, a library NPC or a sidekick")
        if given == ["sidekick_ability_id"]:
            return _sidekick_row(campaign, entry, name, extra)
        if not name.strip() and not entry.get("npc_id"):
            raise ContestError("give it a name")
    filled = _resistance_side(campaign, entry)
    if row and entry.get("npc_id") and name.strip():
        filled["name"] = name.strip()  # one library entry, several of them in the contest
    if not extra.get("owner"):
        extra.setdefault("side", "opponent")
    return {**filled, **extra}


def _sidekick_row(
    campaign: Campaign, entry: dict[str, Any], name: str, extra: dict[str, Any]
) -> dict[str, Any]:
    """A sidekick in service from its owner's sheet, with the ability it acts with: a
    follower of its owner in a group scored contest (§5.2.4; its owner rolls for it and
    pays its hero points, §2.3.5.5). Its name is the sidekick's unless the row names it;
    its owner is the sheet's owner, who must take part."""
    ability = (
        Ability.objects.filter(
            pk=entry["sidekick_ability_id"],
            character__campaign=campaign,
            follower__kind=Follower.Kind.SIDEKICK,
        )
        .select_related("follower", "character", "keyword")
        .first()
    )
    if ability is None:
        raise ContestError("there is no such sidekick's ability in this campaign")
    owner = ability.character.name
    sidekick = ability.follower
    assert sidekick is not None, "the query asks for a sidekick's ability"
    _require_in_service(ability, owner)
    if extra.get("owner") not in (None, owner):
        raise ContestError(f"{sidekick.name} is {owner}'s sidekick, not {extra['owner']}'s")
    return {
        "name": name.strip() or sidekick.name,
        "rating": ability_rating(ability),
        "ability": ability.name,
        "states": ability_states(ability),
        **extra,
        "role": extra.get("role") or "follower",
        "owner": owner,
    }


def _row_label(number: int, entry: Any) -> str:
    name = entry.get("name") if isinstance(entry, dict) else None
    label = f"participant row {number}"
    return f"{label} ({name.strip()})" if isinstance(name, str) and name.strip() else label


def _roster(campaign: Campaign) -> list[dict[str, Any]]:
    """The campaign's characters and their abilities, for the table's forms (who may
    join a contest or help from outside it); ratings are read again when used."""
    roster: dict[int, dict[str, Any]] = {}
    characters = Character.objects.filter(campaign=campaign).order_by("name", "id")
    for character in characters:
        roster[character.pk] = {
            "character_id": character.pk,
            "name": character.name,
            "player_id": character.player_id,
            "abilities": [],
        }
    abilities = (
        Ability.objects.filter(Ability.usable_as_own(), character__campaign=campaign)
        .exclude(kind="flaw")
        .select_related("keyword", "follower")
        .order_by("character_id", F("follower_id").asc(nulls_first=True), "position", "id")
    )
    for ability in abilities:
        roster[ability.character_id]["abilities"].append(
            {
                "ability_id": ability.pk,
                "name": ability.name,
                "shown": ability.shown_name,
                "rating": str(Rating(ability_rating(ability))),
            }
        )
    return list(roster.values())


def _resistance_side(campaign: Campaign, raw: dict[str, Any]) -> dict[str, Any]:
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


def _frame_resource_draw(campaign: Campaign, draw_id: Any, framing: dict[str, Any]) -> None:
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
                # The rating the bonus came from, in the community's notation (12W).
                "tn": draw.resource.effective_text,
            }
        ]
    else:
        framing["pc"].update(ability=draw.resource.name, rating=rating, states=[])


def contest_frame(
    *, campaign: Campaign | int, user: User, data: dict[str, Any], idempotency_key: str | None
) -> ActionResult:
    """The GM frames a contest (§2.3.2): type, prize, obstacle, participants, resistance.

    `campaign`: the campaign or its id (the table's form names only the id: the campaign
    is read here, locked, in the statement that reads what the framing needs).
    `data`: kind, prize, obstacle, stakes, pc {character_id, ability_id?}, opponent
    {character_id, ability_id?} for PC vs PC or {name, level | rating} for a resistance.
    """
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    return _frame(campaign_id, user, data, idempotency_key)


@transaction.atomic
def _frame(
    campaign_id: int, user: User, data: dict[str, Any], idempotency_key: str | None
) -> ActionResult:
    key = _check_key(idempotency_key)
    # The campaign locked with, in the same statement, its open session, its latest
    # contest's number and a framing done already with this key (a resend).
    # With its annotations (open_session_id, last_number, framed_already).
    locked = cast("list[Any]", _CAMPAIGN_LOCK.objects(campaign_id, key))
    if not locked:
        raise ContestError("there is no such campaign")
    campaign: Campaign = locked[0]
    open_session_id, last_number, framed_already = (
        locked[0].open_session_id,
        locked[0].last_number,
        locked[0].framed_already,
    )
    actor = actor_for(campaign, user)
    if not actor.is_gm:
        raise PermissionDenied("only the GM frames contests")
    if framed_already is not None:
        earlier = ContestEvent.objects.select_related("contest").get(pk=framed_already)
        return ActionResult(earlier.contest, earlier, created=False)
    if open_session_id is None:
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
        # What a player's augment is reckoned with: the campaign's options, never theirs.
        "base_resistance": campaign.rules_options.base_resistance,
        "quick_augment_rounding": campaign.rules_options.quick_augment_rounding,
    }
    if str(framing["kind"]).startswith("group_"):
        framing.update(
            participants=_group_participants(campaign, data),
            pc_side=data.get("pc_side") or "pc",
            order=data.get("order") or "daring",
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
    contest = Contest(
        campaign=campaign,
        session_id=open_session_id,
        number=(last_number or 0) + 1,
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
    participants = [ContestParticipant(**row) for row in flow.participant_rows()]
    kind = contest.get_kind_display().lower()
    summary = f"The GM frames {'an' if kind[:1] in 'aeiou' else 'a'} {kind}"
    if flow.state["prize"]:
        summary += f": {flow.state['prize']}"
    event = ContestEvent(
        seq=1,
        actor=user,
        type=FRAMED,
        payload=checked_payload(FRAMED, {"summary": summary, "data": framing}),
        idempotency_key=key,
    )
    # The contest, its participant records and its first event: one statement on
    # PostgreSQL (questworlds_site/sql.py).
    insert_family(contest, [("contest", participants), ("contest", [event])])
    event.contest = contest
    _emit(contest, event)
    # Discord, if the GM relays framings: the player-safe words (no rating, no notes).
    if WebhookKind.CONTEST_FRAMED in (campaign.relayed_kinds or []):
        text = webhook_texts.contest_framed(
            campaign,
            kind_label=contest.get_kind_display(),
            prize=contest.prize,
            obstacle=contest.obstacle,
            framing=framing,
        )
        webhooks.announce(campaign, WebhookKind.CONTEST_FRAMED, text)
    return ActionResult(contest, event, created=True)
