"""The honest ETA of a waiting member: the latest time an offer reaches them if all pass.

`eta_if_all_ahead_pass` answers one question (api.md "Waitlist, second round"): if every
live offer and every member ahead let theirs lapse, by when at the latest does the
member hold an offer? Never a promise of a seat (a claim ahead pushes it back to
"depends on cancellations"), but an upper bound the member can plan with; the method and
its proof sketch are docs/architecture/waitlist-eta-and-stats.md and ADR 0021.

Two halves, so the arithmetic can be tested without a database and the read stays at a
fixed cost: `queue_figures_for_entry` annotates the caller's own queue row (the row
my-status reads anyway) with a handful of aggregates, so my-status costs no extra query;
`estimate` is pure arithmetic over those figures, with no loop over the queue.
"""

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import (
    Count,
    Exists,
    IntegerField,
    Max,
    OuterRef,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce

from events.models import Event, EventWaitList, TicketTier, WaitlistOffer
from events.selectors import waitlist as waitlist_selectors

DEPENDS_ON_CANCELLATIONS = "depends_on_cancellations"
PARTY_LARGER_THAN_SEATS = "party_larger_than_seats_in_play"
BLOCKED_BY_LARGER_PARTY = "blocked_by_larger_party"
SMALLER_PARTIES_MAY_GO_FIRST = "smaller_parties_may_go_first"
DEPENDS_ON_THE_DRAW = "depends_on_the_draw"
EVENT_STARTS_FIRST = "event_starts_first"
NO_AUTOMATIC_OFFERS = "no_automatic_offers"

#: Every `reason` the ETA may carry (documented in the schema and the doc).
REASONS = (
    DEPENDS_ON_CANCELLATIONS,
    PARTY_LARGER_THAN_SEATS,
    BLOCKED_BY_LARGER_PARTY,
    SMALLER_PARTIES_MAY_GO_FIRST,
    DEPENDS_ON_THE_DRAW,
    EVENT_STARTS_FIRST,
    NO_AUTOMATIC_OFFERS,
)


@dataclass(frozen=True)
class Flow:
    """How the event hands out offers: its settings, read off the Event row."""

    automatic: bool  # are processing passes making offers at all?
    window: timedelta
    batch_size: int  # offers per pass; 0 = everyone up to the free seats
    lottery: bool
    strict: bool  # party policy
    cutoff: datetime | None
    latest_deadline: datetime  # no offer is made at or after this moment


@dataclass(frozen=True)
class QueueFigures:
    """What the estimate needs about one waiting member and the seats around them."""

    party_size: int
    rotated: bool  # has the member let an offer lapse (behind the never-rotated part)?
    #: Entries ahead in selection order without a live offer, their seats, the largest.
    places_ahead: int
    seats_ahead: int
    largest_party_ahead: int
    #: Seats held by live non-cutoff offers, and the latest of their deadlines.
    held_seats: int
    last_hold_ends: datetime | None
    #: Seats a pass could offer now besides the held ones (never negative).
    free_seats: int
    #: The seats that will circulate once every hold lapses (an overcommitted event
    #: circulates fewer than it holds).
    circulating_seats: int
    final_call_sent: bool


@dataclass(frozen=True)
class Eta:
    places_ahead: int
    seats_in_play: int
    eta_if_all_ahead_pass: datetime | None
    reason: str | None


def estimate(figures: QueueFigures, flow: Flow, now: datetime) -> Eta:
    """The latest time an offer reaches the member if everyone ahead passes (pure).

    Rounds: the first at T1 (now when nothing is held, else when the last live hold
    ends), then one every window. Each round offers at least `per_round` seats of the
    queue ahead of and including the member (the doc proves it for the three ways a pass
    stops: batch size, seats, end of the queue), so the member's offer comes by round
    ceil((seats ahead + 1) / per_round): once that many seats went to the queue ahead of
    and including the member, one of them was the member's (the ones ahead hold fewer).
    After the cutoff the first pass makes the all-hands offer, and no pass makes an offer
    at or after the latest deadline.
    """
    in_play = figures.free_seats + figures.held_seats
    places = figures.places_ahead
    reason = _no_bound(figures, flow, now)
    if reason is not None:
        return Eta(places, in_play, None, reason)
    rounds = -(-(figures.seats_ahead + 1) // _seats_per_round(figures, flow))  # ceil
    first = now if figures.held_seats == 0 else max(now, figures.last_hold_ends or now)
    eta = first + (rounds - 1) * flow.window
    if flow.cutoff is not None and eta >= flow.cutoff:
        # A freed seat always fits a party of one (under strict only if all are ones).
        every_pass_offers = figures.party_size == 1 and (
            not flow.strict or figures.largest_party_ahead == 1
        )
        eta = _first_pass_after_cutoff(first, flow, every_pass_offers=every_pass_offers)
    if eta >= flow.latest_deadline:
        return Eta(places, in_play, None, EVENT_STARTS_FIRST)
    return Eta(places, in_play, eta, None)


def _seats_per_round(figures: QueueFigures, flow: Flow) -> int:
    """Seats of the queue ahead (and the member) that every round surely offers.

    A pass stops at its batch size (that many offers, each at least a seat), when the
    seats run out, or (strict) at the first party that does not fit, with fewer seats
    left than the largest party. Under `fill` (the member a party of one) it skips what
    does not fit and stops only when no seat is left.
    """
    seats = figures.circulating_seats
    if flow.strict:
        seats -= max(figures.largest_party_ahead, figures.party_size) - 1
    return seats if flow.batch_size == 0 else min(flow.batch_size, seats)


def _no_bound(figures: QueueFigures, flow: Flow, now: datetime) -> str | None:
    """Why no finite upper bound exists, or None when one does."""
    if flow.latest_deadline <= now:
        return EVENT_STARTS_FIRST
    if not flow.automatic:
        return NO_AUTOMATIC_OFFERS
    if flow.cutoff is not None and now >= flow.cutoff and figures.final_call_sent:
        return NO_AUTOMATIC_OFFERS  # the one all-hands batch has gone out
    if figures.circulating_seats <= 0:
        return DEPENDS_ON_CANCELLATIONS
    if figures.party_size > figures.circulating_seats:
        return PARTY_LARGER_THAN_SEATS
    if flow.strict and figures.largest_party_ahead > figures.circulating_seats:
        return BLOCKED_BY_LARGER_PARTY
    if not flow.strict and figures.party_size > 1:
        # Under `fill`, seats freed a few at a time go to smaller parties behind.
        return SMALLER_PARTIES_MAY_GO_FIRST
    if flow.lottery and figures.rotated:
        # Rotated members are drawn afresh each batch among everyone who rotated since.
        return DEPENDS_ON_THE_DRAW
    return None


def _first_pass_after_cutoff(first: datetime, flow: Flow, *, every_pass_offers: bool) -> datetime:
    """The first round at or after the cutoff (one round later if a pass may offer nothing).

    When every pass offers someone (parties of one), the round times T1 + k·window are
    each a pass; otherwise only some pass within each window is guaranteed.
    """
    assert flow.cutoff is not None
    if first >= flow.cutoff:
        return first
    window_s = flow.window.total_seconds()
    rounds_to_cutoff = -(-(flow.cutoff - first).total_seconds() // window_s)
    extra = 0 if every_pass_offers else 1
    return first + timedelta(seconds=(rounds_to_cutoff + extra) * window_s)


# -- the read ------------------------------------------------------------------------


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


def eta_annotations(event: Event, now: datetime) -> dict[str, Any]:
    """Annotations for the caller's own EventWaitList row: the figures, one row, no loop.

    Each is an aggregate subquery over index ranges of the event (the queue ahead of the
    row; the event's PENDING offers), so the row my-status reads anyway carries them.
    In lottery mode anyone of the member's part may be drawn first, so "ahead" is every
    other never-rotated member without a live offer.
    """
    ahead = _ahead_of_row(event, now)
    held = waitlist_selectors.held_offers(OuterRef("event_id"), now).order_by()  # type: ignore[arg-type]

    def over(rows: QuerySet[Any, Any], value: Any) -> Coalesce:
        return Coalesce(
            Subquery(
                rows.values("event_id").annotate(v=value).values("v"), output_field=IntegerField()
            ),
            Value(0),
        )

    return {
        "eta_places": over(ahead, Count("pk")),
        "eta_seats_ahead": over(ahead, Sum("party_size")),
        "eta_largest_ahead": over(ahead, Max("party_size")),
        "eta_held_seats": over(held, Sum("seats")),
        "eta_last_hold_ends": Subquery(
            held.values("event_id").annotate(v=Max("expires_at")).values("v")
        ),
        "eta_final_call": Exists(
            WaitlistOffer.objects.filter(event_id=OuterRef("event_id"), is_cutoff_batch=True)
        ),
    }


def _ahead_of_row(event: Event, now: datetime) -> QuerySet[EventWaitList]:
    others = EventWaitList.objects.filter(event_id=OuterRef("event_id")).exclude(pk=OuterRef("pk"))
    if event.waitlist_lottery_mode:
        part = others.filter(last_offer_expired_at__isnull=True)
    else:
        part = others.filter(waitlist_selectors.ahead_in_selection_order())
    return part.exclude(waitlist_selectors.holds_live_offer(now)).order_by()


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
    row: dict[str, Any], event: Event, tiers: Iterable[TicketTier], now: datetime
) -> QueueFigures:
    """Turn the annotated row into figures: free seats as the processor counts them."""
    held = int(row["eta_held_seats"])
    room = event.effective_capacity - event.attendee_count
    left = tickets_left(tiers, now) if event.requires_ticket else None
    bound = room if left is None else min(room, left)
    return QueueFigures(
        party_size=int(row["party_size"]),
        rotated=row["last_offer_expired_at"] is not None,
        places_ahead=int(row["eta_places"]),
        seats_ahead=int(row["eta_seats_ahead"]),
        largest_party_ahead=int(row["eta_largest_ahead"]),
        held_seats=held,
        last_hold_ends=row["eta_last_hold_ends"],
        free_seats=max(0, bound - held),
        circulating_seats=max(0, bound),
        final_call_sent=bool(row["eta_final_call"]),
    )


def waitlist_eta(
    event: Event, user_id: uuid.UUID, now: datetime, tiers: Iterable[TicketTier] = ()
) -> Eta | None:
    """The ETA of one member on their own (None when not queued); my-status folds the
    same annotations into its queue read instead."""
    row = (
        EventWaitList.objects.filter(event=event, user_id=user_id)
        .annotate(**eta_annotations(event, now))
        .values("party_size", "last_offer_expired_at", *eta_annotations(event, now))
        .first()
    )
    if row is None:
        return None
    return estimate(figures_from_row(row, event, tiers, now), flow_of(event), now)


__all__ = [
    "REASONS",
    "Eta",
    "Flow",
    "QueueFigures",
    "estimate",
    "eta_annotations",
    "figures_from_row",
    "flow_of",
    "waitlist_eta",
]
