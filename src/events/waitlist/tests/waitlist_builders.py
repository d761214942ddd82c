"""Shared builders and probes of the advanced-waitlist tests (docs/spec/waitlist-design.md).

Time is frozen in most of these tests (`time_machine.travel(..., tick=False)`), so every
row written in one step gets the same `created_at`; `queue_in_order` therefore spaces
the queue entries out explicitly, or FIFO ties would be broken by random UUIDs.
"""

import uuid
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_rsvps, fill_with_tickets, make_event, make_tier
from events.models import Event, EventWaitList, TicketTier, WaitlistOffer
from events.waitlist import services as waitlist_service

#: The tests' "now": far enough from the wall clock that no default lands near it.
T0 = datetime(2031, 5, 1, 12, 0, tzinfo=UTC)
WINDOW = timedelta(hours=2)
START = T0 + timedelta(days=7)

Status = WaitlistOffer.WaitlistOfferStatus
Reason = WaitlistOffer.RevokedReason


# -- events ----------------------------------------------------------------------------------
#: Every field of the API's offer schema (docs/spec/api.md "Offer schema", plus `revoked_reason`).
OFFER_FIELDS = frozenset(
    {
        "id",
        "event_id",
        "user",
        "status",
        "expires_at",
        "claimed_at",
        "notified_at",
        "batch_id",
        "is_cutoff_batch",
        "created_at",
        "revoked_reason",
        "seats",
        "tier_id",
        "declined_at",
    }
)


def active_event(capacity: int = 10, attendees: int = 0, **fields: Any) -> Event:
    """An open RSVP event with the active waitlist on (2-hour window, open mode unless
    `waitlist_batch_size` is given), `attendees` YES RSVPs already seated."""
    fields.setdefault("waitlist_open", True)
    fields.setdefault("waitlist_time_window", WINDOW)
    fields.setdefault("start", START)
    event = make_event(max_attendees=capacity, **fields)
    if attendees:
        fill_with_rsvps(event, attendees)
    return event


def active_ticketed_event(
    capacity: int = 10, sold: int = 0, **fields: Any
) -> tuple[Event, TicketTier, list[User]]:
    """A ticketed event with the active waitlist on, one free tier, `sold` active tickets."""
    event = active_event(capacity, requires_ticket=True, **fields)
    tier = make_tier(event, payment_method=TicketTier.PaymentMethod.FREE)
    holders = fill_with_tickets(event, tier, sold) if sold else []
    return event, tier, holders


def reload(event: Event) -> Event:
    return Event.objects.select_related("organization", "venue").get(pk=event.pk)


# -- the queue -------------------------------------------------------------------------------
def queue_in_order(event: Event, members: int | Iterable[User]) -> list[User]:
    """Queue users (or `members` new ones) one second apart, in the given order."""
    people = [make_user() for _ in range(members)] if isinstance(members, int) else list(members)
    entries = EventWaitList.objects.bulk_create(
        EventWaitList(event=event, user=person) for person in people
    )
    first = T0 - timedelta(days=1)
    for rank, entry in enumerate(entries):
        EventWaitList.objects.filter(pk=entry.pk).update(created_at=first + timedelta(seconds=rank))
    return people


def queued_ids(event: Event) -> set[uuid.UUID]:
    return set(EventWaitList.objects.filter(event=event).values_list("user_id", flat=True))


# -- offers ----------------------------------------------------------------------------------
def offers_of(event: Event, status: str | None = None) -> list[WaitlistOffer]:
    found = WaitlistOffer.objects.filter(event=event)
    if status is not None:
        found = found.filter(status=status)
    return list(found.order_by("created_at", "pk"))


def offered_ids(event: Event, status: str = Status.PENDING) -> set[uuid.UUID]:
    return set(
        WaitlistOffer.objects.filter(event=event, status=status).values_list("user_id", flat=True)
    )


def offer_of(event: Event, user: User) -> WaitlistOffer:
    """The user's most recent offer for the event."""
    return WaitlistOffer.objects.filter(event=event, user=user).latest("updated_at")


def ids(people: Iterable[User]) -> set[uuid.UUID]:
    return {person.pk for person in people}


def give_offer(
    event: Event, user: User, *, expires_at: datetime | None = None, cutoff: bool = False
) -> WaitlistOffer:
    """A PENDING offer written directly (setup only; the services are what is tested)."""
    return WaitlistOffer.objects.create(
        event=event,
        user=user,
        expires_at=expires_at or T0 + WINDOW,
        batch_id=uuid.uuid4(),
        is_cutoff_batch=cutoff,
    )


# -- probes (`dispatched`, the enqueue recorder, comes from src/events/conftest.py) ------
@pytest.fixture
def passes(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[list[waitlist_service.WaitlistProcessingResult]]:
    """Results of every processing pass the (eager) Celery task ran, in order."""
    results: list[waitlist_service.WaitlistProcessingResult] = []
    real: Callable[[uuid.UUID], waitlist_service.WaitlistProcessingResult] = (
        waitlist_service.process_waitlist_for_event
    )

    def recording(event_id: uuid.UUID) -> waitlist_service.WaitlistProcessingResult:
        result = real(event_id)
        results.append(result)
        return result

    monkeypatch.setattr(waitlist_service, "process_waitlist_for_event", recording)
    yield results


def statuses(results: Iterable[waitlist_service.WaitlistProcessingResult]) -> list[str]:
    return [result.status for result in results]
