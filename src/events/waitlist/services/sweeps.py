"""The hourly jobs: the sweep that expires lapsed offers, and the nudge; and the
expiries scheduled again after the broker lost its messages.

The sweep (minute 0) is one of docs/spec/domain.md's two documented single-statement exceptions
to the lock order: it only frees capacity. It writes offer rows, then their members'
queue rows (the rotation), an order every path that removes a queue entry follows too.
The nudge (minute 30) is the safety net for a processing pass lost on the way.
"""

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction
from django.db.models import Count, Exists, Min, OuterRef
from django.utils import timezone

from common import metrics
from events.models import Event, EventWaitList, WaitlistOffer
from events.waitlist.services.triggering import (
    enqueue_waitlist_processing,
    notify_expired_on_commit,
    schedule_offer_expiry,
)
from events.waitlist.services.useful_offers import useful_offer_events

logger = logging.getLogger("encore.waitlist")

Status = WaitlistOffer.WaitlistOfferStatus


@dataclass(frozen=True)
class ExpirySweep:
    expired: int
    event_ids: list[uuid.UUID]


@transaction.atomic
def expire_waitlist_offers(now: datetime | None = None) -> ExpirySweep:
    """PENDING offers past their deadline → EXPIRED, in a fixed number of statements.

    One of docs/spec/domain.md's two documented single-statement exceptions to the lock order: it
    only frees capacity. The members rotate behind the queue; each affected event gets one
    processing pass and, while it can still make offers, each user a
    `waitlist_offer_expired` notice, after commit.
    """
    stamp = now or timezone.now()
    if connection.vendor == "postgresql":
        per_event = _expire_and_rotate_in_one_statement(stamp)
    else:
        per_event = _expire_and_rotate(stamp)
    expired = sum(per_event.values())
    if not expired:
        return ExpirySweep(0, [])
    event_ids = list(per_event)
    for event_id in event_ids:
        enqueue_waitlist_processing(event_id)
    notify_expired_on_commit(event_ids, stamp)
    metrics.count(metrics.OFFERS_EXPIRED, expired)
    logger.info("waitlist offers expired", extra={"expired": expired, "events": len(event_ids)})
    return ExpirySweep(expired, event_ids)


def _expire_and_rotate(stamp: datetime) -> dict[uuid.UUID, int]:
    """The portable sweep: expire, then find this sweep's offers again by their stamp."""
    expired = WaitlistOffer.objects.filter(status=Status.PENDING, expires_at__lte=stamp).update(
        status=Status.EXPIRED, updated_at=stamp
    )
    if not expired:
        return {}
    this_sweep = WaitlistOffer.objects.filter(status=Status.EXPIRED, updated_at=stamp)
    EventWaitList.objects.filter(
        Exists(this_sweep.filter(event_id=OuterRef("event_id"), user_id=OuterRef("user_id")))
    ).update(last_offer_expired_at=stamp)
    counts = this_sweep.order_by().values("event_id").annotate(n=Count("pk"))
    return {row["event_id"]: row["n"] for row in counts}


def _expire_and_rotate_in_one_statement(stamp: datetime) -> dict[uuid.UUID, int]:
    """PostgreSQL: expire, rotate and count per event in one statement.

    The UPDATE's RETURNING rows are exactly this sweep's offers, so the rotation joins
    them (a hash join, whatever the table's history) instead of finding expired offers
    again by their stamp, which no index serves (docs/spec/quality.md b1: 10,000 offers).
    """
    offers, queue = WaitlistOffer._meta.db_table, EventWaitList._meta.db_table
    sql = f"""
        WITH expired AS (
            UPDATE "{offers}" SET status = %(expired)s, updated_at = %(stamp)s
            WHERE status = %(pending)s AND expires_at <= %(stamp)s
            RETURNING event_id, user_id
        ), rotated AS (
            UPDATE "{queue}" AS queue SET last_offer_expired_at = %(stamp)s
            FROM expired
            WHERE queue.event_id = expired.event_id AND queue.user_id = expired.user_id
        )
        SELECT event_id, COUNT(*) FROM expired GROUP BY event_id
    """  # table names come from the models; every value is a parameter
    params: dict[str, str | datetime] = {
        "expired": Status.EXPIRED.value,
        "pending": Status.PENDING.value,
        "stamp": stamp,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return dict(cursor.fetchall())


def nudge_open_waitlists(now: datetime | None = None) -> list[uuid.UUID]:
    """Safety net against soft-locks: one processing pass per event with an active queue.

    Scans the events `offers_are_useful` accepts, nothing else, in one query
    (`useful_offer_events`, the same rule as a filter).
    """
    now = now or timezone.now()
    event_ids = list(Event.objects.filter(useful_offer_events(now)).values_list("pk", flat=True))
    for event_id in event_ids:
        enqueue_waitlist_processing(event_id)
    return event_ids


def reschedule_offer_expiries(now: datetime | None = None) -> list[uuid.UUID]:
    """After the broker lost its messages (`common.broker`): every event with pending
    offers gets its expiry task again, at its earliest deadline, so a lapsed hold is
    still handed on within seconds rather than at the hourly sweep. Returns the events."""
    deadlines = (
        WaitlistOffer.objects.filter(status=Status.PENDING)
        .order_by()
        .values("event_id")
        .annotate(due=Min("expires_at"))
    )
    for row in deadlines:
        schedule_offer_expiry(row["event_id"], row["due"])
    return [row["event_id"] for row in deadlines]
