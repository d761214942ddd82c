"""Two buyers race for the last seat with paid checkouts (PostgreSQL, issue 14): one
pending ticket and one Checkout Session, one 409, never oversold."""

from collections import Counter

import pytest

from accounts.tests.factories import make_user
from common.tests.racing import post_together
from events.core.tests.factories import fill_with_tickets
from events.core.tests.threaded_eager import eager_join_flag_cleared_after_race
from events.models import Payment, Ticket
from events.ticketing.tests.payment_helpers import online_event, online_tier
from events.ticketing.tests.stripe_stub import stripe_stub
from events.ticketing.tests.test_checkout_race import _access_token
from events.ticketing.tests.ticket_helpers import assert_counters_true, free_tier

__all__ = ["eager_join_flag_cleared_after_race", "stripe_stub"]

ROUNDS = 3


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(ROUNDS))
def test_two_paid_checkouts_race_for_the_last_seat(stripe_stub, round_):
    event = online_event(max_attendees=3)
    fill_with_tickets(event, free_tier(event), 2)
    tier = online_tier(event)
    body = {"items": [{"tier_id": str(tier.pk), "count": 1}]}
    buyers = [_access_token(make_user()) for _ in range(2)]

    results = post_together([(f"/api/events/{event.pk}/checkout", t, body) for t in buyers])

    assert Counter(status for status, _ in results) == {201: 1, 409: 1}, results
    assert [code for status, code in results if status == 409] == ["event_is_full"]
    pending = Ticket.objects.filter(event=event, status=Ticket.Status.PENDING)
    assert pending.count() == 1
    assert Payment.objects.filter(event=event).count() == 1
    assert len(stripe_stub.calls_to("POST", "/v1/checkout/sessions")) == 1
    event.refresh_from_db()
    assert event.attendee_count == 3  # never oversold
    assert_counters_true(event)
