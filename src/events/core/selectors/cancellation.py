"""Who a cancellation reaches: the figures its confirmation names before anyone says yes."""

from dataclasses import dataclass

from django.db.models import Count

from accounts.models import User
from events.core.selectors import audiences
from events.models import Event, EventWaitList


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
