"""d1/d4: what a waitlisted user's view of a busy event costs (docs/spec/quality.md).

Capacity 1000: 900 attendees (YES RSVPs), 100 members holding live offers (the rest of
the seats), 400 more waiting; the user is the last of them, so every gate runs and the
answer is `on_waitlist_waiting_for_batch` at queue position 400. d1 is the service from
an event id; d4 the whole HTTP stack with a real JWT.
"""

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import timedelta

from django.test import Client
from django.utils import timezone

from accounts.models import User
from accounts.service.tokens import issue_token_pair
from bench import builders
from bench.registry import Measured, committed_scenario
from events.core.eligibility.pipeline import EligibilityService
from events.models import Event

CAPACITY = 1000
ATTENDEES = 900
OFFERS = CAPACITY - ATTENDEES
WAITING = 400
DATA = f"{ATTENDEES} attendees, {OFFERS} live offers, {WAITING} waiting"
METHOD = "committed data; each run rolled back"
REASON = "on_waitlist_waiting_for_batch"


def build_busy_event(tag: str) -> tuple[Event, User]:
    event = builders.waitlist_event(tag, capacity=CAPACITY, batch_size=OFFERS)
    builders.attendees(event, ATTENDEES)
    holders = builders.users(OFFERS, f"{tag}-holder")
    waiting = builders.users(WAITING, f"{tag}-waiting")
    builders.queue(event, holders + waiting)
    builders.offers(event, holders, timezone.now() + timedelta(hours=1))
    builders.analyze()
    return event, waiting[-1]


@contextmanager
def eligibility(tag: str) -> Iterator[Measured]:
    with builders.committed(tag):
        event, user = build_busy_event(tag)

        def call() -> object:
            bare = Event.objects.get(pk=event.pk)  # from the id, as a caller has it
            answer = EligibilityService(user, bare).check_eligibility()
            assert answer.reason_code == REASON and answer.waitlist_position == WAITING, answer
            return answer

        yield call


@contextmanager
def my_status(tag: str) -> Iterator[Measured]:
    with builders.committed(tag):
        event, user = build_busy_event(tag)
        client = Client(headers={"Authorization": f"Bearer {issue_token_pair(user).access}"})
        path = f"/api/events/{event.pk}/my-status"

        def call() -> object:
            response = client.get(path)
            assert response.status_code == 200, (response.status_code, response.content[:300])
            body = response.json()
            assert body["eligibility"]["reason_code"] == REASON, body
            return body

        yield call


@committed_scenario("d1", "full eligibility check, waitlisted user", data=DATA, method=METHOD)
def eligibility_check() -> AbstractContextManager[Measured]:
    return eligibility("d1")


@committed_scenario("d4", "GET /api/events/{id}/my-status (JWT)", data=DATA, method=METHOD)
def my_status_request() -> AbstractContextManager[Measured]:
    return my_status("d4")
