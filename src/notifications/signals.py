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

#: Asked before a notification that carries a "useful until" (`expires_at`, passed as a
#: keyword of `notification_requested`) goes out on a channel, first attempt and every
#: retry or revival alike: ``send(sender=Notification, notification_type=..., context=...)``.
#: A receiver that answers False withdraws it (say the offer was claimed or revoked), and
#: the delivery is skipped. The sender's app connects the receiver; this app knows nothing
#: of offers (it never imports `events`).
notification_still_wanted = Signal()
