"""Receipts by e-mail (issue 14): a ticket paid online is announced once paid, with what
was paid (price, fee, total, tax); nothing is mailed while the payment is open."""

from decimal import Decimal

import pytest

from events.ticketing.tests.payment_helpers import (
    completed,
    online_event,
    online_tier,
    paid_checkout,
    payment_of,
    send,
)
from events.ticketing.tests.stripe_stub import stripe_stub

__all__ = ["stripe_stub"]

pytestmark = pytest.mark.django_db


def test_the_receipt_goes_out_when_stripe_reports_the_payment(
    api, user, stripe_stub, mailoutbox, django_capture_on_commit_callbacks
):
    event = online_event()
    tier = online_tier(event, name="Online", tax_rate=Decimal("19.00"))
    with django_capture_on_commit_callbacks(execute=True):
        payment = payment_of(paid_checkout(api, user, event, tier, 2))
    assert mailoutbox == []  # pending, unpaid: no "booked" mail yet

    with django_capture_on_commit_callbacks(execute=True):
        send(completed(stripe_stub, payment))

    [mail] = mailoutbox
    assert mail.to == [user.email]
    assert "Online: 20.00 EUR + 1.50 EUR booking fee" in mail.body
    assert "Paid by card: 43.00 EUR." in mail.body
    assert "Prices include 19% tax." in mail.body
    assert str(payment.pk) in mail.body
