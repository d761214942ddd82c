"""Helpers shared by the offer state machine test modules (test_waitlist_state_machine_*.py):
the clock frozen at T0, on-commit work run, a queue member holding an offer, the
organiser's client and an offer's admin URL, and an offer read back.
"""

from collections.abc import Callable
from datetime import timedelta

import pytest
import time_machine

from events.models import WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_builders import T0, active_event, queue_in_order

LATER = T0 + timedelta(minutes=10)


@pytest.fixture(autouse=True)
def _at_t0():
    with time_machine.travel(T0, tick=False):
        yield


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks):
    """Run a step and everything it leaves for after the commit (eager Celery included)."""

    def run(step: Callable[[], object]) -> object:
        with django_capture_on_commit_callbacks(execute=True):
            return step()

    return run


def holder_of_offer(capacity: int = 3, attendees: int = 1, **fields):
    """An event with one queued user holding a PENDING offer made by the processor."""
    event = active_event(capacity, attendees=attendees, waitlist_batch_size=1, **fields)
    [user] = queue_in_order(event, 1)
    result = waitlist_service.process_waitlist_for_event(event.pk)
    assert result.status == "ok"
    return event, user, WaitlistOffer.objects.get(event=event, user=user)


def admin(api, event):
    """The organisation's owner: every staff permission."""
    return api(event.organization.owner)


def offer_url(offer: WaitlistOffer, action: str) -> str:
    return f"/event-admin/{offer.event_id}/waitlist-offers/{offer.pk}/{action}"


def fetch(offer: WaitlistOffer) -> WaitlistOffer:
    offer.refresh_from_db()
    return offer
