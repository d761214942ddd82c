"""Who a cancellation reaches, and what it gives up: what its confirmation names before
anyone says yes."""

import uuid
from dataclasses import dataclass

from django.db.models import Count

from accounts.models import User
from events.core.selectors import audiences
from events.models import Event, EventRSVP, EventWaitList, Ticket


@dataclass(frozen=True)
class CancellationAudience:
    #: People told (`event_cancelled`): YES RSVPs and ticket holders, each once.
    told: int
    #: Of them, those holding a ticket (their tickets stay as they are).
    ticket_holders: int
    #: People on the waitlist: they keep their place and are not told.
    waiting: int


def cancellation_audience(event: Event) -> CancellationAudience:
    """The same audience `event_notifications.attendees` tells; two queries."""
    holding = audiences.holding_tickets(event)
    figures = (
        User.objects.filter(is_active=True)
        .filter(holding | audiences.going(event))
        .aggregate(told=Count("pk"), ticket_holders=Count("pk", filter=holding))
    )
    return CancellationAudience(
        told=figures["told"],
        ticket_holders=figures["ticket_holders"],
        waiting=EventWaitList.objects.filter(event=event).count(),
    )


def own_rsvp_seats(event: Event, user_id: uuid.UUID) -> int:
    """The seats a person's YES holds (themselves and their guests); 0 without one."""
    guests = (
        EventRSVP.objects.filter(event=event, user_id=user_id, status=EventRSVP.Status.YES)
        .values_list("guests", flat=True)
        .first()
    )
    return 0 if guests is None else 1 + guests


def own_ticket(event: Event, user_id: uuid.UUID, ticket_id: uuid.UUID) -> Ticket | None:
    """A ticket of `event` its holder may name in a question (with its type's name)."""
    return (
        Ticket.objects.select_related("tier")
        .filter(pk=ticket_id, event=event, user_id=user_id)
        .first()
    )
