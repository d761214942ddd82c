"""The states the pages now name, in Chromium by role and name, with axe: a lottery
waitlist's "You are in the draw", a cancelled event that offers nothing, and a declined
offer on the organiser's waitlist page."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event, make_tier
from events.models import Event, Ticket
from events.waitlist.services.queue_samples import record_queue_length
from events.waitlist.tests.waitlist_builders import active_event, queue_in_order
from web.tests.browser.axe import severe_violations
from web.tests.browser.conftest import LogIn
from web.tests.waitlist.support import Status, offer, url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_lottery_member_reads_that_they_are_in_the_draw(
    page: Page, log_in: LogIn, axe_source: str
) -> None:
    event = active_event(
        2, attendees=2, name="Raffle gig", waitlist_lottery_mode=True, waitlist_batch_size=1
    )
    *_, viewer = queue_in_order(event, 3)
    log_in(page, viewer)
    page.goto(f"/events/{event.pk}")
    status = page.get_by_role("status", name="Your status")
    expect(status).to_contain_text("You are in the draw.")
    expect(status).not_to_contain_text("You are number")
    expect(status.get_by_role("button", name="Leave the waitlist")).to_be_visible()
    assert severe_violations(page, axe_source) == []


@pytest.mark.parametrize("ticketed", [False, True], ids=["rsvp", "ticketed"])
def test_a_cancelled_event_offers_no_registration_and_no_calendar(
    page: Page, axe_source: str, ticketed: bool
) -> None:
    event = make_event(
        name="Called-off concert",
        status=Event.Status.CANCELLED,
        requires_ticket=ticketed,
        max_attendees=10,
        waitlist_open=True,
    )
    page.goto(f"/events/{event.pk}")
    expect(page.get_by_role("heading", name="Called-off concert", level=1)).to_be_visible()
    status = page.get_by_role("status", name="Your status")
    expect(status).to_contain_text("This event is cancelled.")
    for name in ("Attend", "Get tickets", "Join the waitlist"):
        expect(page.get_by_role("button", name=name)).to_have_count(0)
    expect(page.get_by_role("link", name="Log in to attend")).to_have_count(0)
    expect(page.get_by_role("link", name="Add to calendar")).to_have_count(0)
    assert severe_violations(page, axe_source) == []


def test_the_waitlist_page_says_declined_and_names_the_chart_axes(
    page: Page, log_in: LogIn, axe_source: str
) -> None:
    event = active_event(5, name="Spring concert")
    past = timezone.now() - timedelta(hours=1)
    declined = offer(
        event,
        make_user("ana@example.com"),
        status=Status.EXPIRED,
        expires_at=past,
        declined_at=past,
    )
    lapsed = offer(event, make_user("ben@example.com"), status=Status.EXPIRED, expires_at=past)
    for hours_ago in (3, 1):
        record_queue_length(event.pk, timezone.now() - timedelta(hours=hours_ago))
    log_in(page, event.organization.owner)
    page.goto(url(event))
    offers = page.get_by_role("table", name="Offers")
    declined_row = offers.get_by_role("row").filter(has_text=declined.user.email)
    lapsed_row = offers.get_by_role("row").filter(has_text=lapsed.user.email)
    expect(declined_row).to_contain_text("Declined")
    expect(declined_row).not_to_contain_text("Expired")
    expect(lapsed_row).to_contain_text("Expired")
    figure = page.get_by_role("figure")
    expect(figure.get_by_text("People waiting")).to_be_visible()
    expect(figure.get_by_text("Time", exact=True)).to_be_visible()
    assert severe_violations(page, axe_source) == []


def test_the_overview_figures_read_as_cards_on_a_phone(
    phone_page: Page, log_in: LogIn, axe_source: str
) -> None:
    page = phone_page
    event = make_event(name="Paid gala", requires_ticket=True, max_attendees=50)
    tier = make_tier(event, name="Door", price=Decimal("12.00"), currency="CHF")
    Ticket.objects.create(event=event, tier=tier, user=make_user(), status=Ticket.Status.PENDING)
    log_in(page, event.organization.owner)
    page.goto(f"/manage/events/{event.pk}")
    revenue = page.get_by_role("table", name="Revenue")
    row = revenue.get_by_role("row").filter(has_text="CHF")
    expect(row).to_contain_text("12.00")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    assert severe_violations(page, axe_source) == []
