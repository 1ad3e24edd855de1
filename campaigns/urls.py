from django.urls import path

from questworlds_site.throttle import limit_misses

from . import views

# Invitation and public-archive links hold secret tokens: an address that keeps
# trying tokens that lead nowhere is refused for a while (INVITATION_FAILURE_LIMIT).
guarded = limit_misses(
    "INVITATION_FAILURE_LIMIT", "Too many links that lead nowhere: try again in {wait}."
)

urlpatterns = [
    path("", views.landing, name="landing"),
    path("home/", views.home, name="home"),
    path("campaigns/new/", views.campaign_create, name="campaign_create"),
    path("campaigns/import/", views.campaign_import_json, name="campaign_import_json"),
    path("campaigns/<int:campaign_id>/", views.campaign_detail, name="campaign_detail"),
    path("campaigns/<int:campaign_id>/edit/", views.campaign_edit, name="campaign_edit"),
    path("campaigns/<int:campaign_id>/options/", views.campaign_options, name="campaign_options"),
    path("campaigns/<int:campaign_id>/members/", views.campaign_members, name="campaign_members"),
    path(
        "campaigns/<int:campaign_id>/members/<int:membership_id>/remove/",
        views.membership_remove,
        name="membership_remove",
    ),
    path("campaigns/<int:campaign_id>/leave/", views.campaign_leave, name="campaign_leave"),
    path(
        "campaigns/<int:campaign_id>/hand-over/",
        views.campaign_hand_over,
        name="campaign_hand_over",
    ),
    path(
        "campaigns/<int:campaign_id>/invitations/",
        views.invitation_create,
        name="invitation_create",
    ),
    path(
        "campaigns/<int:campaign_id>/invitations/<int:invitation_id>/revoke/",
        views.invitation_revoke,
        name="invitation_revoke",
    ),
    path("join/<str:token>/", guarded(views.invitation_accept), name="invitation_accept"),
    path("campaigns/<int:campaign_id>/npcs/", views.npc_list, name="npc_list"),
    path("campaigns/<int:campaign_id>/npcs/<int:npc_id>/", views.npc_edit, name="npc_edit"),
    path(
        "campaigns/<int:campaign_id>/npcs/<int:npc_id>/delete/",
        views.npc_delete,
        name="npc_delete",
    ),
    path("campaigns/<int:campaign_id>/seasons/new/", views.season_start, name="season_start"),
    path("campaigns/<int:campaign_id>/sessions/new/", views.session_start, name="session_start"),
    path(
        "campaigns/<int:campaign_id>/sessions/<int:number>/end/",
        views.session_end,
        name="session_end",
    ),
    path(
        "campaigns/<int:campaign_id>/sessions/<int:number>/edit/",
        views.session_edit,
        name="session_edit",
    ),
    path("campaigns/<int:campaign_id>/publish/", views.campaign_publish, name="campaign_publish"),
    path(
        "campaigns/<int:campaign_id>/unpublish/",
        views.campaign_unpublish,
        name="campaign_unpublish",
    ),
    path(
        "campaigns/<int:campaign_id>/export.json",
        views.campaign_export_json,
        name="campaign_export_json",
    ),
    path(
        "campaigns/<int:campaign_id>/chronicle.md",
        views.campaign_export_markdown,
        name="campaign_export_markdown",
    ),
    # The archive, for members ...
    path("campaigns/<int:campaign_id>/archive/", views.archive_timeline, name="archive_timeline"),
    path(
        "campaigns/<int:campaign_id>/archive/sessions/<int:number>/",
        views.archive_session,
        name="archive_session",
    ),
    path(
        "campaigns/<int:campaign_id>/archive/contests/",
        views.archive_contests,
        name="archive_contests",
    ),
    path(
        "campaigns/<int:campaign_id>/archive/contests/<int:number>/",
        views.archive_contest,
        name="archive_contest",
    ),
    path(
        "campaigns/<int:campaign_id>/archive/search/",
        views.archive_search,
        name="archive_search",
    ),
    # ... and behind a public read-only link.
    path("archive/<str:token>/", guarded(views.public_timeline), name="public_timeline"),
    path(
        "archive/<str:token>/sessions/<int:number>/",
        guarded(views.public_session),
        name="public_session",
    ),
    path("archive/<str:token>/contests/", guarded(views.public_contests), name="public_contests"),
    path(
        "archive/<str:token>/contests/<int:number>/",
        guarded(views.public_contest),
        name="public_contest",
    ),
    path("archive/<str:token>/search/", guarded(views.public_search), name="public_search"),
]
