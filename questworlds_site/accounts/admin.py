from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import User


@admin.register(User)
class QuestWorldsUserAdmin(UserAdmin):
    fieldsets = (*(UserAdmin.fieldsets or ()), ("Table", {"fields": ("display_name",)}))
    list_display = ("username", "display_name", "email", "is_staff")
