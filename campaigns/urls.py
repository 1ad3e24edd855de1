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
    path("campaigns/<id:campaign_id>/", views.campaign_detail, name="campaign_detail"),
    path("campaigns/<id:campaign_id>/edit/", views.campaign_edit, name="campaign_edit"),
    path("campaigns/<id:campaign_id>/options/", views.campaign_options, name="campaign_options"),
    path("campaigns/<id:campaign_id>/members/", views.campaign_members, name="campaign_members"),
    path("campaigns/<id:campaign_id>/webhook/", views.campaign_webhook, name="campaign_webhook"),
    path(
        "campaigns/<id:campaign_id>/webhook/test/",
        views.campaign_webhook_test,
        name="campaign_webhook_test",
    ),
    path(
        "campaigns/<id:campaign_id>/webhook/remove/",
        views.campaign_webhook_remove,
        name="campaign_webhook_remove",
    ),
    path(
        "campaigns/<id:campaign_id>/members/<id:membership_id>/remove/",
        views.membership_remove,
        name="membership_remove",
    ),
    path("campaigns/<id:campaign_id>/leave/", views.campaign_leave, name="campaign_leave"),
    path(
        "campaigns/<id:campaign_id>/hand-over/",
        views.campaign_hand_over,
        name="campaign_hand_over",
    ),
    path(
        "campaigns/<id:campaign_id>/invitations/",
        views.invitation_create,
        name="invitation_create",
    ),
    path(
        "campaigns/<id:campaign_id>/invitations/<id:invitation_id>/revoke/",
        views.invitation_revoke,
        name="invitation_revoke",
    ),
    path("join/<str:token>/", guarded(views.invitation_accept), name="invitation_accept"),
    path("campaigns/<id:campaign_id>/npcs/", views.npc_list, name="npc_list"),
    path("campaigns/<id:campaign_id>/npcs/<id:npc_id>/", views.npc_edit, name="npc_edit"),
    path(
        "campaigns/<id:campaign_id>/npcs/<id:npc_id>/delete/",
        views.npc_delete,
        name="npc_delete",
    ),
    path("campaigns/<id:campaign_id>/seasons/new/", views.season_start, name="season_start"),
    path("campaigns/<id:campaign_id>/sessions/new/", views.session_start, name="session_start"),
    path(
        "campaigns/<id:campaign_id>/sessions/<id:number>/end/",
        views.session_end,
        name="session_end",
    ),
    path(
        "campaigns/<id:campaign_id>/sessions/<id:number>/edit/",
        views.session_edit,
        name="session_edit",
    ),
    path("campaigns/<id:campaign_id>/publish/", views.campaign_publish, name="campaign_publish"),
    path(
        "campaigns/<id:campaign_id>/unpublish/",
        views.campaign_unpublish,
        name="campaign_unpublish",
    ),
    path(
        "campaigns/<id:campaign_id>/export.json",
        views.campaign_export_json,
        name="campaign_export_json",
    ),
    path(
        "campaigns/<id:campaign_id>/chronicle.md",
        views.campaign_export_markdown,
        name="campaign_export_markdown",
    ),
    # The archive, for members ...
    path("campaigns/<id:campaign_id>/archive/", views.archive_timeline, name="archive_timeline"),
    path(
        "campaigns/<id:campaign_id>/archive/sessions/<id:number>/",
        views.archive_session,
        name="archive_session",
    ),
    path(
        "campaigns/<id:campaign_id>/archive/contests/",
        views.archive_contests,
        name="archive_contests",
    ),
    path(
        "campaigns/<id:campaign_id>/archive/contests/<id:number>/",
        views.archive_contest,
        name="archive_contest",
    ),
    path(
        "campaigns/<id:campaign_id>/archive/search/",
        views.archive_search,
        name="archive_search",
    ),
    # ... and behind a public read-only link.
    path("archive/<str:token>/", guarded(views.public_timeline), name="public_timeline"),
    path(
        "archive/<str:token>/sessions/<id:number>/",
        guarded(views.public_session),
        name="public_session",
    ),
    path("archive/<str:token>/contests/", guarded(views.public_contests), name="public_contests"),
    path(
        "archive/<str:token>/contests/<id:number>/",
        guarded(views.public_contest),
        name="public_contest",
    ),
    path("archive/<str:token>/search/", guarded(views.public_search), name="public_search"),
]
