"""`/manage/events/{id}/tickets`: the ticket types with their figures, the tickets with
their payment, "Find ticket", and a fixed number of queries however many tickets."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from pytest_django import DjangoAssertNumQueries

from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_tickets, make_tier
from events.models import TicketTier
from events.ticketing.selectors.payment_due import payment_reference
from events.ticketing.tests.ticket_helpers import free_tier
from web.tests.event.support import text_of
from web.tests.tickets.support import Box, body, box_office, payments_on, pending_ticket

pytestmark = pytest.mark.django_db


@pytest.fixture
def box() -> Box:
    return box_office(timezone="Europe/Berlin")


def test_the_ticket_types_show_price_figures_window_method_and_refund_deadline(
    box: Box, settings
) -> None:
    payments_on(settings, box.event)
    make_tier(
        box.event,
        name="Card",
        price=Decimal("40.00"),
        currency="CHF",
        payment_method=TicketTier.PaymentMethod.ONLINE,
        sales_start_at=datetime(2026, 12, 1, 17, 0, tzinfo=UTC),
        sales_end_at=datetime(2026, 12, 20, 17, 0, tzinfo=UTC),
        refund_deadline=datetime(2026, 12, 18, 11, 0, tzinfo=UTC),
    )
    free_tier(box.event, name="Guest list")
    pending_ticket(box)

    text = text_of(body(box.client.get(box.page)))

    assert "Standing 25.00 EUR 1 of 10 any time Offline no refunds by buyers" in text
    assert "Card 40.00 CHF 0 (no limit)" in text
    assert "Tue 1 Dec 2026, 18:00 CET – Sun 20 Dec 2026, 18:00 CET Online" in text
    assert "Fri 18 Dec 2026, 12:00 CET" in text  # the event's zone
    assert "Guest list Free 0 (no limit) any time Free" in text


def test_an_online_tier_without_payments_set_up_says_it_is_not_on_sale(box: Box) -> None:
    make_tier(box.event, name="Card", price=Decimal("9"), payment_method="online")

    assert "Online (payments are not set up: not on sale)" in text_of(
        body(box.client.get(box.page))
    )


def test_the_tickets_show_holder_type_status_payment_and_their_actions(box: Box) -> None:
    buyer = make_user(preferred_name="Ada")
    ticket = pending_ticket(box, buyer)
    door = make_tier(box.event, name="Door", price=Decimal("5"), payment_method="at_the_door")
    [guest] = fill_with_tickets(box.event, door, 1)
    [invited] = fill_with_tickets(box.event, free_tier(box.event, name="Guest list"), 1)

    page = body(box.client.get(box.page))
    text = text_of(page)

    reference = payment_reference(ticket.pk)
    assert f"Ada {buyer.email} Standing Pending Awaiting 25.00 EUR Reference {reference}" in text
    assert f"{guest.email} Door Valid Pays 5.00 EUR at the door" in text
    assert f"{invited.email} Guest list Valid Free" in text
    assert page.count(">Mark as paid</button>") == 1
    assert page.count(">Cancel ticket</button>") == 3
    assert ">Refund</a>" not in page  # nothing is paid yet
    assert "3 tickets." in text


def test_find_ticket_matches_names_emails_types_and_the_payment_reference(box: Box) -> None:
    ada = pending_ticket(box, make_user(email="ada@example.com", first_name="Ada"))
    pending_ticket(box, make_user(email="bob@example.com"))

    def found(query: str) -> str:
        return text_of(body(box.client.get(box.page, {"q": query})))

    assert "1 ticket matches “ada”." in found("ada")
    assert "bob@example.com" not in found("ADA@example")
    assert "1 ticket matches" in found(payment_reference(ada.pk).lower())
    assert "ada@example.com" in found(payment_reference(ada.pk))
    assert "2 tickets match “Standing”." in found("Standing")
    assert "0 tickets match “nobody”." in found("nobody")


def test_the_page_is_paged_and_keeps_the_search(box: Box) -> None:
    fill_with_tickets(box.event, make_tier(box.event, name="Bulk"), 51)

    first = body(box.client.get(box.page, {"q": "Bulk"}))
    last = body(box.client.get(box.page, {"q": "Bulk", "page": "9"}))

    assert "Page 1 of 2" in first
    assert "?q=Bulk&amp;page=2#tickets" in first
    assert "Page 2 of 2" in last


def test_the_event_overview_links_its_tickets_page(box: Box) -> None:
    page = body(box.client.get(f"/manage/events/{box.event.pk}"))

    assert f'href="/manage/events/{box.event.pk}/tickets">Tickets</a>' in page


def test_the_page_asks_a_fixed_number_of_queries(
    box: Box, settings, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    payments_on(settings, box.event)  # one more: is the organisation's Stripe account usable
    fill_with_tickets(box.event, box.tier, 3)
    pending_ticket(box)
    box.client.get(box.page)  # the session is warm

    with django_assert_num_queries(7):
        box.client.get(box.page, {"q": "example"})
    fill_with_tickets(box.event, make_tier(box.event, name="More"), 40)
    with django_assert_num_queries(7):
        box.client.get(box.page, {"q": "example"})


def test_a_german_organiser_reads_the_page_in_german(box: Box) -> None:
    box.owner.language = "de"
    box.owner.save(update_fields=["language"])
    pending_ticket(box)

    text = text_of(body(box.client.get(box.page)))

    for words in ("Tickets für Jazz Night", "Neue Ticketart", "An der Abendkasse verkaufen"):
        assert words in text
    assert "Ticket finden" in text and "Als bezahlt markieren" in text
    assert "Standing 25,00 EUR 1 von 10 jederzeit Offline" in text
