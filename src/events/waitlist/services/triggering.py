"""What the waitlist sends out of a transaction: processing passes and its notifications.

Every task leaves through `common.dispatch` by its pinned name, after commit (at once
outside a transaction), so a rolled-back change sends nothing; a task the broker refuses
is kept in the outbox and published by the every-minute flush. None of them undoes the
work that asked for it.
"""

import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from common import dispatch

#: The longest wait one expiry message is published for. Redis hands a message a worker
#: holds unacknowledged to a worker again after its visibility time-out, so a week-long
#: offer window sent as one ETA would come back again and again as a duplicate; hops
#: shorter than that time-out never do (`ETA_HOP_SECONDS`, encore/settings/celery.py). A
#: hop that arrives before the deadline sends the next one (`offer_expiry`).
EXPIRY_HOP = timedelta(seconds=settings.ETA_HOP_SECONDS)


def enqueue_waitlist_processing(event_id: uuid.UUID) -> None:
    """Schedule one processing pass once the surrounding transaction commits.

    Safe to call several times and from any path: the processor is idempotent under the
    Event lock, so a pass published twice (the outbox is at least once) is harmless.
    Outside a transaction it dispatches at once, which the hourly jobs rely on. A pass
    the broker refuses (it is down) is kept in the outbox and published by the
    every-minute flush once the broker is back, so the freed seat is offered within about
    a minute of the broker's return, not at the next hourly nudge (`common.dispatch`).
    """
    dispatch.after_commit("events.process_waitlist_for_event", str(event_id))


def notify_offers_on_commit(offer_ids: list[uuid.UUID]) -> None:
    """One notification task per offer, after commit (never for a rolled-back batch); a
    refused one is kept in the outbox, and none undoes a batch."""
    dispatch.after_commit_each(
        "events.send_waitlist_offer_notification", [(str(offer_id),) for offer_id in offer_ids]
    )


def notify_expired_on_commit(event_ids: list[uuid.UUID], stamp: datetime) -> None:
    """One task per event of a sweep: it tells the users whose offer lapsed at `stamp`."""
    for event_id in event_ids:
        dispatch.after_commit(
            "events.send_offer_expired_notifications", str(event_id), stamp.isoformat()
        )


def schedule_offer_expiry(event_id: uuid.UUID, due: datetime) -> None:
    """After commit, one `events.expire_event_offers` to run at `due`, an offer deadline.

    Every batch and every organiser offer or reactivation calls it with its deadline, so
    a lapsed hold is handed on within seconds, not at the hourly sweep (ADR 0019). The
    task carries `due`: run early (a long deadline's hop, an outbox flush, which drops
    the ETA) it only sends itself again for the time left; run twice or late, it finds
    nothing left to expire. Nothing is lost if this one message is: the sweep expires
    the offer at the next full hour.
    """
    eta = min(due, timezone.now() + EXPIRY_HOP)
    dispatch.after_commit("events.expire_event_offers", str(event_id), due.isoformat(), eta=eta)
