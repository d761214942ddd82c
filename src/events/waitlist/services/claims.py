"""Claiming an offer: the hook every registration path (RSVP YES, checkout, box office) calls.

The caller holds the Event lock and has written the registration. The claim is at most
two compiled statements (ADR 0022): a conditional UPDATE turns the user's offer CLAIMED
only while `expires_at > now` (the row lock it takes decides a race with the sweep: the
offer ends in exactly one of CLAIMED or EXPIRED), and a DELETE removes the queue entry.
Offer row before queue row, the sweeper's order. Which of the two are needed the
registration's locked check has already read (`LockedCheck`: the user's PENDING offer
and queue entry), so a registration without either writes nothing here.
"""

import logging
import uuid
from datetime import datetime

from django.utils import timezone

from common import dispatch, metrics
from events.core.selectors.locked_check import LockedCheck, locked_check
from events.core.services.claim_statements import claim_live_offer, delete_queue_entry
from events.models import Event
from events.waitlist.services.membership import revoke_offer_of_removed_entry
from events.waitlist.services.queue_samples import record_queue_length
from events.waitlist.services.triggering import enqueue_waitlist_processing

logger = logging.getLogger("encore.waitlist")


def claim_offer_for_registration(
    event: Event,
    user_id: uuid.UUID,
    *,
    check: LockedCheck | None = None,
    now: datetime | None = None,
) -> bool:
    """After a successful registration: PENDING → CLAIMED, leave the queue, nudge.

    The caller holds the Event lock and has written the registration; `check` is what it
    read under that lock (read here when not given: new offers and queue entries are
    only made under the same lock, so it is still true). Any successful registration
    removes the queue entry; only a claimed offer nudges the processor (other offers of
    the batch may strand seats until they expire).
    """
    now = now or timezone.now()
    check = check or locked_check(event.pk, user_id, now)
    claimed = False
    if check.pending_offer_id is not None:
        claimed = claim_live_offer(check.pending_offer_id, now)
    if check.on_waitlist:
        if check.pending_offer_id is not None and not claimed:
            # Lapsed and not swept yet: revoked (`entry_deleted`), as the entry's
            # post_delete would do, before the entry goes (offer rows first).
            revoke_offer_of_removed_entry(event.pk, user_id)
        delete_queue_entry(event.pk, user_id)
    after_claim(
        event.pk,
        user_id,
        offer_id=check.pending_offer_id,
        claimed=claimed,
        left_queue=check.on_waitlist,
        now=now,
    )
    return claimed


def after_claim(
    event_id: uuid.UUID,
    user_id: uuid.UUID,
    *,
    offer_id: uuid.UUID | None,
    claimed: bool,
    left_queue: bool,
    now: datetime,
) -> None:
    """What a claim leaves for after the commit, shared by the Python claim and the one
    statement claim (`events.core.services.claim_function`): the queue sample when the member
    left the queue, and for a claimed offer the log line, the defensive nudge and the
    metric. Outside a transaction each runs at once (`dispatch`)."""
    if left_queue:
        # The statistics' sample costs a count of the queue: after the commit, not
        # under the lock every racer waits for.
        dispatch.call_after_commit(
            "waitlist queue sample", lambda: record_queue_length(event_id, now)
        )
    if claimed:
        logger.info(
            "waitlist offer claimed",
            extra={"event_id": str(event_id), "offer_id": str(offer_id)},
        )
        enqueue_waitlist_processing(event_id)  # defensive nudge
        metrics.count(metrics.OFFERS_CLAIMED)
