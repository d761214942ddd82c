"""An online checkout abandoned hands its seat on within f1, with the real parts
(docs/spec/quality.md f1, issue 14): PostgreSQL, Redis, the `critical` Celery worker. Each
member in turn claims the offer with a paid checkout, the session expires unpaid
(Stripe's signed `checkout.session.expired`), and the next member's offer is
committed by the worker; timed from the webhook's answer."""

import itertools
import time
from functools import partial
from typing import Any

import pytest

from events.core.tests.factories import make_tier
from events.models import StripeConnection, Ticket, TicketTier, WaitlistOffer
from events.ticketing.services import payments as payment_service
from events.ticketing.services.batch_tickets import CartItem
from events.ticketing.tests.payment_helpers import expired, send
from events.ticketing.tests.stripe_stub import ACCOUNT, stripe_stub
from events.waitlist import services as waitlist_service
from events.waitlist.tests.test_rotation_worker import (
    critical_worker,
    live_offer,
    wait_for,
    within_f1,
)
from events.waitlist.tests.waitlist_builders import active_event, queue_in_order

__all__ = ["critical_worker", "stripe_stub"]

pytestmark = [
    pytest.mark.worker,
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
]

ROTATIONS = 3


def test_an_abandoned_paid_checkout_reaches_the_next_member_within_f1(
    critical_worker: Any, stripe_stub: Any
) -> None:
    event = active_event(1, requires_ticket=True)
    StripeConnection.objects.create(
        organization=event.organization, account_id=ACCOUNT, charges_enabled=True
    )
    tier = make_tier(event, payment_method=TicketTier.PaymentMethod.ONLINE, price="15.00")
    members = queue_in_order(event, ROTATIONS + 1)
    timings = []

    waitlist_service.enqueue_waitlist_processing(event.pk)
    wait_for(partial(live_offer, event, members[0]), timeout=30)
    for holder, successor in itertools.pairwise(members):
        result = payment_service.checkout(event, holder, [CartItem(tier.pk, 1)])
        assert result.payment is not None
        assert WaitlistOffer.objects.get(event=event, user=holder).status == "claimed"
        assert live_offer(event, successor) is None  # the pending ticket holds the seat

        assert send(expired(stripe_stub, result.payment)).status_code == 200
        started = time.monotonic()
        wait_for(partial(live_offer, event, successor), timeout=30)
        timings.append(time.monotonic() - started)

    within_f1(timings)
    assert Ticket.objects.filter(event=event, status="cancelled").count() == ROTATIONS
