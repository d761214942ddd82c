"""A user leaving Encore: refuse while money is at stake, else release every seat they hold.

The events side of `accounts.service.user_deletion` (ADR 0013). The rows a user holds
here all cascade with the user, but a cascade frees nothing: `attendee_count` and the
tiers' `quantity_sold` would keep counting the seat and no waitlist pass would run (a
phantom seat). So before the rows go:

- `check(users)` raises when a user may not go: an owner of an organisation
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
  Blacklist entries naming a user become e-mail entries first, so a ban outlives the
  account (a re-registration with the same address is still refused).

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
from events.core.errors import HasPaidTickets, OwnsOrganizations
from events.core.services.event_manager import EventManager
from events.core.services.locks import lock_event, lock_tiers
from events.models import (
    Blacklist,
    Event,
    EventRSVP,
    EventWaitList,
    Organization,
    Ticket,
    WaitlistOffer,
)
from events.ticketing.services import cancellation as cancellation_service
from events.waitlist import services as waitlist_service

logger = logging.getLogger("encore.events")

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
            them = "it" if len(owned) == 1 else "them"
            raise OwnsOrganizations(
                f"The account {user.email} owns {_listing('organisation', owned)}. Give {them} another "
                f"owner (Organisations in this admin) or delete {them} first, then delete "
                "the user.",
                extra={"organizations": owned},
            )
        paid = list(
            Ticket.objects.filter(paid_tickets(), user=user).values_list("event__name", flat=True)
        )
        if paid:
            them = "it" if len(paid) == 1 else "them"
            events = sorted(set(paid))
            raise HasPaidTickets(
                f"The account {user.email} holds {len(paid)} paid ticket{'s' if len(paid) > 1 else ''} "
                f"for {_listing('event', events)} not over yet. Refund {them} (offline "
                f"refund) or cancel {them} in the event's ticket administration first, "
                "then delete the user.",
                extra={"paid_tickets": len(paid)},
            )


def _listing(noun: str, names: Sequence[str]) -> str:
    shown = ", ".join(f"“{name}”" for name in names[:5])
    more = f" and {len(names) - 5} more" if len(names) > 5 else ""
    return f"{len(names)} {noun}{'s' if len(names) > 1 else ''} ({shown}{more})"


# -- releasing --------------------------------------------------------------------------
def keep_bans(users: Sequence[User]) -> int:
    """A blacklist entry naming the user would cascade away with them, and the person
    could register again with the same address, unbanned: keep it as an e-mail entry."""
    kept = 0
    for user in users:
        kept += Blacklist.objects.filter(user=user).update(
            user=None, email=user.email.lower(), updated_at=timezone.now()
        )
    return kept


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
    keep_bans(users)
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
    """One event, one transaction, the global lock order for all `users` together: the
    Event row, the tiers of their tickets (pk order), their tickets (pk order), their
    RSVPs (pk order), then each one's offer before their queue row. A ticket found paid
    under the lock (paid since `check`) refuses the deletion."""
    try:
        event = lock_event(event_id)
    except Event.DoesNotExist:
        return  # deleted meanwhile: its rows went with it
    by_id = {user.pk: user for user in users}
    _release_tickets(event, by_id)
    rsvps = EventRSVP.objects.filter(event=event, user_id__in=by_id).order_by("pk")
    for rsvp_id, user_id in rsvps.values_list("pk", "user_id"):
        EventManager(by_id[user_id], event).delete_rsvp(rsvp_id)
    for user_id in sorted(by_id):
        waitlist_service.leave_waitlist(by_id[user_id], event)


def _release_tickets(event: Event, users: dict[uuid.UUID, User]) -> None:
    live = Ticket.objects.filter(LIVE, event=event, user_id__in=users)
    tier_ids = set(live.values_list("tier_id", flat=True))
    if not tier_ids:
        return
    lock_tiers(event, tier_ids)
    tickets = list(live.select_for_update(of=("self",)).order_by("pk"))
    paid_holder = live.filter(paid_tickets()).values_list("user_id", flat=True).first()
    if paid_holder is not None:
        check([users[paid_holder]])  # raises HasPaidTickets with the full explanation
    cancellation_service.release_tickets(
        event, tickets, Ticket.CancellationReason.USER, timezone.now(), notify_holders=False
    )
