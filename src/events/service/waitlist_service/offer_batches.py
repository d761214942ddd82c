"""Writing a batch of waitlist offers: one statement that picks the members and inserts.

The members a batch goes to are the head of a query (selectable members in selection
order, or drawn by lottery), so the database picks them and writes their offers in
one `INSERT ... SELECT`; the rows never travel to Python and back, and the statement
is compiled once per process (ADR 0006). Callers hold the Event lock: this module
neither locks nor decides how many seats are free.
"""

import uuid
from datetime import datetime
from typing import Any, Literal

from django.db.models import BooleanField, DateTimeField, F, OrderBy, QuerySet, UUIDField, Value

from common.compiled_query import CompiledInsert, Param
from common.db_functions import RandomUUID
from events.models import WaitlistOffer
from events.selectors import waitlist as waitlist_selectors

Draw = Literal["fifo", "lottery", "cutoff"]

#: Column of the selection → the WaitlistOffer field it fills. notified_at, claimed_at
#: and declined_at stay NULL; revoked_reason is blank on a new offer; an offer holds the
#: member's party and is for the tier they queue for.
_OFFER_COLUMNS = {
    "offer_id": "id",
    "offer_event": "event_id",
    "offer_user": "user_id",
    "offer_status": "status",
    "offer_expires_at": "expires_at",
    "offer_batch": "batch_id",
    "offer_cutoff": "is_cutoff_batch",
    "offer_seats": "seats",
    "offer_tier": "tier_id",
    "offer_revoked_reason": "revoked_reason",
    "offer_created_at": "created_at",
    "offer_updated_at": "updated_at",
}


def _offers_for(order: list[OrderBy | str]) -> QuerySet[Any, Any]:
    """One new PENDING offer per selectable member of the event, in `order`."""
    event_id = waitlist_selectors.event_id_param()
    now = waitlist_selectors.now_param()
    return (
        waitlist_selectors.selectable_entries(event_id)
        .order_by(*order)
        .values(
            offer_id=RandomUUID(),
            offer_event=event_id,
            offer_user=F("user_id"),
            offer_status=Value(WaitlistOffer.WaitlistOfferStatus.PENDING.value),
            offer_expires_at=Param("expires_at", DateTimeField()),
            offer_batch=Param("batch_id", UUIDField()),
            offer_cutoff=Param("is_cutoff_batch", BooleanField()),
            offer_seats=F("party_size"),
            offer_tier=F("tier_id"),
            offer_revoked_reason=Value(""),
            offer_created_at=now,
            offer_updated_at=now,
        )
    )


_BATCHES: dict[Draw, CompiledInsert] = {
    "fifo": CompiledInsert(
        WaitlistOffer,
        lambda: _offers_for(waitlist_selectors.selection_order()),
        into=_OFFER_COLUMNS,
        limit=True,
    ),
    "lottery": CompiledInsert(
        WaitlistOffer,
        lambda: _offers_for(waitlist_selectors.lottery_order()),
        into=_OFFER_COLUMNS,
        limit=True,
    ),
    # The all-hands batch after the cutoff: every selectable member.
    "cutoff": CompiledInsert(
        WaitlistOffer,
        lambda: _offers_for(waitlist_selectors.selection_order()),
        into=_OFFER_COLUMNS,
    ),
}


def insert_offer_batch(
    event_id: uuid.UUID,
    draw: Draw,
    *,
    size: int | None,
    batch_id: uuid.UUID,
    expires_at: datetime,
    now: datetime,
) -> list[uuid.UUID]:
    """Offer `size` members (all of them for the cutoff draw, which takes no limit);
    returns the new offers' ids."""
    return _BATCHES[draw].execute(
        event_id=event_id,
        now=now,
        expires_at=expires_at,
        batch_id=batch_id,
        is_cutoff_batch=draw == "cutoff",
        limit=size,
    )
