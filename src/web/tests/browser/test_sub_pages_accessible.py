"""axe-core and the 375 px rule on the pages that hang off the main ones of docs/spec/ui.md.

Each area's journeys check its main pages; these are the forms one click further (the
series template and cadence forms, the new password form, sign-up's "Check your e-mail"
and its link's page, the 404 page), which a person reaches as often from a phone.
"""

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from playwright.sync_api import Page, expect

from accounts.service import signup_link
from accounts.tests.factories import make_user
from events.core.tests.factories import make_org
from web.tests.browser.axe import severe_violations
from web.tests.series.support import weekly_series

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _reset_form_path() -> str:
    user = make_user()
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return f"/password-reset/{uid}/{default_token_generator.make_token(user)}"


def _signup_finish_paths() -> list[str]:
    """The e-mailed sign-up link's page, and the page of a link that no longer works."""
    user = make_user()
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return [
        f"/signup/finish/{uid}/{signup_link.TOKENS.make_token(user)}",
        f"/signup/finish/{uid}/x",
    ]


def _series_paths(owner: Any) -> list[str]:
    series = weekly_series(make_org(owner), name="Sub-page series")
    return [f"/manage/series/{series.pk}/template", f"/manage/series/{series.pk}/recurrence"]


def _check(page: Page, axe_source: str, path: str) -> None:
    page.goto(path)
    expect(page.locator("h1")).to_be_visible()
    assert severe_violations(page, axe_source) == [], path
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], (path, widths)


def test_the_organisers_sub_pages(
    phone_page: Page, log_in: Callable[..., None], axe_source: str
) -> None:
    owner = make_user()
    log_in(phone_page, owner)
    for path in [*_series_paths(owner), "/manage/organizations/new"]:
        _check(phone_page, axe_source, path)


def test_the_visitors_sub_pages(phone_page: Page, axe_source: str) -> None:
    taken = make_user()
    for path in [_reset_form_path(), *_signup_finish_paths(), "/no-such-page"]:
        _check(phone_page, axe_source, path)
    phone_page.goto("/signup")
    phone_page.get_by_label("Name").fill("Someone")
    phone_page.get_by_label("Email").fill(taken.email)
    phone_page.get_by_label("Password").fill("a-long-unusual-passphrase")
    phone_page.get_by_role("button", name="Sign up").click()
    expect(phone_page.get_by_role("heading", name="Check your e-mail")).to_be_visible()
    assert severe_violations(phone_page, axe_source) == []
