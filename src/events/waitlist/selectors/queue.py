"""Reads about the waitlist: who is next, where each member stands, what is held.

Selection order (seed-tables "Rotation"): members who never let an offer lapse come
first, FIFO by join time (id breaks ties); members whose offer expired follow, ordered
by when it expired. Users holding a PENDING offer, or soft-skipped by an organiser's
revoke, are not selectable. `waitlist_position` is the 1-based rank in that order among
members without a live offer; null while the user holds one.
"""

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db.models import (
    Case,
    Count,
    DateTimeField,
    Exists,
    Expression,
    F,
    IntegerField,
    Min,
    OrderBy,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    UUIDField,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.db.models.lookups import Exact, GreaterThan
from django.utils import timezone

from common.compiled_query import CompiledQuery, Param
from events.models import EventWaitList, WaitlistOffer
from events.waitlist.models.waitlist import ROTATED, SELECTION_KEY

PENDING = WaitlistOffer.WaitlistOfferStatus.PENDING
REVOKED = WaitlistOffer.WaitlistOfferStatus.REVOKED
#: Stands in for "never expired" when comparing rotation keys: earlier than any real expiry.
NEVER_ROTATED = datetime(1970, 1, 1, tzinfo=UTC)

#: An event id or a moment, or a `Param` standing for one in a compiled statement.
EventId = uuid.UUID | Expression
Moment = datetime | Expression


def event_id_param() -> Param:
    return Param("event_id", UUIDField())


def now_param() -> Param:
    return Param("now", DateTimeField())


def live_offers(now: Moment) -> QuerySet[WaitlistOffer]:
    """Offers that hold a seat or a claim right now: PENDING and not yet past `expires_at`."""
    return WaitlistOffer.objects.filter(status=PENDING, expires_at__gt=now)


def held_offers(event_id: EventId, now: Moment) -> QuerySet[WaitlistOffer]:
    """Live offers that reserve a seat: cutoff offers never do (docs/spec/waitlist-design.md)."""
    return live_offers(now).filter(Q(event_id=event_id), is_cutoff_batch=False)


def selection_order() -> list[OrderBy | str]:
    """Never-rotated members first (FIFO), then rotated ones by expiry; id breaks ties.

    The key of the `waitlist_selection_order` index, column for column, so the head of
    the queue (of either part) is one index scan with no sort.
    """
    return [ROTATED.asc(), *SELECTION_KEY[1:]]  # the key starts with ROTATED


def selectable_entries(event_id: EventId) -> QuerySet[EventWaitList]:
    """Queue members who may receive a new offer, in selection order."""
    mine = WaitlistOffer.objects.filter(Q(event_id=event_id), user_id=OuterRef("user_id"))
    blocked = mine.filter(Q(status=PENDING) | Q(_soft_skipping()))
    return (
        EventWaitList.objects.filter(Q(event_id=event_id))
        .exclude(Exists(blocked))
        .order_by(*selection_order())
    )


def _soft_skipping() -> Q:
    """For WaitlistOffer rows: an organiser's revoke not followed by a newer offer.

    The soft skip lasts "until reactivated or re-offered" (seed-tables admin endpoints):
    reactivating turns the offer itself back to PENDING, and an admin's new offer for the
    user is newer than the revoked one, so the old revoke stops counting. Only the
    organiser's own revoke skips; system revocations leave the user eligible.
    """
    newer = WaitlistOffer.objects.filter(
        event_id=OuterRef("event_id"),
        user_id=OuterRef("user_id"),
        created_at__gt=OuterRef("created_at"),
    )
    return Q(status=REVOKED, revoked_reason=WaitlistOffer.RevokedReason.ORGANIZER) & ~Q(
        Exists(newer)
    )


def seat_sum(offers: QuerySet[WaitlistOffer]) -> Coalesce:
    """The seats `offers` hold, as a scalar subquery (0 when none): an offer holds its
    party (`seats`), so every capacity figure sums seats and never counts rows."""
    summed = offers.order_by().values("event_id").annotate(n=Sum("seats")).values("n")
    return Coalesce(Subquery(summed, output_field=IntegerField()), Value(0))


def held_seats_of(offers: QuerySet[WaitlistOffer]) -> int:
    """The seats `offers` hold, read now (one aggregate)."""
    return int(offers.aggregate(n=Coalesce(Sum("seats"), Value(0)))["n"])


_HELD_SEATS_BY_TIER = CompiledQuery(
    lambda: (
        held_offers(event_id_param(), now_param())
        .order_by()
        .values("tier_id")
        .annotate(n=Sum("seats"))
        .values("tier_id", "n")
    ),
    prepared_as="held_seats_by_tier",
)


def held_seats_by_tier(event_id: uuid.UUID, now: datetime) -> dict[uuid.UUID | None, int]:
    """Seats held by live non-cutoff offers, per tier offered (None: any tier), by a
    statement compiled once (every processing pass asks, under the Event lock: a1)."""
    rows = _HELD_SEATS_BY_TIER.rows(event_id=event_id, now=now)
    return {row["tier_id"]: int(row["n"]) for row in rows}


def held_seats_per_tier(
    event_id: uuid.UUID,
    tier_ids: list[uuid.UUID],
    *,
    exclude_user: uuid.UUID | None = None,
    now: datetime | None = None,
) -> dict[uuid.UUID, int]:
    """Seats live offers hold for each of these tiers (a per-tier offer reserves its
    tier's quantity), the caller's own offer left out: it is held *for* them."""
    held = held_offers(event_id, now or timezone.now()).filter(tier_id__in=tier_ids)
    if exclude_user is not None:
        held = held.exclude(user_id=exclude_user)
    rows = held.order_by().values("tier_id").annotate(n=Sum("seats")).values_list("tier_id", "n")
    return {tier_id: int(n) for tier_id, n in rows}


def held_seats_for_tier(
    event_id: uuid.UUID, tier_id: uuid.UUID, *, exclude_user: uuid.UUID | None = None
) -> int:
    """Seats live offers of others hold for one tier."""
    return held_seats_per_tier(event_id, [tier_id], exclude_user=exclude_user).get(tier_id, 0)


def held_seat_count(event_id: uuid.UUID, now: datetime) -> int:
    """Seats held by live non-cutoff offers of the event, all tiers together."""
    return sum(held_seats_by_tier(event_id, now).values())


def _rotation_key(field: str | OuterRef) -> Coalesce:
    source = field if isinstance(field, OuterRef) else F(field)
    return Coalesce(source, Value(NEVER_ROTATED))


def _holds_live_offer(now: Moment) -> Exists:
    """For EventWaitList rows of the query it is used in: does that member hold a live offer?"""
    return Exists(
        live_offers(now).filter(event_id=OuterRef("event_id"), user_id=OuterRef("user_id"))
    )


def holds_live_offer(now: Moment) -> Exists:
    """For EventWaitList rows of the query it is used in: does that member hold a live offer?"""
    return _holds_live_offer(now)


def _outer(name: str, depth: int) -> OuterRef:
    """`name` of the row `depth` queries out (OuterRef of OuterRef...)."""
    ref: str | OuterRef = name
    for _ in range(depth):
        ref = OuterRef(ref)
    assert isinstance(ref, OuterRef)
    return ref


def ahead_in_selection_order(depth: int = 1) -> Q:
    """For EventWaitList rows of a subquery: ahead, in selection order, of the row
    `depth` queries out (1: the immediately enclosing query)."""
    my_key = _rotation_key(_outer("last_offer_expired_at", depth))
    key = _rotation_key("last_offer_expired_at")
    created_at, pk = _outer("created_at", depth), _outer("id", depth)
    return (
        Q(GreaterThan(my_key, key))
        | Q(Exact(key, my_key), created_at__lt=created_at)
        | Q(Exact(key, my_key), created_at=created_at, id__lt=pk)
    )


def _count_of(rows: QuerySet[Any]) -> Coalesce:
    counted = rows.order_by().values("event_id").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def position_expression(now: Moment) -> Case:
    """Annotation for EventWaitList rows: their `waitlist_position` (None with a live offer).

    The members ahead, less those of them holding a live offer: a subtraction, not a
    count of the members ahead without one, because that anti-join probes the offers
    once per member ahead (a cost that grows with the queue: docs/bench.md h1), while
    the live offers are few (at most one per member: `unique_pending_waitlist_offer`) and
    each finds its member's row by `unique_waitlist_entry`.
    """
    queued_ahead = EventWaitList.objects.filter(event_id=OuterRef("event_id")).filter(
        ahead_in_selection_order()
    )
    holder_ahead = EventWaitList.objects.filter(
        event_id=OuterRef("event_id"), user_id=OuterRef("user_id")
    ).filter(ahead_in_selection_order(depth=2))
    holding_ahead = (
        live_offers(now).filter(event_id=OuterRef("event_id")).filter(Exists(holder_ahead))
    )
    return Case(
        When(_holds_live_offer(now), then=Value(None)),
        default=_count_of(queued_ahead) - _count_of(holding_ahead) + 1,
        output_field=IntegerField(),
    )


@dataclass(frozen=True)
class QueueStanding:
    """Where a user stands in an event's queue."""

    on_waitlist: bool = False
    position: int | None = None  # None also while the user holds a live offer


def queue_standing(event_id: uuid.UUID, user_id: uuid.UUID, now: datetime) -> QueueStanding:
    row = (
        EventWaitList.objects.filter(event_id=event_id, user_id=user_id)
        .annotate(position=position_expression(now))
        .values("position")
        .first()
    )
    return QueueStanding() if row is None else QueueStanding(True, row["position"])


def queue_position(event_id: uuid.UUID, user_id: uuid.UUID, now: datetime) -> int | None:
    """1-based position in the event's queue; None when not queued or holding a live offer."""
    return queue_standing(event_id, user_id, now).position


def own_live_offer_seats(event_id: uuid.UUID, user_id: uuid.UUID, now: datetime) -> int | None:
    """Seats the user's live offer holds (their party), None without one: the claim of
    a party registers that many unless told otherwise."""
    return (
        live_offers(now)
        .filter(event_id=event_id, user_id=user_id)
        .values_list("seats", flat=True)
        .first()
    )


def next_batch_at(event_id: uuid.UUID, now: datetime) -> datetime | None:
    """Earliest expiry among the seats currently held: when the next batch may go out."""
    return held_offers(event_id, now).aggregate(first=Min("expires_at"))["first"]


def held_offer_count(event_id: uuid.UUID, excluding_user_id: uuid.UUID | None) -> int:
    """Seats held by live, non-cutoff waitlist offers of other users (one SUM).

    An offer holds its party's seats (`WaitlistOffer.seats`), so this sums seats, not
    offers. The caller's own offer is reserved *for* them, so it is netted out: a party
    claiming with more seats than its offer holds needs free room for the difference
    only, and with fewer frees the rest. A cutoff offer never reserves, so nobody's
    cutoff offer counts (docs/spec/waitlist-design.md, docs/spec/domain.md fix).
    """
    held = held_offers(event_id, timezone.now())
    if excluding_user_id is not None:
        held = held.exclude(user_id=excluding_user_id)
    return held_seats_of(held)
