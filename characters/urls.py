from django.urls import path

from . import views

app_name = "characters"

urlpatterns = [
    path("", views.character_list, name="list"),
    path("new/", views.character_create, name="create"),
    path("import/", views.character_import, name="import"),
    path("campaign/<id:campaign_id>/roster/", views.character_roster, name="roster"),
    path("<id:character_id>/", views.character_sheet, name="sheet"),
    path("<id:character_id>/wizard/", views.character_wizard, name="wizard"),
    path("<id:character_id>/export.json", views.character_export_json, name="export"),
    path("<id:character_id>/details/<str:field>/", views.character_field, name="field"),
    path("<id:character_id>/campaign/", views.character_campaign, name="campaign"),
    path("<id:character_id>/abilities/", views.ability_add, name="ability_add"),
    path("<id:character_id>/abilities/<id:ability_id>/", views.ability_edit, name="ability"),
    path(
        "<id:character_id>/abilities/<id:ability_id>/remove/",
        views.ability_remove,
        name="ability_remove",
    ),
    path("<id:character_id>/concept/", views.concept_set, name="concept"),
    path("<id:character_id>/sidekick/", views.sidekick_set, name="sidekick"),
    path("<id:character_id>/sidekick/new/", views.sidekick_new, name="sidekick_new"),
    path("<id:character_id>/retainers/", views.retainer_add, name="retainer_add"),
    path(
        "<id:character_id>/followers/<id:follower_id>/remove/",
        views.follower_remove,
        name="follower_remove",
    ),
    path(
        "<id:character_id>/followers/<id:follower_id>/lose/",
        views.sidekick_lose,
        name="sidekick_lose",
    ),
    path("<id:character_id>/prose/", views.prose_set, name="prose"),
    path("<id:character_id>/finish/", views.creation_finish, name="finish"),
    path("<id:character_id>/hero-points/spend/", views.hero_point_spend, name="spend"),
    path("<id:character_id>/advance/", views.advance_buy, name="advance"),
    path("<id:character_id>/catch-ups/<id:ability_id>/", views.catch_up, name="catch_up"),
    path("<id:character_id>/classic/raise/", views.classic_raise, name="classic_raise"),
    path("<id:character_id>/sidekick/raise/", views.sidekick_raise, name="sidekick_raise"),
    path("<id:character_id>/classic/new/", views.classic_new, name="classic_new"),
    # The GM's
    path("<id:character_id>/hero-points/award/", views.hero_points_award, name="award"),
    path("<id:character_id>/directed/", views.directed_improvement, name="directed"),
    path("<id:character_id>/directed/new/", views.directed_new_ability, name="directed_new"),
    path("<id:character_id>/conditions/", views.condition_apply, name="condition_apply"),
    path(
        "<id:character_id>/conditions/<id:condition_id>/heal/",
        views.condition_heal,
        name="condition_heal",
    ),
    path(
        "<id:character_id>/conditions/<id:condition_id>/wherewithal/",
        views.condition_wherewithal,
        name="condition_wherewithal",
    ),
    path(
        "<id:character_id>/conditions/<id:condition_id>/clear/",
        views.condition_clear,
        name="condition_clear",
    ),
    path("<id:character_id>/conditions/wane/", views.conditions_wane, name="conditions_wane"),
    path("<id:character_id>/undo/", views.step_undo, name="undo"),
]
