"""The viewer's situation at one event, as the "Your status" region shows it (docs/spec/ui.md).

Read once from `events.core.eligibility.my_status.my_event_status` (the eligibility pipeline
and the viewer's RSVP, tickets, queue place and live offer, a fixed number of queries)
and sorted into the rows of docs/spec/ui.md's situation table. No rule is decided here: who may
register, who is full, what the next step is, all come from the pipeline; this only
picks which row of the table to show.

`state` is a digest of everything the region shows except the ticking clock and the
CSRF tokens, and except a refusal message: the polling script swaps the region only
when it changed, so a keyboard user's focus is not reset every few seconds for nothing,
and the message of a refused action stays until the situation itself changes.
"""

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext_noop

from events.core.eligibility.my_status import (
    MyEventStatus,
    OfferState,
    TicketState,
    my_event_status,
)
from events.core.eligibility.types import EventUserEligibility
from events.core.selectors.access import AnyUser, is_authenticated
from events.models import Event, EventRSVP, Ticket, TicketTier
from events.ticketing.selectors.payment_due import OfflineDue, offline_due
from events.waitlist.selectors.eta import Eta

ANONYMOUS = "anonymous"
CANCELLED = "cancelled"
HOLDING_OFFER = "holding_offer"
ATTENDING = "attending"
WAITING = "waiting"
MAY_REGISTER = "may_register"
REFUSED = "refused"


@dataclass(frozen=True)
class Situation:
    kind: str
    event: Event
    now: datetime
    status: MyEventStatus | None = None
    #: A refusal of the viewer's last action, shown in the region (nothing changed).
    message: str = ""
    tiers: tuple[TicketTier, ...] = field(default=())

    @property
    def eligibility(self) -> EventUserEligibility | None:
        return self.status.eligibility if self.status is not None else None

    @property
    def may_register(self) -> bool:
        return self.eligibility is not None and self.eligibility.allowed

    @property
    def next_step(self) -> str:
        eligibility = self.eligibility
        return (eligibility.next_step or "") if eligibility is not None else ""

    @property
    def reason(self) -> str:
        """The pipeline's reason; "not open" said as what the event's status means.

        The pipeline has one refusal for every status but open (`event_is_not_open`,
        "not open yet", docs/spec/domain.md); on a closed or cancelled event that reads as if it
        were about to open, so the page names the status instead.
        """
        eligibility = self.eligibility
        if eligibility is None:
            return ""
        if eligibility.reason_code == NOT_OPEN:
            return NOT_OPEN_BY_STATUS.get(self.event.status, eligibility.reason or "")
        return eligibility.reason or ""

    @property
    def reason_code(self) -> str:
        eligibility = self.eligibility
        return (eligibility.reason_code or "") if eligibility is not None else ""

    @property
    def next_batch_at(self) -> datetime | None:
        eligibility = self.eligibility
        return eligibility.next_batch_at if eligibility is not None else None

    @property
    def offer(self) -> OfferState | None:
        return self.status.offer if self.status is not None else None

    @property
    def seconds_left(self) -> int:
        offer = self.offer
        if offer is None:
            return 0
        return max(int((offer.expires_at - self.now).total_seconds()), 0)

    @property
    def clock(self) -> str:
        """The time left as H:MM:SS (what the countdown script shows, second by second)."""
        hours, rest = divmod(self.seconds_left, 3600)
        minutes, seconds = divmod(rest, 60)
        return f"{hours}:{minutes:02d}:{seconds:02d}"

    @property
    def position(self) -> int | None:
        status = self.status
        return status.waitlist.position if status is not None and status.waitlist else None

    @property
    def eta(self) -> Eta | None:
        """The honest ETA of a waiting viewer (None while they hold an offer)."""
        status = self.status
        return status.waitlist.eta if status is not None and status.waitlist else None

    @property
    def in_draw(self) -> bool:
        """Offers go out by lottery: a place in line means nothing, so none is shown."""
        return self.event.waitlist_lottery_mode

    @property
    def cutoff_at(self) -> datetime | None:
        """When the final round goes out: at the cutoff every member still waiting gets an
        offer at once, first to claim wins (docs/spec/waitlist-design.md); only an
        active waitlist (one with an offer window) has one."""
        event = self.event
        if event.waitlist_time_window is None:
            return None
        return event.waitlist_cutoff_date

    @property
    def cutoff_passed(self) -> bool:
        cutoff = self.cutoff_at
        return cutoff is not None and cutoff <= self.now

    @property
    def on_waitlist(self) -> bool:
        return self.status is not None and self.status.waitlist is not None

    @property
    def has_rsvp(self) -> bool:
        status = self.status
        return status is not None and status.rsvp is not None and status.rsvp.status == YES

    @property
    def tickets(self) -> list[TicketState]:
        """The viewer's tickets that still hold a seat."""
        if self.status is None:
            return []
        return [t for t in self.status.tickets if t.status != Ticket.Status.CANCELLED]

    @property
    def payment_due(self) -> OfflineDue | None:
        """What the viewer owes for tickets paid offline, with the organisation's
        instructions and the references to quote (None when nothing is owed)."""
        pending = [
            t for t in self.tickets if t.status == Ticket.Status.PENDING and not t.paid_online
        ]
        if not pending:
            return None
        tiers = list(self.event.ticket_tiers.all())  # prefetched by `get_public_event`
        return offline_due(pending, tiers, self.event.organization.payment_instructions)

    @property
    def state(self) -> str:
        """What the region shows, as a short digest (see the module docstring)."""
        eligibility = self.eligibility
        parts: list[object] = [
            self.kind,
            self.event.status,
            self.in_draw,
            self.cutoff_at,
            self.cutoff_passed,
            self.position,
            self.has_rsvp,
            [(t.id, t.status) for t in self.tickets],
            (self.offer.id, self.offer.expires_at) if self.offer else None,
            [(t.pk, t.remaining) for t in self.tiers],
            self.eta,
        ]
        if eligibility is not None:
            parts += [
                eligibility.allowed,
                eligibility.reason_code,
                eligibility.next_step,
                eligibility.next_batch_at.timestamp() if eligibility.next_batch_at else None,
            ]
        return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


YES = EventRSVP.Status.YES
NOT_OPEN = "event_is_not_open"
NOT_OPEN_BY_STATUS: dict[str, str] = {
    Event.Status.CLOSED: gettext_noop("Registration for this event is closed."),
    Event.Status.CANCELLED: gettext_noop("This event is cancelled."),
}


def tiers_on_sale(event: Event, now: datetime) -> tuple[TicketTier, ...]:
    """The event's tiers inside their sale window, from the prefetched `ticket_tiers`."""
    if not event.requires_ticket:
        return ()
    return tuple(tier for tier in event.ticket_tiers.all() if tier.is_on_sale(now))


def situation_for(user: AnyUser, event: Event, *, message: str = "") -> Situation:
    """The row of docs/spec/ui.md's situation table this viewer is in."""
    now = timezone.now()
    tiers = tiers_on_sale(event, now)
    if event.status == Event.Status.CANCELLED:
        # Nothing to register for, and nobody to log in for (docs/spec/ui.md).
        return Situation(CANCELLED, event, now, message=message)
    if not is_authenticated(user):
        return Situation(ANONYMOUS, event, now, tiers=tiers, message=message)
    status = my_event_status(user, event)
    probe = Situation(REFUSED, event, now, status=status, tiers=tiers)
    if status.offer is not None:
        kind = HOLDING_OFFER
    elif probe.has_rsvp or probe.tickets:
        kind = ATTENDING
    elif status.waitlist is not None:
        kind = WAITING
    elif status.eligibility.allowed:
        kind = MAY_REGISTER
    else:
        kind = REFUSED
    return Situation(kind, event, now, status=status, tiers=tiers, message=message)
