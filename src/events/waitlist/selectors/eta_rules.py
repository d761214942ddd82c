"""The honest ETA's arithmetic: the latest time an offer reaches a waiting member if all
ahead pass, from a handful of figures (pure: no database, no loop over the queue).

The method and its proof sketch: docs/architecture/waitlist-eta-and-stats.md, ADR 0021.
The figures are read by `events.waitlist.selectors.eta` in the query my-status makes
anyway; keeping the arithmetic here lets tests check every case without a database.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

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
