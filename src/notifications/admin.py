"""Django admin for platform operators (`is_staff`): what was sent, how it went, who wants what.

Delivery rows are read-only: only the delivery tasks move them between states (under a
row lock), so an edit here could make a task send twice or never.
"""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from notifications.models import Notification, NotificationDelivery, NotificationPreference


class DeliveryInline(admin.TabularInline):
    model = NotificationDelivery
    extra = 0
    can_delete = False
    fields = ["channel", "status", "attempts", "error", "sent_at"]
    readonly_fields = ["channel", "status", "attempts", "error", "sent_at"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ["notification_type", "user", "title", "in_app", "read_at", "created_at"]
    list_filter = ["notification_type", "in_app", ("read_at", admin.EmptyFieldListFilter)]
    search_fields = ["user__email", "title"]
    list_select_related = ["user"]
    autocomplete_fields = ["user"]
    date_hierarchy = "created_at"
    inlines = [DeliveryInline]


@admin.register(NotificationDelivery)
class NotificationDeliveryAdmin(admin.ModelAdmin):
    """Visible for support; changed only by the delivery tasks."""

    list_display = ["notification", "channel", "status", "attempts", "sent_at", "updated_at"]
    list_filter = ["channel", "status"]
    search_fields = ["notification__user__email", "notification__title"]
    list_select_related = ["notification"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(NotificationPreference)
class NotificationPreferenceAdmin(admin.ModelAdmin):
    list_display = ["user", "silence_all", "enabled_channels", "telegram_chat_id", "updated_at"]
    list_filter = ["silence_all"]
    search_fields = ["user__email", "telegram_chat_id"]
    list_select_related = ["user"]
    autocomplete_fields = ["user"]
