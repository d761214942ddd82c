"""The one way into the notifications app.

Anything that notifies sends::

    notification_requested.send(
        sender=SomeClass, notification_type=NotificationType.EVENT_OPEN, user=user, context={...}
    )

`context` is plain data (strings, numbers, booleans, lists, dicts; UUIDs and datetimes are
stored as strings) holding at least the required keys of the type (`notifications.types`).
Human times in it are pre-formatted by the sender (`*_formatted`, see
`notifications.service.formatting`). A missing key raises ValueError from `send()`: that is
a programming error of the sender, not a delivery problem.
"""

from django.dispatch import Signal

notification_requested = Signal()
