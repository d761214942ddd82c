"""The waitlist of seed 000: the queue, batched time-limited offers, and their lifecycle.

Every writer here locks the Event row first (domain.md lock order), then the offer rows;
side effects (processing passes, notifications) leave on commit. The entry points:

- `enqueue_waitlist_processing(event_id)`: called by every path that may free a seat.
- `process_waitlist_for_event(event_id)`: the single place batches are created.
- `create_admin_offer`, `reactivate_admin_offer`, `revoke_offer`: organiser overrides.
- `revoke_pending_offers(event, reason)`: closing the waitlist, cancelling the event.
- `claim_offer_for_registration(event, user_id)`: the claim hook of RSVPs and tickets.
- `expire_waitlist_offers()` / `nudge_open_waitlists()`: the hourly jobs.
- `join_waitlist` / `leave_waitlist`: the user's own door to the queue.
"""

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from accounts.models import User
from common import dispatch, metrics
from common.errors import InvalidInput, NotFound
from events.errors import EligibilityRefused
from events.models import Event, EventWaitList, TicketTier, WaitlistOffer
from events.selectors import waitlist as waitlist_selectors
from events.service import offer_batches
from events.service.event_manager.enums import CAPACITY_REASON_CODES
from events.service.event_manager.service import EligibilityService
from events.service.locks import lock_event
from events.waitlist_errors import (
    AlreadyAttending,
    CapacityAvailable,
    NotOnWaitlist,
    OffersNotApplicable,
    OfferWouldOvercommit,
    PendingOfferExists,
    WaitlistClosed,
)

logger = logging.getLogger("encore.waitlist")

Status = WaitlistOffer.WaitlistOfferStatus
Reason = WaitlistOffer.RevokedReason
ProcessingStatus = Literal[
    "disabled", "no_spots", "cutoff_already_processed", "no_eligible_users", "ok"
]


# -- triggering ----------------------------------------------------------------------------
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


# -- processing ----------------------------------------------------------------------------
@dataclass(frozen=True)
class WaitlistProcessingResult:
    status: ProcessingStatus
    offers_created: int = 0
    batch_id: uuid.UUID | None = None
    is_cutoff_batch: bool = False


def offers_are_useful(event: Event, now: datetime) -> bool:
    """Offers go only to open events with a capacity, whose active queue is open, while
    one can still register: an offer past `latest_deadline` (the start, or the RSVP
    deadline of an RSVP event) would be born expired, and the sweep would then report
    offers never sent and rotate their members."""
    return (
        event.waitlist_open
        and event.waitlist_time_window is not None
        and event.status == Event.Status.OPEN
        and latest_deadline(event) > now
        and event.effective_capacity > 0
    )


def latest_deadline(event: Event) -> datetime:
    """An offer is useless once the event starts or, for RSVP events, RSVPs close."""
    if event.rsvp_before is not None and not event.requires_ticket:
        return min(event.start, event.rsvp_before)
    return event.start


def offer_deadline(event: Event, now: datetime) -> datetime:
    """min(now + window, event.start, rsvp_before) (seed-tables "Deadlines")."""
    window = event.waitlist_time_window or timedelta(0)
    return min(now + window, latest_deadline(event))


@transaction.atomic
def process_waitlist_for_event(event_id: uuid.UUID) -> WaitlistProcessingResult:
    """Create the next batch of offers for the event if seats are free (seed 000 flowchart).

    Serialised per event by the Event row lock, so concurrent passes create one batch:
    everything is read after the lock, by statements that see what earlier passes
    committed. Any pass costs the lock, one count of the held seats (and, for a
    ticketed event, one read of its tiers) and one INSERT ... SELECT that picks the
    members, whatever the length of the queue (quality.md a1, a2).
    """
    try:
        event = lock_event(event_id)
    except Event.DoesNotExist:
        return WaitlistProcessingResult("disabled")
    now = timezone.now()
    if not offers_are_useful(event, now):
        return WaitlistProcessingResult("disabled")
    room = event.effective_capacity - event.attendee_count  # reservations not yet netted
    if room <= 0:
        return WaitlistProcessingResult("no_spots")
    held = waitlist_selectors.held_seat_count(event.pk, now)
    available = room - held
    tickets_left = _tickets_left(event, now)
    if tickets_left is not None:
        available = min(available, tickets_left - held)
    if available <= 0:
        return WaitlistProcessingResult("no_spots")
    if event.waitlist_cutoff_date is not None and now >= event.waitlist_cutoff_date:
        return _create_cutoff_batch(event, now)
    return _create_batch(
        event,
        "lottery" if event.waitlist_lottery_mode else "fifo",
        size=_batch_size(event, available),
        expires_at=offer_deadline(event, now),
        now=now,
    )


def _tickets_left(event: Event, now: datetime) -> int | None:
    """What the tiers on sale can still sell (None: no such bound, or an unlimited tier).

    An offer the holder cannot turn into a ticket is no use (seed-tables "Only useful
    offers"): for a ticketed event the tiers bound the batch as the event's capacity
    does, the seats already held counted against them too. No tier on sale: nothing.
    """
    if not event.requires_ticket:
        return None
    left = 0
    for tier in TicketTier.objects.filter(event=event):
        if not tier.is_on_sale(now):
            continue
        if tier.remaining is None:
            return None
        left += tier.remaining
    return left


def _batch_size(event: Event, available: int) -> int:
    """Batch size 0 is the open mode: everyone up to the free seats."""
    size = event.waitlist_batch_size
    return available if size == 0 else min(size, available)


def _create_cutoff_batch(event: Event, now: datetime) -> WaitlistProcessingResult:
    """One all-hands batch after the cutoff, expiring at the start; it reserves nothing."""
    if WaitlistOffer.objects.filter(event=event, is_cutoff_batch=True).exists():
        return WaitlistProcessingResult("cutoff_already_processed")
    return _create_batch(event, "cutoff", size=None, expires_at=event.start, now=now)


def _create_batch(
    event: Event, draw: offer_batches.Draw, *, size: int | None, expires_at: datetime, now: datetime
) -> WaitlistProcessingResult:
    """Offers for the first `size` selectable members in the draw's order, in one statement."""
    batch_id = uuid.uuid4()
    offer_ids = offer_batches.insert_offer_batch(
        event.pk, draw, size=size, batch_id=batch_id, expires_at=expires_at, now=now
    )
    if not offer_ids:
        return WaitlistProcessingResult("no_eligible_users")
    cutoff = draw == "cutoff"
    _notify_offers_on_commit(offer_ids)
    metrics.count(metrics.OFFERS_CREATED, len(offer_ids), kind="cutoff" if cutoff else "batch")
    logger.info(
        "waitlist batch created",
        extra={
            "event_id": str(event.pk),
            "batch_id": str(batch_id),
            "offers": len(offer_ids),
            "cutoff": cutoff,
        },
    )
    return WaitlistProcessingResult("ok", len(offer_ids), batch_id, cutoff)


def _notify_offers_on_commit(offer_ids: list[uuid.UUID]) -> None:
    """One notification task per offer, after commit (never for a rolled-back batch); a
    refused one is kept in the outbox, and none undoes a batch."""
    for offer_id in offer_ids:
        dispatch.after_commit("events.send_waitlist_offer_notification", str(offer_id))


# -- organiser overrides -------------------------------------------------------------------
def _validated_deadline(event: Event, now: datetime, expires_at: datetime | None) -> datetime:
    """Admin `expires_at`: defaults to now + window; must be future and within the offer's use."""
    if expires_at is None:
        if event.waitlist_time_window is None:
            raise InvalidInput(
                {"expires_at": ["Required while the event has no waitlist time window."]}
            )
        return offer_deadline(event, now)
    if expires_at <= now or expires_at > latest_deadline(event):
        raise InvalidInput(
            {"expires_at": ["Must be in the future and not after the event starts."]}
        )
    return expires_at


def _assert_room_for_one_more(event: Event, now: datetime) -> None:
    """Seed 000: attendees + non-cutoff pending + 1 must fit the effective capacity.

    Only where an offer is of use (seed-tables "Only useful offers"), with the queue open
    (closing it revoked every pending offer) and while one can still register: an offer
    past `latest_deadline` would be born expired.
    """
    if (
        not event.waitlist_open
        or event.status != Event.Status.OPEN
        or latest_deadline(event) <= now
        or event.effective_capacity == 0
    ):
        raise OffersNotApplicable()
    held = waitlist_selectors.held_offers(event.pk, now).count()
    if event.attendee_count + held + 1 > event.effective_capacity:
        raise OfferWouldOvercommit()


@transaction.atomic
def create_admin_offer(
    event_id: uuid.UUID, waitlist_entry_id: uuid.UUID, expires_at: datetime | None = None
) -> WaitlistOffer:
    """An organiser offers a seat to a queue member, capacity-checked under the Event lock."""
    event = lock_event(event_id)
    entry = EventWaitList.objects.filter(pk=waitlist_entry_id, event=event).first()
    if entry is None:
        raise NotFound("Waitlist entry not found.")
    now = timezone.now()
    deadline = _validated_deadline(event, now, expires_at)
    _assert_no_live_offer(event, entry.user_id, now)
    _assert_room_for_one_more(event, now)
    offer = WaitlistOffer(
        event=event, user_id=entry.user_id, expires_at=deadline, batch_id=uuid.uuid4()
    )
    _save_pending(offer)
    _notify_offers_on_commit([offer.pk])
    metrics.count(metrics.OFFERS_CREATED, kind="admin")
    return offer


@transaction.atomic
def reactivate_admin_offer(
    event_id: uuid.UUID, offer_id: uuid.UUID, expires_at: datetime | None = None
) -> WaitlistOffer:
    """EXPIRED or REVOKED → PENDING with a new deadline. Event row first, then the offer."""
    event = lock_event(event_id)
    offer = (
        WaitlistOffer.objects.select_for_update(of=("self",))
        .filter(pk=offer_id, event=event, status__in=[Status.EXPIRED, Status.REVOKED])
        .first()
    )
    if offer is None:
        raise NotFound("No expired or revoked offer with this id.")
    if not EventWaitList.objects.filter(event=event, user_id=offer.user_id).exists():
        raise NotOnWaitlist()
    now = timezone.now()
    offer.expires_at = _validated_deadline(event, now, expires_at)
    _assert_no_live_offer(event, offer.user_id, now)
    _assert_room_for_one_more(event, now)
    offer.status = Status.PENDING
    offer.is_cutoff_batch = False
    offer.revoked_reason = ""
    offer.claimed_at = None
    offer.notified_at = None
    _save_pending(
        offer,
        update_fields=[
            "status",
            "expires_at",
            "is_cutoff_batch",
            "revoked_reason",
            "claimed_at",
            "notified_at",
            "updated_at",
        ],
    )
    _notify_offers_on_commit([offer.pk])
    return offer


def _assert_no_live_offer(event: Event, user_id: uuid.UUID, now: datetime) -> None:
    """409 `pending_offer_exists` while the user holds a live offer.

    A PENDING offer already past its deadline holds nothing (seed-tables "Live offers"):
    it is expired here, as the hourly sweep would, instead of blocking the organiser
    for up to an hour.
    """
    pending = WaitlistOffer.objects.filter(event=event, user_id=user_id, status=Status.PENDING)
    pending.filter(expires_at__lte=now).update(status=Status.EXPIRED, updated_at=now)
    if pending.exists():
        raise PendingOfferExists()


def _save_pending(offer: WaitlistOffer, update_fields: list[str] | None = None) -> None:
    """Save inside a savepoint: a concurrent duplicate PENDING offer becomes a 409."""
    try:
        with transaction.atomic():
            offer.save(update_fields=update_fields)
    except IntegrityError as error:
        raise PendingOfferExists() from error


@transaction.atomic
def revoke_offer(event_id: uuid.UUID, offer_id: uuid.UUID) -> WaitlistOffer:
    """Organiser revoke: PENDING → REVOKED; the user is soft-skipped until an admin acts."""
    event = lock_event(event_id)
    offer = (
        WaitlistOffer.objects.select_for_update(of=("self",))
        .filter(pk=offer_id, event=event, status=Status.PENDING)
        .first()
    )
    if offer is None:
        raise NotFound("No pending offer with this id.")
    offer.status = Status.REVOKED
    offer.revoked_reason = Reason.ORGANIZER
    offer.save(update_fields=["status", "revoked_reason", "updated_at"])
    enqueue_waitlist_processing(event.pk)
    return offer


def revoke_pending_offers(event: Event, reason: str) -> int:
    """Revoke every PENDING offer of an event whose row the caller has locked.

    For closing the waitlist and cancelling the event: system revocations leave users
    eligible in their place (only `organizer` soft-skips).
    """
    return WaitlistOffer.objects.filter(event=event, status=Status.PENDING).update(
        status=Status.REVOKED, revoked_reason=reason, updated_at=timezone.now()
    )


def revoke_offer_of_removed_entry(event_id: uuid.UUID, user_id: uuid.UUID) -> int:
    """A queue entry going away takes its PENDING offer along (`entry_deleted`).

    The post_delete signal of `EventWaitList` calls it for every delete; services that
    remove entries call it first, so offer rows are written before the queue row (the
    sweeper's order: the two never deadlock) and the signal then finds nothing to do.
    A released seat goes to the next batch.
    """
    revoked = WaitlistOffer.objects.filter(
        event_id=event_id, user_id=user_id, status=Status.PENDING
    ).update(status=Status.REVOKED, revoked_reason=Reason.ENTRY_DELETED, updated_at=timezone.now())
    if revoked:
        enqueue_waitlist_processing(event_id)
    return revoked


# -- claiming -------------------------------------------------------------------------------
def claim_offer_for_registration(event: Event, user_id: uuid.UUID) -> bool:
    """After a successful registration: PENDING → CLAIMED, leave the queue, nudge.

    The caller holds the Event lock and has written the registration. Any successful
    registration removes the queue entry; only a claimed offer nudges the processor (other
    offers of the batch may strand seats until they expire).
    """
    now = timezone.now()
    # Lock the user's PENDING offer even past its deadline: offer rows before the queue
    # row (the sweeper's order), since the entry's post_delete revokes a lapsed one.
    offer = (
        WaitlistOffer.objects.select_for_update(of=("self",))
        .filter(event=event, user_id=user_id, status=Status.PENDING)
        .first()
    )
    if offer is not None and offer.expires_at <= now:
        offer = None  # lapsed: the delete below revokes it; nothing to claim
    if offer is not None:
        offer.status = Status.CLAIMED
        offer.claimed_at = now
        offer.save(update_fields=["status", "claimed_at", "updated_at"])
    EventWaitList.objects.filter(event=event, user_id=user_id).delete()
    if offer is not None:
        logger.info(
            "waitlist offer claimed", extra={"event_id": str(event.pk), "offer_id": str(offer.pk)}
        )
        enqueue_waitlist_processing(event.pk)  # defensive nudge
        metrics.count(metrics.OFFERS_CLAIMED)
    return offer is not None


# -- the hourly jobs --------------------------------------------------------------------------
@dataclass(frozen=True)
class ExpirySweep:
    expired: int
    event_ids: list[uuid.UUID]


@transaction.atomic
def expire_waitlist_offers(now: datetime | None = None) -> ExpirySweep:
    """PENDING offers past their deadline → EXPIRED, in a fixed number of statements.

    One of domain.md's two documented single-statement exceptions to the lock order: it
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
    _notify_expired_on_commit(event_ids, stamp)
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
    again by their stamp, which no index serves (quality.md b1: 10,000 offers).
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


def _notify_expired_on_commit(event_ids: list[uuid.UUID], stamp: datetime) -> None:
    for event_id in event_ids:
        dispatch.after_commit(
            "events.send_offer_expired_notifications", str(event_id), stamp.isoformat()
        )


def nudge_open_waitlists(now: datetime | None = None) -> list[uuid.UUID]:
    """Safety net against soft-locks: one processing pass per event with an active queue.

    Scans the events `offers_are_useful` accepts, nothing else.
    """
    now = now or timezone.now()
    event_ids = list(
        Event.objects.filter(
            waitlist_open=True,
            waitlist_time_window__isnull=False,
            status=Event.Status.OPEN,
            start__gt=now,
        )
        .filter(Q(max_attendees__gt=0) | Q(venue__capacity__gt=0))
        .exclude(requires_ticket=False, rsvp_before__lte=now)
        .values_list("pk", flat=True)
    )
    for event_id in event_ids:
        enqueue_waitlist_processing(event_id)
    return event_ids


@dataclass(frozen=True)
class WaitlistJoin:
    event_id: uuid.UUID
    position: int | None
    joined_at: datetime
    created: bool


def join_waitlist(user: User, event: Event) -> WaitlistJoin:
    """Queue the user, checked in api.md's order; `created=False` when already queued.

    waitlist not open → `waitlist_closed`; already attending (YES RSVP or a live ticket)
    → `already_attending`; already queued → the existing entry; could register now →
    `capacity_available`; refused by a gate other than capacity → that refusal. Only a
    capacity refusal (full, reserved, sold out) lets the user in the queue. A new entry
    enqueues a processing pass: a seat may have freed between page load and click.
    """
    if not event.waitlist_open:
        raise WaitlistClosed()
    with transaction.atomic():
        event = lock_event(event.pk)
        if not event.waitlist_open:
            raise WaitlistClosed()
        service = EligibilityService(user, event)
        ctx = service.context
        if ctx.holds_seat or ctx.active_ticket_count > 0:
            raise AlreadyAttending()
        existing = EventWaitList.objects.filter(event=event, user=user).first()
        if existing is not None:
            return WaitlistJoin(event.pk, ctx.waitlist_position, existing.created_at, False)
        eligibility = service.check_eligibility(seats=1)
        if eligibility.allowed:
            raise CapacityAvailable()
        if eligibility.reason_code not in CAPACITY_REASON_CODES:
            raise EligibilityRefused(eligibility)
        entry = EventWaitList.objects.create(event=event, user=user)
        enqueue_waitlist_processing(event.pk)
        position = waitlist_selectors.queue_position(event.pk, user.pk, timezone.now())
    logger.info("waitlist joined", extra={"event_id": str(event.pk), "user_id": str(user.pk)})
    return WaitlistJoin(event.pk, position, entry.created_at, True)


def leave_waitlist(user: User, event: Event) -> None:
    """Leave the queue; a no-op when not on it, and allowed whatever the waitlist's state.

    A held offer is expired first and its seat handed on by a processing pass.
    """
    with transaction.atomic():
        event = lock_event(event.pk)
        released_offer = _expire_held_offer(event, user)
        deleted, _ = EventWaitList.objects.filter(event=event, user=user).delete()
        if released_offer:
            enqueue_waitlist_processing(event.pk)
    if deleted:
        logger.info("waitlist left", extra={"event_id": str(event.pk), "user_id": str(user.pk)})


def _expire_held_offer(event: Event, user: User) -> bool:
    """Expire the user's PENDING offer before the entry goes; True when one was.

    Expiring (not revoking) first makes the entry's post_delete revoke a no-op, and the
    user leaves no soft-skip behind (seed 000, "Leaving the waitlist"). A lapsed offer
    the sweep has not reached yet is expired too: offer rows are written before the
    queue row, in the sweeper's order, so the two never deadlock.
    """
    now = timezone.now()
    released = WaitlistOffer.objects.filter(event=event, user=user, status=Status.PENDING).update(
        status=Status.EXPIRED, updated_at=now
    )
    return released > 0
