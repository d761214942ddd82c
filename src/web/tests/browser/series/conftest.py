"""Fixtures of the series browser tests: an organiser, and dates around a DST switch."""

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, Page

from accounts.tests.factories import make_user
from events.core.tests.factories import make_org
from events.models import Organization


def last_sunday(year: int, month: int) -> date:
    day = date(year, month + 1, 1) - timedelta(days=1)
    return day - timedelta(days=(day.weekday() - 6) % 7)


def next_dst_switch(today: date) -> date:
    """The next last Sunday of March or October (Europe's switches) three weeks away or more."""
    candidates = sorted(
        last_sunday(year, month) for year in (today.year, today.year + 1) for month in (3, 10)
    )
    return next(day for day in candidates if day - today >= timedelta(weeks=3))


@pytest.fixture
def organiser() -> Organization:
    return make_org(make_user(), name="Run Club", slug="run-club")


@pytest.fixture
def first_tuesday() -> date:
    """A Tuesday 12 days before a DST switch: the switch falls between the 2nd and 3rd date."""
    return next_dst_switch(timezone.localdate()) - timedelta(days=12)


@pytest.fixture
def no_js_page(browser: Browser, live_server: Any) -> Iterator[Page]:
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()
