"""`/manage/events/<id>`: the figures at the top: seats sold or RSVP'd, held for the
waitlist, free, checked in, and the takings (paid, pending, refunded) per currency."""

import re
import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_rsvps, make_event, make_org, make_tier
from events.models import Event, EventRSVP, Payment, Ticket, TicketTier, WaitlistOffer
from events.ticketing.selectors.revenue import Revenue, event_revenue
from web.tests.manage.helpers import body, signed_in_client

pytestmark = pytest.mark.django_db

PaymentStatus = Payment.Status


def figures(page: str) -> dict[str, str]:
    section = page[page.index('id="figures-heading"') : page.index('id="status-heading"')]
    pairs = re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", section)
    return dict(pairs)


def revenue_rows(page: str) -> list[list[str]]:
    table = page[page.index('<table class="revenue"') : page.index("</table>")]
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
    return [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row) for row in rows[1:]]


def payment(event: Event, currency: str, amount: int, status: str, refunded: int = 0) -> Payment:
    return Payment.objects.create(
        event=event,
        user=make_user(),
        stripe_account="acct_test",
        checkout_session_id=f"cs_{uuid.uuid4().hex}",
        currency=currency,
        amount=amount,
        refunded_amount=refunded,
        status=status,
        expires_at=timezone.now() + timedelta(hours=1),
    )


def offline_ticket(event: Event, tier: TicketTier, status: str, **fields: object) -> Ticket:
    return Ticket.objects.create(event=event, tier=tier, user=make_user(), status=status, **fields)


def sold_event() -> Event:
    """Online checkouts in EUR, offline tickets in EUR and CHF, a free tier, check-ins."""
    event = make_event(make_org(), requires_ticket=True, max_attendees=20)
    payment(event, "EUR", 5000, PaymentStatus.PAID)
    payment(event, "EUR", 3000, PaymentStatus.PARTIALLY_REFUNDED, refunded=1000)
    payment(event, "EUR", 2000, PaymentStatus.OPEN)
    payment(event, "EUR", 9900, PaymentStatus.EXPIRED)  # never paid: counts nowhere
    door = make_tier(event, name="Door", price=Decimal("12.00"), fee=Decimal("1.00"))
    swiss = make_tier(event, name="Swiss", price=Decimal("20.00"), currency="CHF")
    free = make_tier(event, name="Free")
    now = timezone.now()
    offline_ticket(event, door, Ticket.Status.ACTIVE, paid_at=now)
    offline_ticket(event, door, Ticket.Status.CHECKED_IN, paid_at=now, checked_in_at=now)
    offline_ticket(event, door, Ticket.Status.PENDING)
    offline_ticket(
        event,
        door,
        Ticket.Status.CANCELLED,
        paid_at=now,
        cancellation_reason=Ticket.CancellationReason.REFUNDED,
    )
    offline_ticket(event, door, Ticket.Status.CANCELLED, cancellation_reason="unpaid")
    offline_ticket(event, swiss, Ticket.Status.PENDING)
    offline_ticket(event, free, Ticket.Status.CHECKED_IN, checked_in_at=now)
    Event.objects.filter(pk=event.pk).update(attendee_count=6)
    return Event.objects.get(pk=event.pk)


def test_the_takings_per_currency_paid_pending_and_refunded() -> None:
    assert event_revenue(sold_event()) == [
        Revenue("CHF", Decimal("0.00"), Decimal("20.00"), Decimal("0.00")),
        # online 50 + 30 paid, 10 refunded, 20 open; offline 3 × 13 paid, 13 pending, 13 back
        Revenue("EUR", Decimal("119.00"), Decimal("33.00"), Decimal("23.00")),
    ]


def test_an_event_that_sold_nothing_has_no_takings() -> None:
    assert event_revenue(make_event(requires_ticket=True)) == []


def test_the_page_shows_the_seats_the_check_ins_and_the_takings() -> None:
    event = sold_event()
    WaitlistOffer.objects.create(
        event=event,
        user=make_user(),
        batch_id=uuid.uuid4(),
        expires_at=timezone.now() + timedelta(hours=2),
    )
    page = body(signed_in_client(event.organization.owner).get(f"/manage/events/{event.pk}"))
    assert figures(page) == {
        "Sold": "6",
        "Held for the waitlist": "1",
        "Free": "13",
        "Capacity": "20",
        "Checked in": "2",
    }
    assert revenue_rows(page) == [
        ["CHF", "0.00", "20.00", "0.00"],
        ["EUR", "119.00", "33.00", "23.00"],
    ]
    assert page.index('id="figures-heading"') < page.index('id="attendees-heading"')


def test_an_rsvp_event_counts_rsvps_and_check_ins_and_shows_no_money() -> None:
    event = make_event(make_org(), max_attendees=10)
    people = fill_with_rsvps(event, 4)
    EventRSVP.objects.filter(event=event, user=people[0]).update(checked_in_at=timezone.now())
    page = body(signed_in_client(event.organization.owner).get(f"/manage/events/{event.pk}"))
    assert figures(page) == {
        "RSVP'd": "4",
        "Held for the waitlist": "0",
        "Free": "6",
        "Capacity": "10",
        "Checked in": "1",
    }
    assert "Revenue" not in page


def test_a_ticketed_event_without_sales_says_so() -> None:
    event = make_event(make_org(), requires_ticket=True)
    page = body(signed_in_client(event.organization.owner).get(f"/manage/events/{event.pk}"))
    assert "Nothing sold yet." in page


def _queries(event: Event) -> int:
    client = signed_in_client(event.organization.owner)
    with CaptureQueriesContext(connection) as captured:
        assert client.get(f"/manage/events/{event.pk}").status_code == 200
    return len(captured)


def test_the_figures_cost_the_same_queries_however_much_was_sold() -> None:
    event = sold_event()
    few = _queries(event)
    tier = TicketTier.objects.get(event=event, name="Door")
    for n in range(30):
        payment(event, ("EUR", "USD", "GBP")[n % 3], 1000, PaymentStatus.PAID)
        offline_ticket(event, tier, Ticket.Status.ACTIVE, paid_at=timezone.now())
    assert _queries(event) == few
    assert few <= 13
