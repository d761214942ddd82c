"""Claiming an offer: the hook every registration path (RSVP YES, checkout, box office) calls.

The caller holds the Event lock and has written the registration; the claim re-reads
the user's offer under `SELECT ... FOR UPDATE` and claims it only while
`expires_at > now`, so a sweep racing a claim ends in exactly one of CLAIMED or EXPIRED.
"""

import logging
import uuid

from django.utils import timezone

from common import metrics
from events.models import Event, EventWaitList, WaitlistOffer
from events.service.waitlist_service.queue_samples import record_queue_length
from events.service.waitlist_service.triggering import enqueue_waitlist_processing

logger = logging.getLogger("encore.waitlist")

Status = WaitlistOffer.WaitlistOfferStatus


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
    if EventWaitList.objects.filter(event=event, user_id=user_id).delete()[0]:
        record_queue_length(event.pk, now)
    if offer is not None:
        logger.info(
            "waitlist offer claimed", extra={"event_id": str(event.pk), "offer_id": str(offer.pk)}
        )
        enqueue_waitlist_processing(event.pk)  # defensive nudge
        metrics.count(metrics.OFFERS_CLAIMED)
    return offer is not None
