"""Signal receivers of the events app: a queue entry leaving takes its offer along; users
being deleted release what they hold; an offer notification is wanted only while its offer
is live.

A queue entry leaving takes its offer along. Queue rows are deleted from many places
(leave, admin delete, a registration, ad-hoc ORM filters); the offer that entry held must
not keep a seat reserved for nobody. The conditional UPDATE only touches PENDING offers,
so it is a no-op after the services, which write the offer first (claim: CLAIMED; leave:
EXPIRED; staff removal: REVOKED) — offer rows before queue rows, the sweeper's order.
For other deletes (cascades, Django admin) it is one of docs/spec/domain.md's two documented
single-statement exceptions to the lock order, since it only frees capacity.

Users being deleted (ADR 0013): accounts asks (`user_deletion_requested`) and announces
(`user_departing`); `events.core.services.user_departure` refuses or releases. The User
`pre_delete` does both again inside the deleting transaction, so a bare `user.delete()`
or queryset delete leaves no phantom seat either (and finds nothing left after the
service).
"""

from typing import Any

from django.db.models.signals import post_delete, pre_delete
from django.dispatch import receiver

from accounts.models import User
from accounts.signals import user_deletion_requested, user_departing
from events.models import EventWaitList
from notifications.models import NotificationType
from notifications.signals import notification_still_wanted


@receiver(post_delete, sender=EventWaitList, dispatch_uid="handle_waitlist_entry_deleted")
def handle_waitlist_entry_deleted(
    sender: type[EventWaitList], instance: EventWaitList, **_: Any
) -> None:
    from events.waitlist import services as waitlist_service

    waitlist_service.revoke_offer_of_removed_entry(instance.event_id, instance.user_id)


@receiver(user_deletion_requested, dispatch_uid="events_check_user_deletion")
def check_user_deletion(sender: type[User], users: list[User], **_: Any) -> None:
    from events.core.services import user_departure

    user_departure.check(users)


@receiver(user_departing, dispatch_uid="events_release_departing_users")
def release_departing_users(sender: type[User], users: list[User], **_: Any) -> None:
    from events.core.services import user_departure

    user_departure.release(users)


@receiver(pre_delete, sender=User, dispatch_uid="events_release_deleted_user")
def release_deleted_user(sender: type[User], instance: User, **_: Any) -> None:
    from events.core.services import user_departure

    user_departure.check([instance])
    user_departure.release([instance])


@receiver(notification_still_wanted, dispatch_uid="offer_notification_still_wanted")
def offer_notification_still_wanted(
    sender: Any, *, notification_type: str, context: dict[str, Any], **_: Any
) -> bool | None:
    """A WAITLIST_SPOT_AVAILABLE is worth (re)sending only while its offer is live; other
    types are not this app's to judge (None)."""
    if notification_type != NotificationType.WAITLIST_SPOT_AVAILABLE:
        return None
    from django.utils import timezone

    from events.waitlist.services import notifications as waitlist_notifications

    return waitlist_notifications.offer_still_live(context.get("offer_id"), timezone.now())
