"""The waitlist page costs the same few queries for 1 or many queued members and offers."""

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.tests.factories import make_user
from events.core.tests.factories import make_staff
from events.models import Event
from web.tests.waitlist.support import Status, active_event, offer, queue, url

pytestmark = pytest.mark.django_db


def _queries(client: Client, event: Event, query: str = "") -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url(event, query))
        assert response.status_code == 200
    return len(captured)


def _grow(event: Event, members: int, offers: int) -> None:
    queue(event, members, tag=f"g{members}")
    for n in range(offers):
        status = (Status.PENDING, Status.EXPIRED, Status.REVOKED, Status.CLAIMED)[n % 4]
        offer(event, make_user(), status=status)


@pytest.mark.parametrize("viewer", ["owner", "staff"])
def test_the_same_queries_for_one_or_many_queued_and_offered(client: Client, viewer: str) -> None:
    event = active_event(max_attendees=100)
    user: Any = event.organization.owner if viewer == "owner" else make_staff(event.organization)
    client.force_login(user)
    _grow(event, 1, 1)
    one = _queries(client, event)
    _grow(event, 70, 60)  # more than a page of each
    many = _queries(client, event)
    assert many == one
    assert _queries(client, event, "?queue_page=2&offers_page=2") == one
    # session, user, event (+ staff row and permission checks for staff), queue count,
    # queue page, live holders, offers count, offers page, and the statistics (offer
    # outcomes, claim durations, queue samples)
    assert one <= (11 if viewer == "owner" else 15)
