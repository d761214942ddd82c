"""Sign-up takes the browser's time zone and the page's language."""

from typing import Any

import pytest
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db

STRONG = "a-long-unusual-passphrase"


def sign_up(client: Client, email: str, **extra: str) -> User:
    data = {"name": "Ada", "email": email, "password": STRONG, **extra}
    assert client.post("/signup", data).status_code == 200
    return User.objects.get(email=email)


def test_the_form_carries_the_page_s_language_and_a_field_for_the_browser_s_zone(
    client: Client,
) -> None:
    body = client.get("/signup", headers={"accept-language": "de"}).content.decode()
    assert '<input type="hidden" name="language" value="de"' in body
    assert 'name="timezone"' in body and "data-browser-zone" in body
    assert "web/zones" in body  # the script that fills it
    assert '<label for="id_timezone"' not in body  # hidden, no label


def test_the_new_account_stores_the_zone_and_the_language(client: Client) -> None:
    user = sign_up(client, "ny@example.com", timezone="America/New_York", language="de")
    assert (user.timezone, user.language) == ("America/New_York", "de")


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("", "UTC"),
        ("Mars/Olympus", "UTC"),
        ("localtime", "UTC"),
        ("Asia/Calcutta", "Asia/Calcutta"),  # what some browsers still report for India
    ],
)
def test_an_unknown_zone_falls_back_to_the_default(client: Client, sent: str, stored: str) -> None:
    assert sign_up(client, "z@example.com", timezone=sent).timezone == stored


def test_an_unknown_language_falls_back_to_the_default(client: Client) -> None:
    assert sign_up(client, "l@example.com", language="xx").language == "en"


def test_without_javascript_the_account_starts_in_utc(client: Client) -> None:
    user = sign_up(client, "nojs@example.com")
    assert user.timezone == "UTC" and user.language == "en"


def test_a_taken_address_still_gets_the_same_answer(client: Client, settings: Any) -> None:
    sign_up(client, "taken@example.com", timezone="Europe/Berlin")
    again = client.post(
        "/signup",
        {"name": "X", "email": "taken@example.com", "password": STRONG, "timezone": "Asia/Tokyo"},
    )
    assert again.status_code == 200
    assert User.objects.get(email="taken@example.com").timezone == "Europe/Berlin"
