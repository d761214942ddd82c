"""The sentence for unsaved values (htmx swaps it in as the form changes): the same
checks as Save, nothing written, the same doors (`manage_event`)."""

import pytest
from django.test import Client

from events.core.tests.factories import make_staff
from web.tests.waitlist.support import active_event, url

pytestmark = pytest.mark.django_db

VALUES = {"waitlist_open": "on", "waitlist_time_window": "4", "waitlist_batch_size": "3"}


def test_the_preview_describes_the_unsaved_values_and_saves_nothing(client: Client) -> None:
    event = active_event(waitlist_batch_size=1)
    client.force_login(event.organization.owner)
    response = client.get(url(event, "/preview"), VALUES)
    assert response.status_code == 200
    assert "the next 3 people in order of joining get 4 hours" in response.content.decode()
    event.refresh_from_db()
    assert event.waitlist_batch_size == 1


def test_values_save_would_refuse_are_not_described(client: Client) -> None:
    event = active_event()
    client.force_login(event.organization.owner)
    body = client.get(url(event, "/preview"), {**VALUES, "waitlist_time_window": "0.5"})
    assert "cannot be saved as they are" in body.content.decode()


def test_the_preview_needs_manage_event(client: Client) -> None:
    event = active_event()
    client.force_login(make_staff(event.organization, manage_event=False))
    assert client.get(url(event, "/preview"), VALUES).status_code == 403
    client.logout()
    assert client.get(url(event, "/preview"), VALUES)["Location"].startswith("/login?next=")
