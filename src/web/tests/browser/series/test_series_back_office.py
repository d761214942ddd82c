"""The series' back office in Chromium: follow, the feed, publishing, the plan of a time
change and a split (docs/spec/ui.md, third round), by role and name."""

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from accounts.tests.factories import make_user
from events.models import Event, EventSeries, EventSeriesFollow, Organization
from events.series.tests.recurrence_builders import occurrences
from web.tests.browser.axe import severe_violations
from web.tests.series.support import weekly_series

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def public_path(series: EventSeries) -> str:
    return f"/events/{series.organization.slug}/series/{series.slug}"


def test_a_viewer_follows_a_series_and_copies_its_feed_link(
    page: Page, log_in: Any, axe_source: str, organiser: Organization
) -> None:
    series = weekly_series(organiser, name="Evening run")
    viewer = make_user()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    log_in(page, viewer)
    page.goto(public_path(series))
    expect(page.get_by_role("link", name="Subscribe")).to_have_attribute(
        "href", re.compile(rf"^webcal://.+/api/event-series/{series.pk}/calendar\.ics$")
    )
    page.get_by_role("button", name="Copy feed link").click()
    expect(page.locator(".series-feed [role=status]")).to_have_text("Copied")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert re.match(rf"^https?://.+/api/event-series/{series.pk}/calendar\.ics$", copied)
    assert severe_violations(page, axe_source) == []

    page.get_by_role("button", name="Follow series").click()
    expect(page.get_by_role("button", name="Unfollow series")).to_be_visible()
    assert EventSeriesFollow.objects.filter(user=viewer, is_archived=False).count() == 1
    page.get_by_role("button", name="Unfollow series").click()
    expect(page.get_by_role("button", name="Follow series")).to_be_visible()


def test_without_javascript_the_feed_address_is_shown_instead_of_the_button(
    no_js_page: Page, organiser: Organization
) -> None:
    series = weekly_series(organiser)
    no_js_page.goto(public_path(series))
    expect(no_js_page.get_by_role("button", name="Copy feed link")).to_be_hidden()
    field = no_js_page.get_by_label("Feed address")
    expect(field).to_have_value(re.compile(rf"/api/event-series/{series.pk}/calendar\.ics$"))
    expect(no_js_page.get_by_role("link", name="Log in to follow this series")).to_be_visible()


def test_the_organiser_publishes_the_drafts_moves_the_time_and_splits_the_series(
    page: Page, log_in: Any, axe_source: str, organiser: Organization
) -> None:
    series = weekly_series(organiser, name="Evening run", auto_publish=False)
    dates = occurrences(series)
    log_in(page, organiser.owner)
    page.goto(f"/manage/series/{series.pk}")
    page.get_by_role("button", name="Publish all drafts").click()
    expect(page.get_by_role("status")).to_contain_text("draft dates published.")
    assert all(e.status == Event.Status.OPEN for e in occurrences(series))

    page.get_by_role("link", name="Edit time and cadence").click()
    page.get_by_label("Time", exact=True).fill("19:30")
    page.get_by_role("button", name="Review changes").click()
    plan = page.get_by_role("region", name="Planned changes")
    moves = plan.get_by_role("list", name="Dates that move").get_by_role("listitem")
    expect(moves).to_have_count(len(dates))
    expect(moves.first).to_contain_text("19:30 UTC")
    assert severe_violations(page, axe_source) == []
    plan.get_by_role("button", name="Apply changes").click()
    expect(page.get_by_role("status")).to_contain_text("The cadence was changed.")
    expect(page.get_by_role("row").nth(1)).to_contain_text("19:30 UTC")

    row = page.get_by_role("row").filter(has=page.locator(f'a[href="/events/{dates[1].pk}"]'))
    row.get_by_role("link", name="Split from here").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Split from here")
    page.get_by_role("checkbox", name="Thursday").check()
    page.get_by_label("Name").fill("Evening run, twice a week")
    expect(
        page.get_by_role("list", name="Next dates").get_by_role("listitem").nth(1)
    ).to_contain_text("Thu ")
    assert severe_violations(page, axe_source) == []
    page.get_by_role("button", name="Split series").click()
    expect(page.get_by_role("status")).to_contain_text("The series was split")
    new = EventSeries.objects.exclude(pk=series.pk).get()
    expect(page.get_by_role("heading", level=1)).to_have_text(new.name)
    assert {e.pk for e in occurrences(new)} >= {e.pk for e in dates[1:]}
