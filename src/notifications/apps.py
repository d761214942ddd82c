from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    """Multi-channel notifications (issue 3). Gets plain context data; never imports events."""

    name = "notifications"
    default_auto_field = "django.db.models.BigAutoField"
