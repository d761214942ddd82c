"""Staff removing someone from an event's waitlist queue.

The Event row is locked first (domain.md lock order) because removing an entry will,
once the advanced waitlist exists, revoke that user's pending offer and free its seat:
the `EventWaitList` post_delete signal of that issue does it inside this transaction.
"""

import logging

from django.db import transaction

from events.models import EventWaitList
from events.service.locks import lock_event

logger = logging.getLogger("encore.waitlist")


def remove_entry(entry: EventWaitList) -> None:
    """Delete one queue entry of its event (idempotent: a vanished row is fine)."""
    with transaction.atomic():
        lock_event(entry.event_id)
        EventWaitList.objects.filter(pk=entry.pk, event_id=entry.event_id).delete()
    logger.info(
        "waitlist entry removed by staff",
        extra={"event_id": str(entry.event_id), "entry_id": str(entry.pk)},
    )
