"""Writing a batch of waitlist offers, always in one statement.

A regular batch is decided in Python (whose party fits is `batch_planning`), so its
offers are one multi-row INSERT of the chosen members. The all-hands batch after the
cutoff goes to every selectable member whatever their party (its offers reserve
nothing), so the database still picks its members and writes their offers in one
`INSERT ... SELECT`, compiled once per process (ADR 0006). Callers hold the Event lock:
this module neither locks nor decides how many seats are free.
"""

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db.models import BooleanField, DateTimeField, F, OrderBy, QuerySet, UUIDField, Value

from common.compiled_query import CompiledInsert, Param
from common.db_functions import AmongIds, RandomUUID
from events.models import EventWaitList, WaitlistOffer
from events.waitlist.selectors import queue as waitlist_selectors
from events.waitlist.selectors.candidates import Candidate

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


def _offer_values(entries: QuerySet[EventWaitList]) -> QuerySet[Any, Any]:
    """One new PENDING offer per queue entry of `entries`, for the member's party and tier."""
    now = waitlist_selectors.now_param()
    return entries.values(
        offer_id=RandomUUID(),
        offer_event=F("event_id"),
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


def _offers_for(order: list[OrderBy | str]) -> QuerySet[Any, Any]:
    """One new PENDING offer per selectable member of the event, in `order`."""
    event_id = waitlist_selectors.event_id_param()
    return _offer_values(waitlist_selectors.selectable_entries(event_id).order_by(*order))


def _offers_for_chosen() -> QuerySet[Any, Any]:
    """One new PENDING offer per entry whose id is bound to `entry_ids` (the pass chose them)."""
    entries = EventWaitList.objects.filter(event_id=waitlist_selectors.event_id_param()).filter(
        AmongIds("id", "entry_ids")
    )
    return _offer_values(entries.order_by())


#: Offers that take their entry's tier (every offer of an RSVP event, a tier's own queue):
#: the database writes them from the chosen entries, so no row travels through Python.
_CHOSEN = CompiledInsert(WaitlistOffer, _offers_for_chosen, into=_OFFER_COLUMNS)


#: The all-hands batch after the cutoff: every selectable member, whatever their party
#: (a cutoff offer holds nothing; its `seats` still says how many the member may claim).
_CUTOFF_BATCH = CompiledInsert(
    WaitlistOffer,
    lambda: _offers_for(waitlist_selectors.selection_order()),
    into=_OFFER_COLUMNS,
)


def insert_cutoff_batch(
    event_id: uuid.UUID, *, batch_id: uuid.UUID, expires_at: datetime, now: datetime
) -> list[uuid.UUID]:
    """Offer every selectable member in one INSERT ... SELECT; returns the new offers' ids."""
    return _CUTOFF_BATCH.execute(
        event_id=event_id, now=now, expires_at=expires_at, batch_id=batch_id, is_cutoff_batch=True
    )


def insert_offers(
    event_id: uuid.UUID,
    chosen: Sequence[tuple[Candidate, uuid.UUID | None]],
    *,
    batch_id: uuid.UUID,
    expires_at: datetime,
    now: datetime,
) -> list[uuid.UUID]:
    """One PENDING offer per (candidate, tier whose seats it holds), in one INSERT.

    Each offer holds the candidate's whole party. When every offer is for its entry's own
    tier (always on RSVP events) the compiled `INSERT ... SELECT` over the chosen entries
    writes them (docs/spec/quality.md a1); a whole-event member served from a tier's seats needs
    that tier written in, so such a batch is built in Python. Returns the new offers' ids.
    """
    if all(candidate.tier_id == tier_id for candidate, tier_id in chosen):
        return _CHOSEN.execute(
            event_id=event_id,
            entry_ids=[candidate.entry_id for candidate, _ in chosen],
            now=now,
            expires_at=expires_at,
            batch_id=batch_id,
            is_cutoff_batch=False,
        )
    offers = [
        new_offer(event_id, candidate, tier_id, batch_id=batch_id, expires_at=expires_at, now=now)
        for candidate, tier_id in chosen
    ]
    WaitlistOffer.objects.bulk_create(offers)
    return [offer.pk for offer in offers]


def new_offer(
    event_id: uuid.UUID,
    candidate: Candidate,
    tier_id: uuid.UUID | None,
    *,
    batch_id: uuid.UUID,
    expires_at: datetime,
    now: datetime,
) -> WaitlistOffer:
    """An unsaved PENDING offer of a batch for the candidate's whole party; `tier_id` is
    the tier whose seats it holds (None on RSVP events). Written in bulk by the caller."""
    return WaitlistOffer(
        id=uuid.uuid4(),
        event_id=event_id,
        user_id=candidate.user_id,
        status=WaitlistOffer.WaitlistOfferStatus.PENDING,
        expires_at=expires_at,
        batch_id=batch_id,
        is_cutoff_batch=False,
        seats=candidate.party_size,
        tier_id=tier_id,
        created_at=now,
        updated_at=now,
    )
