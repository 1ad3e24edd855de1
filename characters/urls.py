from django.urls import path

from . import views

app_name = "characters"

urlpatterns = [
    path("", views.character_list, name="list"),
    path("new/", views.character_create, name="create"),
    path("import/", views.character_import, name="import"),
    path("campaign/<int:campaign_id>/roster/", views.character_roster, name="roster"),
    path("<int:character_id>/", views.character_sheet, name="sheet"),
    path("<int:character_id>/wizard/", views.character_wizard, name="wizard"),
    path("<int:character_id>/export.json", views.character_export_json, name="export"),
    path("<int:character_id>/details/<str:field>/", views.character_field, name="field"),
    path("<int:character_id>/campaign/", views.character_campaign, name="campaign"),
    path("<int:character_id>/abilities/", views.ability_add, name="ability_add"),
    path("<int:character_id>/abilities/<int:ability_id>/", views.ability_edit, name="ability"),
    path(
        "<int:character_id>/abilities/<int:ability_id>/remove/",
        views.ability_remove,
        name="ability_remove",
    ),
    path("<int:character_id>/concept/", views.concept_set, name="concept"),
    path("<int:character_id>/sidekick/", views.sidekick_set, name="sidekick"),
    path("<int:character_id>/sidekick/new/", views.sidekick_new, name="sidekick_new"),
    path("<int:character_id>/retainers/", views.retainer_add, name="retainer_add"),
    path(
        "<int:character_id>/followers/<int:follower_id>/remove/",
        views.follower_remove,
        name="follower_remove",
    ),
    path(
        "<int:character_id>/followers/<int:follower_id>/lose/",
        views.sidekick_lose,
        name="sidekick_lose",
    ),
    path("<int:character_id>/prose/", views.prose_set, name="prose"),
    path("<int:character_id>/finish/", views.creation_finish, name="finish"),
    path("<int:character_id>/hero-points/spend/", views.hero_point_spend, name="spend"),
    path("<int:character_id>/advance/", views.advance_buy, name="advance"),
    path("<int:character_id>/catch-ups/<int:ability_id>/", views.catch_up, name="catch_up"),
    path("<int:character_id>/classic/raise/", views.classic_raise, name="classic_raise"),
    path("<int:character_id>/sidekick/raise/", views.sidekick_raise, name="sidekick_raise"),
    path("<int:character_id>/classic/new/", views.classic_new, name="classic_new"),
    # The GM's
    path("<int:character_id>/hero-points/award/", views.hero_points_award, name="award"),
    path("<int:character_id>/directed/", views.directed_improvement, name="directed"),
    path("<int:character_id>/directed/new/", views.directed_new_ability, name="directed_new"),
    path("<int:character_id>/conditions/", views.condition_apply, name="condition_apply"),
    path(
        "<int:character_id>/conditions/<int:condition_id>/heal/",
        views.condition_heal,
        name="condition_heal",
    ),
    path(
        "<int:character_id>/conditions/<int:condition_id>/wherewithal/",
        views.condition_wherewithal,
        name="condition_wherewithal",
    ),
    path(
        "<int:character_id>/conditions/<int:condition_id>/clear/",
        views.condition_clear,
        name="condition_clear",
    ),
    path("<int:character_id>/conditions/wane/", views.conditions_wane, name="conditions_wane"),
    path("<int:character_id>/undo/", views.step_undo, name="undo"),
]
