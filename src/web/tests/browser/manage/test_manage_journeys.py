"""An organiser runs an event from the browser: /manage → organisation → "New event" →
"Save" → the overview → "Open" → "Check in", with JavaScript on and off; axe and the
375 px phone screen on each manage page."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from accounts.tests.factories import PASSWORD, make_user
from events.core.tests.factories import fill_with_rsvps, fill_with_tickets, make_event, make_org
from events.models import Event, Ticket, TicketTier
from web.tests.browser.axe import severe_violations
from web.tests.browser.conftest import LogIn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_organiser_creates_opens_and_checks_in(
    any_page: Page, request: pytest.FixtureRequest
) -> None:
    page = any_page
    with_js = request.node.callspec.params["any_page"]
    owner = make_user()
    make_org(owner, name="Jazz Club", slug="jazz-club")
    page.goto("/manage")
    page.get_by_label("Email").fill(owner.email)  # the log-in page, then back to /manage
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()

    page.get_by_role("link", name="Jazz Club").click()
    page.get_by_role("link", name="New event").click()
    start = timezone.now() + timedelta(minutes=30)
    page.get_by_label("Name").fill("Late Set")
    page.get_by_label("Start").fill(f"{start:%Y-%m-%dT%H:%M}")
    page.get_by_label("Time zone", exact=True).select_option("UTC")
    page.get_by_label("Capacity").fill("40")
    page.get_by_label("Tickets").check()
    page.get_by_role("button", name="Save").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Late Set")
    expect(page.get_by_role("status", name="Event status")).to_contain_text("Draft")
    page.get_by_role("button", name="Open", exact=True).click()
    expect(page.get_by_role("status", name="Event status")).to_contain_text("Open")
    event = Event.objects.get(name="Late Set")
    assert event.status == Event.Status.OPEN

    (guest,) = fill_with_tickets(event, TicketTier.objects.get(event=event), 1)
    page.reload()
    row = page.get_by_role("row").filter(has_text=guest.email)
    row.get_by_role("button", name="Check in").click()
    expect(page.get_by_role("row").filter(has_text=guest.email)).to_contain_text("Checked in")
    if with_js:  # htmx swapped the row in place and announced it; no reload
        expect(page.get_by_role("status").filter(has_text="is checked in")).to_be_attached()
        expect(page).not_to_have_url(re.compile("#attendees"))
    else:
        expect(page).to_have_url(re.compile("#attendees$"))
    assert Ticket.objects.get(user=guest).status == Ticket.Status.CHECKED_IN


def _manage_pages(owner_org_slug: str, event: Event) -> list[str]:
    return [
        "/manage",
        f"/manage/{owner_org_slug}",
        f"/manage/{owner_org_slug}/events/new",
        f"/manage/events/{event.pk}/edit",
        f"/manage/events/{event.pk}",
    ]


def test_the_manage_pages_have_no_serious_axe_violation(
    page: Page, axe_source: str, log_in: LogIn
) -> None:
    owner = make_user()
    organization = make_org(owner, slug="axe-club")
    event = make_event(organization, name="Checked Event", max_attendees=5)
    fill_with_rsvps(event, 2)
    ticketed = make_event(
        organization, requires_ticket=True, start=timezone.now() + timedelta(minutes=20)
    )
    fill_with_tickets(ticketed, TicketTier.objects.create(event=ticketed, name="Door"), 2)
    log_in(page, owner)
    for url in [*_manage_pages(organization.slug, event), f"/manage/events/{ticketed.pk}"]:
        page.goto(url)
        assert severe_violations(page, axe_source) == [], url
    # after a check-in swapped its row in place (htmx) and announced it
    page.get_by_role("button", name="Check in").first.click()
    expect(page.get_by_role("row").filter(has_text="Checked in").first).to_be_visible()
    assert severe_violations(page, axe_source) == []
    # the form with its field errors
    page.goto(f"/manage/{organization.slug}/events/new")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_be_visible()
    assert severe_violations(page, axe_source) == []


def test_the_manage_pages_fit_a_phone(phone_page: Page, log_in: LogIn) -> None:
    owner = make_user()
    organization = make_org(owner, slug="phone-club")
    event = make_event(organization, name="A rather long event name for a small screen")
    fill_with_rsvps(event, 3)
    ticketed = make_event(organization, requires_ticket=True)
    fill_with_tickets(ticketed, TicketTier.objects.create(event=ticketed, name="Door"), 3)
    log_in(phone_page, owner)
    for url in [*_manage_pages(organization.slug, event), f"/manage/events/{ticketed.pk}"]:
        phone_page.goto(url)
        width = phone_page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, (url, width)
