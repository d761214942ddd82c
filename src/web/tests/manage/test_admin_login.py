"""The Django admin's log-in refuses organisers with a pointer to /manage (no admin rights)."""

import pytest
from django.test import Client

from accounts.tests.factories import PASSWORD, make_user
from events.core.tests.factories import make_org

pytestmark = pytest.mark.django_db


def _log_in(client: Client, email: str, password: str = PASSWORD) -> str:
    response = client.post("/admin/login/?next=/admin/", {"username": email, "password": password})
    assert response.status_code == 200
    return response.content.decode()


def test_an_organiser_is_pointed_to_manage_and_not_signed_in() -> None:
    owner = make_user()
    make_org(owner)
    client = Client()
    page = _log_in(client, owner.email)
    assert "Organisers run their events, waitlists and series at /manage." in page
    assert "correct email" not in page.lower()
    assert client.get("/admin/").status_code == 302  # still not in the admin


def test_a_wrong_password_still_gets_the_neutral_answer() -> None:
    owner = make_user()
    make_org(owner)
    page = _log_in(Client(), owner.email, "not-the-password")
    assert "at /manage." not in page  # only a proven password learns what the account is


def test_site_staff_still_get_in() -> None:
    admin = make_user(is_staff=True, is_superuser=True)
    response = Client().post(
        "/admin/login/?next=/admin/", {"username": admin.email, "password": PASSWORD}
    )
    assert response.status_code == 302
