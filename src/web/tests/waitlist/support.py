"""Builders of the waitlist page tests: an event with the active waitlist on, its queue
and offers written directly (no checks), and the page's URLs."""

import uuid
from datetime import timedelta
from typing import Any

from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import make_event
from events.models import Event, EventWaitList, WaitlistOffer

Status = WaitlistOffer.WaitlistOfferStatus
WINDOW = timedelta(hours=2)


def url(event: Event, suffix: str = "") -> str:
    return f"/manage/events/{event.pk}/waitlist{suffix}"


def active_event(**fields: Any) -> Event:
    """An open event in a week with room for 5 and the active waitlist on (2 h, open mode)."""
    fields = {"max_attendees": 5, "waitlist_open": True, "waitlist_time_window": WINDOW, **fields}
    return make_event(**fields)


def queue(event: Event, count: int, tag: str = "q") -> list[EventWaitList]:
    """`count` queue entries, one second apart in joining order."""
    base = timezone.now() - timedelta(days=1)
    people = [make_user(f"{tag}{n}-{uuid.uuid4().hex[:6]}@example.com") for n in range(count)]
    entries = EventWaitList.objects.bulk_create(
        [EventWaitList(event=event, user=person) for person in people]
    )
    for n, entry in enumerate(entries):
        EventWaitList.objects.filter(pk=entry.pk).update(created_at=base + timedelta(seconds=n))
    return list(
        EventWaitList.objects.filter(event=event).select_related("user").order_by("created_at")
    )


def offer(event: Event, user: User | None = None, **fields: Any) -> WaitlistOffer:
    """A queue member holding an offer in the given state (default: pending for an hour)."""
    user = user or make_user()
    EventWaitList.objects.get_or_create(event=event, user=user)
    fields.setdefault("expires_at", timezone.now() + timedelta(hours=1))
    return WaitlistOffer.objects.create(event=event, user=user, batch_id=uuid.uuid4(), **fields)
