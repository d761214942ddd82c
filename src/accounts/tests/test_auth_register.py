"""HTTP tests of the anonymous /auth/register route: sign-up, a taken address answered like a
new one, and refused input that writes nothing.
"""

import pytest
from django.core import mail
from django.core.cache import cache

from accounts.models import User
from accounts.tests.auth_support import STRONG, _fresh_cache, anon, login
from accounts.tests.factories import PASSWORD, make_user

__all__ = ["_fresh_cache", "anon"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


# -- registration -------------------------------------------------------------------


def test_register_creates_user_and_returns_user_schema(anon):
    response = anon.post(
        "/auth/register",
        {
            "email": "New.Person@Example.com",
            "password": STRONG,
            "first_name": "Ada",
            "last_name": "Lovelace",
            "timezone": "Europe/Vienna",
        },
    )

    assert response.status_code == 201
    body = response.json()
    assert body["email"] == "new.person@example.com"
    assert body["display_name"] == "Ada Lovelace"
    assert body["timezone"] == "Europe/Vienna"
    assert body["language"] == "en"
    assert set(body) == {
        "id",
        "email",
        "first_name",
        "last_name",
        "preferred_name",
        "display_name",
        "language",
        "timezone",
    }
    user = User.objects.get(pk=body["id"])
    assert user.check_password(STRONG)


def test_registered_user_can_log_in(anon):
    anon.post("/auth/register", {"email": "fresh@example.com", "password": STRONG})

    assert login(anon, "fresh@example.com", STRONG).status_code == 200


def test_register_defaults_timezone_to_utc(anon):
    response = anon.post("/auth/register", {"email": "utc@example.com", "password": STRONG})

    assert response.status_code == 201
    assert response.json()["timezone"] == "UTC"


def test_register_answers_a_taken_address_like_a_new_one(anon):
    """Same status, same body (but the id) whether or not the address has an account;
    no second user, and the address's owner is told by e-mail (ADR 0011)."""
    owner = make_user("taken@example.com")
    body = {"password": STRONG, "first_name": "Ada", "timezone": "Europe/Berlin"}

    new = anon.post("/auth/register", {**body, "email": "Fresh@EXAMPLE.com"})
    taken = anon.post("/auth/register", {**body, "email": "Taken@EXAMPLE.com"})

    assert new.status_code == taken.status_code == 201
    new_body, taken_body = dict(new.json()), dict(taken.json())
    assert new_body.keys() == taken_body.keys()
    assert new_body.pop("id") != taken_body.pop("id")
    assert new_body.pop("email") == "fresh@example.com"
    assert taken_body.pop("email") == "taken@example.com"
    assert new_body.pop("display_name") == taken_body.pop("display_name") == "Ada"
    assert new_body == taken_body
    assert User.objects.filter(email="taken@example.com").count() == 1
    assert not User.objects.filter(pk=taken.json()["id"]).exists()
    owner.refresh_from_db()
    assert owner.check_password(PASSWORD) and owner.first_name == ""
    (notice,) = mail.outbox
    assert notice.to == ["taken@example.com"]
    text = notice.body
    assert "tried to create an Encore account with this e-mail address" in text
    assert "log in" in text and "Forgot your password?" in text


def test_a_new_address_gets_no_notice_and_its_account_works(anon):
    response = anon.post("/auth/register", {"email": "new@example.com", "password": STRONG})

    assert response.status_code == 201
    assert mail.outbox == []
    assert login(anon, "new@example.com", STRONG).status_code == 200


def test_a_taken_address_is_hashed_like_a_new_one(anon, monkeypatch):
    """Equal work: the password is hashed once in both cases (no timing oracle)."""
    from django.contrib.auth import base_user

    make_user("taken@example.com")
    hashed: list[str] = []
    real = base_user.make_password  # type: ignore[attr-defined]

    def counting(raw, *args, **kwargs):
        hashed.append(raw)
        return real(raw, *args, **kwargs)

    monkeypatch.setattr(base_user, "make_password", counting)  # what User.set_password calls

    for email in ("fresh@example.com", "taken@example.com"):
        hashed.clear()
        assert anon.post("/auth/register", {"email": email, "password": STRONG}).status_code == 201
        assert hashed == [STRONG], email


def test_the_registration_notice_goes_out_at_most_once_an_hour(anon, settings):
    make_user("taken@example.com")

    for _ in range(3):
        anon.post("/auth/register", {"email": "taken@example.com", "password": STRONG})

    assert len(mail.outbox) == 1
    cache.clear()  # the interval has passed
    anon.post("/auth/register", {"email": "taken@example.com", "password": STRONG})
    assert len(mail.outbox) == 2


def test_a_taken_address_registers_alike_with_the_broker_down(anon, monkeypatch):
    from accounts import tasks

    def refuse(*args, **kwargs):
        raise ConnectionError("Connection refused")

    make_user("taken@example.com")
    monkeypatch.setattr(tasks.send_registration_notice_task, "delay", refuse)

    response = anon.post("/auth/register", {"email": "taken@example.com", "password": STRONG})

    assert response.status_code == 201
    assert User.objects.count() == 1


def test_invalid_input_for_a_taken_address_names_only_the_invalid_fields(anon):
    make_user("taken@example.com")

    response = anon.post("/auth/register", {"email": "taken@example.com", "password": "short"})

    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"password"}
    assert mail.outbox == []


@pytest.mark.parametrize("password", ["short", "password123", "12345678"])
def test_register_refuses_weak_password_and_writes_nothing(anon, password):
    response = anon.post("/auth/register", {"email": "weak@example.com", "password": password})

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "password" in response.json()["errors"]
    assert not User.objects.exists()


def test_register_refuses_unknown_timezone_and_writes_nothing(anon):
    response = anon.post(
        "/auth/register",
        {"email": "tz@example.com", "password": STRONG, "timezone": "Mars/Olympus"},
    )

    assert response.status_code == 400
    assert "timezone" in response.json()["errors"]
    assert not User.objects.exists()


def test_register_reports_every_invalid_field_at_once(anon):
    response = anon.post(
        "/auth/register", {"email": "not-an-address", "password": "short", "timezone": "Nowhere"}
    )

    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"email", "password", "timezone"}
    assert not User.objects.exists()


def test_register_without_password_is_a_schema_error(anon):
    response = anon.post("/auth/register", {"email": "nopass@example.com"})

    assert response.status_code == 422
    assert not User.objects.exists()
