"""The organiser's overrides: offer a seat to a chosen member, reactivate, revoke.

Each locks the Event row first, then the offer rows (docs/spec/domain.md lock order), and checks
capacity itself: attendees + held seats + the member's party must fit, so an override
never overcommits (an offer holds the whole party: `WaitlistOffer.seats`). An
organiser's revoke soft-skips the user until reactivated or re-offered;
`revoke_pending_offers` is the system's revocation (the waitlist closed, the event
cancelled), which leaves users eligible in their place.
"""

import uuid
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from common import metrics
from common.errors import InvalidInput, NotFound
from events.core.services.locks import lock_event
from events.models import Event, EventWaitList, TicketTier, WaitlistOffer
from events.waitlist.errors import (
    NotOnWaitlist,
    OffersNotApplicable,
    OfferWouldOvercommit,
    PendingOfferExists,
)
from events.waitlist.selectors import queue as waitlist_selectors
from events.waitlist.services.notifications import notify_offer_revoked_on_commit
from events.waitlist.services.triggering import (
    enqueue_waitlist_processing,
    notify_offers_on_commit,
    schedule_offer_expiry,
)
from events.waitlist.services.useful_offers import (
    latest_deadline,
    offer_deadline,
    offers_are_useful,
)

Status = WaitlistOffer.WaitlistOfferStatus
Reason = WaitlistOffer.RevokedReason


def _validated_deadline(event: Event, now: datetime, expires_at: datetime | None) -> datetime:
    """Admin `expires_at`: defaults to now + window; must be future and within the offer's use."""
    if expires_at is None:
        if not event.active_waitlist:
            raise InvalidInput(
                {"expires_at": ["Required while the event has no waitlist time window."]}
            )
        return offer_deadline(event, now)
    if expires_at <= now or expires_at > latest_deadline(event):
        raise InvalidInput(
            {"expires_at": ["Must be in the future and not after the event starts."]}
        )
    return expires_at


def _assert_room_for_party(
    event: Event, now: datetime, seats: int, tier_id: uuid.UUID | None = None
) -> None:
    """docs/spec/waitlist-design.md, in seats: attendees + seats held by live non-cutoff offers + the
    member's party must fit the effective capacity (a party is offered whole or not).

    Only where an offer is of use (`offers_are_useful`, an organiser's: no window
    needed), so also with the queue open (closing it revoked every pending offer) and
    while one can still register: an offer past `latest_deadline` would be born expired.
    """
    if not offers_are_useful(event, now, by_organiser=True):
        raise OffersNotApplicable()
    held = waitlist_selectors.held_seats_of(waitlist_selectors.held_offers(event.pk, now))
    if event.attendee_count + held + seats > event.effective_capacity:
        raise OfferWouldOvercommit.with_held(held)
    if tier_id is not None:
        _assert_room_in_tier(event, tier_id, seats, now)


def _assert_room_in_tier(event: Event, tier_id: uuid.UUID, seats: int, now: datetime) -> None:
    """A per-tier offer reserves its tier: the tier's remaining quantity, less what other
    offers hold for it, must take the party too (issue 12 item 6)."""
    tier = TicketTier.objects.filter(pk=tier_id, event=event).first()
    if tier is None or tier.remaining is None:
        return
    held = waitlist_selectors.held_seats_for_tier(event.pk, tier_id)
    if tier.remaining - held < seats:
        raise OfferWouldOvercommit.with_held(held)


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
    _assert_room_for_party(event, now, entry.party_size, entry.tier_id)
    offer = WaitlistOffer(
        event=event,
        user_id=entry.user_id,
        expires_at=deadline,
        batch_id=uuid.uuid4(),
        seats=entry.party_size,
        tier_id=entry.tier_id,
    )
    _save_pending(offer)
    notify_offers_on_commit([offer.pk])
    schedule_offer_expiry(event.pk, offer.expires_at)
    metrics.count(metrics.OFFERS_CREATED, kind="admin")
    return offer


@transaction.atomic
def reactivate_admin_offer(
    event_id: uuid.UUID, offer_id: uuid.UUID, expires_at: datetime | None = None
) -> WaitlistOffer:
    """EXPIRED (lapsed or declined) or REVOKED → PENDING with a new deadline. Event row
    first, then the offer."""
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
    _assert_room_for_party(event, now, offer.seats, offer.tier_id)
    offer.status = Status.PENDING
    offer.is_cutoff_batch = False
    offer.revoked_reason = ""
    offer.claimed_at = None
    offer.notified_at = None
    # A declined offer offered again is a new issue: should it lapse, it lapsed (the
    # stats and the waitlist page tell a decline by `declined_at`).
    offer.declined_at = None
    _save_pending(
        offer,
        update_fields=[
            "status",
            "expires_at",
            "is_cutoff_batch",
            "revoked_reason",
            "claimed_at",
            "notified_at",
            "declined_at",
            "updated_at",
        ],
    )
    notify_offers_on_commit([offer.pk])
    schedule_offer_expiry(event.pk, offer.expires_at)
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
    """Organiser revoke: PENDING → REVOKED; the user is soft-skipped until an admin acts,
    and is told after commit (`waitlist_offer_revoked`)."""
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
    notify_offer_revoked_on_commit(offer.pk)
    return offer


def revoke_pending_offers(event: Event, reason: str) -> int:
    """Revoke every PENDING offer of an event whose row the caller has locked.

    For closing the waitlist and cancelling the event: system revocations leave users
    eligible in their place (only `organizer` soft-skips).
    """
    return WaitlistOffer.objects.filter(event=event, status=Status.PENDING).update(
        status=Status.REVOKED, revoked_reason=reason, updated_at=timezone.now()
    )
