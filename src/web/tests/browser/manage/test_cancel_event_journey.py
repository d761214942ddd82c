"""Cancelling an event asks first: a dialog with JavaScript, a page without. "Keep it"
changes nothing; "Yes, cancel the event" cancels, and the attendees' notice carries the
organiser's message."""

import re
from typing import Any

import pytest
from django.core import mail
from playwright.sync_api import Locator, Page, expect

from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_rsvps, make_event, make_org
from events.models import Event
from notifications.models import Notification
from web.tests.browser.axe import severe_violations
from web.tests.browser.conftest import LogIn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WORDS = "The hall flooded. Your money comes back this week."


def _ask(page: Page, with_js: bool) -> Locator:
    """Press "Cancel event"; the confirmation, wherever it shows."""
    page.get_by_role("button", name="Cancel event").click()
    if not with_js:
        expect(page.get_by_role("heading", level=1)).to_have_text("Cancel event?")
        return page.locator("main")
    dialog = page.get_by_role("dialog", name="Cancel event?")
    expect(dialog).to_be_visible()
    return dialog


def test_cancel_event_asks_first_then_tells_the_attendees(
    any_page: Page, request: pytest.FixtureRequest, log_in: LogIn
) -> None:
    page = any_page
    with_js: bool = request.node.callspec.params["any_page"]
    owner = make_user()
    event = make_event(make_org(owner, name="Folk Club"), name="Quiz Night")
    attendees = fill_with_rsvps(event, 12)
    overview = f"/manage/events/{event.pk}"
    log_in(page, owner)
    page.goto(overview)

    asked = _ask(page, with_js)
    expect(asked).to_contain_text("12 attendees will be told.")
    if with_js:
        expect(page).to_have_url(re.compile(f"{overview}$"))  # no page was left
        expect(asked.get_by_label("Message to attendees")).to_be_focused()
    asked.get_by_role("link", name="Keep it").click()
    if with_js:
        expect(asked).to_be_hidden()
    expect(page).to_have_url(re.compile(f"{overview}$"))
    expect(page.get_by_role("status", name="Event status")).to_contain_text("Open")

    if with_js:  # Escape closes it as well, and nothing happened either
        _ask(page, with_js)
        page.keyboard.press("Escape")
        expect(page.get_by_role("dialog")).to_be_hidden()
    event.refresh_from_db()
    assert event.status == Event.Status.OPEN
    assert not Notification.objects.exists()

    asked = _ask(page, with_js)
    asked.get_by_label("Message to attendees").fill(WORDS)
    asked.get_by_role("button", name="Yes, cancel the event").click()
    expect(page.get_by_role("status", name="Event status")).to_contain_text("Cancelled")
    event.refresh_from_db()
    assert event.status == Event.Status.CANCELLED
    told = Notification.objects.filter(notification_type="event_cancelled")
    assert {n.user_id for n in told} == {a.pk for a in attendees}
    assert all(WORDS in n.body for n in told)
    mails: list[Any] = [m for m in mail.outbox if "Cancelled: Quiz Night" in m.subject]
    assert len(mails) == 12
    assert all(f"Folk Club writes:\n{WORDS}" in m.body for m in mails)


@pytest.mark.parametrize("as_dialog", [True, False], ids=["dialog", "page"])
def test_the_confirmation_has_no_serious_axe_violation(
    page: Page, log_in: LogIn, axe_source: str, as_dialog: bool
) -> None:
    """axe needs JavaScript; the page form is reached with confirm.js kept from loading."""
    owner = make_user()
    event = make_event(make_org(owner))
    fill_with_rsvps(event, 3)
    if not as_dialog:
        page.route(re.compile(r"/confirm[.\w]*\.js$"), lambda route: route.abort())
    log_in(page, owner)
    page.goto(f"/manage/events/{event.pk}")
    _ask(page, with_js=as_dialog)
    assert severe_violations(page, axe_source) == []


def test_the_dialog_fits_a_phone(phone_page: Page, log_in: LogIn) -> None:
    owner = make_user()
    event = make_event(make_org(owner))
    fill_with_rsvps(event, 1)
    log_in(phone_page, owner)
    phone_page.goto(f"/manage/events/{event.pk}")
    _ask(phone_page, with_js=True)
    width = phone_page.evaluate("document.documentElement.scrollWidth")
    assert width <= phone_page.viewport_size["width"]  # type: ignore[index]
