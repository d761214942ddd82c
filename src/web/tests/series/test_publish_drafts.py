""" "Publish all drafts" on `/manage/series/{id}`: every upcoming draft opens at once."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from events.core.tests.factories import make_org, make_staff
from events.models import Event
from events.series.tests.recurrence_builders import occurrences
from web.tests.series.support import client_of, manage_url, weekly_series

pytestmark = pytest.mark.django_db


def test_every_upcoming_draft_is_published() -> None:
    series = weekly_series(make_org(), auto_publish=False)
    dates = occurrences(series)
    assert len(dates) >= 3 and {event.status for event in dates} == {Event.Status.DRAFT}
    past = dates[-1]
    Event.objects.filter(pk=past.pk).update(start=timezone.now() - timedelta(days=1))
    client = client_of(series.organization.owner)
    assert ">Publish all drafts</button>" in client.get(manage_url(series)).content.decode()
    response = client.post(manage_url(series, "publish-drafts"))
    assert response.status_code == 302 and response["Location"] == manage_url(series)
    statuses = dict(Event.objects.filter(event_series=series).values_list("pk", "status"))
    assert all(statuses[event.pk] == Event.Status.OPEN for event in dates[:-1])
    assert statuses[past.pk] == Event.Status.DRAFT  # nobody can attend a past date
    body = client.get(manage_url(series)).content.decode()
    assert f"{len(dates) - 1} draft dates published." in body


def test_without_drafts_it_is_refused_with_the_reason() -> None:
    series = weekly_series(make_org(), auto_publish=True)
    response = client_of(series.organization.owner).post(manage_url(series, "publish-drafts"))
    assert response.status_code == 409
    assert "The series has no upcoming draft dates to publish." in response.content.decode()


def test_only_staff_who_may_edit_the_series_publish(client: Client) -> None:
    series = weekly_series(make_org(), auto_publish=False)
    response = client.post(manage_url(series, "publish-drafts"))
    assert response.status_code == 302 and response["Location"].startswith("/login?")
    staff = make_staff(series.organization)
    assert client_of(staff).post(manage_url(series, "publish-drafts")).status_code == 403
    stranger = make_staff(make_org(), edit_event_series=True)
    assert client_of(stranger).post(manage_url(series, "publish-drafts")).status_code == 403
    assert not Event.objects.filter(
        event_series=series, is_template=False, status=Event.Status.OPEN
    ).exists()
    editor = make_staff(series.organization, edit_event_series=True)
    assert client_of(editor).post(manage_url(series, "publish-drafts")).status_code == 302
