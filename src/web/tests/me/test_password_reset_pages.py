"""`/password-reset` and the page of the link Encore mails (`common.links.password_reset_url`)."""

import re
from collections.abc import Iterator

import pytest
from django.core import mail
from django.core.cache import cache
from django.test import Client

from accounts.models import User
from accounts.tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-long-unusual-passphrase"
CSRF = re.compile(r'"X-CSRFToken": "[^"]*"')  # masked anew on every page


def reset_link_path() -> str:
    """The path of the link in the last e-mail (under ENCORE_PUBLIC_URL)."""
    [url] = re.findall(r"https?://[^\s\"<>]+/password-reset/[^\s\"<>]+", str(mail.outbox[-1].body))
    return "/" + url.split("/", 3)[3]


def final_page(client: Client, email: str) -> tuple[int, str, str]:
    response = client.post("/password-reset", {"email": email})
    page = client.get(response["Location"]).content.decode()
    return response.status_code, response["Location"], CSRF.sub("", page)


def test_the_request_page_has_the_email_field_and_button(client: Client) -> None:
    body = client.get("/password-reset").content.decode()
    assert '<label for="id_email">Email</label>' in body
    assert '<button type="submit">Send reset link</button>' in body


def test_known_and_unknown_addresses_get_the_same_answer(client: Client) -> None:
    make_user("known@example.com")

    known = final_page(client, "known@example.com")
    unknown = final_page(client, "nobody@example.com")

    assert known == unknown
    assert known[0] == 302
    assert "If an account exists for that address" in known[2]
    assert [message.to for message in mail.outbox] == [["known@example.com"]]


def test_the_mailed_link_opens_the_page_and_a_new_password_logs_in(client: Client) -> None:
    user = make_user("ada@example.com")
    client.post("/password-reset", {"email": "ada@example.com"})
    path = reset_link_path()

    page = client.get(path)
    assert page.status_code == 200
    body = page.content.decode()
    assert '<label for="id_password">New password</label>' in body
    assert "Set password</button>" in body

    response = client.post(path, {"password": NEW_PASSWORD})

    assert response["Location"] == "/password-reset/done"
    assert "Your new password is set" in client.get("/password-reset/done").content.decode()
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    login = Client().post("/login", {"email": "ada@example.com", "password": NEW_PASSWORD})
    assert login.status_code == 302
    assert (
        Client().post("/login", {"email": "ada@example.com", "password": PASSWORD}).status_code
        == 400
    )


def test_a_used_or_bad_link_says_so_and_changes_nothing(client: Client) -> None:
    user = make_user("ada@example.com")
    client.post("/password-reset", {"email": "ada@example.com"})
    path = reset_link_path()
    client.post(path, {"password": NEW_PASSWORD})

    used = client.get(path)
    again = client.post(path, {"password": "another-long-passphrase"})
    bad = client.get("/password-reset/Zm9v/not-a-token")

    for response in (used, again, bad):
        assert response.status_code == 400
        assert "This password reset link is invalid" in response.content.decode()
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)


def test_a_weak_password_is_refused_next_to_the_field(client: Client) -> None:
    user = make_user("ada@example.com")
    client.post("/password-reset", {"email": "ada@example.com"})

    response = client.post(reset_link_path(), {"password": "123"})

    assert response.status_code == 400
    assert 'id="id_password_error"' in response.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


@pytest.fixture
def _write_limit(settings) -> Iterator[None]:
    settings.THROTTLE_ENABLED = True
    settings.WRITE_THROTTLE_RATE = "2/min"
    cache.clear()
    yield
    cache.clear()


@pytest.mark.usefixtures("_write_limit")
def test_requests_are_limited_as_the_apis(client: Client) -> None:
    codes = [
        client.post("/password-reset", {"email": "a@example.com"}).status_code for _ in range(3)
    ]

    assert codes == [302, 302, 429]
    refused = client.post("/password-reset", {"email": "a@example.com"})
    assert int(refused["Retry-After"]) > 0
    assert "Too many requests" in refused.content.decode()
    assert User.objects.count() == 0


def test_the_log_in_page_links_to_the_reset(client: Client) -> None:
    assert (
        '<a href="/password-reset">Forgot your password?</a>'
        in client.get("/login").content.decode()
    )
    assert "Forgot your password?" not in client.get("/signup").content.decode()


@pytest.mark.usefixtures("_write_limit")
def test_setting_the_password_is_limited_too(client: Client) -> None:
    user = make_user("ada@example.com")
    client.post("/password-reset", {"email": "ada@example.com"})  # 1 of 2
    path = reset_link_path()
    client.post(path, {"password": "123"})  # 2 of 2 (refused as weak)

    refused = client.post(path, {"password": NEW_PASSWORD})

    assert refused.status_code == 429
    assert "Too many requests" in refused.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)
