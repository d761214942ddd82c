""" "Split from here" on `/manage/series/{id}`: from a date on, a new series takes over."""

from datetime import UTC
from typing import Any

import pytest
from django.test import Client

from events.core.tests.factories import make_org, make_staff
from events.models import Event, EventSeries
from events.series.tests.recurrence_builders import occurrences, rule_of
from web.tests.series.support import client_of, manage_url, weekly_series

pytestmark = pytest.mark.django_db


def split_form(series: EventSeries, day: str, **changes: Any) -> dict[str, Any]:
    """The split form as first shown for `weekly_series` (Tuesdays 18:00 UTC)."""
    return {
        "starts_on": day,
        "time": "18:00",
        "timezone": "UTC",
        "frequency": "weekly",
        "interval": "1",
        "weekdays": ["1"],
        "monthly_type": "day",
        "ends": "never",
        "name": series.template_event.name,  # type: ignore[union-attr]
        "description": "",
        "stale": "keep",
        **changes,
    }


def test_each_upcoming_date_offers_split_from_here() -> None:
    series = weekly_series(make_org())
    dates = occurrences(series)
    body = client_of(series.organization.owner).get(manage_url(series)).content.decode()
    for event in dates:
        day = event.start.astimezone(UTC).date().isoformat()
        assert f'<a href="/manage/series/{series.pk}/split?date={day}">Split from here</a>' in body


def test_the_form_starts_on_the_chosen_date_with_the_rule_and_a_preview() -> None:
    series = weekly_series(make_org())
    day = occurrences(series)[1].start.date().isoformat()
    body = (
        client_of(series.organization.owner)
        .get(manage_url(series, f"split?date={day}"))
        .content.decode()
    )
    assert "<h1>Split from here</h1>" in body
    assert f'name="starts_on" value="{day}"' in body
    assert 'name="time" value="18:00"' in body
    assert 'aria-label="Next dates"' in body and body.count("<time") == 10
    assert ">Split series</button>" in body


def test_split_series_moves_the_dates_from_that_day_to_a_new_series() -> None:
    series = weekly_series(make_org(), name="Evening run")
    dates = occurrences(series)
    day = dates[1].start.date().isoformat()
    client = client_of(series.organization.owner)
    response = client.post(
        manage_url(series, "split"),
        split_form(series, day, weekdays=["1", "3"], name="Evening run, twice a week"),
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    new = EventSeries.objects.exclude(pk=series.pk).get()
    assert response["Location"] == manage_url(new)
    assert rule_of(new).weekdays == [1, 3]
    assert {e.pk for e in occurrences(series)} == {dates[0].pk}
    moved = occurrences(new)
    assert {e.pk for e in dates[1:]} <= {e.pk for e in moved}
    assert new.template_event.name == "Evening run, twice a week"  # type: ignore[union-attr]
    assert any(e.start.weekday() == 3 for e in moved)  # Thursdays generated at once
    assert "The series was split" in client.get(manage_url(new)).content.decode()


def test_a_split_in_the_past_is_refused_next_to_the_date() -> None:
    series = weekly_series(make_org())
    before = [e.pk for e in occurrences(series)]
    response = client_of(series.organization.owner).post(
        manage_url(series, "split"), split_form(series, "2020-01-07")
    )
    assert response.status_code == 400
    body = response.content.decode()
    assert 'id="id_starts_on_error"' in body
    assert EventSeries.objects.count() == 1
    assert [e.pk for e in occurrences(series)] == before


def test_only_staff_who_may_edit_the_series_split_it(client: Client) -> None:
    series = weekly_series(make_org())
    day = occurrences(series)[1].start.date().isoformat()
    response = client.get(manage_url(series, f"split?date={day}"))
    assert response.status_code == 302 and response["Location"].startswith("/login?")
    staff = client_of(make_staff(series.organization))
    assert staff.post(manage_url(series, "split"), split_form(series, day)).status_code == 403
    stranger = client_of(make_staff(make_org(), edit_event_series=True))
    assert stranger.get(manage_url(series, "split")).status_code == 403
    assert stranger.post(manage_url(series, "split/preview"), {}).status_code == 403
    assert EventSeries.objects.count() == 1
    assert not Event.objects.exclude(event_series=series).filter(is_template=True).exists()


def test_the_split_page_costs_a_fixed_number_of_queries(
    django_assert_max_num_queries: Any,
) -> None:
    many = weekly_series(make_org(), weekdays=[0, 1, 2, 3, 4, 5, 6], generation_window_weeks=8)
    client = client_of(many.organization.owner)
    with django_assert_max_num_queries(8):
        assert client.get(manage_url(many, "split")).status_code == 200
