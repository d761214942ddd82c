"""The ticket type form ("New ticket type", "Edit") and "Delete": saved through the tier
service, refusals next to their field with nothing saved, a tier with tickets kept."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from pytest_django import DjangoAssertNumQueries

from events.models import TicketTier
from web.tests.event.support import text_of
from web.tests.tickets.support import Box, body, box_office, confirmed, payments_on, pending_ticket

pytestmark = pytest.mark.django_db

FORM = {
    "name": "Balcony",
    "price": "30",
    "currency": "eur",
    "quantity": "20",
    "sales_start": "2026-12-01T18:00",
    "sales_end": "2026-12-20T18:00",
    "payment_method": "offline",
    "refunds_until": "",
}


@pytest.fixture
def box() -> Box:
    return box_office(timezone="Europe/Berlin")


def _field_error(page: str, field: str) -> str:
    """The text of the error list under `field` (its id: `id_<field>_error`)."""
    start = page.index(f'id="id_{field}_error"')
    return text_of(page[start : page.index("</ul>", start)].split(">", 1)[1])


def test_a_new_ticket_type_is_saved_with_times_in_the_event_zone(box: Box) -> None:
    response = box.client.post(f"{box.page}/types/new", FORM)

    assert response.status_code == 302
    assert response["Location"] == box.page
    tier = TicketTier.objects.get(event=box.event, name="Balcony")
    assert (tier.price, tier.currency, tier.total_quantity) == (Decimal("30"), "EUR", 20)
    assert tier.payment_method == TicketTier.PaymentMethod.OFFLINE
    assert tier.sales_start_at == datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
    assert tier.refund_deadline is None
    assert "Ticket type Balcony added." in body(box.client.get(box.page))


def test_the_form_offers_online_only_when_payments_are_set_up(box: Box, settings) -> None:
    page = body(box.client.get(f"{box.page}/types/new"))
    assert 'value="online"' not in page
    assert 'value="offline"' in page and 'value="free"' in page

    payments_on(settings, box.event)
    page = body(box.client.get(f"{box.page}/types/new"))
    assert 'value="online" selected' in page


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"sales_end": "2026-11-30T18:00"}, "sales_end", "Sales must end after they start."),
        ({"price": "-1"}, "price", "Ensure this value is greater than or equal to 0."),
        ({"payment_method": "free"}, "price", "A free ticket type has no price"),
        ({"price": "0"}, "price", "A ticket type that is paid for needs a price."),
        ({"currency": "€"}, "currency", "Enter a currency code of three letters"),
        ({"name": "Standing"}, "name", "This event has a ticket type of this name already."),
        ({"payment_method": "online"}, "payment_method", "Select a valid choice."),
    ],
)
def test_a_refused_field_says_why_next_to_it_and_nothing_is_saved(
    box: Box, change: dict[str, str], field: str, message: str
) -> None:
    response = box.client.post(f"{box.page}/types/new", {**FORM, **change})

    assert response.status_code == 400
    assert message in _field_error(body(response), field)
    assert not TicketTier.objects.filter(name="Balcony").exists()


def test_online_without_a_price_is_refused_by_the_model(box: Box, settings) -> None:
    payments_on(settings, box.event)

    response = box.client.post(
        f"{box.page}/types/new", {**FORM, "payment_method": "online", "price": "0"}
    )

    assert response.status_code == 400
    assert "A tier paid online needs a price above 0." in _field_error(body(response), "price")


def test_edit_shows_the_values_and_saves_the_changes(box: Box) -> None:
    TicketTier.objects.filter(pk=box.tier.pk).update(
        sales_end_at=datetime(2026, 12, 20, 17, 0, tzinfo=UTC)
    )
    pending_ticket(box)
    page = body(box.client.get(box.tier_path(box.tier, "edit")))
    assert 'value="2026-12-20T18:00"' in page  # the event's zone
    assert 'value="Standing"' in page

    response = box.client.post(
        box.tier_path(box.tier, "edit"),
        {**FORM, "name": "Standing room", "quantity": ""},
    )

    assert response.status_code == 302
    box.tier.refresh_from_db()
    assert (box.tier.name, box.tier.total_quantity, box.tier.quantity_sold) == (
        "Standing room",
        None,
        1,
    )


def test_edit_refuses_fewer_tickets_than_sold(box: Box) -> None:
    pending_ticket(box)
    pending_ticket(box)

    response = box.client.post(box.tier_path(box.tier, "edit"), {**FORM, "quantity": "1"})

    assert response.status_code == 400
    assert "Cannot be below the tickets already sold." in _field_error(body(response), "quantity")
    box.tier.refresh_from_db()
    assert box.tier.total_quantity == 10


def test_delete_asks_first_then_deletes(box: Box) -> None:
    asked = box.client.post(box.tier_path(box.tier, "delete"))

    assert asked.status_code == 200
    page = body(asked)
    assert "The ticket type Standing will be deleted." in page
    assert ">Yes, delete</button>" in page
    assert TicketTier.objects.filter(pk=box.tier.pk).exists()

    done = box.client.post(box.tier_path(box.tier, "delete"), confirmed())
    assert done.status_code == 302
    assert not TicketTier.objects.filter(pk=box.tier.pk).exists()


def test_delete_is_refused_with_the_reason_while_tickets_exist(box: Box) -> None:
    pending_ticket(box)

    response = box.client.post(box.tier_path(box.tier, "delete"))

    assert response.status_code == 409
    assert "Tickets of this type were sold, so it cannot be deleted." in text_of(body(response))
    assert TicketTier.objects.filter(pk=box.tier.pk).exists()


def test_another_events_tier_is_not_found(box: Box) -> None:
    other = box_office()

    assert box.client.get(box.tier_path(other.tier, "edit")).status_code == 404
    assert box.client.post(box.tier_path(other.tier, "delete"), confirmed()).status_code == 404
    assert TicketTier.objects.filter(pk=other.tier.pk).exists()


def test_the_form_asks_a_fixed_number_of_queries(
    box: Box, settings, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    payments_on(settings, box.event)  # one more: is the organisation's Stripe account usable
    box.client.get(f"{box.page}/types/new")

    with django_assert_num_queries(4):
        box.client.get(f"{box.page}/types/new")
    with django_assert_num_queries(5):
        box.client.get(box.tier_path(box.tier, "edit"))
