"""`/me/settings`: profile and notification preferences, saved with one "Save"."""

from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from accounts.tests.factories import make_user
from notifications.models import NotificationPreference
from notifications.service import preferences
from web.forms.me import TYPE_LABELS, box_name
from web.tests.me.support import signed_in_client

pytestmark = pytest.mark.django_db


def form_data(user: User, **changes: Any) -> dict[str, Any]:
    """What the browser posts for the page as it stands (every default box ticked)."""
    data: dict[str, Any] = {
        "name": "Ada Lovelace",
        "timezone": user.timezone,
        "language": user.language,
    }
    for notification_type in TYPE_LABELS:
        data[box_name(notification_type, "in_app")] = "on"
        data[box_name(notification_type, "email")] = "on"
    data.update(changes)
    return {key: value for key, value in data.items() if value is not None}


def test_anonymous_visitors_go_to_the_log_in_page_first(client: Client) -> None:
    assert client.get("/me/settings")["Location"] == "/login?next=%2Fme%2Fsettings"


def test_the_page_has_the_profile_fields_the_grid_and_save() -> None:
    user = make_user(first_name="Ada", last_name="Lovelace", timezone="Europe/Vienna")
    body = signed_in_client(user).get("/me/settings").content.decode()

    assert '<label for="id_name">Name</label>' in body
    assert 'value="Ada Lovelace"' in body
    assert '<label for="id_timezone">Timezone</label>' in body
    assert '<option value="Europe/Vienna" selected>Europe/Vienna</option>' in body
    assert '<label for="id_language">Language</label>' in body
    assert '<option value="de">German</option>' in body
    email_box = box_name("rsvp_confirmation", "email")
    assert (
        f'<label for="id_{email_box}" class="me-sr-only">E-mail: RSVP confirmations</label>' in body
    )
    assert f'name="{email_box}" id="id_{email_box}" checked' in body
    assert '<button type="submit">Save</button>' in body
    assert 'href="/me/settings/export"' in body and "Download my data" in body
    assert 'href="/me/settings/delete"' in body


def test_saving_changes_the_profile_and_comes_back_with_a_message() -> None:
    user = make_user(first_name="Ada", last_name="Lovelace")
    client = signed_in_client(user)

    response = client.post(
        "/me/settings", form_data(user, name="Countess Ada", timezone="America/New_York")
    )

    assert response.status_code == 302
    assert response["Location"] == "/me/settings"
    user.refresh_from_db()
    assert (user.first_name, user.last_name, user.timezone) == (
        "Countess Ada",
        "",
        "America/New_York",
    )
    page = client.get("/me/settings").content.decode()
    assert "Your settings are saved." in page
    assert '<option value="America/New_York" selected>' in page


def test_unticking_boxes_changes_the_preferences_through_the_service() -> None:
    user = make_user()
    changes = {
        box_name("rsvp_confirmation", "email"): None,  # in-app only
        box_name("event_open", "email"): None,
        box_name("event_open", "in_app"): None,  # off
        "silence_all": None,
    }

    signed_in_client(user).post("/me/settings", form_data(user, **changes))

    preference = NotificationPreference.objects.get(user=user)
    assert preferences.resolve_channels(preference, "rsvp_confirmation") == ["in_app"]
    assert preferences.resolve_channels(preference, "event_open") == []
    assert preferences.resolve_channels(preference, "ticket_created") == ["in_app", "email"]
    assert "ticket_created" not in preference.type_settings  # untouched types keep the defaults
    page = signed_in_client(user).get("/me/settings").content.decode()
    assert f'id="id_{box_name("event_open", "in_app")}">' in page  # shown unticked


def test_pause_all_notifications_silences_everything() -> None:
    user = make_user()
    signed_in_client(user).post("/me/settings", form_data(user, silence_all="on"))
    assert NotificationPreference.objects.get(user=user).silence_all is True


def test_invalid_input_is_refused_next_to_its_field_and_nothing_changes() -> None:
    user = make_user(first_name="Ada", timezone="UTC")
    client = signed_in_client(user)

    response = client.post(
        "/me/settings",
        form_data(
            user,
            name="x" * 151,
            timezone="Mars/Olympus_Mons",
            **{box_name("event_open", "email"): None},
        ),
    )

    assert response.status_code == 400
    body = response.content.decode()
    assert 'id="id_timezone_error"' in body and "Select a valid choice" in body
    assert 'aria-describedby="id_timezone_error" aria-invalid="true"' in body
    assert 'id="id_name_error"' in body and "at most 150 characters" in body
    user.refresh_from_db()
    assert (user.first_name, user.timezone) == ("Ada", "UTC")
    assert not NotificationPreference.objects.filter(
        user=user, type_settings__has_key="event_open"
    ).exists()


def test_after_saving_german_the_pages_are_in_german() -> None:
    user = make_user()
    client = signed_in_client(user)

    client.post("/me/settings", form_data(user, language="de"))

    user.refresh_from_db()
    assert user.language == "de"
    response = client.get("/me/settings")
    assert '<html lang="de">' in response.content.decode()
    assert response["Content-Language"] == "de"
    assert '<html lang="de">' in client.get("/me").content.decode()
