"""Notifications: what a person was told, how each channel delivered it, and what they want.

The app receives plain context data through the `notification_requested` signal and
never imports `events`; `accounts` never imports it either (preferences are created on
first read or send).
"""

from django.conf import settings
from django.db import models

from common.models import TimeStampedModel


class NotificationType(models.TextChoices):
    WAITLIST_SPOT_AVAILABLE = "waitlist_spot_available"
    WAITLIST_OFFER_EXPIRED = "waitlist_offer_expired"
    WAITLIST_OFFER_REVOKED = "waitlist_offer_revoked"
    SERIES_EVENTS_GENERATED = "series_events_generated"
    EVENT_OPEN = "event_open"
    EVENT_UPDATED = "event_updated"
    EVENT_CANCELLED = "event_cancelled"
    TICKET_CREATED = "ticket_created"
    TICKET_CANCELLED = "ticket_cancelled"
    RSVP_CONFIRMATION = "rsvp_confirmation"


class Channel(models.TextChoices):
    IN_APP = "in_app"
    EMAIL = "email"
    TELEGRAM = "telegram"


def default_enabled_channels() -> list[str]:
    return [Channel.IN_APP.value, Channel.EMAIL.value]


class Notification(TimeStampedModel):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    notification_type = models.CharField(max_length=40, choices=NotificationType.choices)
    title = models.CharField(max_length=255)
    body = models.TextField()
    context = models.JSONField(default=dict)
    read_at = models.DateTimeField(null=True, blank=True)
    # Set by dispatch when the in_app channel is among the user's channels for this
    # notification; only such rows are in the inbox (list, unread count, mark read).
    in_app = models.BooleanField(default=False)
    # "Useful until": set by the sender for time-critical types (an offer's expiry).
    # Past it no channel sends the notification any more, and until then a failed
    # delivery is revived by the re-dispatch job (docs/architecture/notifications.md).
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # The inbox reads only in-app rows: list, unread filter, unread count.
            models.Index(
                fields=["user", "read_at", "-created_at"],
                name="notification_inbox",
                condition=models.Q(in_app=True),
            )
        ]

    def __str__(self) -> str:
        return f"{self.notification_type} → {self.user_id}"


class NotificationDelivery(TimeStampedModel):
    class Status(models.TextChoices):
        PENDING = "pending"
        SENDING = "sending"
        SENT = "sent"
        FAILED = "failed"
        SKIPPED = "skipped"

    notification = models.ForeignKey(
        Notification, on_delete=models.CASCADE, related_name="deliveries"
    )
    channel = models.CharField(max_length=16, choices=Channel.choices)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    # The last failure was transient (timeout, 4xx, lost worker): another round may help.
    transient_failure = models.BooleanField(default=False)
    # Rounds of attempts the re-dispatch job granted after the first one was exhausted.
    redispatches = models.PositiveSmallIntegerField(default=0)
    # A failed row with this set is tried again from then on (the re-dispatch job); a
    # failed row without it is given up (a permanent error, or a day of attempts).
    next_attempt_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "notification deliveries"
        constraints = [
            models.UniqueConstraint(
                fields=["notification", "channel"], name="unique_delivery_per_channel"
            )
        ]
        indexes = [
            # The re-dispatch job's every-minute read: the failed rows due again.
            models.Index(
                fields=["next_attempt_at"],
                name="delivery_due_again",
                condition=models.Q(status="failed", next_attempt_at__isnull=False),
            )
        ]


class NotificationPreference(TimeStampedModel):
    """Per-user choices; `type_settings` maps a type to `{"enabled": bool, "channels": [...]}`."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_preference"
    )
    silence_all = models.BooleanField(default=False)
    enabled_channels = models.JSONField(default=default_enabled_channels)
    type_settings = models.JSONField(default=dict, blank=True)
    telegram_chat_id = models.CharField(max_length=64, blank=True)

    def __str__(self) -> str:
        return f"preferences of {self.user_id}"
