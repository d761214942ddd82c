"""h3: the organiser's series page (`/manage/series/{id}`) with 156 occurrences.

The series of the c-rows (Mon/Wed/Fri, 52-week window), generated once; the owner is
signed in with a session, as in a browser. The page lists every occurrence with its
state and computes the drift (docs/spec/ui.md: ≤ 50 ms server time, fixed queries).
"""

from django.test import Client

from bench.registry import Measured, scenario
from bench.scenarios.c_series import EXPECTED, build_series
from events.series import services as recurrence_service


@scenario("h3", "GET /manage/series/{id} (owner, session)", data="156 occurrences, Mon/Wed/Fri")
def series_page() -> Measured:
    series = build_series("h3")
    created = recurrence_service.generate_series_events(series)
    assert len(created) == EXPECTED, len(created)
    client = Client()
    client.force_login(series.organization.owner)
    path = f"/manage/series/{series.pk}"

    def call() -> object:
        response = client.get(path)
        assert response.status_code == 200, (response.status_code, response.content[:300])
        body = response.content.decode()
        assert body.count("Cancel this date") == EXPECTED, body.count("Cancel this date")
        return body

    return call
