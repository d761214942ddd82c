"""The writes a registration makes under the Event lock, each compiled once per process.

Why compiled: while one claimer holds an event's row lock, every other claimer of that
event waits, so Django building a query under the lock costs the whole queue (the seed's
claim spent most of its time under the lock building statements; docs/spec/quality.md
e1, ADR 0022, figures in docs/bench.md). These statements are described with the ORM, as
everything else, and bound with fresh values at each call (ADR 0006). The read under the
lock is `events.core.selectors.locked_check`; the lock itself is `locks.lock_event_row`.

What they skip, on purpose: `save()` and the ORM's delete collector. A new RSVP needs
no model hook (EventRSVP has none), and the queue entry of a registering member is
deleted only after the claim has dealt with the member's PENDING offer, which is all
that the entry's `post_delete` receiver would do (`revoke_offer_of_removed_entry`).
"""

import uuid
from datetime import datetime
from typing import Any

from django.db.models import (
    CharField,
    DateTimeField,
    F,
    PositiveSmallIntegerField,
    QuerySet,
    UUIDField,
)

from common.compiled_query import CompiledInsert, CompiledWrite, Param
from events.models import Event, EventRSVP, EventWaitList, WaitlistOffer

Status = WaitlistOffer.WaitlistOfferStatus


def _now() -> Param:
    return Param("now", DateTimeField())


def _user() -> Param:
    return Param("user_id", UUIDField())


def _event() -> Param:
    return Param("event_id", UUIDField())


def _new_rsvp() -> QuerySet[Any, Any]:
    """One row made from the (locked) Event row: the new RSVP's columns."""
    return Event.objects.filter(pk=_event()).values(
        rsvp_id=Param("rsvp_id", UUIDField()),
        rsvp_event=F("pk"),
        rsvp_user=_user(),
        rsvp_status=Param("status", CharField()),
        rsvp_guests=Param("guests", PositiveSmallIntegerField()),
        rsvp_created_at=_now(),
        rsvp_updated_at=_now(),
    )


_INSERT_RSVP = CompiledInsert(
    EventRSVP,
    _new_rsvp,
    into={
        "rsvp_id": "id",
        "rsvp_event": "event_id",
        "rsvp_user": "user_id",
        "rsvp_status": "status",
        "rsvp_guests": "guests",
        "rsvp_created_at": "created_at",
        "rsvp_updated_at": "updated_at",
    },
)

_CLAIM_LIVE_OFFER = CompiledWrite(
    lambda: (
        WaitlistOffer.objects.filter(
            pk=Param("offer_id", UUIDField()), status=Status.PENDING, expires_at__gt=_now()
        ),
        {"status": Status.CLAIMED.value, "claimed_at": _now(), "updated_at": _now()},
    )
)

_DELETE_QUEUE_ENTRY = CompiledWrite(
    lambda: (EventWaitList.objects.filter(event_id=_event(), user_id=_user()), None)
)


def insert_rsvp(
    event: Event, user_id: uuid.UUID, status: str, guests: int, now: datetime
) -> EventRSVP:
    """Write a new RSVP of `user_id` (the caller knows there is none: `locked_check`)."""
    rsvp = EventRSVP(
        id=uuid.uuid4(),
        event=event,
        user_id=user_id,
        status=status,
        guests=guests,
        created_at=now,
        updated_at=now,
    )
    _INSERT_RSVP.execute(
        event_id=event.pk, rsvp_id=rsvp.pk, user_id=user_id, status=status, guests=guests, now=now
    )
    rsvp._state.adding = False
    rsvp._state.db = "default"
    return rsvp


def claim_live_offer(offer_id: uuid.UUID, now: datetime) -> bool:
    """PENDING → CLAIMED while `expires_at > now`; False when the offer lapsed or a sweep
    expired it first (the row lock the UPDATE takes decides between the two)."""
    return _CLAIM_LIVE_OFFER.execute(offer_id=offer_id, now=now) == 1


def delete_queue_entry(event_id: uuid.UUID, user_id: uuid.UUID) -> int:
    """Remove the member's queue entry; the caller has settled their PENDING offer."""
    return _DELETE_QUEUE_ENTRY.execute(event_id=event_id, user_id=user_id)
