"""The waitlist on the event page, by role and name: join, an offer appearing on the open
page without a reload (the region polls), claiming it; leaving while holding one hands
it to the next member's open page; and the same buttons with JavaScript off."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Locator, Page, expect

from accounts.tests.factories import make_user
from events.core.services.event_manager import EventManager
from events.core.tests.factories import make_event
from events.models import EventRSVP, EventWaitList, WaitlistOffer
from events.waitlist.tests.waitlist_builders import active_event, give_offer, queue_in_order
from web.tests.browser.event.conftest import POLL_TIMEOUT_MS, OpenAs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def status(page: Page) -> Locator:
    return page.get_by_role("status", name="Your status")


def test_join_get_the_offer_without_a_reload_and_claim_it(open_as: OpenAs) -> None:
    event = active_event(1, attendees=0, name="Sold-out concert")
    attendee = make_user()
    EventManager(attendee, event).rsvp("yes")
    path = f"/events/{event.pk}"
    user_a = make_user()

    page_a = open_as(user_a, path)
    expect(status(page_a)).to_contain_text("This event is full")
    status(page_a).get_by_role("button", name="Join the waitlist").click()
    expect(status(page_a)).to_contain_text("You are number 1 on the waitlist")

    EventManager(attendee, event).rsvp("no")  # a seat frees: the processing pass offers it

    region = status(page_a)
    expect(region).to_contain_text("A seat is held for you until", timeout=POLL_TIMEOUT_MS)
    timer = region.get_by_role("timer")
    expect(timer).to_be_visible()
    first = timer.inner_text()
    expect(timer).not_to_have_text(first)  # it counts down, second by second

    page_b = open_as(make_user(), path)
    expect(status(page_b)).to_contain_text("Spots are currently reserved for waitlist members")
    expect(status(page_b).get_by_role("button", name="Join the waitlist")).to_be_visible()

    region.get_by_role("button", name="Claim my seat").click()
    expect(status(page_a)).to_contain_text("You are attending")
    assert EventRSVP.objects.get(event=event, user=user_a).status == EventRSVP.Status.YES


def test_leaving_while_holding_an_offer_hands_it_to_the_next_members_open_page(
    open_as: OpenAs,
) -> None:
    event = active_event(2, attendees=1)  # A's offer holds the free seat
    user_a, user_c = queue_in_order(event, 2)
    give_offer(event, user_a, expires_at=timezone.now() + timedelta(hours=2))
    path = f"/events/{event.pk}"

    page_c = open_as(user_c, path)
    expect(status(page_c)).to_contain_text("You are number 1 on the waitlist")
    # An unchanged region is left alone by the poll: the focus stays where it was.
    page_c.evaluate(
        "() => document.body.addEventListener('htmx:afterRequest',"
        " () => { window.polls = (window.polls || 0) + 1; })"
    )
    status(page_c).get_by_role("button", name="Leave the waitlist").focus()
    page_c.wait_for_function("() => window.polls >= 1", timeout=POLL_TIMEOUT_MS)
    assert page_c.evaluate("() => document.activeElement.textContent") == "Leave the waitlist"
    page_a = open_as(user_a, path)
    expect(status(page_a)).to_contain_text("A seat is held for you until")
    status(page_a).get_by_role("button", name="Leave the waitlist").click()
    expect(status(page_a).get_by_role("button", name="Join the waitlist")).to_be_visible()

    expect(status(page_c)).to_contain_text("A seat is held for you until", timeout=POLL_TIMEOUT_MS)
    expect(status(page_c).get_by_role("button", name="Claim my seat")).to_be_visible()
    assert WaitlistOffer.objects.get(event=event, user=user_c).status == "pending"


def test_attend_join_leave_and_claim_with_javascript_off(open_as: OpenAs) -> None:
    open_event = make_event(max_attendees=5)
    page = open_as(make_user(), f"/events/{open_event.pk}", js=False)
    status(page).get_by_role("button", name="Attend").click()
    expect(status(page)).to_contain_text("You are attending")
    status(page).get_by_role("button", name="Cancel my RSVP").click()
    page.get_by_role("button", name="Yes, cancel my RSVP").click()  # the confirmation page
    expect(status(page).get_by_role("button", name="Attend")).to_be_visible()

    full = active_event(1)
    attendee = make_user()
    EventManager(attendee, full).rsvp("yes")
    user = make_user()
    page = open_as(user, f"/events/{full.pk}", js=False)
    status(page).get_by_role("button", name="Join the waitlist").click()
    expect(status(page)).to_contain_text("You are number 1 on the waitlist")
    status(page).get_by_role("button", name="Leave the waitlist").click()
    expect(status(page).get_by_role("button", name="Join the waitlist")).to_be_visible()
    assert not EventWaitList.objects.filter(event=full, user=user).exists()

    status(page).get_by_role("button", name="Join the waitlist").click()
    EventManager(attendee, full).rsvp("no")  # the processing pass offers the seat
    page.reload()
    expect(status(page).get_by_role("timer")).to_be_visible()
    status(page).get_by_role("button", name="Claim my seat").click()
    expect(status(page)).to_contain_text("You are attending")
