"""What notifications holds about one person, as plain JSON values (part of the export).

Every notification is listed, also those not delivered in-app (a mail-only one is still
information Encore keeps about the person), with how each channel delivered it.
Composed with the other apps' parts by `events.core.selectors.personal_data`.
"""

from datetime import datetime
from typing import Any

from accounts.models import User
from notifications.models import Notification, NotificationPreference


def notifications_of(user: User) -> list[dict[str, Any]]:
    rows = (
        Notification.objects.filter(user=user)
        .prefetch_related("deliveries")
        .order_by("-created_at", "-id")
    )
    return [
        {
            "id": str(row.pk),
            "type": row.notification_type,
            "title": row.title,
            "body": row.body,
            "context": row.context,
            "created_at": _iso(row.created_at),
            "read_at": _iso(row.read_at),
            "in_app": row.in_app,
            "deliveries": [
                {
                    "channel": delivery.channel,
                    "status": delivery.status,
                    "sent_at": _iso(delivery.sent_at),
                }
                for delivery in row.deliveries.all()
            ],
        }
        for row in rows
    ]


def preferences_of(user: User) -> dict[str, Any] | None:
    """The stored preferences; None when the person never had a row (the defaults apply)."""
    preference = NotificationPreference.objects.filter(user=user).first()
    if preference is None:
        return None
    return {
        "silence_all": preference.silence_all,
        "enabled_channels": preference.enabled_channels,
        "type_settings": preference.type_settings,
        "telegram_chat_id": preference.telegram_chat_id,
    }


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None
