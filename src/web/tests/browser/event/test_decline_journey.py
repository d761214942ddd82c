"""Declining in the browser, by role and name: the holder's "Decline the offer" in the
"Your status" region hands the seat to the next member's open page (no reload) and
leaves the holder queued; the offer e-mail's decline page asks first, works with
JavaScript off, and passes axe at 375 px."""

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Locator, Page, expect

from events.models import EventWaitList, WaitlistOffer
from events.waitlist.tests.waitlist_builders import active_event, give_offer, queue_in_order
from web.tests.browser.axe import severe_violations
from web.tests.browser.event.conftest import POLL_TIMEOUT_MS, OpenAs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def status(page: Page) -> Locator:
    return page.get_by_role("status", name="Your status")


def test_declining_on_the_page_hands_the_seat_to_the_next_members_open_page(
    open_as: OpenAs,
) -> None:
    event = active_event(1)
    holder, waiting = queue_in_order(event, 2)
    give_offer(event, holder, expires_at=timezone.now() + timedelta(hours=2))
    path = f"/events/{event.pk}"
    page_w = open_as(waiting, path)
    expect(status(page_w)).to_contain_text("You are number 1 on the waitlist")

    page_h = open_as(holder, path)
    region = status(page_h)
    expect(region.get_by_role("button", name="Claim my seat")).to_be_visible()
    region.get_by_role("button", name="Decline the offer").click()

    expect(status(page_h)).to_contain_text("You are number 1 on the waitlist")
    expect(status(page_h).get_by_role("button", name="Decline the offer")).to_have_count(0)
    expect(status(page_w)).to_contain_text("A seat is held for you until", timeout=POLL_TIMEOUT_MS)
    assert WaitlistOffer.objects.get(event=event, user=holder).declined_at is not None
    assert EventWaitList.objects.filter(event=event, user=holder).exists()


def test_the_decline_page_asks_then_declines_with_javascript_off(open_as: OpenAs) -> None:
    event = active_event(1, name="Cello recital")
    holder, _ = queue_in_order(event, 2)
    give_offer(event, holder, expires_at=timezone.now() + timedelta(hours=2))

    page = open_as(holder, f"/events/{event.pk}/decline", js=False)
    expect(page.get_by_role("heading", level=1)).to_have_text("Decline the offer")
    expect(page.get_by_role("link", name="Keep my offer")).to_be_visible()
    assert WaitlistOffer.objects.get(event=event, user=holder).status == "pending"
    page.get_by_role("button", name="Decline the offer").click()

    expect(page).to_have_url(f"{page.url.split('/events/')[0]}/events/{event.pk}")
    expect(status(page)).to_contain_text("You are number")
    assert WaitlistOffer.objects.get(event=event, user=holder).status == "expired"


def test_an_anonymous_visitor_of_the_decline_link_logs_in_first(open_as: OpenAs) -> None:
    event = active_event(1)
    page = open_as(None, f"/events/{event.pk}/decline")

    assert "/login?next=" in page.url


def test_the_decline_page_is_accessible_on_a_phone(
    phone_page: Page, log_in: Callable[..., None], axe_source: str
) -> None:
    event = active_event(1)
    [holder] = queue_in_order(event, 1)
    give_offer(event, holder, expires_at=timezone.now() + timedelta(hours=2))
    log_in(phone_page, holder)

    phone_page.goto(f"/events/{event.pk}/decline")

    expect(phone_page.locator("h1")).to_be_visible()
    assert severe_violations(phone_page, axe_source) == []
    widths = phone_page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1]
