""" "Edit time and cadence" on `/manage/series/{id}`: the plan of `api.md`'s preview
first (what moves, what is added, what no longer fits), then "Apply changes"."""

from datetime import UTC, timedelta
from typing import Any

import pytest
from django.test import Client

from events.core.tests.factories import make_org, make_staff
from events.models import Event
from events.series.tests.recurrence_builders import occurrences, rule_of
from web.tests.series.support import client_of, manage_url, weekly_series

pytestmark = pytest.mark.django_db


def cadence(**changes: Any) -> dict[str, Any]:
    """The form as first shown for `weekly_series` (Tuesdays 18:00 UTC), with changes."""
    return {
        "time": "18:00",
        "duration": "60",
        "timezone": "UTC",
        "frequency": "weekly",
        "interval": "1",
        "weekdays": ["1"],
        "monthly_type": "day",
        "ends": "never",
        "weeks_ahead": "4",
        "auto_publish": "on",
        "stale": "keep",
        **changes,
    }


def plan_of(body: str) -> str:
    return body.split('id="plan-heading"')[1].split("</section>", maxsplit=1)[0]


def test_the_form_shows_the_time_and_the_length_and_the_page_links_it() -> None:
    series = weekly_series(make_org())
    client = client_of(series.organization.owner)
    assert ">Edit time and cadence</a>" in client.get(manage_url(series)).content.decode()
    body = client.get(manage_url(series, "recurrence")).content.decode()
    assert "<h1>Edit time and cadence</h1>" in body
    assert 'name="time" value="18:00"' in body
    assert 'name="duration"' in body
    assert "Planned changes" not in body and ">Apply changes<" not in body


def test_a_new_time_is_planned_first_and_applied_after(client: Client) -> None:
    series = weekly_series(make_org())
    dates = occurrences(series)
    Event.objects.filter(pk=dates[0].pk).update(attendee_count=3)  # the counter RSVPs keep
    client = client_of(series.organization.owner)
    response = client.post(manage_url(series, "recurrence"), cadence(time="19:30"))
    assert response.status_code == 200
    plan = plan_of(response.content.decode())
    assert "Dates that move" in plan
    assert plan.count("→") == len(dates)
    assert ", 18:00 UTC</time> → " in plan and ", 19:30 UTC</time>" in plan
    assert "3 attendees will be told." in plan
    assert ">Apply changes</button>" in plan
    assert [e.start for e in occurrences(series)] == [e.start for e in dates]  # nothing yet

    applied = client.post(manage_url(series, "recurrence"), cadence(time="19:30", apply="1"))
    assert applied.status_code == 302 and applied["Location"] == manage_url(series)
    moved = occurrences(series)
    assert {e.start.astimezone(UTC).strftime("%H:%M") for e in moved} == {"19:30"}
    assert all(e.end - e.start == timedelta(minutes=60) for e in moved)
    assert rule_of(series).dtstart.astimezone(UTC).strftime("%H:%M") == "19:30"


def test_dates_off_a_new_cadence_are_listed_and_cancelled_when_chosen() -> None:
    series = weekly_series(make_org())
    tuesdays = occurrences(series)
    client = client_of(series.organization.owner)
    change = cadence(weekdays=["3"], stale="cancel")
    plan = plan_of(client.post(manage_url(series, "recurrence"), change).content.decode())
    assert "Dates cancelled" in plan and "Dates added" in plan
    assert plan.count("Tue ") == len(tuesdays)
    assert (
        client.post(manage_url(series, "recurrence"), {**change, "apply": "1"}).status_code == 302
    )
    assert all(Event.objects.get(pk=e.pk).status == Event.Status.CANCELLED for e in tuesdays)


def test_a_longer_date_moves_each_end_and_nothing_else() -> None:
    series = weekly_series(make_org())
    client = client_of(series.organization.owner)
    plan = plan_of(
        client.post(manage_url(series, "recurrence"), cadence(duration="61")).content.decode()
    )
    assert "Dates that move" in plan and "Dates added" not in plan


def test_a_bad_value_is_shown_next_to_its_field_and_nothing_is_planned() -> None:
    series = weekly_series(make_org())
    client = client_of(series.organization.owner)
    response = client.post(manage_url(series, "recurrence"), cadence(time="", apply="1"))
    assert response.status_code == 400
    body = response.content.decode()
    assert 'id="id_time_error"' in body and "Planned changes" not in body


def test_only_staff_who_may_edit_the_series_change_it(client: Client) -> None:
    series = weekly_series(make_org())
    before = [e.start for e in occurrences(series)]
    response = client.post(manage_url(series, "recurrence"), cadence(time="07:00", apply="1"))
    assert response.status_code == 302 and response["Location"].startswith("/login?")
    staff = client_of(make_staff(series.organization))
    assert staff.post(manage_url(series, "recurrence"), cadence(time="07:00")).status_code == 403
    stranger = client_of(make_staff(make_org(), edit_event_series=True))
    assert (
        stranger.post(manage_url(series, "recurrence"), cadence(apply="1", time="7:00")).status_code
        == 403
    )
    assert [e.start for e in occurrences(series)] == before


def test_the_plan_costs_the_same_queries_for_few_dates_or_many(
    django_assert_max_num_queries: Any,
) -> None:
    many = weekly_series(make_org(), weekdays=[0, 1, 2, 3, 4, 5, 6], generation_window_weeks=8)
    assert len(occurrences(many)) >= 40
    client = client_of(many.organization.owner)
    change = cadence(time="19:00", weekdays=[str(d) for d in range(7)], weeks_ahead="8")
    with django_assert_max_num_queries(12):
        response = client.post(manage_url(many, "recurrence"), change)
    assert response.status_code == 200
    assert plan_of(response.content.decode()).count("→") >= 40
