"""`/manage/{org_slug}/series/new`: the builder, its validation, creating, and the preview."""

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from django.test import Client

from accounts.tests.factories import make_user
from events.core.tests.factories import make_org, make_staff
from events.models import EventSeries, Organization
from events.series.tests.recurrence_builders import occurrences

pytestmark = pytest.mark.django_db


def builder_data(**changes: Any) -> dict[str, Any]:
    """Tuesdays 18:00 in Berlin from 16 March 2027 (the switch to summer time is on 28 March)."""
    data = {
        "name": "Tuesday run",
        "starts_on": "2027-03-16",
        "time": "18:00",
        "duration": "90",
        "timezone": "Europe/Berlin",
        "frequency": "weekly",
        "interval": "1",
        "weekdays": ["1"],
        "monthly_type": "day",
        "ends": "never",
        "weeks_ahead": "8",
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def datetimes(body: str) -> list[datetime]:
    return [datetime.fromisoformat(v) for v in re.findall(r'<time datetime="([^"]+)"', body)]


class TestThePage:
    def test_the_builder_has_every_field_of_ui_md(self) -> None:
        org = make_org()
        body = signed_in(org.owner).get(f"/manage/{org.slug}/series/new").content.decode()
        for label in ("Name", "Starts on", "Time", "Duration", "Time zone", "Repeats", "Every"):
            assert f">{label}</label>" in body, label
        for day in ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"):
            assert re.search(
                rf'<input type="checkbox" name="weekdays" value="\d"[^>]*> {day}</label>', body
            ), day
        assert "<legend>Ends</legend>" in body
        assert "By day of the month" in body and "By weekday of the month" in body
        assert "Publish automatically</label>" in body and ">Weeks ahead</label>" in body
        assert 'aria-label="Next dates"' in body  # the defaults are previewed at once
        assert '<button type="submit">Create series</button>' in body
        assert "This field is required" not in body

    def test_anonymous_visitors_go_to_the_log_in_page_and_back(self, client: Client) -> None:
        org = make_org()
        response = client.get(f"/manage/{org.slug}/series/new")
        assert response.status_code == 302
        assert response["Location"] == f"/login?next=%2Fmanage%2F{org.slug}%2Fseries%2Fnew"

    def test_staff_without_create_event_and_other_organisations_are_refused(self) -> None:
        org = make_org()
        staff = make_staff(org)  # default permissions: no create_event
        assert signed_in(staff).get(f"/manage/{org.slug}/series/new").status_code == 403
        assert signed_in(make_user()).get(f"/manage/{org.slug}/series/new").status_code == 403
        private = make_org(visibility=Organization.Visibility.PRIVATE)
        assert signed_in(make_user()).get(f"/manage/{private.slug}/series/new").status_code == 404
        response = signed_in(staff).post(f"/manage/{org.slug}/series/new", builder_data())
        assert response.status_code == 403 and not EventSeries.objects.exists()
        preview = signed_in(staff).post(f"/manage/{org.slug}/series/new/preview", builder_data())
        assert preview.status_code == 403

    def test_staff_with_create_event_may_build(self) -> None:
        org = make_org()
        staff = make_staff(org, create_event=True)
        assert signed_in(staff).get(f"/manage/{org.slug}/series/new").status_code == 200


class TestCreate:
    def test_create_series_makes_the_series_and_its_dates_then_opens_its_page(self) -> None:
        org = make_org()
        client = signed_in(org.owner)
        response = client.post(
            f"/manage/{org.slug}/series/new", builder_data(auto_publish="on", weeks_ahead="52")
        )
        series = EventSeries.objects.get(organization=org)
        assert response.status_code == 302
        assert response["Location"] == f"/manage/series/{series.pk}"
        rule = series.recurrence_rule
        assert rule is not None
        assert (rule.frequency, rule.weekdays, rule.timezone) == ("weekly", [1], "Europe/Berlin")
        assert rule.dtstart == datetime(2027, 3, 16, 17, 0, tzinfo=UTC)
        assert series.name == "Tuesday run" and series.auto_publish
        template = series.template_event
        assert template is not None and template.end is not None
        assert (template.end - template.start).total_seconds() == 90 * 60
        dates = occurrences(series)
        assert dates[0].start == datetime(2027, 3, 16, 17, 0, tzinfo=UTC)
        assert dates[2].start == datetime(2027, 3, 30, 16, 0, tzinfo=UTC)  # 18:00 summer time
        assert all(event.status == "open" for event in dates)
        page = client.get(response["Location"]).content.decode()
        assert "The series was created." in page

    def test_an_end_date_and_a_count_reach_the_rule(self) -> None:
        org = make_org()
        client = signed_in(org.owner)
        client.post(f"/manage/{org.slug}/series/new", builder_data(ends="after", count="5"))
        client.post(
            f"/manage/{org.slug}/series/new",
            builder_data(name="Until", ends="on", until_date="2027-04-27"),
        )
        counted = EventSeries.objects.get(name="Tuesday run").recurrence_rule
        until = EventSeries.objects.get(name="Until").recurrence_rule
        assert counted is not None and counted.count == 5 and counted.until is None
        assert until is not None and until.count is None
        assert until.until == datetime(2027, 4, 27, 21, 59, 59, tzinfo=UTC)  # 23:59:59 CEST

    def test_monthly_by_nth_weekday(self) -> None:
        org = make_org()
        signed_in(org.owner).post(
            f"/manage/{org.slug}/series/new",
            builder_data(
                frequency="monthly", monthly_type="weekday", nth_weekday="-1", weekday="4"
            ),
        )
        rule = EventSeries.objects.get().recurrence_rule
        assert rule is not None
        assert (rule.monthly_type, rule.nth_weekday, rule.weekday, rule.weekdays) == (
            "weekday",
            -1,
            4,
            [],
        )


class TestValidation:
    def _errors_of(self, body: str, field: str) -> str:
        match = re.search(rf'<ul class="field-errors" id="id_{field}_error">(.*?)</ul>', body, re.S)
        assert match, f"no errors next to {field}"
        return match.group(1)

    def test_errors_show_next_to_their_field_and_nothing_is_saved(self) -> None:
        org = make_org()
        response = signed_in(org.owner).post(
            f"/manage/{org.slug}/series/new",
            builder_data(name="", interval="0", ends="after", count=None, timezone="Mars/Olympus"),
        )
        assert response.status_code == 400
        body = response.content.decode()
        assert "required" in self._errors_of(body, "name")
        assert "greater than or equal to 1" in self._errors_of(body, "interval")
        assert "Mars/Olympus" in self._errors_of(body, "timezone")
        assert re.search(
            r'<input type="text" name="name"[^>]*aria-describedby="id_name_error"', body
        )
        assert not EventSeries.objects.exists()

    def test_a_missing_count_or_end_date_shows_next_to_it(self) -> None:
        org = make_org()
        client = signed_in(org.owner)
        body = client.post(
            f"/manage/{org.slug}/series/new", builder_data(ends="after")
        ).content.decode()
        assert "Give the number of dates." in self._errors_of(body, "count")
        body = client.post(
            f"/manage/{org.slug}/series/new", builder_data(ends="on", until_date="2027-03-01")
        ).content.decode()
        assert "The end date must be after the start." in self._errors_of(body, "until_date")
        assert not EventSeries.objects.exists()

    def test_the_preview_button_re_renders_without_saving(self) -> None:
        org = make_org()
        response = signed_in(org.owner).post(
            f"/manage/{org.slug}/series/new", builder_data(preview="1")
        )
        assert response.status_code == 200
        assert len(datetimes(response.content.decode())) == 10
        assert not EventSeries.objects.exists()


class TestPreview:
    def test_ten_tuesdays_at_18_berlin_across_the_switch_to_summer_time(self) -> None:
        org = make_org()
        response = signed_in(org.owner).post(
            f"/manage/{org.slug}/series/new/preview", builder_data()
        )
        body = response.content.decode()
        assert response.status_code == 200 and 'aria-label="Next dates"' in body
        dates = datetimes(body)
        assert len(dates) == 10
        assert dates[:2] == [datetime(2027, 3, d, 17, 0, tzinfo=UTC) for d in (16, 23)]
        assert dates[2] == datetime(2027, 3, 30, 16, 0, tzinfo=UTC)  # 18:00 CEST
        assert dates[-1] == datetime(2027, 5, 18, 16, 0, tzinfo=UTC)
        assert body.count(", 18:00 CET<") == 2 and body.count(", 18:00 CEST<") == 8

    def test_back_to_winter_time_in_october(self) -> None:
        org = make_org()
        response = signed_in(org.owner).post(
            f"/manage/{org.slug}/series/new/preview",
            builder_data(starts_on="2027-10-19", weekdays=["1", "3"]),
        )
        dates = datetimes(response.content.decode())
        # Tue 19, Thu 21, Tue 26 (the switch was on Sunday 31 October) …
        assert dates[0] == datetime(2027, 10, 19, 16, 0, tzinfo=UTC)
        assert dates[3] == datetime(2027, 10, 28, 16, 0, tzinfo=UTC)
        assert dates[4] == datetime(2027, 11, 2, 17, 0, tzinfo=UTC)
        assert len(dates) == 10

    def test_the_preview_follows_the_rule_the_generator_uses(self) -> None:
        org = make_org()
        client = signed_in(org.owner)
        data = builder_data(frequency="monthly", monthly_type="day", day_of_month="31")
        dates = datetimes(
            client.post(f"/manage/{org.slug}/series/new/preview", data).content.decode()
        )
        assert [d.month for d in dates[:4]] == [3, 5, 7, 8]  # months without a 31st are skipped
        counted = builder_data(ends="after", count="3")
        assert (
            len(
                datetimes(
                    client.post(f"/manage/{org.slug}/series/new/preview", counted).content.decode()
                )
            )
            == 3
        )

    def test_an_incomplete_rule_previews_nothing(self) -> None:
        org = make_org()
        body = (
            signed_in(org.owner)
            .post(f"/manage/{org.slug}/series/new/preview", builder_data(starts_on=""))
            .content.decode()
        )
        assert "Next dates" not in body.split("<p>")[0] and "<time" not in body
