"""Model signals of the events app. Only one: a queue entry leaving takes its offer along.

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


@receiver(post_delete, sender=EventWaitList, dispatch_uid="handle_waitlist_entry_deleted")
def handle_waitlist_entry_deleted(
    sender: type[EventWaitList], instance: EventWaitList, **_: Any
) -> None:
    from events.service import waitlist_service

    waitlist_service.revoke_offer_of_removed_entry(instance.event_id, instance.user_id)
