"""An event with a queue and offers in every state, for the waitlist page's browser tests."""

from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.models import Event, WaitlistOffer
from events.waitlist.services.queue_samples import record_queue_length
from web.tests.waitlist.support import Status, active_event, offer, queue


@dataclass(frozen=True)
class Scene:
    event: Event
    organiser: User
    member: User
    offer: WaitlistOffer


@pytest.fixture
def scene() -> Scene:
    """Room for 5, three waiting, one of them (the member) holding a pending offer; one
    expired and one revoked offer besides; two samples of the queue's length."""
    event = active_event(
        name="Spring concert with a name long enough to wrap on a phone",
        waitlist_batch_size=2,
        waitlist_cutoff_date=timezone.now() + timedelta(days=6),
    )
    queue(event, 3)
    member = make_user("member.with.a.rather.long.address@example.com", first_name="Mia")
    pending = offer(event, member)
    offer(event, status=Status.EXPIRED, expires_at=timezone.now() - timedelta(hours=1))
    offer(event, status=Status.REVOKED, revoked_reason="waitlist_closed")
    for hours_ago in (3, 1):  # the statistics' chart has two points to draw
        record_queue_length(event.pk, timezone.now() - timedelta(hours=hours_ago))
    return Scene(event, event.organization.owner, member, pending)
