"""A waitlist window in the event and template bodies reaches the model as a duration.

The bodies once handed the service the window as text (their duration type serialised
it on `model_dump()`); the model field re-parsed it, but cannot read the years pydantic
writes for a year or more (`P1Y35D`), so the model's 1 h..7 d check compared a timedelta
with a str: a 500 instead of a 400. Found by the schemathesis run
(`encore/tests/test_api_fuzz.py`: `{"waitlist_time_window": "P2106D"}` on the event PATCH).
"""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from events.core.tests.factories import make_event, make_org
from events.models import Event
from events.series.tests.recurrence_builders import make_rule, make_series


@pytest.fixture
def org(db: None) -> Any:
    return make_org()


def _create(api: Any, org: Any, window: str) -> Any:
    body = {
        "name": "Concert",
        "start": (timezone.now() + timedelta(days=9)).isoformat(),
        "waitlist_time_window": window,
    }
    return api(org.owner).post(f"/organization-admin/{org.slug}/create-event", body)


def _patch_template(api: Any, org: Any, window: str) -> tuple[Any, Any]:
    series = make_series(org, rule=make_rule(dtstart=timezone.now() + timedelta(days=1)))
    url = f"/organization-admin/{org.slug}/event-series/{series.pk}/template"
    return series, api(org.owner).patch(url, {"waitlist_time_window": window})


@pytest.mark.django_db
class TestWaitlistWindowInBodies:
    def test_event_patch_stores_the_window(self, api: Any, org: Any) -> None:
        event = make_event(org)
        response = api(org.owner).patch(
            f"/event-admin/{event.pk}", {"waitlist_time_window": "PT2H"}
        )
        assert response.status_code == 200, response.content
        assert response.json()["waitlist_time_window"] == "PT2H"
        event.refresh_from_db()
        assert event.waitlist_time_window == timedelta(hours=2)

    @pytest.mark.parametrize("window", ["P30D", "P400D", "P2106D"])
    def test_event_patch_with_a_window_out_of_bounds_is_400_and_changes_nothing(
        self, api: Any, org: Any, window: str
    ) -> None:
        event = make_event(org)
        response = api(org.owner).patch(
            f"/event-admin/{event.pk}", {"waitlist_time_window": window}
        )
        assert response.status_code == 400, response.content
        assert response.json()["code"] == "invalid"
        assert "waitlist_time_window" in response.json()["errors"]
        event.refresh_from_db()
        assert event.waitlist_time_window is None

    def test_create_event_stores_the_window(self, api: Any, org: Any) -> None:
        response = _create(api, org, "PT3H")
        assert response.status_code == 201, response.content
        event = Event.objects.get(pk=response.json()["id"])
        assert event.waitlist_time_window == timedelta(hours=3)

    def test_create_event_with_a_window_of_years_is_400(self, api: Any, org: Any) -> None:
        response = _create(api, org, "P800D")
        assert response.status_code == 400, response.content
        assert not Event.objects.filter(name="Concert").exists()

    def test_template_patch_stores_the_window(self, api: Any, org: Any) -> None:
        series, response = _patch_template(api, org, "PT4H")
        assert response.status_code == 200, response.content
        template = Event.objects.get(pk=series.template_event_id)
        assert template.waitlist_time_window == timedelta(hours=4)

    def test_template_patch_with_a_window_of_years_is_400(self, api: Any, org: Any) -> None:
        series, response = _patch_template(api, org, "P800D")
        assert response.status_code == 400, response.content
        assert Event.objects.get(pk=series.template_event_id).waitlist_time_window is None
