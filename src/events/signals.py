"""Signal receivers of the events app: a queue entry leaving takes its offer along; an
offer notification is wanted only while its offer is live.

Queue rows are deleted from many places (leave, admin delete, a registration, ad-hoc ORM
filters); the offer that entry held must not keep a seat reserved for nobody. The
conditional UPDATE only touches PENDING offers, so it is a no-op after the services,
which write the offer first (claim: CLAIMED; leave: EXPIRED; staff removal: REVOKED) —
offer rows before queue rows, the sweeper's order. For other deletes (cascades, Django
admin) it is one of domain.md's two documented single-statement exceptions to the lock
order, since it only frees capacity.
"""

from typing import Any

from django.db.models.signals import post_delete
from django.dispatch import receiver

from events.models import EventWaitList
from notifications.models import NotificationType
from notifications.signals import notification_still_wanted


@receiver(post_delete, sender=EventWaitList, dispatch_uid="handle_waitlist_entry_deleted")
def handle_waitlist_entry_deleted(
    sender: type[EventWaitList], instance: EventWaitList, **_: Any
) -> None:
    from events.service import waitlist_service

    waitlist_service.revoke_offer_of_removed_entry(instance.event_id, instance.user_id)


@receiver(notification_still_wanted, dispatch_uid="offer_notification_still_wanted")
def offer_notification_still_wanted(
    sender: Any, *, notification_type: str, context: dict[str, Any], **_: Any
) -> bool | None:
    """A WAITLIST_SPOT_AVAILABLE is worth (re)sending only while its offer is live; other
    types are not this app's to judge (None)."""
    if notification_type != NotificationType.WAITLIST_SPOT_AVAILABLE:
        return None
    from django.utils import timezone

    from events.service import waitlist_notifications

    return waitlist_notifications.offer_still_live(context.get("offer_id"), timezone.now())
