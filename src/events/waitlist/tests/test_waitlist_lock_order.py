"""Offer rows are written before queue rows on every path that removes a queue entry.

The hourly sweep expires offers and then stamps their members' queue rows; a path that
deleted a queue row first and touched the offer afterwards (through the entry's
post_delete) would take the same two row locks in the other order, and PostgreSQL
would abort one side with a deadlock. Each path here holds an offer that is still
PENDING though past its deadline (the sweep has not reached it), the case where the
signal used to do the offer's write after the delete. (Registering locks that offer
before the delete too; `test_waitlist_races_*.py` race all three paths against the sweep.)
"""

from datetime import timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from common.compiled_query import expanded
from events.models import EventWaitList, WaitlistOffer
from events.waitlist.tests.waitlist_builders import (
    T0,
    Reason,
    Status,
    active_event,
    give_offer,
    queue_in_order,
)

pytestmark = pytest.mark.django_db

OFFERS = WaitlistOffer._meta.db_table
QUEUE = EventWaitList._meta.db_table


@pytest.fixture(autouse=True)
def _at_t0():
    with time_machine.travel(T0, tick=False):
        yield


def _lapsed_member(event):
    [member] = queue_in_order(event, 1)
    offer = give_offer(event, member, expires_at=T0 - timedelta(minutes=5))
    return member, offer


def _first(statements: list[str], prefix: str) -> int:
    for index, sql in enumerate(statements):
        if sql.lstrip().startswith(prefix):
            return index
    raise AssertionError(f"no statement starting {prefix!r} in {statements}")


def _offer_then_queue(queries: CaptureQueriesContext) -> None:
    """The first UPDATE of the offers table precedes the queue row's DELETE."""
    statements = [expanded(q["sql"]) for q in queries.captured_queries]
    offer_write = _first(statements, f'UPDATE "{OFFERS}"')
    queue_delete = _first(statements, f'DELETE FROM "{QUEUE}"')
    assert offer_write < queue_delete, statements


def test_staff_removal_revokes_the_offer_before_deleting_the_entry(api):
    event = active_event(3, attendees=3)
    member, offer = _lapsed_member(event)
    entry = EventWaitList.objects.get(event=event, user=member)

    with CaptureQueriesContext(connection) as queries:
        response = api(event.organization.owner).delete(
            f"/event-admin/{event.pk}/waitlist/{entry.pk}"
        )

    assert response.status_code == 204
    _offer_then_queue(queries)
    offer.refresh_from_db()
    assert (offer.status, offer.revoked_reason) == (Status.REVOKED, Reason.ENTRY_DELETED)


def test_leaving_expires_the_offer_before_deleting_the_entry(api):
    event = active_event(3, attendees=3)
    member, offer = _lapsed_member(event)

    with CaptureQueriesContext(connection) as queries:
        response = api(member).delete(f"/events/{event.pk}/waitlist/leave")

    assert response.status_code == 204
    _offer_then_queue(queries)
    offer.refresh_from_db()
    assert (offer.status, offer.revoked_reason) == (Status.EXPIRED, "")
