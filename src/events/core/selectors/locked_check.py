"""What a registration reads while it holds the Event lock: one statement, compiled once.

Why one statement: every claimer of an event waits while another holds its row
(`locks.lock_event_row`), so each round trip and each query Django builds under the lock
is paid by all of them (docs/spec/quality.md e1, ADR 0022). A registration needs the seat numbers
(attendee count, capacity, seats held by other users' live offers), whether an
invitation lifts the capacity, and the caller's own rows (queue entry, PENDING offer,
RSVP), which decide what the writes after the check must do. All of it comes from one
`SELECT` over the Event row, built from the usual selectors (`held_offers`) and compiled
once per process (ADR 0006).

Why not in the lock statement itself: PostgreSQL evaluates the sub-selects of a
`SELECT ... FOR UPDATE` in the statement's snapshot, taken before it waited for the lock;
when the row it waited for changes, only that row is re-read (EvalPlanQual), not the
sub-selects. A count folded into the lock would therefore miss the offer or RSVP the
previous holder just committed. This statement starts after the lock is held, so under
READ COMMITTED its snapshot includes every earlier holder's commit: what it reads is
authoritative as long as the lock is held.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from django.db.models import (
    DateTimeField,
    Exists,
    Expression,
    F,
    IntegerField,
    Min,
    OuterRef,
    QuerySet,
    Subquery,
    Sum,
    UUIDField,
)
from django.db.models.functions import Coalesce

from accounts.models import User
from common.compiled_query import CompiledQuery, Param
from events.core.models.event import capacity_limit
from events.models import Event, EventRSVP, EventWaitList, Invitation, WaitlistOffer
from events.waitlist.selectors.queue import held_offers, live_offers, now_param, position_expression

PENDING = WaitlistOffer.WaitlistOfferStatus.PENDING


@dataclass(frozen=True)
class LockedCheck:
    """The numbers and the caller's rows, as of the lock (see the module docstring)."""

    attendee_count: int
    effective_capacity: int  # 0 = unlimited
    held: int  # seats held by live, non-cutoff offers of *other* users
    overrides: bool  # an invitation with `overrides_max_attendees`
    on_waitlist: bool
    pending_offer_id: uuid.UUID | None  # the caller's PENDING offer, live or lapsed
    rsvp_id: uuid.UUID | None
    rsvp_status: str | None
    rsvp_guests: int

    @property
    def rsvp_seats(self) -> int:
        """Seats the caller's current RSVP takes (`EventRSVP.seats`: a YES and its guests)."""
        return 1 + self.rsvp_guests if self.rsvp_status == EventRSVP.Status.YES else 0


def _build() -> QuerySet[Any, Any]:
    user = Param("user_id", UUIDField())
    event = OuterRef("pk")
    held_seats = (
        held_offers(cast(Expression, event), now_param())  # an OuterRef resolves to one
        .exclude(user_id=user)
        .order_by()
        .values("event_id")
        .annotate(n=Sum("seats"))
        .values("n")
    )
    rsvp = EventRSVP.objects.filter(event_id=event, user_id=user)
    return Event.objects.filter(pk=Param("event_id", UUIDField())).values(
        "attendee_count",
        "max_attendees",
        venue_capacity=F("venue__capacity"),
        held=Coalesce(Subquery(held_seats, output_field=IntegerField()), 0),
        overrides=Exists(
            Invitation.objects.filter(event_id=event, user_id=user, overrides_max_attendees=True)
        ),
        on_waitlist=Exists(EventWaitList.objects.filter(event_id=event, user_id=user)),
        pending_offer_id=Subquery(
            WaitlistOffer.objects.filter(event_id=event, user_id=user, status=PENDING).values("pk")[
                :1
            ]
        ),
        rsvp_id=Subquery(rsvp.values("pk")[:1]),
        rsvp_status=Subquery(rsvp.values("status")[:1]),
        rsvp_guests=Subquery(rsvp.values("guests")[:1]),
    )


_CHECK = CompiledQuery(_build, prepared_as="locked_check")


def locked_check(event_id: uuid.UUID, user_id: uuid.UUID, now: datetime) -> LockedCheck:
    """Read the check for `user_id`; the caller holds the Event row lock (raises
    Event.DoesNotExist for an unknown id, as the lock would have)."""
    rows = _CHECK.rows(event_id=event_id, user_id=user_id, now=now)
    if not rows:
        raise Event.DoesNotExist(f"no event {event_id}")
    row = rows[0]
    return LockedCheck(
        attendee_count=row["attendee_count"],
        effective_capacity=capacity_limit(row["max_attendees"], row["venue_capacity"]),
        held=int(row["held"]),
        overrides=bool(row["overrides"]),
        on_waitlist=bool(row["on_waitlist"]),
        pending_offer_id=row["pending_offer_id"],
        rsvp_id=row["rsvp_id"],
        rsvp_status=row["rsvp_status"],
        rsvp_guests=row["rsvp_guests"] or 0,
    )


# -- after the lock: what a refusal adds to its answer --------------------------------------
@dataclass(frozen=True)
class RefusalDetails:
    """What a refused claimer is told beside the decision (read after the rollback)."""

    position: int | None  # None when not queued or while holding a live offer
    next_batch_at: datetime | None  # the earliest expiry among the held seats
    timezone: str
    own_offer_expires_at: datetime | None  # the caller's live offer, cutoff ones included


def _build_details() -> QuerySet[Any, Any]:
    event, now = Param("event_id", UUIDField()), now_param()
    entry = EventWaitList.objects.filter(event_id=event, user_id=OuterRef("pk"))
    first_expiry = (
        held_offers(event, now)
        .order_by()
        .values("event_id")
        .annotate(first=Min("expires_at"))
        .values("first")
    )
    own_offer = live_offers(now).filter(event_id=event, user_id=OuterRef("pk"))
    return User.objects.filter(pk=Param("user_id", UUIDField())).values(
        "timezone",
        position=Subquery(
            entry.annotate(n=position_expression(now)).values("n")[:1],
            output_field=IntegerField(),
        ),
        next_batch_at=Subquery(first_expiry, output_field=DateTimeField()),
        own_offer_expires_at=Subquery(own_offer.values("expires_at")[:1]),
    )


#: One statement instead of three querysets: a refused claimer reads it while others hold
#: the lock, so the Python it saves is time the lock holder does not wait for the CPU.
_DETAILS = CompiledQuery(_build_details, prepared_as="refusal_details")


def refusal_details(event_id: uuid.UUID, user_id: uuid.UUID, now: datetime) -> RefusalDetails:
    """Queue position, next batch, the user's zone and own live offer, in one statement
    (the same selectors as `queue_standing`, `next_batch_at` and the gate's own offer)."""
    rows = _DETAILS.rows(event_id=event_id, user_id=user_id, now=now)
    row = rows[0] if rows else {}
    return RefusalDetails(
        position=row.get("position"),
        next_batch_at=row.get("next_batch_at"),
        timezone=row.get("timezone") or "UTC",
        own_offer_expires_at=row.get("own_offer_expires_at"),
    )
