"""The in-app inbox: a person's own notifications, what is unread, marking them read.

Every query is scoped by `user`, so one person can never see or touch another's rows;
an id that is not the caller's is simply "not found". The inbox holds only the rows
delivered in-app (`in_app`, set by dispatch): a notification the person silenced, turned
off for its type, or chose to get on other channels only is not listed, not counted and
not found here.
"""

import uuid

from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import User
from common.errors import NotFound
from notifications.models import Notification


def inbox_of(user: User) -> QuerySet[Notification]:
    """Every row of the caller's inbox: their own notifications that were delivered in-app."""
    return Notification.objects.filter(user=user, in_app=True)


def notifications_for(user: User, *, unread: bool | None = None) -> QuerySet[Notification]:
    """The caller's notifications, newest first; `unread` True/False filters on read_at."""
    queryset = inbox_of(user).order_by("-created_at", "-id")
    if unread is not None:
        queryset = queryset.filter(read_at__isnull=unread)
    return queryset


def unread_count(user: User) -> int:
    return inbox_of(user).filter(read_at__isnull=True).count()


def mark_read(user: User, notification_id: uuid.UUID | str) -> Notification:
    """Mark one of the caller's notifications read; repeating it keeps the first read time."""
    notification = inbox_of(user).filter(pk=_as_uuid(notification_id)).first()
    if notification is None:
        raise NotFound("Notification not found.")
    if notification.read_at is None:
        now = timezone.now()
        # Conditional update: a concurrent mark-read (or mark-all) that got there first wins.
        updated = Notification.objects.filter(pk=notification.pk, read_at__isnull=True).update(
            read_at=now, updated_at=now
        )
        if updated:
            notification.read_at, notification.updated_at = now, now
        else:
            notification.refresh_from_db(fields=["read_at", "updated_at"])
    return notification


def mark_all_read(user: User) -> int:
    """Mark every unread notification of the caller read; returns how many changed."""
    now = timezone.now()
    return inbox_of(user).filter(read_at__isnull=True).update(read_at=now, updated_at=now)


def _as_uuid(value: uuid.UUID | str) -> uuid.UUID:
    """A malformed id cannot name any row: "not found", like another person's id."""
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError as exc:
        raise NotFound("Notification not found.") from exc
