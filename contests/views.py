"""The live table page and the HTTP (htmx) way to act at it."""

from __future__ import annotations

import functools
import re
import uuid
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from campaigns.access import get_campaign_for_gm, get_campaign_for_user, role_in_campaign
from characters.models import Ability, Character
from questworlds_site import inputs, throttle
from questworlds_site.admission import BUSY_MESSAGE, sheds_when_busy
from questworlds_site.middleware import checks_its_own_input
from questworlds_site.requests import AuthenticatedRequest

from . import live, panels, selectors
from .choices import FRAME_CHOICES
from .core.terms import PROPOSED_KINDS
from .live.sheets import card, my_sheets
from .models import ContestKind, ProposalStatus
from .services import ChatError, chat_post
from .table_actions import perform

CONTROL_FIELDS = {"action", "contest", "key", "seq", "csrfmiddlewaretoken"}
# Forms post lists of rows as "participants.2.name" (at most 100 rows of a list).
LIST_FIELDS = {"participants"}
# Fields a form posts several times: a list of every value.
MULTI_VALUE = ("states", "characters")
# Groups of fields whose empty value is itself a choice ("none", in the GM's consequence
# selects): kept, so that "none" for every side is not read as "no edit" (the suggestion).
BLANK_IS_A_CHOICE = ("edit.",)
LIST_ROW = re.compile(r"^([a-z_]+)\.([0-9]{1,2})\.([a-z_]+)$")


def _table_context(campaign, role: str, user) -> dict:
    contest = live.current_contest(campaign.pk)
    characters = panels.campaign_characters(campaign)
    mine = [c for c in characters if c.player_id == user.pk]
    table = live.contest_context(contest, role, reader=user.pk)
    return {
        **panels.chat_panel_context(campaign, role, user, mine),
        **(panels.frame_panel_context(campaign, characters) if role == "gm" else {}),
        "characters": characters,
        "new_key": uuid.uuid4().hex,
        **table,
        **live.page_fragments(table),
    }


def table(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """A campaign's live table; updates arrive over the websocket."""
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    return render(request, "contests/table.html", _table_context(campaign, role, request.user))


@require_GET
def table_me(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """A player's own characters at the table (issue 15): hero points, conditions with
    what they do, and the abilities. Reloaded by the page after a change at the table
    that can change it (static/js/table.js), so read as rows: who may see it, the
    characters, their abilities, their active conditions and the contest (issue 16).
    The abilities the table waits on them to pick, one click each, come with their copy
    of the panel (`live.render_audiences`), not from here: a pick or a framing changes
    no sheet."""
    role = role_in_campaign(request.user, campaign_id)  # members only (404 otherwise)
    characters, ability_rows, condition_rows = my_sheets(campaign_id, request.user.pk)
    ids = [pk for pk, _, _ in characters]
    abilities: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    states: dict[int, list[str]] = {pk: [] for pk in ids}
    for pk, character_id, name, kind, rating, sidekick in ability_rows:
        abilities[character_id].append(
            {
                "id": pk,
                "shown_name": Ability.name_shown(name, sidekick),
                "rating_text": Ability.text_of_rating(kind, rating),
            }
        )
    for character_id, code in condition_rows:
        states[character_id].append(code)
    # The step the sheet was drawn at: the page reloads it after a reconnect unless the
    # contest shown is still at that step (static/js/table.js).
    contest = live.current_contest(campaign_id)
    cards = [card(row, abilities[row[0]], states[row[0]]) for row in characters]
    context = {"cards": cards, "role": role, "contest": contest}
    return render(request, "contests/_my_character.html", context)


def _message_from_post(post) -> dict:
    """The form as a table message: only its field names are read here.

    "pc.character_id" -> data["pc"]["character_id"], "participants.2.name" -> the third
    row of data["participants"], and the multi-value fields as lists. Every value stays
    the string the form posted; perform() reads it through the action's typed model,
    which takes a string of digits for a whole-number field (contests/core/actions/)."""
    data: dict = {}
    rows: dict[str, dict[int, dict]] = {}
    for name, value in post.items():
        if name in CONTROL_FIELDS or name in MULTI_VALUE:
            continue
        if value == "" and not name.startswith(BLANK_IS_A_CHOICE):
            continue
        # "participants.2.name" -> data["participants"][2]["name"]
        row = LIST_ROW.match(name)
        if row and row.group(1) in LIST_FIELDS:
            field, index, leaf = row.group(1), int(row.group(2)), row.group(3)
            rows.setdefault(field, {}).setdefault(index, {})[leaf] = value
            continue
        # "pc.character_id" -> data["pc"]["character_id"]
        *parents, leaf = name.split(".", 1)
        target = data
        for parent in parents:
            target = target.setdefault(parent, {})
            if not isinstance(target, dict):
                break
        else:
            target[leaf] = value
    for field, by_index in rows.items():
        # A blank row posts nothing: it stays in its place as {} so errors name the row.
        data[field] = [by_index.get(i, {}) for i in range(max(by_index) + 1)]
    for field in MULTI_VALUE:
        if field in post:
            # The ticked boxes (framing a group contest: the other player characters).
            data[field] = [v for v in post.getlist(field) if v != ""]
    return {
        "action": post.get("action"),
        "contest": post.get("contest") or None,
        "key": post.get("key"),
        "seq": post.get("seq") or None,
        "data": data,
    }


@functools.cache
def _busy() -> str:
    """What an action refused by a full process says (questworlds_site/admission.py)."""
    return live.render_error(BUSY_MESSAGE)


@sheds_when_busy(_busy)
@checks_its_own_input
@require_POST
def act(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """Perform one table action from a form.

    A browser's (htmx) action that was taken is answered with an acknowledgement only:
    the empty error line and the step's number. The broadcast over the socket carries
    the new panel to every browser at the table, the actor's included, so rendering it
    here again would be work nobody reads (issue 16); a page that does not see that step
    arrive soon after the acknowledgement asks for the full state (static/js/table.js).
    A refused or repeated action, or a plain form post (no scripts), gets the current
    panel with the message, so the page shows where the table really is.

    Who may act is checked by the services, under the contest's lock, at the moment the
    action is taken; an action they took needs no second check here (one query less
    for every action, issue 16). Any other answer reads the person's role for the panel,
    and an outsider, whom the services refused, gets 404 as from every campaign page."""
    reply = perform(
        campaign_id=campaign_id,
        user=request.user,
        message=_message_from_post(request.POST),
        form=True,
    )
    if request.htmx and reply.created and not reply.error:
        return HttpResponse(live.render_error("") + live.render_ack(reply.seq))
    role = role_in_campaign(request.user, campaign_id)  # 404 for outsiders
    contest = live.current_contest(campaign_id)
    html = live.render_contest(contest, role, reader=request.user.pk)
    if reply.error:
        # htmx swaps only 2xx answers; a plain form post gets a real 400 (429: too many).
        status = 200 if request.htmx else (429 if reply.retry_after else 400)
        html += live.render_error(reply.error)
    elif not reply.created:
        status = 200
        html += live.render_error("Already done: that action was received before.", kind="notice")
    else:
        status = 200
        html += live.render_error("")
    response = HttpResponse(html, status=status)
    if reply.retry_after:
        response["Retry-After"] = str(reply.retry_after)
    return response


@sheds_when_busy(_busy)
@require_POST
def chat(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """Say one line at the table from the chat form; answers with the reader's chat list.

    A refused line (the rate limit table actions share, a spectator, bad input, no
    session in progress) answers 400 with its reason in the table's error line (429 to a
    plain form post over the limit) and stores nothing. NUL characters and oversized
    values are refused before this view (RejectNulMiddleware)."""
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    error, retry_after = "", 0
    refusal = throttle.table_action(request.user.pk)
    if refusal is not None:
        error, retry_after = refusal.message, refusal.retry_after
    else:
        character = request.POST.get("character", "")
        try:
            chat_post(
                campaign=campaign,
                user=request.user,
                kind=request.POST.get("kind", ""),
                text=request.POST.get("text", ""),
                character_id=_chat_character(character),
            )
        except ChatError as refused:
            error = f"{refused} Nothing was sent."
        except PermissionDenied as denied:
            error = f"Not allowed: {denied}. Nothing was sent."
    if error:
        status = 429 if retry_after and not request.htmx else 400
        response = HttpResponse(live.render_error(error), status=status)
        if retry_after:
            response["Retry-After"] = str(retry_after)
        return response
    html = live.render_chat(campaign.open_session(), role, request.user.pk)
    return HttpResponse(html + live.render_error(""))


@require_GET
def chat_panel(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """The table's chat panel for this reader, as the page reloads it when a session
    begins or ends while it is open (its form comes and goes with the session)."""
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    mine = list(
        Character.objects.filter(campaign=campaign, player=request.user)
        .order_by("name")
        .only("id", "name")
    )
    context = panels.chat_panel_context(campaign, role, request.user, mine)
    return render(request, "contests/_chat.html", context)


@require_GET
def frame_panel(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """The GM's frame panel, as the GM's page reloads it when a session begins or ends
    while it is open (framing needs a session). The GM's only: other members get 403."""
    campaign = get_campaign_for_gm(request.user, campaign_id)
    context = panels.frame_panel_context(campaign, panels.campaign_characters(campaign))
    context["open_session"] = campaign.open_session()
    # Amending a player's proposal (issue 30): the form filled in from it.
    wanted = inputs.an_id(request.GET.get("proposal", ""))
    proposal = selectors.open_proposal(campaign, wanted) if wanted is not None else None
    context["proposal"] = proposal
    context["proposal_words"] = selectors.proposal_words(proposal) if proposal else ""
    return render(request, "contests/table.html#frame_section", context)


@require_GET
def proposals_panel(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """The session's proposals for this reader (issue 30), as the page reloads them after
    each change: every member reads them; a player proposes for their characters and
    withdraws their own; the GM frames, amends or declines. With `?in=bar`, the GM's
    "your move" lines: the proposals waiting for an answer, with their forms."""
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    session = campaign.open_session()
    proposals = [
        {
            "id": p.pk,
            "words": selectors.proposal_words(p),
            "status": p.status,
            "open": p.status == ProposalStatus.OPEN and not p.lapsed,
            "mine": p.player_id == request.user.pk,
            "player": p.player.shown_name if p.player else "A player",
        }
        for p in selectors.session_proposals(session)
    ]
    characters = []
    if role == "player" and session is not None:
        characters = list(
            Character.objects.filter(campaign=campaign, player=request.user)
            .prefetch_related(
                Prefetch(
                    "abilities",
                    queryset=Ability.objects.filter(Ability.usable_as_own())
                    .select_related("follower")
                    .order_by("position", "id"),
                )
            )
            .order_by("name", "id")
        )
    context = {
        "campaign": campaign,
        "role": role,
        "session": session,
        "proposals": proposals,
        "waiting": [p for p in proposals if p["open"]],
        "has_open": any(p["open"] and p["mine"] for p in proposals),
        "characters": characters,
        "kinds": [(k, ContestKind(k).label) for k in PROPOSED_KINDS],
        "levels": FRAME_CHOICES["levels"],
    }
    if request.GET.get("in") == "bar":
        return render(request, "contests/_proposals.html#bar", context)
    return render(request, "contests/_proposals.html", context)


def _chat_character(value: str) -> int | None:
    """The chat form's character: "" speaks as yourself; anything but an id of a
    character (a forged value) is refused as not yours."""
    if value == "":
        return None
    character_id = inputs.an_id(value)  # digits 0-9 only: "²" and "١" are no id
    if character_id is None:
        raise ChatError("You may speak only as one of your own characters in this campaign.")
    return character_id
