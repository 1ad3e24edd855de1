from django.contrib import admin

from .models import Campaign, Invitation, Membership, Npc, Season, Session


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ("name", "genre", "gm", "created_at")
    inlines = [MembershipInline]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ("campaign", "role", "expires_at", "uses", "max_uses", "revoked_at")
    list_filter = ("role",)


@admin.register(Npc)
class NpcAdmin(admin.ModelAdmin):
    list_display = ("name", "campaign", "rating")
    search_fields = ("name",)


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ("campaign", "number", "name", "base_resistance")


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = ("campaign", "number", "title", "started_at", "ended_at")
    search_fields = ("title", "recap")
