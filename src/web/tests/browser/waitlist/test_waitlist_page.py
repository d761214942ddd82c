"""The organiser's waitlist page in Chromium, by role and name."""

import re

import pytest
from playwright.sync_api import Page, expect

from events.models import WaitlistOffer
from web.tests.browser.axe import severe_violations
from web.tests.browser.conftest import LogIn
from web.tests.browser.waitlist.conftest import Scene
from web.tests.waitlist.support import url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

Status = WaitlistOffer.WaitlistOfferStatus


def test_the_organiser_revokes_an_offer_and_reactivates_it(
    page: Page, log_in: LogIn, scene: Scene
) -> None:
    log_in(page, scene.organiser)
    page.goto(url(scene.event))
    offers = page.get_by_role("table", name="Offers")
    row = offers.get_by_role("row").filter(has_text=scene.member.email)
    row.get_by_role("button", name="Revoke").click()
    dialog = page.get_by_role("dialog", name="Revoke?")
    expect(dialog).to_contain_text(f"{scene.member.email} loses the held seat and is told.")
    dialog.get_by_role("button", name="Yes, revoke").click()
    expect(row).to_contain_text("Revoked")
    expect(row.get_by_role("button", name="Revoke")).to_have_count(0)
    scene.offer.refresh_from_db()
    assert scene.offer.status == Status.REVOKED
    row.get_by_role("button", name="Reactivate").click()
    expect(row).to_contain_text("Pending")
    expect(row.get_by_role("button", name="Revoke")).to_be_visible()
    scene.offer.refresh_from_db()
    assert (scene.offer.status, scene.offer.revoked_reason) == (Status.PENDING, "")


def test_save_settings_with_javascript_off(any_page: Page, log_in: LogIn, scene: Scene) -> None:
    page = any_page
    log_in(page, scene.organiser)
    page.goto(url(scene.event))
    page.get_by_label("Offer window").fill("3")
    page.get_by_label("Batch size").fill("4")
    page.get_by_label("Lottery").check()
    page.get_by_label("Cutoff").fill("")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Settings saved.")).to_be_visible()
    expect(page.get_by_text("4 people drawn at random from the queue get 3 hours")).to_be_visible()
    scene.event.refresh_from_db()
    assert (scene.event.waitlist_batch_size, scene.event.waitlist_lottery_mode) == (4, True)
    assert scene.event.waitlist_cutoff_date is None
    page.get_by_label("Offer window").fill("0.5")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("between 1 hour and 7 days")).to_be_visible()
    scene.event.refresh_from_db()
    assert scene.event.waitlist_time_window is not None
    assert scene.event.waitlist_time_window.total_seconds() == 3 * 3600


def test_the_sentence_follows_the_form_with_javascript_on(
    page: Page, log_in: LogIn, scene: Scene
) -> None:
    log_in(page, scene.organiser)
    page.goto(url(scene.event))
    page.get_by_label("Batch size").fill("7")
    expect(page.get_by_role("status").filter(has_text="the next 7 people")).to_be_visible()
    scene.event.refresh_from_db()
    assert scene.event.waitlist_batch_size == 2  # nothing saved before "Save"


def test_axe_finds_nothing_serious_and_a_phone_needs_no_horizontal_scroll(
    page: Page, phone_page: Page, log_in: LogIn, axe_source: str, scene: Scene
) -> None:
    log_in(page, scene.organiser)
    page.goto(url(scene.event))
    expect(page.get_by_role("button", name="Reactivate")).to_have_count(2)
    expect(page.get_by_role("img", name=re.compile("^Queue length over time"))).to_be_visible()
    assert severe_violations(page, axe_source) == []
    page.get_by_label("Batch size").fill("-3")  # the error state: a field error
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("Please correct the fields")
    expect(page.get_by_label("Batch size")).to_have_accessible_description(
        re.compile("greater than or equal to 0")
    )
    assert severe_violations(page, axe_source) == []
    log_in(phone_page, scene.organiser)
    phone_page.goto(url(scene.event))
    expect(phone_page.get_by_role("button", name="Offer a seat").first).to_be_visible()
    widths = phone_page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1] == 375
