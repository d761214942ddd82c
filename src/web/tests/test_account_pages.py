"""The session pages: log-in, log-out and sign-up through the accounts services."""

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.core import mail
from django.core.cache import cache
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts.models import User
from accounts.tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

STRONG = "a-long-unusual-passphrase"


def test_the_log_in_page_has_the_fields_and_button_of_ui_md(client: Client) -> None:
    body = client.get("/login").content.decode()
    assert '<label for="id_email">Email</label>' in body
    assert '<label for="id_password">Password</label>' in body
    assert '<button type="submit">Log in</button>' in body


def test_log_in_signs_the_user_in_and_goes_back_to_next(client: Client) -> None:
    user = make_user()
    response = client.post(
        "/login", {"email": user.email.upper(), "password": PASSWORD, "next": "/signup"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/signup"
    assert client.session["_auth_user_id"] == str(user.pk)


def test_log_in_without_next_goes_home_and_never_off_site(client: Client) -> None:
    user = make_user()
    response = client.post(
        "/login", {"email": user.email, "password": PASSWORD, "next": "https://evil.example/"}
    )
    assert response["Location"] == "/"


def test_a_wrong_password_is_refused_on_the_page(client: Client) -> None:
    user = make_user()
    response = client.post("/login", {"email": user.email, "password": "wrong"})
    assert response.status_code == 400
    assert "not right" in response.content.decode()
    assert "_auth_user_id" not in client.session


@pytest.fixture
def _limits_on(settings) -> Iterator[None]:
    """The limits of login_limits at a small per-account allowance (counted in the cache)."""
    settings.THROTTLE_ENABLED = True
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    cache.clear()
    yield
    cache.clear()


@pytest.mark.usefixtures("_limits_on")
def test_the_log_in_limits_of_login_limits_apply_to_the_page(client: Client) -> None:
    user = make_user()
    codes = [
        client.post("/login", {"email": user.email, "password": "wrong"}).status_code
        for _ in range(3)
    ]
    refused = client.post("/login", {"email": user.email, "password": PASSWORD})
    assert codes == [400, 400, 400]
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Too many failed log-in attempts" in refused.content.decode()
    assert "_auth_user_id" not in client.session


def test_log_out_is_a_post_and_ends_the_session(client: Client) -> None:
    client.force_login(make_user())
    assert client.get("/logout").status_code == 405
    response = client.post("/logout")
    assert response["Location"] == "/"
    assert "_auth_user_id" not in client.session


def test_the_header_offers_log_in_or_a_log_out_button(client: Client) -> None:
    assert 'href="/login?next=/"' in client.get("/").content.decode()
    client.force_login(make_user())
    body = client.get("/").content.decode()
    assert '<form method="post" action="/logout">' in body
    assert '<button type="submit">Log out</button>' in body


def _signed_up(client: Client, capture: Any, email: str, next_path: str = "/") -> Any:
    with capture(execute=True):
        return client.post(
            "/signup", {"name": "Ada", "email": email, "password": STRONG, "next": next_path}
        )


def test_sign_up_mails_a_link_that_signs_the_new_account_in_and_goes_back(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    response = _signed_up(client, django_capture_on_commit_callbacks, "Ada@Example.com", "/login")

    assert response.status_code == 200
    assert "Check your e-mail" in response.content.decode()
    assert "_auth_user_id" not in client.session  # not yet: the link signs in
    user = User.objects.get(email="ada@example.com")
    assert user.first_name == "Ada"
    [message] = mail.outbox
    assert message.to == ["ada@example.com"]
    link = re.search(r"http://\S+/signup/finish/\S+", str(message.body))
    assert link is not None, message.body
    path = link.group(0).split("://", 1)[1].split("/", 1)[1]

    page = client.get(f"/{path}")  # a mail scanner's visit changes nothing
    assert page.status_code == 200 and "_auth_user_id" not in client.session
    assert "Finish signing up" in page.content.decode()
    assert 'action="/logout"' not in page.content.decode()  # the visitor is not signed in
    signed_in = client.post(f"/{path}", {"next": "/login"})

    assert (signed_in.status_code, signed_in["Location"]) == (302, "/login")
    assert client.session["_auth_user_id"] == str(user.pk)
    client.post("/logout")
    assert client.get(f"/{path}").status_code == 400  # single use
    assert client.post(f"/{path}").status_code == 400
    assert "_auth_user_id" not in client.session


def test_sign_up_answers_a_new_and_a_taken_address_alike(
    django_capture_on_commit_callbacks: Any,
) -> None:
    make_user("taken@example.com")
    answers = [
        _signed_up(Client(), django_capture_on_commit_callbacks, address)
        for address in ("taken@example.com", "fresh@example.com")
    ]

    def main_text(response: Any) -> str:
        body = response.content.decode()
        main = body[body.index("<main") : body.index("</main>")]
        return re.sub(r"\S+@example\.com", "ADDRESS", main)

    assert [a.status_code for a in answers] == [200, 200]
    assert main_text(answers[0]) == main_text(answers[1])
    assert sorted(m.to[0] for m in mail.outbox) == ["fresh@example.com", "taken@example.com"]


def test_a_forged_or_foreign_sign_up_link_signs_no_one_in(client: Client) -> None:
    user = make_user("someone@example.com")
    reset_token = default_token_generator.make_token(user)  # another link's token
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    for path in (
        f"/signup/finish/{uid}/{reset_token}",
        f"/signup/finish/{uid}/nope",
        "/signup/finish/x/y",
    ):
        assert client.post(path).status_code == 400, path
    assert "_auth_user_id" not in client.session


def test_sign_up_shows_the_services_password_rules_next_to_the_field(client: Client) -> None:
    response = client.post(
        "/signup", {"name": "Ada", "email": "ada@example.com", "password": "123"}
    )
    assert response.status_code == 400
    assert 'id="id_password_error"' in response.content.decode()
    assert not User.objects.filter(email="ada@example.com").exists()


def test_sign_up_with_a_taken_address_writes_nothing_and_mails_the_owner(client: Client) -> None:
    owner = make_user("owner@example.com", first_name="Owner")
    response = client.post("/signup", {"name": "Mallory", "email": owner.email, "password": STRONG})
    assert response.status_code == 200
    assert "Check your e-mail" in response.content.decode()
    assert "_auth_user_id" not in client.session
    assert User.objects.get(email=owner.email).first_name == "Owner"
    assert [message.to for message in mail.outbox] == [[owner.email]]


def test_the_page_language_is_the_users(client: Client) -> None:
    assert '<html lang="en">' in client.get("/").content.decode()
    client.force_login(make_user(language="de"))
    assert '<html lang="de">' in client.get("/").content.decode()


@pytest.mark.usefixtures("_limits_on")
def test_sign_up_beyond_the_write_rate_is_refused_with_retry_after_and_writes_nothing(
    client: Client, settings
) -> None:
    settings.WRITE_THROTTLE_RATE = "2/min"
    for n in range(2):
        form = {"name": "N", "email": f"n{n}@example.com", "password": STRONG}
        assert client.post("/signup", form).status_code == 200
    refused = client.post("/signup", {"name": "N", "email": "n9@example.com", "password": STRONG})
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Too many requests" in refused.content.decode()
    assert not User.objects.filter(email="n9@example.com").exists()
