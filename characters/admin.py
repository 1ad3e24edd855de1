from django.contrib import admin

from .models import Ability, Character, Condition, Follower, LedgerEntry, LedgerStep


class AbilityInline(admin.TabularInline):
    model = Ability
    fk_name = "character"
    fields = ("name", "kind", "rating", "keyword", "relationship", "follower", "creation_role")
    extra = 0


class FollowerInline(admin.TabularInline):
    model = Follower
    extra = 0


@admin.register(Character)
class CharacterAdmin(admin.ModelAdmin):
    list_display = ("name", "concept", "player", "campaign", "hero_points", "creation_complete")
    list_filter = ("creation_method", "creation_complete")
    search_fields = ("name", "concept", "player__username")
    inlines = [AbilityInline, FollowerInline]


@admin.register(Condition)
class ConditionAdmin(admin.ModelAdmin):
    list_display = ("character", "state", "cause", "created_at", "ended_at")
    list_filter = ("state",)


class LedgerEntryInline(admin.TabularInline):
    model = LedgerEntry
    fields = ("field", "ability_name", "before", "after", "note")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(LedgerStep)
class LedgerStepAdmin(admin.ModelAdmin):
    """The ledger is history: readable here, changed only by the services."""

    list_display = ("character", "reason", "note", "actor", "created_at", "undone_at")
    list_filter = ("reason",)
    readonly_fields = (
        "character",
        "actor",
        "reason",
        "note",
        "state_before",
        "undone_at",
        "undone_by",
    )
    inlines = [LedgerEntryInline]

    def has_add_permission(self, request):
        return False
