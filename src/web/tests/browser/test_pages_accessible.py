"""axe-core on each page built so far, and no horizontal scrolling at 375 px."""

import pytest
from playwright.sync_api import Page

from events.core.tests.factories import make_event
from web.tests.browser.axe import severe_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAGES = ["/", "/login", "/signup"]


@pytest.fixture
def _an_event() -> None:
    make_event(name="A rather long event name that has to wrap on a phone screen somehow")


@pytest.mark.usefixtures("_an_event")
@pytest.mark.parametrize("path", PAGES)
def test_axe_finds_no_serious_or_critical_violation(page: Page, axe_source: str, path: str) -> None:
    page.goto(path)
    assert severe_violations(page, axe_source) == []


@pytest.mark.usefixtures("_an_event")
@pytest.mark.parametrize("path", PAGES)
def test_no_horizontal_scrolling_at_375_px(phone_page: Page, path: str) -> None:
    phone_page.goto(path)
    widths = phone_page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1] == 375


def test_htmx_is_served_by_the_app_itself(page: Page) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto("/")
    assert page.evaluate("() => typeof htmx") == "object"
    base = page.url.rstrip("/")
    assert all(url.startswith(base) for url in requests), requests
