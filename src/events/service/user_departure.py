"""A user leaving Encore: refuse while money is at stake, else release every seat they hold.

The events side of `accounts.service.user_deletion` (ADR 0013). The rows a user holds
here all cascade with the user, but a cascade frees nothing: `attendee_count` and the
tiers' `quantity_sold` would keep counting the seat and no waitlist pass would run (a
phantom seat). So before the rows go:

- `refusal_for(users)` reads whether any user may not go: an owner of an organisation
  (`Organization.owner` is PROTECT), or a holder of a *paid ticket*: not cancelled, of a
  tier with a price above 0, `paid_at` set (payment confirmed, box office), for an event
  that has not ended. That money is owed back or still to be used; staff refund or
  cancel the ticket first. A ticket of a past event, an unpaid one (pending offline, or
  priced at the door) and a free one are released.
- `release(users)` visits every event where one of them holds a live ticket, an RSVP, a
  queue entry or a pending offer, in Event pk order, and per event, in one transaction
  under the Event lock: cancels the tickets (`cancellation_service.release_tickets`,
  reason `user`, no mail to a leaving account), removes the RSVP (`EventManager.
  delete_rsvp`) and leaves the waitlist (`waitlist_service.leave_waitlist`: a held offer
  expires first). Each of those moves its counters under the lock and enqueues a
  processing pass on commit when a seat was freed, as on every other freeing path.

Outside a surrounding transaction each event commits on its own; a visit finds nothing
left to do at an event already released, so an interrupted deletion is simply retried.
"""

import logging
import uuid
from collections.abc import Sequence
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from events.departure_errors import HasPaidTickets, OwnsOrganizations
from events.models import Event, EventRSVP, EventWaitList, Organization, Ticket, WaitlistOffer
from events.service import cancellation_service, waitlist_service
from events.service.event_manager.manager import EventManager
from events.service.locks import lock_event, lock_tiers

logger = logging.getLogger("encore.accounts")

LIVE = ~Q(status=Ticket.Status.CANCELLED)


def paid_tickets(now: datetime | None = None) -> Q:
    """Tickets that block a deletion: paid, not cancelled, for an event not over yet."""
    return (
        LIVE & Q(tier__price__gt=0, paid_at__isnull=False) & Q(event__end__gt=now or timezone.now())
    )


# -- refusing ---------------------------------------------------------------------------
def check(users: Sequence[User]) -> None:
    """Raise the first refusal for any of `users` (owned organisations, then paid tickets)."""
    for user in users:
        owned = list(Organization.objects.filter(owner=user).values_list("name", flat=True))
        if owned:
            raise OwnsOrganizations(
                f"{user.email} owns {_listing('organisation', owned)}. Give "
                f"{'it' if len(owned) == 1 else 'them'} another owner (Organisations in this "
                "admin) or delete it first, then delete the user.",
                extra={"organizations": owned},
            )
        paid = Ticket.objects.filter(paid_tickets(), user=user)
        events = list(paid.order_by("event__start").values_list("event__name", flat=True))
        if events:
            raise HasPaidTickets(
                f"{user.email} holds {len(events)} paid ticket{'s' if len(events) > 1 else ''} "
                f"for {_listing('event', sorted(set(events)))} that "
                f"{'has' if len(set(events)) == 1 else 'have'} not ended. Refund (offline "
                "refund) or cancel them first in the event's ticket administration, then "
                "delete the user.",
                extra={"paid_tickets": len(events)},
            )


def _listing(noun: str, names: Sequence[str]) -> str:
    shown = ", ".join(f"“{name}”" for name in names[:5])
    more = f" and {len(names) - 5} more" if len(names) > 5 else ""
    return f"{len(names)} {noun}{'s' if len(names) > 1 else ''} ({shown}{more})"


# -- releasing --------------------------------------------------------------------------
def events_held_by(user_ids: Sequence[uuid.UUID]) -> list[uuid.UUID]:
    """Every event where one of the users holds something to release, in pk (lock) order."""
    held: set[uuid.UUID] = set()
    held.update(
        Ticket.objects.filter(LIVE, user_id__in=user_ids).values_list("event_id", flat=True)
    )
    held.update(EventRSVP.objects.filter(user_id__in=user_ids).values_list("event_id", flat=True))
    held.update(
        EventWaitList.objects.filter(user_id__in=user_ids).values_list("event_id", flat=True)
    )
    held.update(
        WaitlistOffer.objects.filter(
            user_id__in=user_ids, status=WaitlistOffer.WaitlistOfferStatus.PENDING
        ).values_list("event_id", flat=True)
    )
    return sorted(held)


def release(users: Sequence[User]) -> list[uuid.UUID]:
    """Release what `users` hold, event by event in pk order; returns the events visited."""
    event_ids = events_held_by([user.pk for user in users])
    for event_id in event_ids:
        release_at_event(event_id, users)
    if event_ids:
        logger.info(
            "departing users released",
            extra={"users": len(users), "events": len(event_ids)},
        )
    return event_ids


@transaction.atomic
def release_at_event(event_id: uuid.UUID, users: Sequence[User]) -> None:
    """One event, one transaction, the global lock order: Event → tiers → tickets, RSVPs,
    offers → queue rows. A paid ticket seen under the lock (paid since `check`) refuses."""
    try:
        event = lock_event(event_id)
    except Event.DoesNotExist:
        return  # deleted meanwhile: its rows went with it
    for user in users:
        _release_tickets(event, user)
        rsvp = EventRSVP.objects.filter(event=event, user=user).values_list("pk", flat=True)
        for rsvp_id in rsvp:
            EventManager(user, event).delete_rsvp(rsvp_id)
        waitlist_service.leave_waitlist(user, event)


def _release_tickets(event: Event, user: User) -> None:
    live = Ticket.objects.filter(LIVE, event=event, user=user)
    tier_ids = set(live.values_list("tier_id", flat=True))
    if not tier_ids:
        return
    lock_tiers(event, tier_ids)
    tickets = list(live.select_for_update(of=("self",)).order_by("pk"))
    if live.filter(paid_tickets()).exists():
        check([user])  # raises HasPaidTickets with the full explanation
    cancellation_service.release_tickets(
        event, tickets, Ticket.CancellationReason.USER, timezone.now(), notify_holders=False
    )
