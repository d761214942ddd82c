"""The honest ETA of a waiting member: the latest time an offer reaches them if all pass.

`eta_if_all_ahead_pass` answers one question (docs/spec/api.md "Waitlist, second round"): if every
live offer and every member ahead let theirs lapse, by when at the latest does the
member hold an offer? Never a promise of a seat (a claim ahead pushes it back to
"depends on cancellations"), but an upper bound the member can plan with; the method and
its proof sketch are docs/architecture/waitlist-eta-and-stats.md and ADR 0021.

Two halves, so the arithmetic can be tested without a database and the read stays at a
fixed cost: `entry_with_figures` reads the caller's own queue row (the row my-status
reads anyway) annotated with four aggregates, by a statement compiled once, so my-status
costs no extra query; `events.waitlist.selectors.eta_rules.estimate` is pure arithmetic over those
figures, with no loop over the queue.
"""

import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.db.models import (
    BigIntegerField,
    Case,
    Count,
    Exists,
    Max,
    OuterRef,
    QuerySet,
    Subquery,
    Sum,
    UUIDField,
    Value,
    When,
)
from django.db.models.functions import Coalesce

from common.compiled_query import CompiledQuery, Param
from events.core.models.event import WAITLIST_PARTY_MAX
from events.models import Event, EventWaitList, TicketTier, WaitlistOffer
from events.waitlist.selectors import queue as waitlist_selectors
from events.waitlist.selectors.eta_rules import REASONS, Eta, Flow, QueueFigures, estimate


def flow_of(event: Event) -> Flow:
    """The event's settings as the estimate needs them.

    Mirrors `waitlist_service.useful_offers` (a selector may not import a service;
    tests/test_waitlist_eta.py checks the two agree): automatic offers need an open
    queue, the active mode, an open event and a capacity; none is made at or after the
    start, nor after an RSVP event's `rsvp_before`.
    """
    latest = event.start
    if event.rsvp_before is not None and not event.requires_ticket:
        latest = min(latest, event.rsvp_before)
    return Flow(
        automatic=bool(
            event.waitlist_open
            and event.waitlist_time_window is not None
            and event.status == Event.Status.OPEN
            and event.effective_capacity > 0
        ),
        window=event.waitlist_time_window or timedelta(0),
        batch_size=event.waitlist_batch_size,
        lottery=event.waitlist_lottery_mode,
        strict=event.waitlist_party_policy == Event.PartyPolicy.STRICT,
        cutoff=event.waitlist_cutoff_date,
        latest_deadline=latest,
    )


def eta_annotations(*, lottery: bool, now: waitlist_selectors.Moment) -> dict[str, Any]:
    """Annotations for the caller's own EventWaitList row: the figures, one row, no loop.

    Each is an aggregate subquery over index ranges of the event (the queue ahead of the
    row; the event's PENDING offers), so the row my-status reads anyway carries them.
    In lottery mode anyone of the member's part may be drawn first, so "ahead" is every
    other never-rotated member without a live offer.
    """
    ahead = _ahead_of_row(lottery=lottery, now=now)
    held = waitlist_selectors.held_offers(OuterRef("event_id"), now).order_by()  # type: ignore[arg-type]

    def over(rows: QuerySet[Any, Any], value: Any) -> Coalesce:
        return Coalesce(
            Subquery(
                rows.values("event_id").annotate(v=value).values("v"),
                output_field=BigIntegerField(),
            ),
            Value(0),
        )

    packed: Coalesce | Case = over(ahead, _packed_ahead())
    if not lottery:
        # FIFO: my-status knows the position already, so the queue ahead is scanned
        # only when a party of more than one is queued at all (CASE runs the subquery
        # only then): reading a long queue a second time would cost the event page a
        # scan that grows with the queue (h1; figures in docs/bench.md).
        packed = Case(When(_larger_parties_queued(), then=packed), default=Value(None))
    return {
        # One scan of the queue ahead for its three figures, packed into one integer.
        "eta_ahead": packed,
        "eta_held_seats": over(held, Sum("seats")),
        "eta_last_hold_ends": Subquery(
            held.values("event_id").annotate(v=Max("expires_at")).values("v")
        ),
        "eta_final_call": Exists(
            WaitlistOffer.objects.filter(event_id=OuterRef("event_id"), is_cutoff_batch=True)
        ),
    }


#: The packing of the queue ahead's figures: the largest party (at most
#: WAITLIST_PARTY_MAX < 16) in the low 4 bits, the count in the next 32, the seats above.
_LARGEST_BITS, _COUNT_BITS = 4, 32
assert WAITLIST_PARTY_MAX < 2**_LARGEST_BITS


def _packed_ahead() -> Any:
    return (
        Sum("party_size") * (2 ** (_LARGEST_BITS + _COUNT_BITS))
        + Count("pk") * (2**_LARGEST_BITS)
        + Max("party_size")
    )


def _unpack_ahead(packed: int) -> tuple[int, int, int]:
    """(places, seats, largest party) of the queue ahead."""
    largest = packed % (2**_LARGEST_BITS)
    places = (packed >> _LARGEST_BITS) % (2**_COUNT_BITS)
    return places, packed >> (_LARGEST_BITS + _COUNT_BITS), largest


def _larger_parties_queued() -> Exists:
    return Exists(
        EventWaitList.objects.filter(event_id=OuterRef("event_id"), party_size__gt=1).exclude(
            pk=OuterRef("pk")
        )
    )


def _ahead_of_row(*, lottery: bool, now: waitlist_selectors.Moment) -> QuerySet[EventWaitList]:
    others = EventWaitList.objects.filter(event_id=OuterRef("event_id")).exclude(pk=OuterRef("pk"))
    if lottery:
        part = others.filter(last_offer_expired_at__isnull=True)
    else:
        part = others.filter(waitlist_selectors.ahead_in_selection_order())
    return part.exclude(waitlist_selectors.holds_live_offer(now)).order_by()


#: The columns of the caller's queue row my-status shows, besides the figures.
ENTRY_COLUMNS = ("created_at", "party_size", "tier_id", "token", "last_offer_expired_at")


def _entry_row(lottery: bool) -> QuerySet[Any, Any]:
    annotations = eta_annotations(lottery=lottery, now=waitlist_selectors.now_param())
    return (
        EventWaitList.objects.filter(
            event_id=waitlist_selectors.event_id_param(), user_id=Param("user_id", UUIDField())
        )
        .annotate(**annotations)
        .values(*ENTRY_COLUMNS, *annotations)
    )


#: The caller's queue row with its figures: six subqueries, so compiled once per
#: process (ADR 0006) rather than built by the ORM on every my-status and page poll.
_ENTRY_ROWS = {
    lottery: CompiledQuery(lambda lottery=lottery: _entry_row(lottery))  # type: ignore[misc]
    for lottery in (False, True)
}


def entry_with_figures(event: Event, user_id: uuid.UUID, now: datetime) -> dict[str, Any] | None:
    """The caller's queue row (`ENTRY_COLUMNS`) and the ETA figures, in one query."""
    rows = _ENTRY_ROWS[event.waitlist_lottery_mode].rows(
        event_id=event.pk, user_id=user_id, now=now
    )
    return rows[0] if rows else None


def tickets_left(tiers: Iterable[TicketTier], now: datetime) -> int | None:
    """What the tiers on sale can still sell; None when unbounded (the processor's bound)."""
    left = 0
    for tier in tiers:
        if not tier.is_on_sale(now):
            continue
        if tier.remaining is None:
            return None
        left += tier.remaining
    return left


def figures_from_row(
    row: dict[str, Any],
    event: Event,
    tiers: Iterable[TicketTier],
    now: datetime,
    *,
    position: int | None,
) -> QueueFigures:
    """Turn the annotated row into figures: free seats as the processor counts them.

    `position` is the member's `waitlist_position`: without a larger party queued, the
    places ahead are the position less one, each a party of one.
    """
    held = int(row["eta_held_seats"])
    if row["eta_ahead"] is not None:
        places, seats_ahead, largest_ahead = _unpack_ahead(int(row["eta_ahead"]))
    else:
        places = max((position or 1) - 1, 0)
        seats_ahead, largest_ahead = places, min(places, 1)
    room = event.effective_capacity - event.attendee_count
    left = tickets_left(tiers, now) if event.requires_ticket else None
    bound = room if left is None else min(room, left)
    return QueueFigures(
        party_size=int(row["party_size"]),
        rotated=row["last_offer_expired_at"] is not None,
        places_ahead=places,
        seats_ahead=seats_ahead,
        largest_party_ahead=largest_ahead,
        held_seats=held,
        last_hold_ends=row["eta_last_hold_ends"],
        free_seats=max(0, bound - held),
        circulating_seats=max(0, bound),
        final_call_sent=bool(row["eta_final_call"]),
    )


def waitlist_eta(
    event: Event, user_id: uuid.UUID, now: datetime, tiers: Iterable[TicketTier] = ()
) -> Eta | None:
    """The ETA of one member (None when not queued)."""
    row = entry_with_figures(event, user_id, now)
    if row is None:
        return None
    position = waitlist_selectors.queue_position(event.pk, user_id, now)
    figures = figures_from_row(row, event, tiers, now, position=position)
    return estimate(figures, flow_of(event), now)


__all__ = [
    "REASONS",
    "Eta",
    "Flow",
    "QueueFigures",
    "entry_with_figures",
    "estimate",
    "eta_annotations",
    "figures_from_row",
    "flow_of",
    "waitlist_eta",
]
