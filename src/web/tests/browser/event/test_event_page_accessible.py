"""axe-core on the event page in its main states, and no horizontal scrolling at 375 px."""

from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import make_event, make_org, make_tier
from events.models import Venue
from events.waitlist.tests.waitlist_builders import active_event, give_offer, queue_in_order
from web.tests.browser.axe import severe_violations
from web.tests.browser.event.conftest import OpenAs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG_NAME = "An uncommonly long event name that certainly has to wrap on a phone screen"


def anonymous() -> tuple[User | None, str]:
    event = make_event(name=LONG_NAME, description="Bring friends.\n\nDoors at seven.")
    return None, f"/events/{event.pk}"


def may_register() -> tuple[User | None, str]:
    organization = make_org()
    venue = Venue.objects.create(organization=organization, name="Hall", address="Long Street 1")
    event = make_event(organization, name=LONG_NAME, max_attendees=10, venue=venue)
    return make_user(), f"/events/{event.pk}"


def waitlisted() -> tuple[User | None, str]:
    event = active_event(1, attendees=1, name=LONG_NAME)
    [member] = queue_in_order(event, 1)
    return member, f"/events/{event.pk}"


def holding_offer() -> tuple[User | None, str]:
    event = active_event(2, attendees=1, name=LONG_NAME)
    [member] = queue_in_order(event, 1)
    give_offer(event, member, expires_at=timezone.now() + timedelta(hours=2))
    return member, f"/events/{event.pk}"


def checkout() -> tuple[User | None, str]:
    event = make_event(name=LONG_NAME, max_attendees=10, requires_ticket=True)
    make_tier(event, name="Standard", total_quantity=10)
    make_tier(event, name="Supporter", price=Decimal("25.00"))
    return make_user(), f"/events/{event.pk}/checkout"


STATES = {
    "anonymous": anonymous,
    "may-register": may_register,
    "waitlisted": waitlisted,
    "holding-offer": holding_offer,
    "checkout": checkout,
}


@pytest.mark.parametrize("state", STATES)
def test_axe_finds_no_serious_or_critical_violation(
    open_as: OpenAs, axe_source: str, state: str
) -> None:
    build: Callable[[], tuple[User | None, str]] = STATES[state]
    user, path = build()
    page = open_as(user, path)
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert severe_violations(page, axe_source) == []


@pytest.mark.parametrize("state", ["anonymous", "holding-offer", "checkout"])
def test_no_horizontal_scrolling_at_375_px(open_as: OpenAs, state: str) -> None:
    user, path = STATES[state]()
    page = open_as(user, path, viewport={"width": 375, "height": 740}, is_mobile=True)
    expect(page.get_by_role("heading", level=1)).to_contain_text(LONG_NAME)
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1] == 375
