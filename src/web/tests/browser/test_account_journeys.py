"""Sign up (through the e-mailed link), log out, log in: by role and name as in
docs/spec/ui.md, with JavaScript on and off."""

import re

import pytest
from django.core import mail
from playwright.sync_api import Page, expect

from accounts.models import User

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Back where the visitor came from: the home page's "Sign up" / "Log in" carry next=/.
HOME = re.compile(r"^http://[^/]+/$")


def test_sign_up_log_out_and_log_in_again(any_page: Page) -> None:
    page = any_page
    page.goto("/")
    page.get_by_role("link", name="Sign up").click()
    page.get_by_label("Name").fill("Ada Lovelace")
    page.get_by_label("Email").fill("ada@example.com")
    page.get_by_label("Password").fill("a-long-unusual-passphrase")
    page.get_by_role("button", name="Sign up").click()

    # Every address gets this page (ADR 0038); the new account's link signs it in.
    expect(page.get_by_role("heading", name="Check your e-mail")).to_be_visible()
    assert User.objects.filter(email="ada@example.com", first_name="Ada Lovelace").exists()
    [message] = mail.outbox
    link = re.search(r"/signup/finish/\S+", str(message.body))
    assert link is not None, message.body
    page.goto(link.group(0))
    expect(page.get_by_role("heading", name="Finish signing up")).to_be_visible()
    page.get_by_role("button", name="Sign in").click()

    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    expect(page).to_have_url(HOME)

    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("link", name="Log in")).to_be_visible()

    page.get_by_role("link", name="Log in").click()
    page.get_by_label("Email").fill("ada@example.com")
    page.get_by_label("Password").fill("a-long-unusual-passphrase")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    expect(page).to_have_url(HOME)


def test_a_wrong_password_keeps_the_visitor_on_the_log_in_page(any_page: Page) -> None:
    page = any_page
    page.goto("/login")
    page.get_by_label("Email").fill("nobody@example.com")
    page.get_by_label("Password").fill("wrong")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_contain_text("not right")
    expect(page.get_by_role("link", name="Log in")).to_be_visible()
