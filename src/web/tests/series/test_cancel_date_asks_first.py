""" "Cancel this date" asks first (web.views.confirm): the date, and who is told."""

import pytest

from events.core.tests.factories import make_org
from events.models import Event
from events.series.tests.recurrence_builders import occurrences
from web.tests.series.support import client_of, manage_url, weekly_series

pytestmark = pytest.mark.django_db


def test_the_first_press_asks_and_changes_nothing() -> None:
    series = weekly_series(make_org())
    first = occurrences(series)[0]
    Event.objects.filter(pk=first.pk).update(attendee_count=12)
    client = client_of(series.organization.owner)
    page = client.get(manage_url(series)).content.decode()
    assert f'action="/manage/series/{series.pk}/cancel-date" data-confirm>' in page
    response = client.post(
        manage_url(series, "cancel-date"), {"occurrence_date": first.start.isoformat()}
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "Cancel this date?" in body
    assert "is cancelled for good. 12 attendees will be told." in body
    assert ", 18:00 UTC" in body  # the date, in the series' zone
    assert ">Yes, cancel this date</button>" in body
    assert f'href="{manage_url(series)}" data-confirm-keep>Keep it</a>' in body
    assert f'name="occurrence_date" value="{first.start.isoformat()}"' in body
    first.refresh_from_db()
    assert first.status == Event.Status.OPEN


def test_a_date_nobody_signed_up_for_says_so() -> None:
    series = weekly_series(make_org())
    first = occurrences(series)[0]
    body = (
        client_of(series.organization.owner)
        .post(manage_url(series, "cancel-date"), {"occurrence_date": first.start.isoformat()})
        .content.decode()
    )
    assert "Nobody has signed up for it yet." in body


def test_yes_cancels_the_date() -> None:
    series = weekly_series(make_org())
    first = occurrences(series)[0]
    response = client_of(series.organization.owner).post(
        manage_url(series, "cancel-date"),
        {"occurrence_date": first.start.isoformat(), "confirmed": "yes"},
    )
    assert response.status_code == 302
    first.refresh_from_db()
    assert first.status == Event.Status.CANCELLED


def test_the_dialog_gets_the_confirmation_without_the_page() -> None:
    series = weekly_series(make_org())
    first = occurrences(series)[0]
    response = client_of(series.organization.owner).post(
        manage_url(series, "cancel-date"),
        {"occurrence_date": first.start.isoformat()},
        headers={"X-Encore-Confirm": "dialog"},
    )
    assert response.status_code == 200 and response["X-Encore-Confirm"] == "dialog"
    assert "<html" not in response.content.decode()
