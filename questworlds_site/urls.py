from django.contrib import admin
from django.urls import include, path

from contests import views as contest_views

from .health import healthz

urlpatterns = [
    path("", include("campaigns.urls")),
    path("campaigns/<id:campaign_id>/table/", contest_views.table, name="table"),
    path("campaigns/<id:campaign_id>/table/act/", contest_views.act, name="table_act"),
    path("campaigns/<id:campaign_id>/table/chat/", contest_views.chat, name="table_chat"),
    path(
        "campaigns/<id:campaign_id>/table/chat/panel/",
        contest_views.chat_panel,
        name="table_chat_panel",
    ),
    path(
        "campaigns/<id:campaign_id>/table/frame/",
        contest_views.frame_panel,
        name="table_frame_panel",
    ),
    path("campaigns/<id:campaign_id>/table/me/", contest_views.table_me, name="table_me"),
    path(
        "campaigns/<id:campaign_id>/table/proposals/",
        contest_views.proposals_panel,
        name="table_proposals",
    ),
    path("campaigns/<id:campaign_id>/community/", include("community.urls")),
    path("characters/", include("characters.urls")),
    path("accounts/", include("questworlds_site.accounts.urls")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
]
