"""What staff do with a ticket from the tickets page: "Mark as paid", "Cancel ticket",
"Refund" (offline in full, online through Stripe, partly or all), and "Sell at the door".
The destructive ones ask first; a refusal says why and changes nothing."""

import pytest

from accounts.tests.factories import make_user
from events.models import PaymentRefund, Ticket, TicketTier
from events.ticketing.tests.payment_helpers import completed, online_tier, send
from events.ticketing.tests.stripe_stub import StripeStub, stripe_stub
from events.ticketing.tests.ticket_helpers import assert_counters_true
from web.tests.event.support import text_of
from web.tests.manage.helpers import signed_in_client
from web.tests.tickets.support import (
    Box,
    body,
    box_office,
    confirmed,
    connect_stripe,
    pending_ticket,
)

__all__ = ["stripe_stub"]

pytestmark = pytest.mark.django_db


@pytest.fixture
def box() -> Box:
    return box_office()


def _status(ticket: Ticket) -> str:
    ticket.refresh_from_db()
    return ticket.status


# -- Mark as paid --------------------------------------------------------------------------


def test_mark_as_paid_makes_a_pending_offline_ticket_valid(box: Box) -> None:
    ticket = pending_ticket(box)

    response = box.client.post(box.ticket_path(ticket, "paid"), {"q": "Standing"})

    assert response.status_code == 302
    assert response["Location"] == f"{box.page}?q=Standing"
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.ACTIVE and ticket.paid_at is not None
    page = text_of(body(box.client.get(response["Location"])))
    assert "is paid and valid" in page
    assert "Paid 25.00 EUR" in page


def test_mark_as_paid_twice_is_refused_in_the_row(box: Box) -> None:
    ticket = pending_ticket(box)
    box.client.post(box.ticket_path(ticket, "paid"))

    response = box.client.post(box.ticket_path(ticket, "paid"))

    assert response.status_code == 409
    assert "Only a ticket awaiting payment can be marked as paid." in text_of(body(response))


# -- Cancel ticket -------------------------------------------------------------------------


def test_cancel_asks_first_naming_the_holder_then_frees_the_seat(box: Box) -> None:
    ticket = pending_ticket(box, make_user(preferred_name="Ada"))

    asked = box.client.post(box.ticket_path(ticket, "cancel"), {"q": "Ada"})

    page = text_of(body(asked))
    assert "The Standing ticket of Ada (" in page and "the holder will be told" in page
    assert "Yes, cancel ticket" in page
    assert _status(ticket) == Ticket.Status.PENDING

    done = box.client.post(box.ticket_path(ticket, "cancel"), confirmed({"q": "Ada"}))

    assert done["Location"] == f"{box.page}?q=Ada"
    assert _status(ticket) == Ticket.Status.CANCELLED
    assert_counters_true(box.event)


def test_cancelling_a_cancelled_ticket_says_so(box: Box) -> None:
    ticket = pending_ticket(box)
    box.client.post(box.ticket_path(ticket, "cancel"), confirmed())

    response = box.client.post(box.ticket_path(ticket, "cancel"), confirmed())

    assert response.status_code == 409
    assert "This ticket is already cancelled." in text_of(body(response))


# -- Refund, offline -----------------------------------------------------------------------


def _paid_offline(box: Box) -> Ticket:
    ticket = pending_ticket(box)
    box.client.post(box.ticket_path(ticket, "paid"))
    return ticket


def test_the_refund_form_offers_all_of_the_price(box: Box) -> None:
    ticket = _paid_offline(box)

    page = body(box.client.get(box.ticket_path(ticket, "refund")))

    assert 'name="amount" value="25.00"' in page
    assert "data-confirm" in page
    assert ">Refund</button>" in page


def test_an_offline_refund_asks_first_then_cancels_the_ticket_as_refunded(box: Box) -> None:
    ticket = _paid_offline(box)
    path = box.ticket_path(ticket, "refund")

    asked = box.client.post(path, {"amount": "25.00"})
    assert "Yes, refund" in body(asked)
    assert _status(ticket) == Ticket.Status.ACTIVE

    done = box.client.post(path, confirmed({"amount": "25.00"}))

    assert done.status_code == 302
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.CANCELLED
    assert ticket.cancellation_reason == Ticket.CancellationReason.REFUNDED
    assert "Refunded 25.00 EUR" in text_of(body(box.client.get(box.page)))
    assert_counters_true(box.event)


def test_an_offline_ticket_is_refunded_in_full_only(box: Box) -> None:
    ticket = _paid_offline(box)

    response = box.client.post(box.ticket_path(ticket, "refund"), confirmed({"amount": "10"}))

    assert response.status_code == 400
    assert "refunded in full" in text_of(body(response))
    assert _status(ticket) == Ticket.Status.ACTIVE


def test_an_unpaid_ticket_has_nothing_to_refund(box: Box) -> None:
    ticket = pending_ticket(box)

    page = box.client.get(box.ticket_path(ticket, "refund"))
    posted = box.client.post(box.ticket_path(ticket, "refund"), confirmed({"amount": "25"}))

    assert page.status_code == posted.status_code == 409
    assert "This ticket has nothing left to refund." in text_of(body(page))
    assert _status(ticket) == Ticket.Status.PENDING


# -- Refund, online ------------------------------------------------------------------------


def _paid_online(box: Box, stub: StripeStub) -> Ticket:
    """A ticket of an online tier (20.00 + 1.50 EUR) bought on the event page and paid."""
    connect_stripe(box.event)
    tier = online_tier(box.event, name="Card")
    buyer = make_user()
    signed_in_client(buyer).post(f"/events/{box.event.pk}/checkout", {f"tier_{tier.pk.hex}": "1"})
    ticket = Ticket.objects.get(user=buyer)
    assert ticket.payment is not None
    send(completed(stub, ticket.payment))
    assert _status(ticket) == Ticket.Status.ACTIVE
    return ticket


def test_a_partial_online_refund_goes_to_stripe_and_keeps_the_ticket(
    box: Box, stripe_stub: StripeStub
) -> None:
    ticket = _paid_online(box, stripe_stub)
    path = box.ticket_path(ticket, "refund")
    assert 'name="amount" value="21.50"' in body(box.client.get(path))

    done = box.client.post(path, confirmed({"amount": "5.00"}))

    assert done.status_code == 302
    [call] = stripe_stub.calls_to("POST", "/v1/refunds")
    assert call.form["amount"] == "500"
    assert PaymentRefund.objects.get(ticket=ticket).amount == 500
    assert _status(ticket) == Ticket.Status.ACTIVE
    page = text_of(body(box.client.get(box.page)))
    assert "A refund of 5.00 EUR was asked of the payment provider" in page
    assert "Refund of 5.00 EUR asked" in page


def test_an_online_refund_above_what_is_left_is_refused_next_to_the_amount(
    box: Box, stripe_stub: StripeStub
) -> None:
    ticket = _paid_online(box, stripe_stub)

    response = box.client.post(box.ticket_path(ticket, "refund"), confirmed({"amount": "30"}))

    assert response.status_code == 400
    assert "Must be more than 0 and at most 21.50." in text_of(body(response))
    assert stripe_stub.calls_to("POST", "/v1/refunds") == []


def test_stripe_down_refunds_nothing_and_says_so(box: Box, stripe_stub: StripeStub) -> None:
    ticket = _paid_online(box, stripe_stub)
    stripe_stub.failing.add("/v1/refunds")

    response = box.client.post(box.ticket_path(ticket, "refund"), confirmed({"amount": "21.50"}))

    assert response.status_code == 502
    assert "nothing was refunded" in text_of(body(response))
    assert _status(ticket) == Ticket.Status.ACTIVE


# -- Sell at the door ----------------------------------------------------------------------


def test_sell_at_the_door_gives_the_buyer_a_valid_paid_ticket(box: Box) -> None:
    buyer = make_user(email="door@example.com")
    page = body(box.client.get(f"{box.page}/sell"))
    assert ">Sell</button>" in page and "Standing" in page

    response = box.client.post(
        f"{box.page}/sell", {"email": "DOOR@example.com", "ticket_type": str(box.tier.pk)}
    )

    assert response.status_code == 302
    ticket = Ticket.objects.get(user=buyer)
    assert ticket.status == Ticket.Status.ACTIVE and ticket.paid_at is not None
    assert "Sold a Standing ticket to door@example.com." in text_of(body(box.client.get(box.page)))


def test_sell_refuses_an_unknown_email_and_a_sold_out_type(box: Box) -> None:
    make_user(email="door@example.com")
    TicketTier.objects.filter(pk=box.tier.pk).update(total_quantity=0)

    unknown = box.client.post(
        f"{box.page}/sell", {"email": "nobody@example.com", "ticket_type": str(box.tier.pk)}
    )
    sold_out = box.client.post(
        f"{box.page}/sell", {"email": "door@example.com", "ticket_type": str(box.tier.pk)}
    )

    assert unknown.status_code == 400
    assert "No account uses this e-mail address" in text_of(body(unknown))
    assert sold_out.status_code == 409
    assert "No tickets of this type are left." in text_of(body(sold_out))
    assert not Ticket.objects.filter(event=box.event).exists()
