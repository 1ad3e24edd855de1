"""Every change to a campaign: membership, invitations, options, the NPC library,
seasons, sessions and the public link.

Each service checks that the actor may make the change (views check first; this is the
last line), validates with `full_clean`, and raises `ValidationError` with a message
meant for the person who tried, changing nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.utils import timezone

from characters import services as character_services
from characters.models import Character
from community.services import community_session_start
from contests.broadcast import send_to_table_on_commit
from contests.core.rules.dice import Roller, d20
from contests.core.rules.errors import RulesError
from contests.core.rules.options import RulesOptions
from contests.core.rules.ratings import Rating
from questworlds_site.accounts.models import User

from . import webhooks
from .models import Campaign, Invitation, Membership, Npc, Role, Season, Session, WebhookKind
from .recap import draft_recap
from .webhooks import texts as webhook_texts

INVITATION_DAYS_DEFAULT = 7
INVITATION_DAYS_MAX = 30


def _require_gm(campaign: Campaign, actor: User) -> None:
    if campaign.gm_id != getattr(actor, "pk", None):
        raise PermissionDenied("Only the campaign's GM may do that.")


def _lock(campaign: Campaign) -> Campaign:
    """Serialise changes to one campaign (membership, sessions) on PostgreSQL."""
    return Campaign.objects.select_for_update().get(pk=campaign.pk)


def _revoke_table_access(campaign: Campaign, user_id: int) -> None:
    # Closes the user's open table sockets once the change is committed (4404).
    send_to_table_on_commit(campaign.pk, {"type": "table.revoke", "user_id": user_id})


def _role_changed_at_table(campaign: Campaign, user_id: int) -> None:
    # Closes the user's open table sockets once committed (4409): their pages reload
    # with the new role, so none keeps a view (the GM's) its reader no longer has.
    send_to_table_on_commit(campaign.pk, {"type": "table.role", "user_id": user_id})


def _session_at_table(campaign: Campaign, text: str, open_session: Session | None) -> None:
    # Once committed, every open page at the table says so and reloads its chat, the
    # GM's frame panel and the player's sheet (hero points given or turned to
    # experience, states waned). The open session's id marks the page's new state.
    session_id = open_session.pk if open_session is not None else None
    send_to_table_on_commit(
        campaign.pk, {"type": "table.session", "text": text, "session_id": session_id}
    )


# --------------------------------------------------------------------- campaigns


@transaction.atomic
def campaign_create(*, gm: User, name: str, genre: str = "", description: str = "") -> Campaign:
    """A new campaign run by `gm`, with every option at its default."""
    campaign = Campaign(
        name=name.strip(),
        genre=genre.strip(),
        description=description.strip(),
        gm=gm,
        rules=RulesOptions().to_json(),
    )
    campaign.full_clean()
    campaign.save()
    return campaign


@transaction.atomic
def campaign_update(
    *, campaign: Campaign, actor: User, name: str, genre: str = "", description: str = ""
) -> Campaign:
    _require_gm(campaign, actor)
    campaign.name, campaign.genre, campaign.description = (
        name.strip(),
        genre.strip(),
        description.strip(),
    )
    campaign.full_clean()
    campaign.save(update_fields=["name", "genre", "description"])
    return campaign


APP_OPTIONS = (
    "long_contest_default",
    "apply_consequences",
    "roll_visibility",
    "physical_dice",
    "resistance_progression",
)


@transaction.atomic
def campaign_options_update(*, campaign: Campaign, actor: User, **options: Any) -> Campaign:
    """Change the campaign options (RULINGS.md) the GM may set.

    The rules options (base_resistance, better_roll, quick_augment_rounding,
    hero_point_economy, keywords) are checked by the rules engine's `RulesOptions`; the
    table's own options by the model's choices. Options not given keep their value.
    The base resistance is also the current season's (§2.9).
    """
    _require_gm(campaign, actor)
    rules_names = set(RulesOptions.__dataclass_fields__)
    unknown = set(options) - rules_names - set(APP_OPTIONS)
    if unknown:
        raise ValidationError(f"Unknown campaign option(s): {', '.join(sorted(unknown))}.")
    rules = campaign.rules_options.to_json()
    rules.update({k: v for k, v in options.items() if k in rules_names})
    try:
        campaign.rules = RulesOptions.from_json(rules).to_json()
    except RulesError as exc:
        raise ValidationError(str(exc)) from exc
    for name in APP_OPTIONS:
        if name in options:
            setattr(campaign, name, options[name])
    campaign.full_clean()
    campaign.save(update_fields=["rules", *APP_OPTIONS])
    campaign.seasons.filter(number=_latest_season_number(campaign)).update(
        base_resistance=campaign.rules["base_resistance"]
    )
    return campaign


@transaction.atomic
def campaign_gm_hand_over(*, campaign: Campaign, actor: User, new_gm: User) -> Campaign:
    """The GM hands the campaign to another member, and stays on as a player."""
    campaign = _lock(campaign)
    _require_gm(campaign, actor)
    membership = Membership.objects.filter(campaign=campaign, user=new_gm).first()
    if membership is None:
        raise ValidationError("The new GM must already be a member of the campaign.")
    old_gm = campaign.gm
    membership.delete()
    campaign.gm = new_gm
    campaign.save(update_fields=["gm"])
    Membership.objects.create(campaign=campaign, user=old_gm, role=Role.PLAYER)
    _role_changed_at_table(campaign, old_gm.pk)
    _role_changed_at_table(campaign, new_gm.pk)
    return campaign


@transaction.atomic
def campaign_publish(*, campaign: Campaign, actor: User) -> str:
    """Give the archive a public read-only link (a new one each time); returns its token."""
    _require_gm(campaign, actor)
    campaign.public_token = secrets.token_urlsafe(24)
    campaign.save(update_fields=["public_token"])
    return campaign.public_token


@transaction.atomic
def campaign_unpublish(*, campaign: Campaign, actor: User) -> Campaign:
    """Revoke the public link: it answers "not found" from now on."""
    _require_gm(campaign, actor)
    campaign.public_token = None
    campaign.save(update_fields=["public_token"])
    return campaign


# --------------------------------------------------------------------- invitations


@transaction.atomic
def invitation_create(
    *,
    campaign: Campaign,
    actor: User,
    role: str = Role.PLAYER,
    days: int = INVITATION_DAYS_DEFAULT,
    max_uses: int | None = 1,
) -> Invitation:
    """A link for joining as a player or a spectator, valid for `days` days and
    `max_uses` joins (None: any number until it expires)."""
    _require_gm(campaign, actor)
    if role not in (Role.PLAYER, Role.SPECTATOR):
        raise ValidationError("An invitation is for a player or a spectator.")
    if not 1 <= days <= INVITATION_DAYS_MAX:
        raise ValidationError(f"An invitation lasts 1 to {INVITATION_DAYS_MAX} days.")
    invitation = Invitation(
        campaign=campaign,
        token=secrets.token_urlsafe(24),
        role=role,
        created_by=actor,
        expires_at=timezone.now() + timedelta(days=days),
        max_uses=max_uses,
    )
    invitation.full_clean()
    invitation.save()
    return invitation


@transaction.atomic
def invitation_revoke(*, invitation: Invitation, actor: User) -> Invitation:
    _require_gm(invitation.campaign, actor)
    if invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
    return invitation


def invitation_for_token(token: str) -> Invitation:
    """The invitation behind a link, or a clear error for a link that never existed."""
    invitation = (
        Invitation.objects.select_related("campaign", "campaign__gm").filter(token=token).first()
    )
    if invitation is None:
        raise ValidationError(
            "This invitation link is not valid. Check that you copied all of it, "
            "or ask the GM for a new one."
        )
    return invitation


def invitation_problem_for(invitation: Invitation, user: User) -> str | None:
    """Why `user` cannot join with this invitation, or None."""
    problem = invitation.problem()
    if problem:
        return problem
    campaign = invitation.campaign
    if campaign.gm_id == user.pk:
        return f"You are the GM of {campaign.name}; you do not need an invitation."
    membership = Membership.objects.filter(campaign=campaign, user=user).first()
    if membership is not None:
        return f"You are already a {membership.get_role_display().lower()} in {campaign.name}."
    return None


@transaction.atomic
def invitation_accept(*, token: str, user: User, character: Character | None = None) -> Membership:
    """Join a campaign with an invitation link.

    A player joins with one of their characters not in any campaign, or with none and
    creates one afterwards in the character wizard (which asks the creation method, §3).
    A spectator brings none.
    """
    invitation = invitation_for_token(token)
    invitation = (
        Invitation.objects.select_for_update().select_related("campaign").get(pk=invitation.pk)
    )
    problem = invitation_problem_for(invitation, user)
    if problem:
        raise ValidationError(problem)
    campaign = invitation.campaign
    if character is not None:
        if invitation.role != Role.PLAYER:
            raise ValidationError("A spectator joins without a character.")
        if character.player_id != user.pk:
            raise ValidationError("You can only join with a character of your own.")
        if character.campaign_id is not None:
            raise ValidationError(
                f"{character.name} already plays in {character.campaign}; "
                "choose another character or create one."
            )
    try:
        with transaction.atomic():
            membership = Membership.objects.create(
                campaign=campaign, user=user, role=invitation.role, invitation=invitation
            )
    except IntegrityError as exc:  # a second join racing this one
        raise ValidationError(f"You are already a member of {campaign.name}.") from exc
    Invitation.objects.filter(pk=invitation.pk).update(uses=F("uses") + 1)
    if character is not None:
        character_services.character_campaign_join(
            character=character, actor=user, campaign=campaign
        )
    return membership


# --------------------------------------------------------------------- membership


def _detach_characters(campaign: Campaign, user: User) -> None:
    """A member who goes takes their characters along (the archive keeps their names)."""
    for character in Character.objects.filter(campaign=campaign, player=user):
        character_services.character_campaign_join(character=character, actor=user, campaign=None)


@transaction.atomic
def membership_remove(*, campaign: Campaign, actor: User, membership: Membership) -> None:
    """The GM removes a member: they lose access at once, open table sockets included."""
    campaign = _lock(campaign)
    _require_gm(campaign, actor)
    if membership.campaign_id != campaign.pk:
        raise ValidationError("That person is not a member of this campaign.")
    user = membership.user
    membership.delete()
    _detach_characters(campaign, user)
    _revoke_table_access(campaign, user.pk)


@transaction.atomic
def membership_leave(*, campaign: Campaign, user: User) -> None:
    """A member leaves. The GM cannot: they hand the campaign over first."""
    campaign = _lock(campaign)
    if campaign.gm_id == user.pk:
        raise ValidationError(
            "You are the GM: hand the campaign over to another member before you leave."
        )
    membership = Membership.objects.filter(campaign=campaign, user=user).first()
    if membership is None:
        raise ValidationError(f"You are not a member of {campaign.name}.")
    membership.delete()
    _detach_characters(campaign, user)
    _revoke_table_access(campaign, user.pk)


# --------------------------------------------------------------------- NPC library


def _parse_rating(rating: int | str) -> int:
    try:
        return Rating.parse(rating).total if isinstance(rating, str) else Rating(rating).total
    except RulesError as exc:
        raise ValidationError({"rating": str(exc)}) from exc


@transaction.atomic
def npc_create(
    *,
    campaign: Campaign,
    actor: User,
    name: str,
    rating: int | str,
    description: str = "",
    notes: str = "",
) -> Npc:
    """Add a named opponent or resistance to the library (rating as `14`, `7M`, `3M2`)."""
    _require_gm(campaign, actor)
    npc = Npc(
        campaign=campaign,
        name=name.strip(),
        rating=_parse_rating(rating),
        description=description.strip(),
        notes=notes.strip(),
    )
    npc.full_clean()
    npc.save()
    return npc


@transaction.atomic
def npc_update(
    *, npc: Npc, actor: User, name: str, rating: int | str, description: str = "", notes: str = ""
) -> Npc:
    _require_gm(npc.campaign, actor)
    npc.name, npc.rating = name.strip(), _parse_rating(rating)
    npc.description, npc.notes = description.strip(), notes.strip()
    npc.full_clean()
    npc.save()
    return npc


@transaction.atomic
def npc_delete(*, npc: Npc, actor: User) -> None:
    _require_gm(npc.campaign, actor)
    npc.delete()


# --------------------------------------------------------------------- seasons and sessions


def _latest_season_number(campaign: Campaign) -> int:
    return campaign.seasons.aggregate(n=Max("number"))["n"] or 0


@transaction.atomic
def season_start(
    *, campaign: Campaign, actor: User, name: str = "", progression: int | None = None
) -> Season:
    """Begin the next season. The base resistance rises by the campaign's resistance
    progression (§2.9: +3, +6 or +9; none, §2.9.1), or by `progression` when the GM
    picks the step for this season, and becomes the campaign's base resistance."""
    campaign = _lock(campaign)
    _require_gm(campaign, actor)
    if campaign.open_session() is not None:
        raise ValidationError("End the session in progress before starting a new season.")
    step = campaign.resistance_progression if progression is None else progression
    if step not in (0, 3, 6, 9):
        raise ValidationError("The resistance rises by +3, +6 or +9 a season, or not at all.")
    base = campaign.rules_options.base_resistance
    previous = _latest_season_number(campaign)
    if previous:
        base += step
    season = Season(campaign=campaign, number=previous + 1, name=name.strip(), base_resistance=base)
    season.full_clean()
    season.save()
    if base != campaign.rules_options.base_resistance:
        campaign.rules = {**campaign.rules_options.to_json(), "base_resistance": base}
        campaign.save(update_fields=["rules"])
    return season


@transaction.atomic
def session_start(
    *,
    campaign: Campaign,
    actor: User,
    title: str = "",
    attendees: Iterable[Character] | None = None,
    started_at: datetime | None = None,
    roller: Roller | None = None,
) -> Session:
    """Open the next session. Each attending character's hero points refresh per the
    campaign's economy (R15: +1 advances, +3 classic) through the character ledger, and
    the community's penalised resources face their crisis tests (§8.2.5).

    Without `attendees`, every character of the campaign attends. The first session
    starts Season 1 when the GM has not started a season.
    """
    campaign = _lock(campaign)
    _require_gm(campaign, actor)
    in_progress = campaign.open_session()
    if in_progress is not None:
        raise ValidationError(f"{in_progress} is still in progress: end it first.")
    characters = list(campaign.characters.all() if attendees is None else attendees)
    strangers = [c.name for c in characters if c.campaign_id != campaign.pk]
    if strangers:
        raise ValidationError(f"Not characters of this campaign: {', '.join(strangers)}.")
    season = campaign.seasons.order_by("-number").first() or season_start(
        campaign=campaign, actor=actor
    )
    number = (campaign.sessions.aggregate(n=Max("number"))["n"] or 0) + 1
    session = Session(
        campaign=campaign,
        season=season,
        number=number,
        title=title.strip(),
        started_at=started_at or timezone.now(),
    )
    session.full_clean()
    session.save()
    session.attendees.set(characters)
    for character in characters:
        character_services.character_session_start(character=character, actor=actor)
    # §8.2.5: the community's penalised resources face their crisis tests (the
    # community page shows the results live).
    community_session_start(campaign=campaign, actor=actor, roller=roller or d20)
    _session_at_table(campaign, f"{session} has begun: the chat is open.", session)
    # Discord, if the GM relays it: after commit, off the request (campaigns/webhooks).
    webhooks.announce(campaign, WebhookKind.SESSION_STARTED, webhook_texts.session_started(session))
    return session


@transaction.atomic
def session_end(*, session: Session, actor: User, recap: str | None = None) -> Session:
    """Close the session: each attendee's unspent hero points become XP (advances) or
    are lost (classic), and conditions that wane at a session's end (hurt, fresh;
    §2.11.4) end for every character of the campaign. The recap (Markdown) is the
    GM's `recap` if given, else drafted from the session's events; it stays a draft
    for the GM alone until published (`session_recap_publish`)."""
    campaign = _lock(session.campaign)
    _require_gm(campaign, actor)
    session = Session.objects.select_for_update().get(pk=session.pk)
    if not session.is_open:
        raise ValidationError(f"{session} has already ended.")
    for character in session.attendees.filter(in_session=True):
        character_services.character_session_end(character=character, actor=actor)
    for character in campaign.characters.filter(conditions__ended_at__isnull=True).distinct():
        character_services.character_conditions_wane(
            character=character, actor=actor, reason=str(session)
        )
    session.ended_at = timezone.now()
    # The recap is the GM's draft until published: theirs if written, else the app's
    # from what happened (issue 30); players see nothing of it yet.
    session.recap = (recap or "").strip() or draft_recap(session)
    session.recap_published_at = None
    session.full_clean()
    session.save(update_fields=["ended_at", "recap", "recap_published_at"])
    _session_at_table(
        campaign, f"{session} has ended: the chat is closed until the GM starts the next one.", None
    )
    webhooks.announce(campaign, WebhookKind.SESSION_ENDED, webhook_texts.session_ended(session))
    return session


@transaction.atomic
def session_update(*, session: Session, actor: User, title: str, recap: str) -> Session:
    """Edit a session's title and recap (Markdown), during or after it; a published
    recap stays published (players read the edit), a draft stays a draft."""
    _require_gm(session.campaign, actor)
    session.title, session.recap = title.strip(), recap.strip()
    session.full_clean()
    session.save(update_fields=["title", "recap"])
    return session


@transaction.atomic
def session_recap_publish(*, session: Session, actor: User) -> Session:
    """Show the session's recap to the players, the public link and the chronicle."""
    _require_gm(session.campaign, actor)
    session = Session.objects.select_for_update().get(pk=session.pk)
    if not session.recap.strip():
        raise ValidationError("There is nothing to publish yet: write the recap first.")
    if session.recap_published_at is None:
        session.recap_published_at = timezone.now()
        session.save(update_fields=["recap_published_at"])
        campaign = Campaign.objects.only("id", "name", "relayed_kinds").get(pk=session.campaign_id)
        webhooks.announce(
            campaign, WebhookKind.RECAP_PUBLISHED, webhook_texts.recap_published(session)
        )
    return session


@transaction.atomic
def session_recap_withdraw(*, session: Session, actor: User) -> Session:
    """Take a published recap back to a draft the players no longer see."""
    _require_gm(session.campaign, actor)
    session = Session.objects.select_for_update().get(pk=session.pk)
    session.recap_published_at = None
    session.save(update_fields=["recap_published_at"])
    return session
