"""Fixtures of the event page's browser tests: one signed-in browser per person."""

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from accounts.models import User
from web.tests.browser.conftest import LogIn

#: Long enough for the region's poll (every 5 s) to come round, with room to spare.
POLL_TIMEOUT_MS = 12_000

OpenAs = Callable[..., Page]


@pytest.fixture
def open_as(browser: Browser, live_server: Any, log_in: LogIn) -> Iterator[OpenAs]:
    """`open_as(user, path, js=True)`: a new browser (own cookies) signed in as `user`,
    on `path`."""
    contexts: list[BrowserContext] = []

    def open_page(user: User | None, path: str, *, js: bool = True, **options: Any) -> Page:
        context = browser.new_context(base_url=live_server.url, java_script_enabled=js, **options)
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        if user is not None:
            log_in(page, user)
        page.goto(path)
        return page

    yield open_page
    for context in contexts:
        context.close()
