"""Declining an offer: the holder hands the seat on at once and keeps a place in the queue.

A decline is a lapse the holder chose to have now instead of at the deadline: the offer
goes EXPIRED (with `declined_at`, which is how the stats tell the two apart), and the
member rotates behind the queue exactly as after a lapse (`last_offer_expired_at`), so
declining costs the same place as ignoring the offer, and nobody gains by doing either.
Leaving the queue is the other door (`membership.leave_waitlist`). No
`waitlist_offer_expired` notice: the member knows, they just declined.
"""

import logging

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from events.core.services.locks import lock_event
from events.models import Event, EventWaitList, WaitlistOffer
from events.waitlist.errors import NoLiveOffer
from events.waitlist.services.processing import process_waitlist_for_event

logger = logging.getLogger("encore.waitlist")

Status = WaitlistOffer.WaitlistOfferStatus


def decline_offer(user: User, event: Event) -> None:
    """The caller's live offer → EXPIRED with `declined_at`; 404 `no_live_offer` if none.

    Event row first, then the offer row (docs/spec/domain.md lock order), so a decline racing a
    claim, the sweep or the expiry task ends in exactly one outcome. Only a live offer
    can be declined: one past its deadline has already lapsed (the sweep or the expiry
    task records it as such), and a claimed or revoked one is not the holder's to give
    back. The seat goes to the next member in the same transaction (the processing pass,
    inline): handed on after commit instead, it would be free for anyone, queued or not,
    until the pass ran, and the next member's offer would wait for a broker round trip.
    """
    with transaction.atomic():
        event = lock_event(event.pk)
        now = timezone.now()
        offer = (
            WaitlistOffer.objects.select_for_update(of=("self",))
            .filter(event=event, user=user, status=Status.PENDING, expires_at__gt=now)
            .first()
        )
        if offer is None:
            raise NoLiveOffer()
        offer.status = Status.EXPIRED
        offer.declined_at = now
        offer.save(update_fields=["status", "declined_at", "updated_at"])
        EventWaitList.objects.filter(event=event, user=user).update(last_offer_expired_at=now)
        process_waitlist_for_event(event.pk)
    logger.info(
        "waitlist offer declined",
        extra={"event_id": str(event.pk), "user_id": str(user.pk), "offer_id": str(offer.pk)},
    )
