"""Staff removing someone from an event's waitlist queue.

The Event row is locked first (domain.md lock order), then the user's pending offer is
revoked (`entry_deleted`, its seat handed on) before the entry is deleted: offer rows
before the queue row, as the hourly sweep writes them, so the two cannot deadlock.
"""

import logging

from django.db import transaction

from events.models import EventWaitList
from events.service import waitlist_service
from events.service.locks import lock_event

logger = logging.getLogger("encore.waitlist")


def remove_entry(entry: EventWaitList) -> None:
    """Delete one queue entry of its event (idempotent: a vanished row is fine)."""
    with transaction.atomic():
        lock_event(entry.event_id)
        waitlist_service.revoke_offer_of_removed_entry(entry.event_id, entry.user_id)
        EventWaitList.objects.filter(pk=entry.pk, event_id=entry.event_id).delete()
    logger.info(
        "waitlist entry removed by staff",
        extra={"event_id": str(entry.event_id), "entry_id": str(entry.pk)},
    )
