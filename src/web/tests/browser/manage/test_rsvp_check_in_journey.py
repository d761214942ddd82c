"""At the door of an RSVP event: the organiser checks an attendee in from the overview,
with JavaScript on (htmx swaps the row and announces it) and off (plain form)."""

import re
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_rsvps, make_event, make_org
from events.models import EventRSVP
from web.tests.browser.axe import severe_violations
from web.tests.browser.conftest import LogIn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_organiser_checks_in_an_rsvp_attendee(
    any_page: Page, request: pytest.FixtureRequest, log_in: LogIn, axe_source: Any
) -> None:
    page = any_page
    with_js = request.node.callspec.params["any_page"]
    owner = make_user()
    event = make_event(make_org(owner), start=timezone.now() + timedelta(minutes=30))
    guest, other = fill_with_rsvps(event, 2)
    log_in(page, owner)
    page.goto(f"/manage/events/{event.pk}")

    page.get_by_role("row").filter(has_text=guest.email).get_by_role(
        "button", name="Check in"
    ).click()

    expect(page.get_by_role("row").filter(has_text=guest.email)).to_contain_text("Checked in")
    expect(
        page.get_by_role("row").filter(has_text=other.email).get_by_role("button", name="Check in")
    ).to_be_visible()
    if with_js:  # the row swapped in place and was announced; no reload
        expect(page.get_by_role("status").filter(has_text="is checked in")).to_be_attached()
        expect(page).not_to_have_url(re.compile("#attendees"))
        assert severe_violations(page, axe_source) == []
    else:
        expect(page).to_have_url(re.compile("#attendees$"))
    assert EventRSVP.objects.get(event=event, user=guest).checked_in_at is not None
    assert EventRSVP.objects.get(event=event, user=other).checked_in_at is None
