"""Community pages, under /campaigns/<campaign_id>/community/ (namespace "community")."""

from django.urls import path

from . import views

app_name = "community"

urlpatterns = [
    path("", views.community_page, name="page"),
    path("notation/", views.notation, name="notation"),
    path("create/", views.community_create, name="create"),
    path("edit/", views.community_edit, name="edit"),
    # The interval cycle (§8.2.4-§8.4), GM only.
    path("interval/background/", views.background_events, name="background"),
    path("interval/crisis/", views.crisis_tests, name="crisis"),
    path("interval/end/", views.interval_end, name="interval_end"),
    path("plot/", views.plot_event, name="plot"),
    path("resources/<id:resource_id>/cement/", views.cement, name="cement"),
    path("resources/<id:resource_id>/crisis/", views.crisis_narrate, name="crisis_narrate"),
    # Setup (§8.1), GM only.
    path("setup/", views.setup, name="setup"),
    path("setup/found/", views.found, name="found"),
    path("setup/resources/", views.resource_add, name="resource_add"),
    path("setup/resources/<id:resource_id>/", views.resource_edit, name="resource_edit"),
    path(
        "setup/resources/<id:resource_id>/remove/",
        views.resource_remove,
        name="resource_remove",
    ),
    path("setup/spread/", views.spread, name="spread"),
    path("setup/required/", views.required_add, name="required_add"),
    path("setup/required/<id:use_id>/remove/", views.required_remove, name="required_remove"),
    # The setup questionnaire (§8.1.3).
    path("questionnaire/", views.questionnaire, name="questionnaire"),
    path("questionnaire/questions/", views.question_add, name="question_add"),
    path(
        "questionnaire/questions/<id:question_id>/remove/",
        views.question_remove,
        name="question_remove",
    ),
    path("questionnaire/questions/<id:question_id>/answer/", views.answer, name="answer"),
    path("questionnaire/assign/", views.questionnaire_assign, name="questionnaire_assign"),
    # Drawing on resources, penalties and bolstering by hand (§8.2-§8.2.3), GM only.
    path("draws/", views.draws, name="draws"),
    path("draws/start/", views.draw_start, name="draw_start"),
    path("draws/<id:draw_id>/settle/", views.draw_settle, name="draw_settle"),
    path("penalty/", views.penalty, name="penalty"),
    path("bolster/", views.bolster, name="bolster"),
    path("concede/", views.concede, name="concede"),
    # Lobbying at the live table (§8.2): the GM and the players, in a session.
    path("table/", views.table_panel, name="table_panel"),
    path("table/lobby/", views.table_lobby, name="table_lobby"),
]
