"""`/manage/series/{id}`: the organiser's series page, each action, and who may use it."""

import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event, make_org, make_staff
from events.models import Event, EventSeries, Organization
from events.series import services as recurrence_service
from events.series.tests.recurrence_builders import occurrences, rule_of
from web.tests.series.support import weekly_series

pytestmark = pytest.mark.django_db


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def page(series: EventSeries) -> str:
    return f"/manage/series/{series.pk}"


def row_of(body: str, event: Event) -> str:
    return body.split(f'<a href="/events/{event.pk}">')[1].split("</tr>", maxsplit=1)[0]


class TestThePage:
    def test_the_dates_upcoming_first_with_their_state(self) -> None:
        series = weekly_series(make_org(), auto_publish=False, name="Evening run")
        dates = occurrences(series)
        recurrence_service.cancel_occurrence(series, dates[0].start)
        Event.objects.filter(pk=dates[1].pk).update(status=Event.Status.OPEN, is_modified=True)
        body = signed_in(series.organization.owner).get(page(series)).content.decode()
        assert "<h1>Evening run</h1>" in body
        assert "Every Tuesday at 18:00" in body
        assert "Cancelled" in row_of(body, dates[0]) and "Cancel this date" not in row_of(
            body, dates[0]
        )
        assert "Open, modified" in row_of(body, dates[1])
        assert "Draft" in row_of(body, dates[2]) and "Cancel this date" in row_of(body, dates[2])
        assert body.index(str(dates[1].pk)) < body.index(str(dates[2].pk))
        for name in ("Generate now", "Pause series"):
            assert f">{name}</button>" in body
        assert f'<a href="/manage/series/{series.pk}/template">Edit template</a>' in body
        assert "Cancel stale dates" not in body  # no drift

    def test_anonymous_visitors_go_to_the_log_in_page_and_back(self, client: Client) -> None:
        series = weekly_series(make_org())
        response = client.get(page(series))
        assert response.status_code == 302
        assert response["Location"].startswith("/login?next=%2Fmanage%2Fseries%2F")

    def test_the_api_s_403_and_404(self) -> None:
        series = weekly_series(make_org())
        assert signed_in(make_staff(series.organization)).get(page(series)).status_code == 403
        assert (
            signed_in(make_staff(make_org(), edit_event_series=True)).get(page(series)).status_code
            == 403
        )
        hidden = weekly_series(make_org(visibility=Organization.Visibility.PRIVATE))
        assert (
            signed_in(make_staff(make_org(), edit_event_series=True)).get(page(hidden)).status_code
            == 404
        )
        allowed = make_staff(series.organization, edit_event_series=True)
        assert signed_in(allowed).get(page(series)).status_code == 200
        missing = "/manage/series/00000000-0000-0000-0000-000000000000"
        assert signed_in(allowed).get(missing).status_code == 404


def _queries(client: Client, path: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return len(queries)


def test_the_page_costs_the_same_queries_for_one_date_or_many() -> None:
    org = make_org()
    few = weekly_series(org, generation_window_weeks=2)
    many = weekly_series(org, weekdays=[0, 1, 2, 3, 4, 5, 6], generation_window_weeks=8)
    Event.objects.filter(pk=occurrences(many)[3].pk).update(
        start=occurrences(many)[3].start.replace(minute=30)
    )
    assert 1 <= len(occurrences(few)) <= 2
    assert len(occurrences(many)) >= 40
    client = signed_in(org.owner)
    one = _queries(client, page(few))
    assert _queries(client, page(many)) == one
    assert one <= 9


class TestActions:
    def test_generate_now_creates_the_dates(self) -> None:
        series = weekly_series(make_org(), generated=False)
        client = signed_in(series.organization.owner)
        response = client.post(page(series) + "/generate")
        assert response.status_code == 302 and response["Location"] == page(series)
        assert len(occurrences(series)) >= 3
        assert re.search(r"\d dates created\.", client.get(page(series)).content.decode())

    def test_cancel_this_date_cancels_it_for_good(self) -> None:
        series = weekly_series(make_org())
        first = occurrences(series)[0]
        client = signed_in(series.organization.owner)
        response = client.post(
            page(series) + "/cancel-date",
            {"occurrence_date": first.start.isoformat(), "confirmed": "yes"},
        )
        assert response.status_code == 302
        first.refresh_from_db()
        assert first.status == Event.Status.CANCELLED
        assert "The date was cancelled." in client.get(page(series)).content.decode()

    def test_a_refused_cancellation_shows_next_to_the_date_and_changes_nothing(self) -> None:
        series = weekly_series(make_org())
        first = occurrences(series)[0]
        Event.objects.filter(pk=first.pk).update(start=first.start.replace(minute=30))
        first.refresh_from_db()
        # A moved date is no instant of the rule: 400 not_an_occurrence once it is gone.
        Event.objects.filter(pk=first.pk).update(event_series=None)
        response = signed_in(series.organization.owner).post(
            page(series) + "/cancel-date",
            {"occurrence_date": first.start.isoformat(), "confirmed": "yes"},
        )
        assert response.status_code == 400
        assert (
            'class="refusal" role="alert">This date is neither an occurrence'
            in response.content.decode()
        )
        assert EventSeries.objects.get(pk=series.pk).exdates == []

    def test_a_conflict_shows_in_the_row_of_the_date_and_changes_nothing(self) -> None:
        org = make_org()
        plain = EventSeries.objects.create(organization=org, name="Plain", slug="plain")
        event = make_event(org, event_series=plain)
        response = signed_in(org.owner).post(
            f"/manage/series/{plain.pk}/cancel-date",
            {"occurrence_date": event.start.isoformat(), "confirmed": "yes"},
        )
        assert response.status_code == 409
        row = row_of(response.content.decode(), event)
        assert "This series has no recurrence rule or template." in row
        event.refresh_from_db()
        assert event.status == Event.Status.OPEN

    def test_a_plain_series_page_still_opens(self) -> None:
        org = make_org()
        plain = EventSeries.objects.create(organization=org, name="Plain", slug="plain")
        response = signed_in(org.owner).get(f"/manage/series/{plain.pk}")
        assert response.status_code == 200  # a plain series: no rule, the page still opens

    def test_a_date_without_its_offset_is_refused_with_the_services_reason(self) -> None:
        series = weekly_series(make_org())
        first = occurrences(series)[0]
        naive = first.start.replace(tzinfo=None).isoformat()
        response = signed_in(series.organization.owner).post(
            page(series) + "/cancel-date", {"occurrence_date": naive, "confirmed": "yes"}
        )
        assert response.status_code == 400
        assert "Give the time with its UTC offset." in response.content.decode()
        first.refresh_from_db()
        assert first.status == Event.Status.OPEN

    def test_pause_and_resume(self) -> None:
        series = weekly_series(make_org())
        client = signed_in(series.organization.owner)
        client.post(page(series) + "/pause")
        assert not EventSeries.objects.get(pk=series.pk).is_active
        body = client.get(page(series)).content.decode()
        assert ">Resume series</button>" in body and "Pause series" not in body
        client.post(page(series) + "/resume")
        assert EventSeries.objects.get(pk=series.pk).is_active

    def test_a_cadence_change_lists_the_stale_dates_and_cancel_stale_dates_cancels_them(
        self,
    ) -> None:
        series = weekly_series(make_org(), generation_window_weeks=3)
        tuesdays = occurrences(series)
        client = signed_in(series.organization.owner)
        response = client.post(
            page(series) + "/recurrence",
            {
                "time": "18:00",
                "duration": "60",
                "timezone": "UTC",
                "frequency": "weekly",
                "interval": "1",
                "weekdays": ["3"],
                "monthly_type": "day",
                "ends": "never",
                "weeks_ahead": "3",
                "auto_publish": "on",
                "stale": "keep",
                "apply": "1",
            },
        )
        assert response.status_code == 302, response.content.decode()[-3000:]
        assert rule_of(series).weekdays == [3]
        body = client.get(page(series)).content.decode()
        drift = body.split('id="drift-heading"')[1].split("</section>")[0]
        assert drift.count("<time") == len(tuesdays)
        assert ">Cancel stale dates</button>" in drift
        client.post(page(series) + "/cancel-stale")
        for event in tuesdays:
            event.refresh_from_db()
            assert event.status == Event.Status.CANCELLED
        assert "Cancel stale dates" not in client.get(page(series)).content.decode()

    def test_the_cadence_form_shows_the_saved_rule_and_previews_a_change(self) -> None:
        series = weekly_series(make_org())
        client = signed_in(series.organization.owner)
        body = client.get(page(series) + "/recurrence").content.decode()
        assert 'value="1" id="id_weekdays_1" checked' in body or re.search(
            r'value="1"[^>]*checked', body
        )
        assert 'aria-label="Next dates"' in body
        preview = client.post(
            page(series) + "/recurrence/preview",
            {
                "time": "18:00",
                "duration": "60",
                "timezone": "UTC",
                "frequency": "daily",
                "interval": "1",
                "ends": "never",
                "weeks_ahead": "4",
            },
        ).content.decode()
        assert preview.count("<time") == 10
        assert rule_of(series).frequency == "weekly"  # a preview saves nothing

    def test_edit_template_propagates_as_chosen(self) -> None:
        series = weekly_series(make_org())
        dates = occurrences(series)
        Event.objects.filter(pk=dates[0].pk).update(is_modified=True)
        client = signed_in(series.organization.owner)
        body = client.get(page(series) + "/template").content.decode()
        for choice in (
            "Only the template",
            "Future unmodified occurrences",
            "All future occurrences",
        ):
            assert choice in body
        response = client.post(
            page(series) + "/template",
            {"name": "Renamed", "description": "", "propagate": "future_unmodified"},
        )
        assert response.status_code == 302
        names = {e.pk: e.name for e in occurrences(series)}
        assert names[dates[0].pk] != "Renamed" and names[dates[1].pk] == "Renamed"
        assert EventSeries.objects.get(pk=series.pk).template_event.name == "Renamed"  # type: ignore[union-attr]

    def test_template_and_cadence_errors_show_next_to_their_field(self) -> None:
        series = weekly_series(make_org())
        client = signed_in(series.organization.owner)
        response = client.post(page(series) + "/template", {"name": "", "propagate": "none"})
        assert response.status_code == 400
        assert re.search(
            r'id="id_name_error">\s*<li>This field is required', response.content.decode()
        )
        response = client.post(
            page(series) + "/recurrence",
            {
                "time": "18:00",
                "duration": "60",
                "timezone": "UTC",
                "frequency": "weekly",
                "interval": "1",
                "ends": "after",
                "weeks_ahead": "4",
            },
        )
        assert response.status_code == 400
        assert (
            "Give the number of dates." in response.content.decode().split('id="id_count_error"')[1]
        )
        assert rule_of(series).count is None

    def test_only_the_template(self) -> None:
        series = weekly_series(make_org())
        client = signed_in(series.organization.owner)
        client.post(page(series) + "/template", {"name": "Solo", "propagate": "none"})
        assert all(e.name != "Solo" for e in occurrences(series))


ACTIONS = [
    "generate",
    "cancel-date",
    "cancel-stale",
    "pause",
    "resume",
    "template",
    "recurrence",
    "recurrence/preview",
]


@pytest.mark.parametrize("action", ACTIONS)
def test_every_action_is_refused_as_the_api_refuses_it(action: str, client: Client) -> None:
    series = weekly_series(make_org())
    before = (len(occurrences(series)), EventSeries.objects.get(pk=series.pk).is_active)
    data = {
        "occurrence_date": occurrences(series)[0].start.isoformat(),
        "name": "X",
        "propagate": "none",
    }
    url = page(series) + "/" + action
    anonymous = client.post(url, data)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/login?next=")
    assert signed_in(make_staff(series.organization)).post(url, data).status_code == 403
    assert signed_in(make_user()).post(url, data).status_code == 403
    hidden = weekly_series(make_org(visibility=Organization.Visibility.PRIVATE))
    other = signed_in(make_staff(make_org(), edit_event_series=True))
    assert other.post(page(hidden) + "/" + action, data).status_code == 404
    assert (len(occurrences(series)), EventSeries.objects.get(pk=series.pk).is_active) == before
    assert all(e.status != Event.Status.CANCELLED for e in occurrences(series))
