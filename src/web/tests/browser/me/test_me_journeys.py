"""The me pages in Chromium: settings (JS on and off), mark all read, the password reset
journey, axe-core on every page and no horizontal scrolling at 375 px."""

import re
from typing import Any

import pytest
from django.core import mail
from playwright.sync_api import Locator, Page, expect

from accounts.models import User
from accounts.tests.factories import make_user
from web.tests.browser.axe import severe_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def status(page: Page, text: str) -> Locator:
    """The announced message (the first, should the base page announce messages too)."""
    return page.get_by_role("status").filter(has_text=text).first


PAGES = ["/me", "/me/notifications", "/me/settings", "/me/settings/delete", "/password-reset"]


def test_saving_settings_keeps_zone_and_language(
    any_page: Page, log_in: Any, attendee: User
) -> None:
    log_in(any_page, attendee)
    any_page.goto("/me/settings")

    any_page.get_by_label("Timezone").select_option("Asia/Tokyo")
    any_page.get_by_label("Language").select_option("de")
    any_page.get_by_role("checkbox", name="E-mail: RSVP confirmations").uncheck()
    any_page.get_by_role("button", name="Save").click()

    expect(status(any_page, "Your settings are saved.")).to_be_visible()
    any_page.reload()
    expect(any_page.locator("html")).to_have_attribute("lang", "de")
    expect(any_page.locator("select[name=timezone]")).to_have_value("Asia/Tokyo")
    expect(any_page.locator("select[name=language]")).to_have_value("de")
    expect(any_page.locator("input[name=notify_rsvp_confirmation_email]")).not_to_be_checked()
    expect(any_page.locator("input[name=notify_rsvp_confirmation_in_app]")).to_be_checked()


def test_mark_all_as_read(any_page: Page, log_in: Any, attendee: User) -> None:
    log_in(any_page, attendee)
    any_page.goto("/me/notifications")
    expect(any_page.get_by_text("Unread", exact=True)).to_have_count(2)

    any_page.get_by_role("button", name="Mark all as read").click()

    expect(status(any_page, "2 notifications marked as read.")).to_be_visible()
    expect(any_page.get_by_text("Unread", exact=True)).to_have_count(0)
    expect(any_page.get_by_role("link", name="Your seat is confirmed")).to_be_visible()
    expect(any_page.get_by_role("button", name="Mark all as read")).to_have_count(0)


def test_the_countdown_of_a_live_offer_keeps_running(
    page: Page, log_in: Any, attendee: User
) -> None:
    page.clock.install()
    log_in(page, attendee)
    page.goto("/me")
    timer = page.get_by_role("timer")
    expect(timer).to_have_text("in 23 minutes")

    page.clock.fast_forward("05:00")

    expect(timer).to_have_text("in 18 minutes")


def test_the_password_reset_journey(page: Page) -> None:
    make_user("ada@example.com")
    page.goto("/login")
    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_label("Email").fill("ada@example.com")
    page.get_by_role("button", name="Send reset link").click()
    expect(page.get_by_role("heading", name="Check your e-mail")).to_be_visible()

    [link] = re.findall(r"https?://\S+/password-reset/\S+", str(mail.outbox[-1].body))
    page.goto("/" + link.split("/", 3)[3])
    page.get_by_label("New password").fill("a-long-unusual-passphrase")
    page.get_by_role("button", name="Set password").click()
    expect(page.get_by_role("heading", name="Your new password is set")).to_be_visible()

    page.get_by_role("link", name="Log in with your new password").click()
    page.get_by_label("Email").fill("ada@example.com")
    page.get_by_label("Password").fill("a-long-unusual-passphrase")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()


@pytest.mark.parametrize("path", PAGES)
def test_axe_finds_no_serious_or_critical_violation(
    page: Page, axe_source: str, log_in: Any, attendee: User, path: str
) -> None:
    log_in(page, attendee)
    page.goto(path)
    assert severe_violations(page, axe_source) == []


@pytest.mark.parametrize("path", PAGES)
def test_no_horizontal_scrolling_at_375_px(
    phone_page: Page, log_in: Any, attendee: User, path: str
) -> None:
    log_in(phone_page, attendee)
    phone_page.goto(path)
    widths = phone_page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1] == 375
