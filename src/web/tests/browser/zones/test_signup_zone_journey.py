"""A German sign-up in New York: the account keeps the page's language and the browser's
zone, so its pages stay German and show New York times (docs/spec/ui.md, time zones)."""

import re
from collections.abc import Iterator
from datetime import UTC, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from accounts.models import User
from events.core.tests.factories import make_event, make_org
from events.models import Event
from web.tests.browser.axe import severe_violations
from web.tests.browser.conftest import _new_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def new_york_page(browser: Browser, live_server: Any) -> Iterator[Page]:
    yield from _new_page(browser, live_server.url, locale="de-DE", timezone_id="America/New_York")


def test_a_german_sign_up_in_new_york_keeps_german_and_new_york_time(
    new_york_page: Page, axe_source: str
) -> None:
    page = new_york_page
    start = (
        (timezone.now() + timedelta(days=30))
        .astimezone(UTC)
        .replace(hour=23, minute=0, second=0, microsecond=0)
    )
    event = make_event(make_org(), status=Event.Status.OPEN, start=start, timezone="Europe/Berlin")

    page.goto("/signup")
    expect(page.get_by_role("heading", level=1)).to_have_text("Registrieren")
    assert severe_violations(page, axe_source) == []
    page.get_by_label("Name").fill("Grete")
    page.get_by_label("E-Mail-Adresse").fill("grete@example.com")
    page.get_by_label("Passwort").fill("a-long-unusual-passphrase")
    page.get_by_role("button", name="Registrieren").click()
    expect(page.get_by_role("heading", name="Sieh in dein Postfach")).to_be_visible()
    user = User.objects.get(email="grete@example.com")
    assert (user.timezone, user.language) == ("America/New_York", "de")

    [message] = mail.outbox
    link = re.search(r"/signup/finish/\S+", str(message.body))
    assert link is not None, message.body
    page.goto(link.group(0))
    page.get_by_role("button", name="Anmelden").click()
    expect(page.get_by_role("button", name="Abmelden")).to_be_visible()

    page.set_extra_http_headers({"Accept-Language": "en"})  # the profile wins over the browser
    page.goto("/me/settings")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.get_by_label("Zeitzone", exact=True)).to_have_value("America/New_York")

    page.goto(f"/events/{event.pk}")
    in_new_york = start.astimezone(ZoneInfo("America/New_York")).strftime("%H:%M %Z")
    starts = page.locator("time").first
    expect(starts).to_contain_text(in_new_york)  # not the event's Berlin time
    assert not in_new_york.startswith("00:") and "CET" not in starts.inner_text()
    weekday = start.astimezone(ZoneInfo("America/New_York")).weekday()
    german_days = ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"]
    expect(starts).to_contain_text(german_days[weekday])


def test_a_time_zone_is_found_by_typing_and_saved(page: Page, log_in: Any, axe_source: str) -> None:
    user = User.objects.create_user(email="zone@example.com", password="x-long-passphrase")
    log_in(page, user)
    page.goto("/me/settings")
    select = page.get_by_label("Timezone", exact=True)
    expect(select.locator("optgroup").first).to_have_attribute("label", "Common")
    page.get_by_label("Find a time zone").fill("tokyo")
    expect(select).to_have_value("Asia/Tokyo")
    assert severe_violations(page, axe_source) == []
    page.get_by_role("button", name="Save").first.click()
    expect(page.get_by_role("status")).not_to_be_empty()
    user.refresh_from_db()
    assert user.timezone == "Asia/Tokyo"
