"""Seconds, not hours: one event's lapsed offers expire at their deadline (ADR 0019).

Each batch, organiser offer and reactivation schedules `events.expire_event_offers` for
its deadline (`triggering.schedule_offer_expiry`); this is what the task runs. Under the
Event row lock it does for one event what the hourly sweep does for all: lapsed PENDING
offers → EXPIRED, their members rotated behind the queue (`last_offer_expired_at`), the
`waitlist_offer_expired` notice to them; then, in the same transaction, the processing
pass that hands the seats on. Inline rather than enqueued: the task already runs on the
`critical` worker and holds the lock the pass takes next, so the next member's offer is
committed with the expiry, one broker round trip sooner, and no other pass can slip in
between (bench f1). The sweep and the nudge stay as the nets for a message that is lost.
"""

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from common import metrics
from events.core.services.locks import lock_event
from events.models import Event, EventWaitList, WaitlistOffer
from events.waitlist.services.processing import process_waitlist_for_event
from events.waitlist.services.triggering import (
    notify_expired_on_commit,
    schedule_offer_expiry,
)

logger = logging.getLogger("encore.waitlist")

Status = WaitlistOffer.WaitlistOfferStatus


@dataclass(frozen=True)
class EventExpiry:
    """`early`: the task arrived before its deadline and sent itself again."""

    expired: int = 0
    offers_created: int = 0
    early: bool = False


def expire_event_offers(
    event_id: uuid.UUID, due: datetime | None = None, now: datetime | None = None
) -> EventExpiry:
    """Expire the event's lapsed offers and hand their seats on; idempotent.

    `due` is the deadline the task was scheduled for: before it, nothing is touched and
    the task is sent again for the time left (an ETA capped to one hop, or an outbox
    flush that published it at once). At or after it, every PENDING offer of the event
    whose deadline has passed is expired, whichever batch it came from; a second run
    finds none and does nothing, and so does a run after the sweep got there first.
    """
    now = now or timezone.now()
    if due is not None and now < due:
        schedule_offer_expiry(event_id, due)  # outside any transaction: sent at once
        return EventExpiry(early=True)
    with transaction.atomic():
        try:
            event = lock_event(event_id)
        except Event.DoesNotExist:
            return EventExpiry()
        users = _expire_and_rotate(event, now)
        if not users:
            return EventExpiry()
        notify_expired_on_commit([event.pk], now)
        metrics.count(metrics.OFFERS_EXPIRED, len(users))
        result = process_waitlist_for_event(event.pk)
    logger.info(
        "waitlist offers expired at their deadline",
        extra={
            "event_id": str(event_id),
            "expired": len(users),
            "offers_created": result.offers_created,
        },
    )
    return EventExpiry(len(users), result.offers_created)


def _expire_and_rotate(event: Event, stamp: datetime) -> list[uuid.UUID]:
    """The event's lapsed PENDING offers → EXPIRED at `stamp`, their members rotated.

    The caller holds the Event row, so no claim, decline or admin override holds one of
    these offer rows; only the lock-free writers (the sweep, an entry's `post_delete`)
    may, and they are expiring or revoking it themselves: SKIP LOCKED leaves those rows
    to them instead of waiting on them (the sweep locks many offers in no fixed order,
    and waiting could deadlock with it). The offers are written before the queue rows,
    the sweep's order. `updated_at = stamp` is how the expired notice finds them.
    """
    lapsed = list(
        WaitlistOffer.objects.select_for_update(skip_locked=True)
        .filter(event=event, status=Status.PENDING, expires_at__lte=stamp)
        .order_by("pk")
        .values_list("pk", "user_id")
    )
    if not lapsed:
        return []
    WaitlistOffer.objects.filter(pk__in=[pk for pk, _ in lapsed]).update(
        status=Status.EXPIRED, updated_at=stamp
    )
    users = [user_id for _, user_id in lapsed]
    EventWaitList.objects.filter(event=event, user_id__in=users).update(last_offer_expired_at=stamp)
    return users
