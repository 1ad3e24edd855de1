"""What every contest service shares: the refusal, the result, who the actor is,
idempotency keys and the broadcast after commit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import F, FilteredRelation, Q, QuerySet

from campaigns.models import Campaign, Membership, Role
from community.models import ResourceDraw
from questworlds_site.accounts.models import User

from ..broadcast import after_commit
from ..core.table import Actor, BaseFlow
from ..live import broadcast_contest
from ..models import Contest, ContestEvent

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


def actor_for(
    campaign: Campaign, user: User, read: list[tuple[str, int | None]] | None = None
) -> Actor:
    """The user as an actor at this campaign's table, or PermissionDenied. A player's
    membership and the characters they play here are read in one query, or come as
    `read` (their role and each character's id, or None for none, one row each) from
    the caller's own statement (`member_rows`)."""
    if not getattr(user, "is_authenticated", False):
        raise PermissionDenied("not a member of this campaign")
    if campaign.gm_id == user.pk:
        # The GM acts for every character: no lookup needed.
        return Actor(user_id=user.pk, role=str(Role.GM))
    if read is not None:
        rows = read
    else:
        here = Q(user__characters__campaign=campaign)
        rows = list(
            Membership.objects.filter(campaign=campaign, user=user)
            .annotate(played=FilteredRelation("user__characters", condition=here))
            .values_list("role", "played__id")
        )
    if not rows:
        raise PermissionDenied("not a member of this campaign")
    role = str(rows[0][0])
    if role != Role.PLAYER:
        return Actor(user_id=user.pk, role=role)  # a spectator acts for none
    return Actor(
        user_id=user.pk,
        role=role,
        character_ids=frozenset(pk for _, pk in rows if pk is not None),
    )


def with_member_rows(contests: QuerySet[Contest], user: User | int) -> QuerySet[Contest]:
    """The contests with, in the same statement, the user's role in the campaign
    (`member_role`) and each character they play there (`played_id`): one row a
    character (one, with None, for none), and `member_role` None on every row if the
    user (or the user of that id) is no member. What `actor_for` reads, for
    `member_rows`."""
    if not isinstance(user, int) and not getattr(user, "is_authenticated", False):
        return contests
    return contests.annotate(**_membership("campaign", "user", user, "characters", "player"))


def with_actor_rows(events: QuerySet[ContestEvent], campaign_id: int) -> QuerySet[ContestEvent]:
    """The events in order with, in the same statement, each actor's role in the
    campaign now (`member_role`) and each character they play there (`played_id`): one
    row an event and character, as `with_member_rows` reads a contest's. What an undo's
    replay reads of who did each step, for `member_rows`."""
    annotations = _membership("actor", "campaign_id", campaign_id, "characters", "campaign_id")
    return events.annotate(**annotations).order_by("seq", F("played_id"))


def _membership(
    via: str, member_key: str, value: Any, characters: str, character_key: str
) -> dict[str, Any]:
    """A membership and the characters played, joined `via` a relation (the contest's
    campaign, or the event's actor) on the other side's `value` (the user, or the
    campaign): `member_role` and `played_id`, for `member_rows`."""
    member = f"{via}__memberships"
    mine = f"{via}__{characters}"
    return {
        "member": FilteredRelation(member, condition=Q(**{f"{member}__{member_key}": value})),
        "mine": FilteredRelation(mine, condition=Q(**{f"{mine}__{character_key}": value})),
        "member_role": F("member__role"),
        "played_id": F("mine__id"),
    }


def member_rows(rows: list[Contest] | list[ContestEvent]) -> list[tuple[str, int | None]]:
    """`actor_for`'s `read` from the rows of one contest read `with_member_rows` (or of
    one actor's events read `with_actor_rows`)."""
    read = [(getattr(r, "member_role", None), getattr(r, "played_id", None)) for r in rows]
    return [(role, played) for role, played in read if role]


def _check_key(key: object) -> str:
    if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY_LENGTH:
        raise ContestError("every action needs an idempotency key of 1 to 64 characters")
    return key


def _approved_draw(campaign: Campaign, draw_id: Any) -> ResourceDraw:
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


def _emit(contest: Contest, event: ContestEvent, flow: BaseFlow | None = None) -> None:
    """Broadcast the contest once the action commits, from the objects it used; a
    failure to render or send is logged and never fails the committed action."""
    after_commit(lambda: broadcast_contest(contest, event, flow))


def _message(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return "; ".join(error.messages)
    return str(error)
