"""An organiser runs a paid event from nothing in the pages: a new event with "Tickets",
an offline and an online ticket type; a buyer pays offline (amount, instructions and
reference on the event page), the organiser finds the ticket by its reference, marks it
paid and refunds it; a buyer pays online through the Stripe stub and the organiser
refunds a part. With JavaScript on and off; axe and a 390 px phone on every tickets page."""

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from accounts.models import User
from accounts.tests.factories import PASSWORD, make_user
from events.core.tests.factories import fill_with_tickets, make_org, make_tier
from events.models import Event, Organization, PaymentRefund, StripeConnection, Ticket
from events.ticketing.selectors.payment_due import payment_reference
from events.ticketing.tests.payment_helpers import completed
from events.ticketing.tests.stripe_stub import ACCOUNT, StripeStub, deliver, stripe_stub
from events.ticketing.tests.ticket_helpers import offline_tier, ticketed_event
from web.tests.browser.axe import severe_violations
from web.tests.browser.conftest import LogIn, _new_page

__all__ = ["stripe_stub"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

INSTRUCTIONS = "Bank transfer to DE02 1203 0000 0000 2020 51, within 3 days."


def _organisation(owner: User) -> Organization:
    organization = make_org(owner, name="Jazz Club", slug="jazz-club")
    Organization.objects.filter(pk=organization.pk).update(payment_instructions=INSTRUCTIONS)
    StripeConnection.objects.create(
        organization=organization, account_id=ACCOUNT, charges_enabled=True
    )
    return organization


@pytest.fixture
def buyer_page(browser: Browser, live_server: Any) -> Iterator[Page]:
    """The buyer's own browser (the organiser's session is in `any_page`)."""
    yield from _new_page(browser, live_server.url)


def _log_in(page: Page, user: User, url: str) -> None:
    page.goto(f"/login?next={url}")
    page.get_by_label("Email").fill(user.email)  # then back to `url`
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()


def _new_ticket_type(page: Page, name: str, price: str, quantity: str, method: str) -> None:
    page.get_by_role("link", name="New ticket type").click()
    page.get_by_label("Name").fill(name)
    page.get_by_label("Price").fill(price)
    page.get_by_label("Currency").fill("EUR")
    page.get_by_label("Quantity").fill(quantity)
    page.get_by_label("Payment method").select_option(label=method)
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Tickets of")


def _buy(page: Page, event: Event, tier_name: str) -> None:
    page.goto(f"/events/{event.pk}")
    page.get_by_role("button", name="Get tickets").click()
    page.get_by_label(tier_name).fill("1")
    page.get_by_role("button", name="Confirm").click()


def test_an_organiser_runs_a_paid_event_from_the_pages(
    any_page: Page, buyer_page: Page, stripe_stub: StripeStub
) -> None:
    owner, buyer = make_user(), make_user(preferred_name="Ada")
    _organisation(owner)
    event = _create_paid_event(any_page, owner)
    _log_in(buyer_page, buyer, f"/events/{event.pk}")
    _offline_sale_paid_and_refunded(any_page, buyer_page, event, buyer)
    _online_sale_partly_refunded(any_page, buyer_page, event, buyer, stripe_stub)


def _create_paid_event(page: Page, owner: User) -> Event:
    """From nothing: a new event with "Tickets", opened, an offline and an online type."""
    _log_in(page, owner, "/manage")
    page.get_by_role("link", name="Jazz Club").click()
    page.get_by_role("link", name="New event").click()
    page.get_by_label("Name").fill("Late Set")
    start = timezone.now() + timedelta(days=3)
    page.get_by_label("Start").fill(f"{start:%Y-%m-%dT%H:%M}")
    page.get_by_label("Tickets").check()
    page.get_by_role("button", name="Save").click()
    page.get_by_role("button", name="Open", exact=True).click()
    expect(page.get_by_role("status", name="Event status")).to_contain_text("Open")
    page.get_by_role("link", name="Tickets", exact=True).click()
    _new_ticket_type(page, "Standing", "25", "50", "Offline")
    _new_ticket_type(page, "Card", "40", "20", "Online")
    types = page.get_by_role("region", name="Ticket types")
    expect(types.get_by_role("row").filter(has_text="Standing")).to_contain_text("0 of 50")
    expect(types.get_by_role("row").filter(has_text="Card")).to_contain_text("Online")
    return Event.objects.get(name="Late Set")


def _offline_sale_paid_and_refunded(
    page: Page, buyer_page: Page, event: Event, buyer: User
) -> None:
    """The buyer sees what to pay, how, and the reference; the organiser finds the ticket
    by that reference, marks it paid and refunds it."""
    _buy(buyer_page, event, "Standing")
    status = buyer_page.get_by_role("status", name="Your status")
    ticket = Ticket.objects.get(user=buyer, tier__name="Standing")
    reference = payment_reference(ticket.pk)
    expect(status).to_contain_text("Amount due: 25.00 EUR")
    expect(status).to_contain_text(INSTRUCTIONS)
    expect(status).to_contain_text(f"Payment reference: {reference}")

    page.reload()
    page.get_by_label("Find ticket").fill(reference)
    page.get_by_role("button", name="Search").click()
    row = page.get_by_role("row").filter(has_text=buyer.email)
    expect(row).to_contain_text("Awaiting 25.00 EUR")
    row.get_by_role("button", name="Mark as paid").click()
    expect(row).to_contain_text("Paid 25.00 EUR")
    row.get_by_role("link", name="Refund").click()
    expect(page.get_by_label("Amount")).to_have_value("25.00")
    page.get_by_role("button", name="Refund").click()
    page.get_by_role("button", name="Yes, refund").click()  # a dialog, or a page without JS
    expect(row).to_contain_text("Refunded 25.00 EUR")
    ticket.refresh_from_db()
    assert ticket.cancellation_reason == Ticket.CancellationReason.REFUNDED


def _online_sale_partly_refunded(
    page: Page, buyer_page: Page, event: Event, buyer: User, stub: StripeStub
) -> None:
    """The buyer pays on the stub's Checkout page; the organiser refunds a part by card."""
    buyer_page.route(
        re.compile(r"https://checkout\.stripe\.test/.*"),
        lambda route: route.fulfill(content_type="text/html", body="<title>Stripe</title>"),
    )
    _buy(buyer_page, event, "Card")
    buyer_page.wait_for_url(re.compile(r"checkout\.stripe\.test"))
    online = Ticket.objects.get(user=buyer, tier__name="Card")
    assert online.payment is not None
    deliver(Client(), completed(stub, online.payment))
    buyer_page.goto(f"/events/{event.pk}?payment=done")
    expect(buyer_page.get_by_role("status", name="Your status")).to_contain_text(
        "You are attending"
    )

    page.goto(f"/manage/events/{event.pk}/tickets")
    row = page.get_by_role("region", name="Tickets sold").get_by_role("row").filter(has_text="Card")
    expect(row).to_contain_text("Paid 40.00 EUR online")
    row.get_by_role("link", name="Refund").click()
    page.get_by_label("Amount").fill("15")
    page.get_by_role("button", name="Refund").click()
    page.get_by_role("button", name="Yes, refund").click()
    expect(row).to_contain_text("Refund of 15.00 EUR asked")
    assert [c.form["amount"] for c in stub.calls_to("POST", "/v1/refunds")] == ["1500"]
    assert PaymentRefund.objects.get(ticket=online).amount == 1500


def _tickets_pages(page: Page, event: Event) -> Iterator[str]:
    """Every tickets page in a state worth checking, as the organiser sees it (by name)."""
    base = f"/manage/events/{event.pk}/tickets"
    page.goto(base)
    yield "page"
    page.goto(f"{base}/types/new")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_be_visible()
    yield "type-form-errors"
    page.goto(f"{base}/sell")
    yield "sell"
    ticket = Ticket.objects.filter(event=event, paid_at__isnull=False).first()
    assert ticket is not None
    page.goto(f"{base}/{ticket.pk}/refund")
    yield "refund"
    page.goto(base)
    sold = page.get_by_role("region", name="Tickets sold")
    sold.get_by_role("row").filter(has_text="Door").first.get_by_role(
        "button", name="Cancel ticket"
    ).click()
    expect(page.get_by_role("button", name="Yes, cancel ticket")).to_be_visible()
    yield "cancel-confirm"


def _paid_event() -> tuple[User, Event, User]:
    owner, buyer = make_user(), make_user(preferred_name="Maximiliane Mustermann-Schmidt")
    organization = _organisation(owner)
    event = ticketed_event(
        organization=organization,
        name="A rather long event name for a small screen",
        start=timezone.now() + timedelta(days=2),
    )
    tier = offline_tier(event, name="Standing", total_quantity=40)
    make_tier(event, name="Card", price="40", payment_method="online")
    door = make_tier(event, name="Door", price="5", payment_method="at_the_door")
    fill_with_tickets(event, door, 3)
    paid = Ticket.objects.filter(tier=door).values_list("pk", flat=True)[:1]
    Ticket.objects.filter(pk__in=list(paid)).update(paid_at=timezone.now())  # paid at the door
    Ticket.objects.create(event=event, tier=tier, user=buyer, status=Ticket.Status.PENDING)
    return owner, event, buyer


def test_the_tickets_pages_have_no_serious_axe_violation(
    page: Page, axe_source: str, log_in: LogIn, settings: Any
) -> None:
    settings.STRIPE_SECRET_KEY = "sk_test_encore_stub"
    owner, event, buyer = _paid_event()
    log_in(page, owner)
    for name in _tickets_pages(page, event):
        assert severe_violations(page, axe_source) == [], name
    log_in(page, buyer)
    page.goto(f"/events/{event.pk}")
    expect(page.get_by_role("status", name="Your status")).to_contain_text("How to pay")
    assert severe_violations(page, axe_source) == [], "the buyer's event page"


def test_the_tickets_pages_fit_a_phone(phone_page: Page, log_in: LogIn) -> None:
    owner, event, buyer = _paid_event()
    log_in(phone_page, owner)
    for name in _tickets_pages(phone_page, event):
        assert phone_page.evaluate("document.documentElement.scrollWidth") <= 375, name
    log_in(phone_page, buyer)
    phone_page.goto(f"/events/{event.pk}")
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= 375
