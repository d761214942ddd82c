"""Helpers shared by the waitlist read-side test modules (test_waitlist_read_side_*.py): a
full event with a queue, offers in a given state, and the caller's my-status and the admin
queue as read over HTTP.
"""

import uuid
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_rsvps, make_event
from events.models import Event, EventWaitList, WaitlistOffer

Status = WaitlistOffer.WaitlistOfferStatus


def _in(**delta: float) -> datetime:
    """A moment relative to now, whole seconds (the JSON encoder keeps milliseconds only)."""
    return (timezone.now() + timedelta(**delta)).replace(microsecond=0)


def offer(
    event: Event,
    user: User | None = None,
    *,
    status: str = Status.PENDING,
    expires_at: datetime | None = None,
    is_cutoff_batch: bool = False,
) -> WaitlistOffer:
    return WaitlistOffer.objects.create(
        event=event,
        user=user or make_user(),
        status=status,
        expires_at=expires_at or _in(hours=2),
        batch_id=uuid.uuid4(),
        is_cutoff_batch=is_cutoff_batch,
    )


def queue(event: Event, *users: User, expired: dict[User, datetime] | None = None) -> None:
    """Queue users a minute apart in the given order; `expired` stamps a lapsed offer."""
    start = timezone.now() - timedelta(hours=3)
    for index, member in enumerate(users):
        entry = EventWaitList.objects.create(event=event, user=member)
        EventWaitList.objects.filter(pk=entry.pk).update(
            created_at=start + timedelta(minutes=index),
            last_offer_expired_at=(expired or {}).get(member),
        )


def full_event(capacity: int = 4, attendees: int = 2, **fields: Any) -> Event:
    event = make_event(
        max_attendees=capacity,
        waitlist_open=True,
        waitlist_time_window=timedelta(hours=2),
        **fields,
    )
    fill_with_rsvps(event, attendees)
    return event


def admin_queue(api: Any, event: Event, **params: Any) -> list[dict[str, Any]]:
    response = api(event.organization.owner).get(f"/event-admin/{event.pk}/waitlist", **params)
    assert response.status_code == 200, response.content
    return response.json()["results"]


def instant(value: str) -> datetime:
    return datetime.fromisoformat(value)
