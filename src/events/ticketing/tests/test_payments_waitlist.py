"""Paid checkouts and the waitlist (docs/spec/seed-tables.md trigger sites "online checkout
abandoned" and "payment-provider refund callback"): an offer holder who starts a paid
checkout claims the offer; a session that expires unpaid, Stripe's expiry or Encore's
own, gives the seat to the next member through the processing task chain."""

from datetime import timedelta

import pytest
import time_machine

from events.core.tests.factories import fill_with_tickets, make_tier
from events.models import Payment, StripeConnection, Ticket, TicketTier, WaitlistOffer
from events.ticketing.services import cancellation as cancellation_service
from events.ticketing.services import payments as payment_service
from events.ticketing.tests.payment_helpers import expired, paid_checkout, payment_of, send
from events.ticketing.tests.stripe_stub import ACCOUNT, stripe_stub
from events.waitlist.tests.waitlist_builders import T0, active_event, queue_in_order

__all__ = ["stripe_stub"]

pytestmark = pytest.mark.django_db
PENDING = WaitlistOffer.WaitlistOfferStatus.PENDING


@pytest.fixture(autouse=True)
def _at_t0():
    with time_machine.travel(T0, tick=True):
        yield


def full_paid_event():
    """One seat, taken; two members queued; the seat then freed so the first gets an offer."""
    event = active_event(1, requires_ticket=True)
    StripeConnection.objects.create(
        organization=event.organization, account_id=ACCOUNT, charges_enabled=True
    )
    free = make_tier(event, payment_method=TicketTier.PaymentMethod.FREE)
    tier = make_tier(event, payment_method=TicketTier.PaymentMethod.ONLINE, price="30.00")
    [holder] = fill_with_tickets(event, free, 1)
    first, second = queue_in_order(event, 2)
    return event, tier, holder, first, second


def offer_to(event, user):
    return WaitlistOffer.objects.filter(event=event, user=user, status=PENDING).first()


def free_the_seat(event, holder, capture):
    ticket = Ticket.objects.get(event=event, user=holder)
    with capture(execute=True):
        cancellation_service.cancel_ticket_by_user(holder, ticket.pk)


def test_the_offer_holder_claims_by_starting_a_paid_checkout(
    api, stripe_stub, django_capture_on_commit_callbacks
):
    event, tier, holder, first, _ = full_paid_event()
    free_the_seat(event, holder, django_capture_on_commit_callbacks)
    offer = offer_to(event, first)
    assert offer is not None

    response = paid_checkout(api, first, event, tier)

    assert response.status_code == 201, response.json()
    offer.refresh_from_db()
    assert offer.status == WaitlistOffer.WaitlistOfferStatus.CLAIMED
    assert response.json()["tickets"][0]["status"] == "pending"


@pytest.mark.parametrize("expiry", ["stripe_webhook", "encore_sweep"])
def test_an_unpaid_session_gives_the_seat_to_the_next_member(
    api, stripe_stub, django_capture_on_commit_callbacks, expiry
):
    event, tier, holder, first, second = full_paid_event()
    free_the_seat(event, holder, django_capture_on_commit_callbacks)
    payment = payment_of(paid_checkout(api, first, event, tier))
    assert offer_to(event, second) is None  # the seat is held by the pending ticket

    with django_capture_on_commit_callbacks(execute=True):
        if expiry == "stripe_webhook":
            assert send(expired(stripe_stub, payment)).status_code == 200
        else:
            with time_machine.travel(payment.expires_at + timedelta(minutes=2), tick=False):
                assert payment_service.expire_open_checkouts() == 1

    assert Ticket.objects.get(payment=payment).status == "cancelled"
    assert Payment.objects.get(pk=payment.pk).status == "expired"
    assert offer_to(event, second) is not None  # the processing pass ran on commit


def test_encore_expires_the_session_at_stripe_before_freeing_the_seat(api, stripe_stub, user):
    event, tier, *_ = full_paid_event()
    event.max_attendees = 3
    event.save(update_fields=["max_attendees"])
    payment = payment_of(paid_checkout(api, user, event, tier))

    with time_machine.travel(payment.expires_at + timedelta(minutes=2), tick=False):
        payment_service.expire_open_checkouts()

    assert stripe_stub.calls_to(
        "POST", f"/v1/checkout/sessions/{payment.checkout_session_id}/expire"
    )
    assert stripe_stub.sessions[payment.checkout_session_id]["status"] == "expired"


def test_a_session_paid_at_the_last_moment_is_kept_by_the_sweep(api, stripe_stub, user):
    """The completed webhook is lost; the sweep asks Stripe and settles it as paid."""
    event, tier, *_ = full_paid_event()
    event.max_attendees = 3
    event.save(update_fields=["max_attendees"])
    payment = payment_of(paid_checkout(api, user, event, tier))
    stripe_stub.pay(payment.checkout_session_id)

    with time_machine.travel(payment.expires_at + timedelta(minutes=2), tick=False):
        assert payment_service.expire_open_checkouts() == 0

    assert Ticket.objects.get(payment=payment).status == "active"
    assert Payment.objects.get(pk=payment.pk).status == "paid"


def test_the_sweep_leaves_sessions_before_their_deadline(api, stripe_stub, user):
    event, tier, *_ = full_paid_event()
    event.max_attendees = 3
    event.save(update_fields=["max_attendees"])
    payment = payment_of(paid_checkout(api, user, event, tier))

    assert payment_service.expire_open_checkouts() == 0

    assert Ticket.objects.get(payment=payment).status == "pending"
    assert (
        stripe_stub.calls_to("POST", f"/v1/checkout/sessions/{payment.checkout_session_id}/expire")
        == []
    )
