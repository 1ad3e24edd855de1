from django.contrib import admin

from .models import (
    Community,
    CommunityStep,
    IntervalRecord,
    Question,
    RequiredResourceUse,
    Resource,
    ResourceChange,
    ResourceDraw,
)


class ResourceInline(admin.TabularInline):
    model = Resource
    extra = 0


@admin.register(Community)
class CommunityAdmin(admin.ModelAdmin):
    list_display = ("name", "campaign", "interval_name", "interval_number", "background_done")
    inlines = [ResourceInline]


class ResourceChangeInline(admin.TabularInline):
    model = ResourceChange
    extra = 0
    readonly_fields = ("resource", "column", "before", "after", "reason")


@admin.register(CommunityStep)
class CommunityStepAdmin(admin.ModelAdmin):
    list_display = ("community", "interval", "kind", "summary", "actor", "created_at")
    list_filter = ("kind",)
    list_select_related = ("community", "actor")
    inlines = [ResourceChangeInline]


@admin.register(ResourceDraw)
class ResourceDrawAdmin(admin.ModelAdmin):
    list_display = ("character_name", "resource", "interval", "status", "outcome_level")
    list_filter = ("status",)
    list_select_related = ("resource",)


admin.site.register(IntervalRecord)
admin.site.register(RequiredResourceUse)
admin.site.register(Question)
