"""Every page of docs/spec/ui.md on the demo data: nothing scrolls sideways on a 390 px
phone, and axe finds no serious or critical violation in the light or the dark scheme
(the colours are the design's tokens, so contrast is checked for both sets)."""

from collections.abc import Callable, Iterator
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from playwright.sync_api import Browser, Page

from accounts.models import User
from web.tests.browser.axe import severe_violations
from web.tests.browser.conftest import LogIn
from web.tests.browser.design.ui_pages import UiPage, ui_pages

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

Visit = Callable[[Page, UiPage], bool]


@pytest.fixture
def demo_pages() -> list[UiPage]:
    call_command("load_demo", stdout=StringIO())
    return ui_pages()


@pytest.fixture
def visit(log_in: LogIn) -> Visit:
    """Open the page as its viewer; False when the app does not serve it yet (404)."""
    signed_in: dict[int, str | None] = {}

    def open_page(page: Page, ui_page: UiPage) -> bool:
        viewer = ui_page.viewer.email if ui_page.viewer else None
        if signed_in.get(id(page), "") != viewer:
            page.context.clear_cookies()
            if viewer is not None:
                log_in(page, User.objects.get(email=viewer))
            signed_in[id(page)] = viewer
        response = page.goto(ui_page.path)
        return response is not None and response.status != 404

    return open_page


def _pages(browser: Browser, live_server: Any, **options: Any) -> Iterator[Page]:
    context = browser.new_context(base_url=live_server.url, **options)
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


@pytest.fixture
def phone(browser: Browser, live_server: Any) -> Iterator[Page]:
    yield from _pages(browser, live_server, viewport={"width": 390, "height": 844})


@pytest.fixture(params=["light", "dark"])
def schemed(request: pytest.FixtureRequest, browser: Browser, live_server: Any) -> Iterator[Page]:
    yield from _pages(browser, live_server, color_scheme=request.param)


def test_no_page_scrolls_sideways_on_a_390_px_phone(
    phone: Page, demo_pages: list[UiPage], visit: Visit
) -> None:
    too_wide, served = [], 0
    for ui_page in demo_pages:
        if not visit(phone, ui_page):
            continue
        served += 1
        width, visible = phone.evaluate(
            "() => [document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]"
        )
        if width > visible:
            too_wide.append(f"{ui_page.name} ({ui_page.path}): {width} > {visible}")
    assert served >= 15  # the pages of the first two rounds at least
    assert too_wide == []


def test_axe_passes_every_page_in_the_light_and_the_dark_scheme(
    schemed: Page, demo_pages: list[UiPage], visit: Visit, axe_source: str
) -> None:
    found = {}
    for ui_page in demo_pages:
        if visit(schemed, ui_page):
            violations = severe_violations(schemed, axe_source)
            if violations:
                found[ui_page.name] = violations
    assert found == {}
