"""h1: the attendee's event page (`/events/{id}`, docs/spec/ui.md) for a waitlisted user.

A realistic busy event: capacity 1000, full (1000 YES RSVPs), 10,000 people queued; the
viewer is the last of them, so the page runs every gate and shows "You are number
10000 on the waitlist". A session login, as a browser has it; the whole HTTP stack,
templates included. Budget (issue 11): 30 ms.
"""

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from django.test import Client

from bench import builders
from bench.registry import Measured, committed_scenario

CAPACITY = 1000
QUEUED = 10_000
DATA = f"capacity {CAPACITY}, full, {QUEUED:,} queued; the viewer is last"
METHOD = "committed data; each run rolled back"


@contextmanager
def event_page(tag: str) -> Iterator[Measured]:
    with builders.committed(tag):
        event = builders.waitlist_event(tag, capacity=CAPACITY, batch_size=0)
        builders.attendees(event, CAPACITY)
        queued = builders.users(QUEUED, f"{tag}-queued")
        builders.queue(event, queued)
        builders.analyze()
        viewer = queued[-1]
        client = Client()
        client.force_login(viewer, backend="django.contrib.auth.backends.ModelBackend")
        path = f"/events/{event.pk}"
        expected = f"You are number {QUEUED} on the waitlist"

        def call() -> object:
            response = client.get(path)
            assert response.status_code == 200, (response.status_code, response.content[:300])
            body = response.content.decode()
            assert expected in body, body[-3000:]
            return body

        yield call


@committed_scenario("h1", "GET /events/{id} (session, waitlisted user)", data=DATA, method=METHOD)
def event_page_waitlisted() -> AbstractContextManager[Measured]:
    return event_page("h1")
