"""`/events/{org_slug}/series/{series_slug}`: the public series page."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.tests.factories import make_user
from events.core.tests.factories import make_org
from events.models import Event, Organization
from events.series import services as recurrence_service
from events.series.tests.recurrence_builders import occurrences
from web.tests.series.support import weekly_series

pytestmark = pytest.mark.django_db


def url(series: object) -> str:
    return f"/events/{series.organization.slug}/series/{series.slug}"  # type: ignore[attr-defined]


def test_the_page_shows_the_name_the_rule_the_dates_and_the_feed(client: Client) -> None:
    series = weekly_series(make_org(), weekdays=[1, 3], name="Evening run")
    dates = occurrences(series)
    recurrence_service.cancel_occurrence(series, dates[1].start)
    body = client.get(url(series)).content.decode()
    assert "<h1>Evening run</h1>" in body
    assert "Every Tuesday and Thursday at 18:00" in body
    for event in dates:
        assert f'<a href="/events/{event.pk}">' in body
    assert body.count("Cancelled") == 1
    cancelled_row = body.split(f'<a href="/events/{dates[1].pk}">')[1].split("</li>")[0]
    assert "Cancelled" in cancelled_row
    assert f'/api/event-series/{series.pk}/calendar.ics">Subscribe</a>' in body


def test_the_subscribe_link_is_the_series_feed(client: Client) -> None:
    series = weekly_series(make_org())
    response = client.get(f"/api/event-series/{series.pk}/calendar.ics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")


def test_drafts_and_past_dates_are_not_listed(client: Client) -> None:
    series = weekly_series(make_org(), auto_publish=False)
    dates = occurrences(series)
    assert dates and all(event.status == Event.Status.DRAFT for event in dates)
    body = client.get(url(series)).content.decode()
    assert "/events/" + str(dates[0].pk) not in body
    assert "No upcoming dates yet." in body


def test_an_invisible_series_is_a_404_as_in_the_api(client: Client) -> None:
    hidden = weekly_series(make_org(visibility=Organization.Visibility.PRIVATE))
    assert client.get(url(hidden)).status_code == 404
    assert (
        client.get(f"/api/events/{hidden.organization.slug}/series/{hidden.slug}").status_code
        == 404
    )
    assert client.get(f"/events/{hidden.organization.slug}/series/no-such").status_code == 404


def test_the_organisations_staff_see_a_private_series(client: Client) -> None:
    hidden = weekly_series(make_org(visibility=Organization.Visibility.PRIVATE))
    client.force_login(hidden.organization.owner)
    assert client.get(url(hidden)).status_code == 200


def _queries(client: Client, path: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return len(queries)


def test_the_page_costs_the_same_queries_for_one_date_or_many(client: Client) -> None:
    few = weekly_series(make_org(), generation_window_weeks=2)
    many = weekly_series(make_org(), weekdays=[0, 1, 2, 3, 4, 5, 6], generation_window_weeks=8)
    assert 1 <= len(occurrences(few)) <= 2
    assert len(occurrences(many)) >= 40
    one = _queries(client, url(few))
    assert _queries(client, url(many)) == one
    assert one <= 5


def test_a_german_viewer_reads_the_days_in_german(client: Client) -> None:
    series = weekly_series(make_org(), weekdays=[1, 3])
    viewer = make_user(language="de", timezone="Europe/Berlin")
    client.force_login(viewer)
    body = client.get(url(series)).content.decode()
    assert "Dienstag" in body and "Donnerstag" in body  # Django's own day names
    assert "CET" in body  # the viewer's zone
