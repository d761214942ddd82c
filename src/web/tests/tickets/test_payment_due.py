"""The buyer of an offline ticket: after "Confirm" the event page shows the amount due,
the organisation's payment instructions and a payment reference; /me shows the amount
and the reference; both go once the organiser marks the ticket as paid."""

import uuid
from decimal import Decimal

import pytest
from django.test import Client

from accounts.tests.factories import make_user
from events.models import Organization, Ticket
from events.ticketing.selectors.payment_due import payment_reference, reference_prefix
from events.ticketing.tests.ticket_helpers import free_tier, offline_tier
from web.tests.event.support import event_path, region_of, text_of
from web.tests.manage.helpers import signed_in_client
from web.tests.tickets.support import Box, body, box_office

pytestmark = pytest.mark.django_db

INSTRUCTIONS = "Bank transfer to DE02 1203 0000 0000 2020 51\nwithin 3 days."


@pytest.fixture
def box() -> Box:
    box = box_office()
    Organization.objects.filter(pk=box.event.organization_id).update(
        payment_instructions=INSTRUCTIONS
    )
    return box


def _buy(box: Box, **counts: int) -> tuple[Client, list[Ticket]]:
    buyer = make_user()
    client = signed_in_client(buyer)
    tiers = {"standing": box.tier, **{t.name: t for t in box.event.ticket_tiers.all()}}
    cart = {f"tier_{tiers[name].pk.hex}": str(n) for name, n in counts.items()}
    response = client.post(f"{event_path(box.event)}/checkout", cart)
    assert response.status_code == 302, body(response)[:2000]
    return client, list(Ticket.objects.filter(user=buyer).order_by("created_at", "pk"))


def test_after_confirm_the_page_shows_amount_instructions_and_reference(box: Box) -> None:
    client, [ticket] = _buy(box, standing=1)

    region = region_of(body(client.get(event_path(box.event))))

    text = text_of(region)
    assert "How to pay" in text
    assert "Amount due: 25.00 EUR" in text
    assert f"Payment reference: {payment_reference(ticket.pk)}" in text
    assert "DE02 1203 0000 0000 2020 51<br>within 3 days." in region


def test_several_tickets_add_up_and_each_has_its_reference(box: Box) -> None:
    offline_tier(box.event, name="Seated", price=Decimal("10.00"), fee=Decimal("1.00"))
    client, tickets = _buy(box, standing=1, Seated=2)

    text = text_of(region_of(body(client.get(event_path(box.event)))))

    assert "Amount due: 47.00 EUR" in text
    for ticket in tickets:
        assert payment_reference(ticket.pk) in text


def test_without_instructions_the_buyer_is_told_to_ask(box: Box) -> None:
    Organization.objects.filter(pk=box.event.organization_id).update(payment_instructions="")
    client, _ = _buy(box, standing=1)

    text = text_of(region_of(body(client.get(event_path(box.event)))))

    assert "The organiser has not said how to pay yet" in text


def test_nothing_is_due_for_free_tickets_or_once_paid(box: Box) -> None:
    free_tier(box.event, name="Guest")
    client, [ticket] = _buy(box, Guest=1)
    assert "How to pay" not in body(client.get(event_path(box.event)))

    client, [ticket] = _buy(box, standing=1)
    box.client.post(f"{box.page}/{ticket.pk}/paid")

    assert "How to pay" not in body(client.get(event_path(box.event)))


def test_my_page_shows_the_amount_and_reference_of_an_unpaid_ticket(box: Box) -> None:
    client, [ticket] = _buy(box, standing=1)

    text = text_of(body(client.get("/me")))

    assert f"Awaiting payment · 25.00 EUR, reference {payment_reference(ticket.pk)}" in text


def test_the_reference_is_the_start_of_the_ticket_id_and_reads_back() -> None:
    ticket_id = uuid.UUID("3f2a9c1b-0000-4000-8000-000000000000")

    assert payment_reference(ticket_id) == "3F2A9C1B"
    assert payment_reference(str(ticket_id)) == "3F2A9C1B"
    assert reference_prefix(" 3f2a-9c1b ") == "3f2a9c1b"
    assert reference_prefix("3F2A9C1") is None
    assert reference_prefix("nothexxx") is None


def test_a_german_buyer_reads_how_to_pay_in_german(box: Box) -> None:
    client = signed_in_client(make_user(language="de"))
    client.post(f"{event_path(box.event)}/checkout", {f"tier_{box.tier.pk.hex}": "1"})
    ticket = Ticket.objects.get(event=box.event)

    text = text_of(region_of(body(client.get(event_path(box.event)))))

    assert "So bezahlst du Zu zahlen: 25,00 EUR" in text
    assert f"Verwendungszweck: {payment_reference(ticket.pk)}" in text
