""" "Cancel my RSVP" and "Cancel ticket" on the event page ask first: a dialog with
JavaScript, a page without; "Keep it" keeps the seat, "Yes, …" gives it back."""

import pytest
from django.db.models import F
from playwright.sync_api import Locator, Page, expect

from accounts.tests.factories import make_user
from events.core.services.event_manager import EventManager
from events.core.tests.factories import make_event, make_tier
from events.models import Event, EventRSVP, Ticket
from web.tests.browser.event.conftest import OpenAs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def status(page: Page) -> Locator:
    return page.get_by_role("status", name="Your status")


def _asked(page: Page, js: bool, heading: str) -> Locator:
    if js:
        dialog = page.get_by_role("dialog", name=heading)
        expect(dialog).to_be_visible()
        expect(dialog.get_by_role("link", name="Keep it")).to_be_focused()
        return dialog
    expect(page.get_by_role("heading", level=1)).to_have_text(heading)
    return page.locator("main")


@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_cancel_my_rsvp_asks_first(open_as: OpenAs, js: bool) -> None:
    event = make_event(name="Quiz Night", max_attendees=5)
    user = make_user()
    EventManager(user, event).rsvp("yes")
    page = open_as(user, f"/events/{event.pk}", js=js)

    status(page).get_by_role("button", name="Cancel my RSVP").click()
    asked = _asked(page, js, "Cancel my RSVP?")
    expect(asked).to_contain_text("You give up your seat at Quiz Night")
    asked.get_by_role("link", name="Keep it").click()
    expect(status(page)).to_contain_text("You are attending")
    assert EventRSVP.objects.get(event=event, user=user).status == EventRSVP.Status.YES

    status(page).get_by_role("button", name="Cancel my RSVP").click()
    _asked(page, js, "Cancel my RSVP?").get_by_role("button", name="Yes, cancel my RSVP").click()
    expect(status(page).get_by_role("button", name="Attend")).to_be_visible()
    assert EventRSVP.objects.get(event=event, user=user).status == EventRSVP.Status.NO


def test_cancel_ticket_asks_in_a_dialog(open_as: OpenAs) -> None:
    event = make_event(name="Gala", requires_ticket=True, max_attendees=5)
    tier = make_tier(event, name="Balcony", quantity_sold=1)
    Event.objects.filter(pk=event.pk).update(attendee_count=F("attendee_count") + 1)
    user = make_user()
    ticket = Ticket.objects.create(event=event, tier=tier, user=user, status="active")
    page = open_as(user, f"/events/{event.pk}")

    status(page).get_by_role("button", name="Cancel ticket").click()
    asked = _asked(page, True, "Cancel ticket?")
    expect(asked).to_contain_text("Your Balcony ticket for Gala is cancelled")
    page.keyboard.press("Escape")
    expect(asked).to_be_hidden()
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.ACTIVE

    status(page).get_by_role("button", name="Cancel ticket").click()
    _asked(page, True, "Cancel ticket?").get_by_role("button", name="Yes, cancel ticket").click()
    expect(status(page).get_by_role("button", name="Cancel ticket")).to_have_count(0)
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.CANCELLED
