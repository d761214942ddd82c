"""Checkout under contention (PostgreSQL): the Event row lock serialises buyers, so the
last seats go to exactly as many buyers as there are seats, and locks follow the global
order (Event row first, then tiers in pk order, then tickets)."""

from collections import Counter
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from ninja_jwt.tokens import RefreshToken

from accounts.tests.factories import make_user
from common.compiled_query import expanded
from common.tests.racing import post_together
from events.core.tests.factories import fill_with_tickets
from events.core.tests.threaded_eager import eager_join_flag_cleared_after_race
from events.models import Ticket
from events.ticketing.services import cancellation as cancellation_service
from events.ticketing.services.batch_tickets import BatchTicketService, CartItem
from events.ticketing.tests.ticket_helpers import assert_counters_true, free_tier, ticketed_event

__all__ = ["eager_join_flag_cleared_after_race"]  # the autouse fixture, for pytest

BUYERS = 50
CAPACITY = 10
ALREADY_SOLD = CAPACITY - 5


def _access_token(user: Any) -> str:
    # ninja_jwt annotates for_user with an unbound TypeVar that mypy cannot solve.
    return str(RefreshToken.for_user(user).access_token)  # type: ignore[misc]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_fifty_buyers_race_for_the_last_five_seats():
    event = ticketed_event(max_attendees=CAPACITY)
    tier = free_tier(event)  # unlimited: the event's capacity is the binding limit
    fill_with_tickets(event, tier, ALREADY_SOLD)
    tokens = [_access_token(make_user()) for _ in range(BUYERS)]
    body = {"items": [{"tier_id": str(tier.pk), "count": 1}]}

    results = post_together([(f"/api/events/{event.pk}/checkout", t, body) for t in tokens])

    assert Counter(status for status, _ in results) == {201: 5, 409: BUYERS - 5}, results
    assert {code for status, code in results if status == 409} == {"event_is_full"}
    live = Ticket.objects.filter(event=event).exclude(status=Ticket.Status.CANCELLED)
    event.refresh_from_db()
    assert event.attendee_count == live.count() == CAPACITY
    assert_counters_true(event)


def _locking_statements(queries: list[dict[str, Any]]) -> list[str]:
    return [sql for sql in (expanded(q["sql"]) for q in queries) if "FOR UPDATE" in sql]


@pytest.mark.postgres
@pytest.mark.django_db
def test_checkout_locks_the_event_row_before_the_tiers_in_pk_order():
    event = ticketed_event()
    tiers = sorted([free_tier(event), free_tier(event), free_tier(event)], key=lambda t: t.pk)
    buyer = make_user()
    items = [CartItem(tier.pk, 1) for tier in reversed(tiers)]  # cart order ≠ pk order

    with CaptureQueriesContext(connection) as captured:
        BatchTicketService(event, buyer).create_batch(items)

    locks = _locking_statements(captured.captured_queries)
    assert 'FROM "events_event"' in locks[0]
    assert 'FROM "events_tickettier"' in locks[1]
    assert 'ORDER BY "events_tickettier"."id" ASC' in locks[1]
    first_lock = next(
        i for i, q in enumerate(captured.captured_queries) if "FOR UPDATE" in expanded(q["sql"])
    )
    writes_before = [
        sql
        for sql in (expanded(q["sql"]) for q in captured.captured_queries[:first_lock])
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
    ]
    assert writes_before == []


@pytest.mark.postgres
@pytest.mark.django_db
def test_cancellation_locks_event_then_tier_then_ticket():
    event = ticketed_event()
    tier = free_tier(event)
    buyer = make_user()
    [ticket] = BatchTicketService(event, buyer).create_batch([CartItem(tier.pk, 1)])

    with CaptureQueriesContext(connection) as captured:
        cancellation_service.cancel_ticket_by_user(buyer, ticket.pk)

    tables = [
        next(
            t
            for t in ("events_event", "events_tickettier", "events_ticket")
            if f'FROM "{t}"' in sql
        )
        for sql in _locking_statements(captured.captured_queries)
    ]
    assert tables == ["events_event", "events_tickettier", "events_ticket"]
