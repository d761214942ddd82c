"""Public series routes: the series with its visible occurrences (never the template),
by id and by slugs, and the series calendar feed."""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from events.core.tests.factories import make_org
from events.models import Event, Organization
from events.series import services as recurrence_service
from events.series.tests.recurrence_builders import generate, make_rule, make_series, occurrences

pytestmark = pytest.mark.django_db


def _open_series(org: Organization) -> Any:
    now = timezone.now().replace(hour=10, minute=0, second=0, microsecond=0)
    rule = make_rule(dtstart=now + timedelta(days=1), timezone="UTC", frequency="daily")
    series = make_series(org, rule=rule, generation_window_weeks=1, auto_publish=True)
    generate(series)
    return series


def test_series_by_id_lists_visible_occurrences_without_the_template(api: Any, org: Any) -> None:
    series = _open_series(org)
    response = api(None).get(f"/event-series/{series.pk}")
    assert response.status_code == 200, response.json()
    ids = {item["id"] for item in response.json()["occurrences"]}
    assert ids == {str(event.pk) for event in occurrences(series)}
    assert str(series.template_event_id) not in ids
    assert response.json()["rrule_string"].startswith("DTSTART")


def test_draft_occurrences_are_hidden_from_the_public(api: Any, org: Any) -> None:
    series = _open_series(org)
    Event.objects.filter(pk=occurrences(series)[0].pk).update(status=Event.Status.DRAFT)
    ids = {item["id"] for item in api(None).get(f"/event-series/{series.pk}").json()["occurrences"]}
    assert str(occurrences(series)[0].pk) not in ids
    assert len(ids) == len(occurrences(series)) - 1


def test_series_by_slugs(api: Any, org: Any) -> None:
    series = _open_series(org)
    response = api(None).get(f"/events/{org.slug}/series/{series.slug}")
    assert response.status_code == 200
    assert response.json()["id"] == str(series.pk)
    assert api(None).get(f"/events/{org.slug}/series/nope").status_code == 404


def test_series_of_a_private_organisation_is_404_for_the_public(api: Any) -> None:
    org = make_org(visibility=Organization.Visibility.PRIVATE)
    series = _open_series(org)
    assert api(None).get(f"/event-series/{series.pk}").status_code == 404
    assert api(None).get(f"/event-series/{series.pk}/calendar.ics").status_code == 404


def test_calendar_has_a_stable_uid_per_occurrence_and_marks_cancelled(api: Any, org: Any) -> None:
    series = _open_series(org)
    first, *rest = occurrences(series)
    recurrence_service.cancel_occurrence(series, first.start)
    one = api(None).get(f"/event-series/{series.pk}/calendar.ics")
    two = api(None).get(f"/event-series/{series.pk}/calendar.ics")
    assert one.status_code == 200
    assert one["Content-Type"].startswith("text/calendar")
    text = one.content.decode()
    uids = [line[4:] for line in text.split("\r\n") if line.startswith("UID:")]
    assert uids == [f"{event.pk}@encore" for event in [first, *rest]]
    assert uids == [
        line[4:] for line in two.content.decode().split("\r\n") if line.startswith("UID:")
    ]
    first_block = text.split("BEGIN:VEVENT")[1]
    assert "STATUS:CANCELLED" in first_block
    assert all("STATUS:CANCELLED" not in block for block in text.split("BEGIN:VEVENT")[2:])
    assert f"{series.template_event_id}@encore" not in text
