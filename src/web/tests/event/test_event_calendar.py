""" "Add to calendar": the event's .ics with the page's session (the API's reads a JWT)."""

import pytest
from django.test import Client

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event
from events.models import Event, EventRSVP

pytestmark = pytest.mark.django_db


def test_a_private_event_the_viewer_attends_downloads_with_the_session(client: Client) -> None:
    event = make_event(name="Private supper", visibility=Event.Visibility.PRIVATE)
    guest = make_user()
    EventRSVP.objects.create(event=event, user=guest, status=EventRSVP.Status.YES)
    client.force_login(guest)

    response = client.get(f"/events/{event.pk}/calendar.ics")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")
    body = response.content.decode()
    assert "BEGIN:VEVENT" in body and "SUMMARY:Private supper" in body
    assert client.get(f"/api/events/{event.pk}/calendar.ics").status_code == 404  # no JWT


def test_an_event_the_viewer_may_not_see_is_a_404(client: Client) -> None:
    event = make_event(visibility=Event.Visibility.PRIVATE)
    client.force_login(make_user())
    assert client.get(f"/events/{event.pk}/calendar.ics").status_code == 404
    assert Client().get(f"/events/{event.pk}/calendar.ics").status_code == 404
