"""What a player's message may name and the server reads for it: abilities from the
sheet, their ratings, states and community penalties (§2.4, §8.2)."""

from __future__ import annotations

from typing import Any, cast

from django.core.exceptions import ValidationError
from django.db.models import F, JSONField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import JSONObject

from characters import services as character_services
from characters.models import Ability, Character
from characters.selectors import (
    ability_rating,
    ability_states,
    active_conditions_of,
    with_active_conditions,
)
from community.models import ResourceDraw
from questworlds_site.accounts.models import User
from questworlds_site.sql import JSONList, PreparedRead

from ..core.actions import DECLARED_BY_NAME, Pick
from ..core.rules import Rating
from ..core.rules.community import social_penalty_in_force
from ..models import Contest
from .common import ContestError
from .framing import _character_side, _require_in_service, _resistance_side


def social_penalties(ability: Ability) -> list[dict[str, Any]]:
    """§8.2: when a draw on a community resource failed its prize, the penalty also
    falls on the social ability the character lobbied the community with, for the
    rest of the interval. With the community's optional rule (`social_penalties_linger`)
    earlier intervals' penalties still apply, less 3 per interval ended since. The
    ability's `penalty_draws` when read `with_sheet_reads`, else one query."""
    read: Any = getattr(ability, "penalty_draws", False)  # None: read, and there are none
    draws: list[dict[str, Any]] = (
        [dict(d) for d in _penalty_draws(ability.character_id, ability.name).values(**_DRAW_FIELDS)]
        if read is False
        else read or []
    )
    lines = []
    for d in sorted(draws, key=lambda d: (d["when"], str(d["made"]), d["draw"])):
        now = d["now"]
        value = social_penalty_in_force(d["penalty"], d["when"], now, linger=d["linger"])
        if not value:
            continue  # shed entirely
        label = f"social penalty: drawing on {d['resource_name']}"
        if d["when"] < now:
            since = f"since {d['interval_name']} {d['when']}"
            label += f" ({value:+d} left of {d['penalty']:+d}, {since})"
        lines.append({"label": label, "value": value})
    return lines


# What a penalty line reads of a draw, its resource and its community.
_DRAW_FIELDS: dict[str, Any] = {
    "draw": F("id"),
    "made": F("created_at"),
    "when": F("interval"),
    "penalty": F("social_penalty"),
    "now": F("community__interval_number"),
    "linger": F("community__social_penalties_linger"),
    "interval_name": F("community__interval_name"),
    "resource_name": F("resource__name"),
}


def _penalty_draws(character: Any, ability_name: Any) -> QuerySet[ResourceDraw]:
    """The draws whose penalty may fall on the character's ability now (§8.2): this
    interval's, and with lingering penalties the earlier ones."""
    current = F("community__interval_number")
    return ResourceDraw.objects.filter(
        character_id=character, ability_name=ability_name, social_penalty__lt=0
    ).filter(Q(interval=current) | Q(community__social_penalties_linger=True, interval__lt=current))


def with_sheet_reads(abilities: QuerySet[Ability]) -> QuerySet[Ability]:
    """The abilities with what a pick reads of each, in their own statement: its active
    conditions (`with_active_conditions`, for `ability_states`) and the draws whose
    social penalty may fall on it (`penalty_draws`, for `social_penalties`)."""
    draws = (
        _penalty_draws(OuterRef("character_id"), OuterRef("name"))
        .order_by()
        .annotate(rows=JSONList(JSONObject(**_DRAW_FIELDS)))
        .values("rows")
    )
    return with_active_conditions(abilities).annotate(
        penalty_draws=Subquery(draws, output_field=JSONField())
    )


def _from_sheet(contest: Contest, action: str, data: dict[str, Any], user: User) -> dict[str, Any]:
    """Ratings come from the character sheet, never from the browser.

    What an action reads from a sheet follows its declared `pick`. An ability pick
    (`choose_ability`) with `ability_id` reads that ability's rating and states; with
    `new_ability` (as-you-go, §3.1) it first adds the ability to the sheet. In a group
    contest the character is the `participant`'s, and a switch (`switch_ability`) or a
    final action (`final_action`) read an `ability_id` the same way. `join` with
    `character_id` reads the character (and `ability_id`), else the GM's `{name, level |
    rating | npc_id}`. A helper's or a giver's pick (`augment`, `gift`) with
    `helper_ability_id` reads the helper's rating.
    """
    data = dict(data)
    pick = DECLARED_BY_NAME[action].pick if action in DECLARED_BY_NAME else Pick.NONE
    if pick in (Pick.ABILITY, Pick.SWITCH, Pick.FINAL):
        group = "participant" in data
        character_id = _acting_character(contest, data)
        wanted = pick is Pick.ABILITY or data.get("ability_id") or data.get("new_ability")
        if character_id is None:
            return data  # the GM sets an NPC's ability and rating directly
        if not wanted:
            # A character's rating is never taken from the browser.
            data.pop("rating", None)
            data.pop("states", None)
            return data
        ability = _sheet_ability(contest, character_id, data, user, as_you_go=pick is Pick.ABILITY)
        data.update(
            ability=ability.name,
            rating=ability_rating(ability),
            states=ability_states(ability, active_conditions_of(ability)),
        )
        if not group and pick is Pick.ABILITY:
            data["sheet_penalties"] = social_penalties(ability)
        data.pop("new_ability", None)
        if group:
            data["ability_id"] = ability.pk  # the table shows it as chosen
        else:
            data.pop("ability_id", None)
    elif pick is Pick.JOINER:
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
    elif pick in (Pick.HELPER, Pick.GIVER):
        # Who helps is read from their ability, never taken from the browser.
        data.pop("helper_character_id", None)
        if data.get("helper_ability_id"):
            helping = (
                Ability.objects.select_related("character", "follower")
                .filter(pk=data["helper_ability_id"], character__campaign=contest.campaign)
                .first()
            )
            if helping is None:
                raise ContestError("there is no such helping ability in this campaign")
            _require_in_service(helping, helping.character.name)
            data.update(
                helper=helping.character.name,
                helper_character_id=helping.character_id,
                ability=helping.name,
                rating=ability_rating(helping),
            )
            data.pop("helper_ability_id")
    return data


# A pick's one read (the ability with its states and penalties), built once
# (questworlds_site/sql.py).
_PICKED = PreparedRead(
    lambda ability, character: with_sheet_reads(
        Ability.objects.select_related("character", "follower", "keyword")
    ).filter(pk=ability, character_id=character)
)


def _chosen(ability_id: Any, character_id: int) -> Ability | None:
    """The ability of the character's sheet with that id, read `with_sheet_reads`."""
    if type(ability_id) is int and type(character_id) is int:
        found = cast("list[Ability]", _PICKED.objects(ability_id, character_id))
        return found[0] if found else None
    return (
        with_sheet_reads(Ability.objects.select_related("character", "follower", "keyword"))
        .filter(pk=ability_id, character_id=character_id)
        .first()
    )


def _acting_character(contest: Contest, data: dict[str, Any]) -> int | None:
    """The character behind the `participant` (group contests) or the `side`."""
    if "participant" in data:
        for participant in contest.state.get("participants", []):
            if participant.get("name") == data["participant"]:
                character_id: int | None = participant.get("character_id")
                return character_id
        return None
    side_id: int | None = (contest.state.get("sides", {}).get(data.get("side")) or {}).get(
        "character_id"
    )
    return side_id


def _sheet_ability(
    contest: Contest, character_id: int, data: dict[str, Any], user: User, *, as_you_go: bool
) -> Ability:
    """The chosen ability on the sheet, or with `new_ability` (as you go, §3.1) a new
    one added to it first."""

    ability_id = data.get("ability_id")  # none names no ability (a query would match none)
    if not (as_you_go and data.get("new_ability")):
        chosen = None if ability_id is None else _chosen(ability_id, character_id)
        if chosen is not None:
            _require_in_service(chosen, chosen.character.name)
            return chosen
    character = Character.objects.get(pk=character_id)
    if as_you_go and data.get("new_ability"):
        if character.player_id != user.pk and contest.campaign.gm_id != user.pk:
            raise ContestError(f"only {character.name}'s player or the GM can add abilities")
        try:
            added = character_services.character_ability_add(
                character=character,
                actor=user,
                name=str(data["new_ability"])[:120],
                rating=Rating.parse(data.get("rating", 13)).total,
            )
        except (ValidationError, ValueError, TypeError) as error:
            messages = getattr(error, "messages", [str(error)])
            raise ContestError("; ".join(messages)) from None
        # The only way a pick changes a sheet: the player's open pages reload theirs
        # (a pick is otherwise `sheets=False`: its offer comes with the panel).
        character_services.sheet_changed(character)
        return added
    ability = (
        None
        if ability_id is None
        else Ability.objects.filter(pk=ability_id, character=character).first()
    )
    if ability is None:
        raise ContestError(f"{character.name} has no such ability")
    return ability
