"""Playwright driving Debian's Chromium against pytest-django's `live_server`.

Never Playwright's own browser download: the executable is CHROMIUM_PATH (default
/usr/bin/chromium). Without it, or without `node_modules/axe-core` (`make test` runs
`npm ci` first), the tests skip with the reason; `.ci/run` installs Chromium and sets
REQUIRE_BROWSER=1, which turns such a skip into a failed run (src/conftest.py).
"""

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
AXE = Path(__file__).resolve().parents[4] / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture(scope="session")
def playwright_instance() -> Iterator[Playwright]:
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)")
    # Playwright's sync API keeps an event loop in this thread; the test's own database
    # calls (factories) are still plain synchronous code.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(playwright_instance: Playwright) -> Iterator[Browser]:
    browser = playwright_instance.chromium.launch(executable_path=str(CHROMIUM), headless=True)
    yield browser
    browser.close()


def _new_page(browser: Browser, base_url: str, **options: Any) -> Iterator[Page]:
    """A page whose every refusal by the Content-Security-Policy fails the test: Chromium
    logs each one to the console, and each is something the page meant to load or run."""
    context = browser.new_context(base_url=base_url, **options)
    context.set_default_timeout(10_000)
    page = context.new_page()
    refused: list[str] = []
    page.on(
        "console",
        lambda message: (
            refused.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    yield page
    context.close()
    assert refused == [], f"the page's Content-Security-Policy refused: {refused}"


@pytest.fixture
def page(browser: Browser, live_server: Any) -> Iterator[Page]:
    """A fresh browser context (no cookies) with JavaScript on."""
    yield from _new_page(browser, live_server.url)


@pytest.fixture(params=[True, False], ids=["js", "no-js"])
def any_page(request: pytest.FixtureRequest, browser: Browser, live_server: Any) -> Iterator[Page]:
    """The same journey twice: with JavaScript, and with it off (plain forms)."""
    yield from _new_page(browser, live_server.url, java_script_enabled=request.param)


@pytest.fixture
def phone_page(browser: Browser, live_server: Any) -> Iterator[Page]:
    """A 375 px wide phone screen."""
    yield from _new_page(
        browser, live_server.url, viewport={"width": 375, "height": 740}, is_mobile=True
    )


@pytest.fixture(scope="session")
def axe_source() -> str:
    if not AXE.exists():
        pytest.skip(f"no {AXE}: run `make test` or `npm ci` (installs axe-core)")
    return AXE.read_text()


LogIn = Callable[[Page, Any], None]


@pytest.fixture
def log_in(live_server: Any) -> LogIn:
    """Sign `user` in on `page` without the form (the log-in journey has its own test).

    Django's test client creates the session; its cookie goes into the browser context.
    """

    def sign_in(page: Page, user: Any) -> None:
        client = Client()
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        cookie = client.cookies[settings.SESSION_COOKIE_NAME]
        page.context.add_cookies(
            [{"name": cookie.key, "value": cookie.value, "url": live_server.url}]
        )

    return sign_in
