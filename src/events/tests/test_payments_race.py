"""Two buyers race for the last seat with paid checkouts (PostgreSQL, issue 14): one
pending ticket and one Checkout Session, one 409, never oversold."""

import json
import threading
from collections import Counter

import pytest

from accounts.tests.factories import make_user
from events.models import Payment, Ticket
from events.tests.factories import fill_with_tickets
from events.tests.payment_helpers import online_event, online_tier
from events.tests.stripe_stub import stripe_stub
from events.tests.test_checkout_race import Race, _access_token
from events.tests.threaded_eager import eager_join_flag_cleared_after_race
from events.tests.ticket_helpers import assert_counters_true, free_tier

__all__ = ["eager_join_flag_cleared_after_race", "stripe_stub"]

ROUNDS = 3


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(ROUNDS))
def test_two_paid_checkouts_race_for_the_last_seat(stripe_stub, round_):
    event = online_event(max_attendees=3)
    fill_with_tickets(event, free_tier(event), 2)
    tier = online_tier(event)
    race = Race(
        url=f"/api/events/{event.pk}/checkout",
        body=json.dumps({"items": [{"tier_id": str(tier.pk), "count": 1}]}),
        start=threading.Barrier(2),
    )
    threads = [
        threading.Thread(target=race.buy, args=(_access_token(make_user()),)) for _ in range(2)
    ]

    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert Counter(status for status, _ in race.results) == {201: 1, 409: 1}, race.results
    assert [code for status, code in race.results if status == 409] == ["event_is_full"]
    pending = Ticket.objects.filter(event=event, status=Ticket.Status.PENDING)
    assert pending.count() == 1
    assert Payment.objects.filter(event=event).count() == 1
    assert len(stripe_stub.calls_to("POST", "/v1/checkout/sessions")) == 1
    event.refresh_from_db()
    assert event.attendee_count == 3  # never oversold
    assert_counters_true(event)
