"""The one way to a person's `NotificationPreference` row: created on first use.

Below the services and the channels: `service.preferences` (the rule and the writer)
and `channels.telegram` (the chat id at send time) both read the row through here.
"""

from accounts.models import User
from notifications.models import NotificationPreference


def get_preferences(user: User) -> NotificationPreference:
    """The caller's preferences, created with the defaults on first use.

    Django's `get_or_create` is the race-safe helper: it inserts inside a savepoint and,
    when a concurrent first read won the insert (unique `user`), catches the
    IntegrityError and returns the winner's row instead of raising.
    """
    preference, _created = NotificationPreference.objects.get_or_create(user=user)
    return preference
