"""The organiser's series journeys in Chromium, by role and name (docs/spec/ui.md)."""

import re
from datetime import date, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from events.models import Event, EventSeries, Organization
from events.series import services as recurrence_service
from events.series.tests.recurrence_builders import occurrences
from web.tests.browser.axe import severe_violations
from web.tests.series.support import weekly_series

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def no_horizontal_scroll(page: Page) -> None:
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths


def fill_builder(page: Page, first: date, weeks_ahead: int) -> None:
    page.get_by_label("Name").fill("Tuesday run")
    page.get_by_label("Starts on").fill(first.isoformat())
    page.get_by_label("Time", exact=True).fill("18:00")
    page.get_by_label("Duration").fill("90")
    page.get_by_label("Time zone", exact=True).select_option("Europe/Berlin")
    page.get_by_label("Repeats").select_option("weekly")
    page.get_by_label("Every", exact=True).fill("1")
    page.get_by_role("checkbox", name="Tuesday").check()
    page.get_by_role("checkbox", name="Publish automatically").check()
    page.get_by_label("Weeks ahead").fill(str(weeks_ahead))


def preview_then_create(page: Page, first_tuesday: date) -> EventSeries:
    weeks = (first_tuesday - timezone.localdate()).days // 7 + 5
    fill_builder(page, first_tuesday, weeks)
    dates = page.get_by_role("list", name="Next dates").get_by_role("listitem")
    expect(dates).to_have_count(10)
    expect(dates.first).to_contain_text(first_tuesday.strftime("Tue %-d %b %Y, 18:00"))
    third = first_tuesday + timedelta(days=14)
    expect(dates.nth(2)).to_contain_text(third.strftime("Tue %-d %b %Y, 18:00"))
    texts = dates.all_inner_texts()
    zones = [text.rsplit(" ", 1)[1] for text in texts]
    assert all(", 18:00 " in text for text in texts), texts
    assert zones[0] == zones[1] != zones[2] == zones[9], zones  # CET → CEST or back
    assert not EventSeries.objects.exists()  # previewed, nothing saved
    page.get_by_role("button", name="Create series").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Tuesday run")
    expect(page.get_by_role("status")).to_contain_text("The series was created.")
    return EventSeries.objects.get()


def cancel_one_date(page: Page, event: Event) -> None:
    row = page.get_by_role("row").filter(has=page.locator(f'a[href="/events/{event.pk}"]'))
    row.get_by_role("button", name="Cancel this date").click()
    dialog = page.get_by_role("dialog", name="Cancel this date?")
    expect(dialog).to_contain_text("Nobody has signed up for it yet.")
    dialog.get_by_role("button", name="Yes, cancel this date").click()
    expect(page.get_by_role("status")).to_contain_text("The date was cancelled.")
    expect(row).to_contain_text("Cancelled")


def check_public_page(page: Page, series: EventSeries, cancelled: Event) -> None:
    page.goto(f"/events/{series.organization.slug}/series/{series.slug}")
    expect(page.get_by_role("heading", level=1)).to_have_text(series.name)
    item = (
        page.get_by_role("listitem")
        .filter(has=page.get_by_role("link", name=cancelled.name))
        .filter(has_text=cancelled.start.strftime("%-d %b %Y"))
    )
    expect(item).to_contain_text("Cancelled")
    expect(page.get_by_role("link", name="Subscribe")).to_have_attribute(
        "href", re.compile(rf"^webcal://.*/api/event-series/{series.pk}/calendar\.ics$")
    )


def move_to_thursdays(page: Page, first_tuesday: date) -> None:
    page.get_by_role("link", name="Edit time and cadence").click()
    page.get_by_role("checkbox", name="Tuesday").uncheck()
    page.get_by_role("checkbox", name="Thursday").check()
    thursday = (first_tuesday + timedelta(days=2)).strftime("Thu %-d %b %Y, 18:00")
    first = page.get_by_role("list", name="Next dates").get_by_role("listitem").first
    expect(first).to_contain_text(thursday)
    page.get_by_role("button", name="Review changes").click()
    plan = page.get_by_role("region", name="Planned changes")
    expect(
        plan.get_by_role("list", name="Dates added").get_by_role("listitem").first
    ).to_contain_text(thursday)
    plan.get_by_role("button", name="Apply changes").click()


def test_the_organiser_builds_a_series_across_a_dst_switch_and_fixes_its_cadence(
    page: Page, log_in: Any, axe_source: str, organiser: Organization, first_tuesday: date
) -> None:
    log_in(page, organiser.owner)
    page.goto(f"/manage/{organiser.slug}/series/new")
    assert severe_violations(page, axe_source) == []
    series = preview_then_create(page, first_tuesday)
    assert severe_violations(page, axe_source) == []

    page.get_by_role("button", name="Generate now").click()
    expect(page.get_by_role("status")).to_contain_text("dates created.")
    created = occurrences(series)
    assert len(created) >= 4
    cancel_one_date(page, created[1])

    check_public_page(page, series, created[1])
    assert severe_violations(page, axe_source) == []

    page.goto(f"/manage/series/{series.pk}")
    move_to_thursdays(page, first_tuesday)
    stale = page.get_by_role("region", name="Stale dates")
    expect(stale.get_by_role("listitem")).to_have_count(len(created) - 1)
    assert severe_violations(page, axe_source) == []
    stale.get_by_role("button", name="Cancel stale dates").click()
    expect(page.get_by_role("status")).to_contain_text("stale dates cancelled.")
    expect(page.get_by_role("region", name="Stale dates")).to_have_count(0)
    tuesdays = [e for e in occurrences(series) if e.pk in {c.pk for c in created}]
    assert all(e.status == Event.Status.CANCELLED for e in tuesdays)
    thursdays = [e for e in occurrences(series) if e.status != Event.Status.CANCELLED]
    assert thursdays  # the cadence change created them at once
    assert {e.start.astimezone(ZoneInfo("Europe/Berlin")).weekday() for e in thursdays} == {3}


def test_the_series_pages_fit_a_phone(
    phone_page: Page, log_in: Any, organiser: Organization
) -> None:
    series = weekly_series(organiser, name="A rather long series name that has to wrap somehow")
    recurrence_service.cancel_occurrence(series, occurrences(series)[0].start)
    log_in(phone_page, organiser.owner)
    for path in (
        f"/manage/{organiser.slug}/series/new",
        f"/manage/series/{series.pk}",
        f"/manage/series/{series.pk}/recurrence",
        f"/manage/series/{series.pk}/template",
        f"/events/{organiser.slug}/series/{series.slug}",
    ):
        phone_page.goto(path)
        no_horizontal_scroll(phone_page)


def test_with_javascript_off_the_organiser_previews_creates_and_generates(
    no_js_page: Page,
    log_in: Any,
    organiser: Organization,
    first_tuesday: date,
) -> None:
    page = no_js_page
    log_in(page, organiser.owner)
    page.goto(f"/manage/{organiser.slug}/series/new")
    fill_builder(page, first_tuesday, 1)
    page.get_by_role("button", name="Preview").click()
    dates = page.get_by_role("list", name="Next dates").get_by_role("listitem")
    expect(dates).to_have_count(10)
    expect(dates.first).to_contain_text(first_tuesday.strftime("Tue %-d %b %Y, 18:00"))
    assert not EventSeries.objects.exists()
    page.get_by_role("button", name="Create series").click()
    expect(page.get_by_role("status")).to_contain_text("The series was created.")
    assert EventSeries.objects.get().name == "Tuesday run"

    waiting = weekly_series(organiser, generated=False, name="Thursday swim", weekdays=[3])
    page.goto(f"/manage/series/{waiting.pk}")
    expect(page.get_by_role("row")).to_have_count(0)
    page.get_by_role("button", name="Generate now").click()
    expect(page.get_by_role("status")).to_contain_text("dates created.")
    expect(page.get_by_role("button", name="Cancel this date")).to_have_count(
        len(occurrences(waiting))
    )
    page.get_by_role("button", name="Pause series").click()
    expect(page.get_by_role("button", name="Resume series")).to_be_visible()


def test_the_builder_shows_the_fields_of_the_chosen_repeat(
    phone_page: Page, log_in: Any, organiser: Organization
) -> None:
    page = phone_page
    log_in(page, organiser.owner)
    page.goto(f"/manage/{organiser.slug}/series/new")
    day_of_month = page.get_by_label("Day of the month", exact=True)
    count = page.get_by_label("Number of dates", exact=True)
    expect(day_of_month).to_be_hidden()
    expect(count).to_be_hidden()
    page.get_by_label("Repeats").select_option("monthly")
    page.get_by_role("radio", name="After a number of dates").check()
    expect(day_of_month).to_be_visible()
    expect(count).to_be_visible()
    expect(page.get_by_role("checkbox", name="Monday")).to_be_hidden()
