"""The signed-in attendee's page (`/me`): what they hold for events not over yet.

The same rows and order as the API's `/me/rsvps`, `/me/tickets` and `/me/waitlist`
(`events.core.selectors.me`), narrowed to events that have not ended (an event in progress
still counts) and to the first `limit` of each list. Five queries whatever the numbers:
one per list, and the caller's live offers in one prefetch (`me.my_waitlist`).
"""

from dataclasses import dataclass

from django.utils import timezone

from accounts.models import User
from events.core.selectors import me
from events.models import EventRSVP, EventWaitList, Ticket

LIMIT = 50


@dataclass(frozen=True)
class MyUpcoming:
    rsvps: list[EventRSVP]
    tickets: list[Ticket]
    waitlist: list[EventWaitList]


def my_upcoming(user: User, limit: int = LIMIT) -> MyUpcoming:
    now = timezone.now()
    return MyUpcoming(
        rsvps=list(me.my_rsvps(user).filter(event__end__gte=now)[:limit]),
        tickets=list(me.my_tickets(user).filter(event__end__gte=now)[:limit]),
        waitlist=list(me.my_waitlist(user).filter(event__end__gte=now)[:limit]),
    )
