"""Campaign pages: the campaign, its options and members, invitations, NPCs, seasons,
sessions, and its exports and import."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ValidationError
from django.db import DataError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.views.decorators.http import require_POST

from questworlds_site.requests import AuthenticatedRequest, HtmxRequest

from .. import services
from ..access import (
    campaign_role,
    campaigns_for_user,
    check_can_import_campaigns,
    get_archive_for_user,
    get_campaign_for_gm,
    get_campaign_for_user,
)
from ..forms import (
    CampaignForm,
    CampaignImportForm,
    CampaignOptionsForm,
    HandOverForm,
    InvitationForm,
    JoinForm,
    NpcForm,
)
from ..models import Invitation, Membership, Npc, Role
from ..transfer import campaign_chronicle, campaign_export, campaign_import, missing_usernames


def _posted(request: AuthenticatedRequest):
    """The form data of a POST (even an empty one: a spectator's join has no fields)."""
    return request.POST if request.method == "POST" else None


def _error(request: AuthenticatedRequest, exc: ValidationError) -> None:
    messages.error(request, " ".join(exc.messages))


def _form_page(request: AuthenticatedRequest, form, **context) -> HttpResponse:
    """The one page every single-form step uses (title, intro, form, submit); a form
    sent back with its errors answers 400."""
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "campaigns/form.html", {"form": form, **context}, status=status)


# --------------------------------------------------------------------- campaigns


@login_not_required
def landing(request: HtmxRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    return render(request, "landing.html")


def home(request: AuthenticatedRequest) -> HttpResponse:
    """The signed-in front page: the campaigns you run or play in."""
    campaigns = campaigns_for_user(request.user)
    return render(request, "campaigns/home.html", {"campaigns": campaigns})


def campaign_create(request: AuthenticatedRequest) -> HttpResponse:
    form = CampaignForm(_posted(request))
    if request.method == "POST" and form.is_valid():
        campaign = services.campaign_create(gm=request.user, **form.cleaned_data)
        messages.success(request, f"{campaign.name} is ready. Invite your players.")
        return redirect("campaign_members", campaign.pk)
    return _form_page(request, form, title="New campaign", submit="Create the campaign")


def campaign_detail(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    context = {
        "campaign": campaign,
        "role": role,
        "members": campaign.memberships.select_related("user"),
        "characters": campaign.characters.select_related("player"),
        "plays_a_character": campaign.characters.filter(player=request.user).exists(),
        "open_session": campaign.open_session(),
        "latest_season": campaign.seasons.order_by("-number").first(),
        "recent_sessions": campaign.sessions.order_by("-number")[:3],
        # The latest published recap for everyone; the GM's drafts waiting for them.
        "latest_recap": campaign.sessions.filter(recap_published_at__isnull=False)
        .exclude(recap="")
        .order_by("-number")
        .first(),
        "recap_drafts": list(
            campaign.sessions.filter(recap_published_at__isnull=True, ended_at__isnull=False)
            .exclude(recap="")
            .order_by("number")
        )
        if role == "gm"
        else [],
    }
    return render(request, "campaigns/detail.html", context)


def campaign_edit(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    form = CampaignForm(_posted(request), instance=campaign)
    if request.method == "POST" and form.is_valid():
        services.campaign_update(campaign=campaign, actor=request.user, **form.cleaned_data)
        messages.success(request, "Saved.")
        return redirect("campaign_detail", campaign.pk)
    return _form_page(request, form, campaign=campaign, title="Edit the campaign", submit="Save")


def campaign_options(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """Members read the options; the GM changes them."""
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    form = CampaignOptionsForm.for_campaign(campaign, _posted(request))
    if request.method == "POST":
        campaign = get_campaign_for_gm(request.user, campaign_id)
        if form.is_valid():
            try:
                services.campaign_options_update(
                    campaign=campaign, actor=request.user, **form.cleaned_data
                )
            except ValidationError as exc:
                form.add_error(None, exc)
            else:
                messages.success(request, "The campaign options are saved.")
                return redirect("campaign_options", campaign.pk)
    context = {"campaign": campaign, "role": role, "form": form}
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "campaigns/options.html", context, status=status)


def campaign_members(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    return _members_page(request, campaign, role)


def _members_page(request: AuthenticatedRequest, campaign, role: str, **failed) -> HttpResponse:
    """The members page; with `failed` (the GM's form sent back with its errors), a 400."""
    context = {
        "campaign": campaign,
        "role": role,
        "members": campaign.memberships.select_related("user"),
    }
    if role == Role.GM:
        context |= {
            "invitations": campaign.invitations.all(),
            "invitation_form": InvitationForm(),
            "hand_over_form": HandOverForm(campaign=campaign),
            **failed,
        }
    return render(request, "campaigns/members.html", context, status=400 if failed else 200)


@require_POST
def invitation_create(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    form = InvitationForm(request.POST)
    if form.is_valid():
        invitation = services.invitation_create(
            campaign=campaign, actor=request.user, **form.cleaned_data
        )
        link = request.build_absolute_uri(reverse("invitation_accept", args=[invitation.token]))
        messages.success(request, f"New {invitation.get_role_display().lower()} link: {link}")
        return redirect("campaign_members", campaign.pk)
    form.add_error(None, "The invitation was not created.")
    return _members_page(request, campaign, Role.GM, invitation_form=form)


@require_POST
def invitation_revoke(
    request: AuthenticatedRequest, campaign_id: int, invitation_id: int
) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    invitation = get_object_or_404(Invitation, pk=invitation_id, campaign=campaign)
    services.invitation_revoke(invitation=invitation, actor=request.user)
    messages.success(request, "The invitation is revoked; its link no longer works.")
    return redirect("campaign_members", campaign.pk)


def invitation_accept(request: AuthenticatedRequest, token: str) -> HttpResponse:
    """The page an invitation link opens: who invites you, as what, and with which
    character you join. Bad links say why and change nothing."""
    try:
        invitation = services.invitation_for_token(token)
    except ValidationError as exc:
        return render(request, "campaigns/join.html", {"problem": exc.messages[0]}, status=404)
    problem = services.invitation_problem_for(invitation, request.user)
    form = JoinForm(_posted(request), user=request.user)
    context = {"invitation": invitation, "campaign": invitation.campaign, "form": form}
    if problem:
        return render(request, "campaigns/join.html", {**context, "problem": problem}, status=400)
    if request.method == "POST" and form.is_valid():
        character = form.cleaned_data["character"]
        try:
            services.invitation_accept(token=token, user=request.user, character=character)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            campaign = invitation.campaign
            if invitation.role == Role.PLAYER and character is None:
                # The wizard's first page asks the name, concept and creation method.
                messages.success(
                    request, f"Welcome to {campaign.name}! Now create your character for it."
                )
                return redirect(f"{reverse('characters:create')}?campaign={campaign.pk}")
            messages.success(request, f"Welcome to {campaign.name}!")
            return redirect("campaign_detail", campaign.pk)
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "campaigns/join.html", context, status=status)


@require_POST
def membership_remove(
    request: AuthenticatedRequest, campaign_id: int, membership_id: int
) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    membership = get_object_or_404(Membership, pk=membership_id, campaign=campaign)
    name = membership.user.shown_name
    services.membership_remove(campaign=campaign, actor=request.user, membership=membership)
    messages.success(request, f"{name} is no longer a member of {campaign.name}.")
    return redirect("campaign_members", campaign.pk)


@require_POST
def campaign_leave(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign, _ = get_campaign_for_user(request.user, campaign_id)
    try:
        services.membership_leave(campaign=campaign, user=request.user)
    except ValidationError as exc:
        _error(request, exc)
        return redirect("campaign_members", campaign.pk)
    messages.success(request, f"You have left {campaign.name}.")
    return redirect("home")


@require_POST
def campaign_hand_over(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    form = HandOverForm(request.POST, campaign=campaign)
    if not form.is_valid():
        form.add_error(None, "Choose a member of the campaign to be the new GM.")
        return _members_page(request, campaign, Role.GM, hand_over_form=form)
    try:
        services.campaign_gm_hand_over(
            campaign=campaign, actor=request.user, new_gm=form.cleaned_data["new_gm"]
        )
    except ValidationError as exc:
        form.add_error(None, exc)
        return _members_page(request, campaign, Role.GM, hand_over_form=form)
    new_gm = form.cleaned_data["new_gm"].shown_name
    messages.success(request, f"{new_gm} is now the GM; you stay on as a player.")
    return redirect("campaign_members", campaign.pk)


@require_POST
def campaign_publish(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    services.campaign_publish(campaign=campaign, actor=request.user)
    messages.success(request, "The archive has a public read-only link.")
    return redirect("archive_timeline", campaign.pk)


@require_POST
def campaign_unpublish(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    services.campaign_unpublish(campaign=campaign, actor=request.user)
    messages.success(request, "The public link is revoked.")
    return redirect("archive_timeline", campaign.pk)


def campaign_export_json(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """The whole campaign, GM notes included, for the GM (manage.py import_campaign)."""
    campaign = get_campaign_for_gm(request.user, campaign_id)
    response = HttpResponse(
        json.dumps(campaign_export(campaign), indent=1, ensure_ascii=False),
        content_type="application/json",
    )
    filename = slugify(campaign.name) or "campaign"
    response["Content-Disposition"] = f'attachment; filename="{filename}.json"'
    return response


def campaign_import_json(request: AuthenticatedRequest) -> HttpResponse:
    """Staff upload a JSON export (what `manage.py import_campaign` reads) to recreate it."""
    check_can_import_campaigns(request.user)
    form = CampaignImportForm(_posted(request), request.FILES if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data["export"]
        new_accounts = missing_usernames(data)
        try:
            campaign = campaign_import(data=data)
        except ValidationError as exc:
            form.add_error(None, "Nothing was imported: " + " ".join(exc.messages))
        except DataError as exc:
            # A value the checks above let through and the database refused (a number
            # past its column's range): its transaction has rolled back.
            form.add_error(
                None, f"Nothing was imported: a value in the file does not fit its column ({exc})."
            )
        except (AttributeError, KeyError, TypeError, ValueError):
            # The import checks what a hand-edited export gets wrong, not every shape JSON
            # can take; its transaction has rolled back whatever it had created.
            form.add_error(
                None, "Nothing was imported: the file does not have the shape of a campaign export."
            )
        else:
            text = f"{campaign.name} is imported; its GM is {campaign.gm.shown_name}."
            if new_accounts:
                n = len(new_accounts)
                accounts = "1 account was" if n == 1 else f"{n} accounts were"
                text += (
                    f" {accounts} created inactive ({', '.join(new_accounts)}); "
                    "an administrator must activate them before they can sign in."
                )
            messages.success(request, text)
            # The importer is often not in the campaign; its page would be a 404 for them.
            if campaign_role(campaign, request.user) is None:
                return redirect("campaign_import_json")
            return redirect("campaign_detail", campaign.pk)
    return _form_page(
        request,
        form,
        title="Import a campaign",
        intro=(
            "Recreate a campaign from its JSON export. People are matched by username; "
            "anyone missing gets an inactive account that an administrator must activate. "
            "A file with any error imports nothing."
        ),
        submit="Import the campaign",
    )


def campaign_export_markdown(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    """The chronicle, as this member may see it."""
    viewer = get_archive_for_user(request.user, campaign_id)
    response = HttpResponse(campaign_chronicle(viewer), content_type="text/markdown; charset=utf-8")
    filename = slugify(viewer.campaign.name) or "campaign"
    response["Content-Disposition"] = f'attachment; filename="{filename}-chronicle.md"'
    return response


# --------------------------------------------------------------------- NPC library


def npc_list(request: AuthenticatedRequest, campaign_id: int) -> HttpResponse:
    campaign, role = get_campaign_for_user(request.user, campaign_id)
    form = NpcForm(_posted(request))
    if request.method == "POST":
        campaign = get_campaign_for_gm(request.user, campaign_id)
        if form.is_valid():
            try:
                npc = services.npc_create(
                    campaign=campaign, actor=request.user, **form.cleaned_data
                )
            except ValidationError as exc:
                form.add_error(None, exc)
            else:
                messages.success(request, f"{npc.name} is in the library.")
                return redirect("npc_list", campaign.pk)
    context = {"campaign": campaign, "role": role, "npcs": campaign.npcs.all(), "form": form}
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "campaigns/npcs.html", context, status=status)


def npc_edit(request: AuthenticatedRequest, campaign_id: int, npc_id: int) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    npc = get_object_or_404(Npc, pk=npc_id, campaign=campaign)
    form = NpcForm(_posted(request), initial=NpcForm.initial_for(npc))
    if request.method == "POST" and form.is_valid():
        try:
            services.npc_update(npc=npc, actor=request.user, **form.cleaned_data)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, f"{npc.name} is saved.")
            return redirect("npc_list", campaign.pk)
    return _form_page(request, form, campaign=campaign, title=f"Edit {npc.name}", submit="Save")


@require_POST
def npc_delete(request: AuthenticatedRequest, campaign_id: int, npc_id: int) -> HttpResponse:
    campaign = get_campaign_for_gm(request.user, campaign_id)
    npc = get_object_or_404(Npc, pk=npc_id, campaign=campaign)
    services.npc_delete(npc=npc, actor=request.user)
    messages.success(request, f"{npc.name} is removed from the library.")
    return redirect("npc_list", campaign.pk)


# --------------------------------------------------------------------- seasons and sessions
