"""The owner runs the team from the browser: adds a staff member, takes away the right to
cancel events, and the staff member finds no "Cancel event" (and is refused a direct
POST); "Remove" asks first with JavaScript on and off; axe on the team and settings pages."""

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event, make_org, make_staff
from events.models import Event, OrganizationStaff, StaffPermission
from web.tests.browser.axe import severe_violations
from web.tests.browser.conftest import LogIn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _person(page: Page, name: str) -> Any:
    return page.get_by_role("region", name=name)


def test_a_staff_member_without_close_event_cannot_cancel_the_event(
    page: Page, browser: Any, live_server: Any, log_in: LogIn
) -> None:
    owner = make_user("owner@example.com", first_name="Olga", last_name="Owner")
    organization = make_org(owner, name="Jazz Club", slug="jazz-club")
    event = make_event(organization, name="Late Set", status=Event.Status.OPEN)
    ana = make_user("ana@example.com", first_name="Ana", last_name="Lopez")

    log_in(page, owner)
    page.goto("/manage/jazz-club")
    page.get_by_role("main").get_by_role("link", name="Team").click()
    page.get_by_label("Email").fill("ana@example.com")
    page.get_by_role("button", name="Add staff member").click()
    expect(page.get_by_role("status")).to_contain_text("Ana Lopez is on the team now")
    person = _person(page, "Ana Lopez")
    cancel_box = person.get_by_role("checkbox", name="Close and cancel events")
    expect(cancel_box).to_be_checked()
    cancel_box.uncheck()
    person.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The permissions of Ana Lopez were saved")
    expect(_person(page, "Ana Lopez").get_by_label("Close and cancel events")).not_to_be_checked()
    staff = OrganizationStaff.objects.get(user=ana)
    assert not staff.has_permission(StaffPermission.CLOSE_EVENT)

    context = browser.new_context(base_url=live_server.url)
    staff_page = context.new_page()
    log_in(staff_page, ana)
    staff_page.goto(f"/manage/events/{event.pk}")
    expect(staff_page.get_by_role("heading", level=1)).to_have_text("Late Set")
    expect(staff_page.get_by_role("button", name="Cancel event")).to_have_count(0)
    # The page's own CSRF token, so the refusal is the permission's, not the token's.
    status, text = staff_page.evaluate(
        """async (url) => {
            const token = document.querySelector('input[name=csrfmiddlewaretoken]')
                || {value: JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken']};
            const body = new URLSearchParams({csrfmiddlewaretoken: token.value, confirmed: 'yes'});
            const answer = await fetch(url, {method: 'POST', body, credentials: 'same-origin'});
            return [answer.status, await answer.text()];
        }""",
        f"/manage/events/{event.pk}/status/cancelled",
    )
    context.close()
    assert status == 403
    assert "CSRF verification failed" not in text
    event.refresh_from_db()
    assert event.status == Event.Status.OPEN


def test_remove_asks_first_then_removes(any_page: Page, log_in: LogIn) -> None:
    page = any_page
    owner = make_user()
    organization = make_org(owner, name="Jazz Club", slug="jazz-club")
    ana = make_staff(
        organization, make_user("ana@example.com", first_name="Ana", last_name="Lopez")
    )
    log_in(page, owner)
    page.goto("/manage/jazz-club/team")

    _person(page, "Ana Lopez").get_by_role("button", name="Remove").click()
    expect(
        page.get_by_text("Ana Lopez will lose access to the events of Jazz Club.")
    ).to_be_visible()
    page.get_by_role("link", name="Keep it").click()
    assert OrganizationStaff.objects.filter(user=ana).exists()

    page.goto("/manage/jazz-club/team")
    _person(page, "Ana Lopez").get_by_role("button", name="Remove").click()
    page.get_by_role("button", name="Yes, remove").click()
    expect(page.get_by_role("status")).to_contain_text("Ana Lopez was removed from the team")
    expect(_person(page, "Ana Lopez")).to_have_count(0)
    assert not OrganizationStaff.objects.filter(user=ana).exists()


def test_the_team_and_settings_pages_have_no_serious_axe_violation(
    page: Page, axe_source: str, log_in: LogIn
) -> None:
    owner = make_user()
    organization = make_org(owner, name="Jazz Club", slug="jazz-club")
    make_staff(organization, make_user(first_name="Ana", last_name="Lopez"))
    log_in(page, owner)
    for url in ("/manage/jazz-club/team", "/manage/jazz-club/settings"):
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(url)
            assert severe_violations(page, axe_source) == [], (url, width)
            scrolls = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
            assert not scrolls, (url, width)
