from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    """Multi-channel notifications (issue 3). Gets plain context data; never imports events."""

    name = "notifications"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from notifications.receivers import on_notification_requested
        from notifications.signals import notification_requested

        notification_requested.connect(
            on_notification_requested, dispatch_uid="notifications.on_notification_requested"
        )
