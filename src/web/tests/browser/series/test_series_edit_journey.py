"""The organiser renames a series in Chromium; its old public address still leads to it."""

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from events.models import EventSeries, Organization
from web.tests.browser.axe import severe_violations
from web.tests.series.support import weekly_series

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_organiser_renames_a_series_and_the_old_link_still_works(
    page: Page, log_in: Any, axe_source: str, organiser: Organization
) -> None:
    series = weekly_series(organiser, name="Tuesday run", slug="tuesday-run")
    log_in(page, organiser.owner)
    page.goto(f"/manage/series/{series.pk}")
    page.get_by_role("link", name="Edit series").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Edit series")
    assert severe_violations(page, axe_source) == []
    page.get_by_label("Name").fill("Evening run")
    page.get_by_label("Description").fill("Five kilometres along the river.")
    page.get_by_label("Slug").fill("evening-run")
    page.get_by_role("button", name="Save series").click()
    expect(page.get_by_role("status")).to_contain_text("The series was saved.")
    expect(page.get_by_role("heading", level=1)).to_have_text("Evening run")

    page.goto(f"/events/{organiser.slug}/series/tuesday-run")
    assert page.url.endswith(f"/events/{organiser.slug}/series/evening-run")
    expect(page.get_by_role("heading", level=1)).to_have_text("Evening run")
    assert EventSeries.objects.get(pk=series.pk).slug == "evening-run"


def test_a_slug_in_use_is_refused_next_to_the_field(
    page: Page, log_in: Any, axe_source: str, organiser: Organization
) -> None:
    weekly_series(organiser, name="Other", slug="taken")
    series = weekly_series(organiser, name="Mine", slug="mine")
    log_in(page, organiser.owner)
    page.goto(f"/manage/series/{series.pk}/details")
    page.get_by_label("Slug").fill("taken")
    page.get_by_role("button", name="Save series").click()
    expect(page.get_by_label("Slug")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_text("Another series uses or used this slug.")).to_be_visible()
    assert severe_violations(page, axe_source) == []
    assert EventSeries.objects.get(pk=series.pk).slug == "mine"
