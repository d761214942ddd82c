"""Listing and editing series (issue 13, item 1): `GET .../event-series`, `PATCH
.../event-series/{id}`, and the old public address of a renamed series (301)."""

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from events.core.tests.factories import make_org, make_staff
from events.models import EventSeries, EventSeriesSlug, Organization
from events.series import services as recurrence_service
from events.series.tests.recurrence_builders import generate, make_rule, make_series, occurrences

pytestmark = pytest.mark.django_db


def _next_monday_10() -> Any:
    now = timezone.now().replace(hour=10, minute=0, second=0, microsecond=0)
    return now + timedelta(days=7 - now.weekday())


def weekly(org: Organization, **fields: Any) -> EventSeries:
    rule = make_rule(dtstart=_next_monday_10(), timezone="UTC", weekdays=[0])
    fields.setdefault("auto_publish", True)
    series = make_series(org, rule=rule, generation_window_weeks=4, **fields)
    generate(series)
    return EventSeries.objects.get(pk=series.pk)


def listing(org: Organization) -> str:
    return f"/organization-admin/{org.slug}/event-series"


def one(org: Organization, series: EventSeries) -> str:
    return f"/organization-admin/{org.slug}/event-series/{series.pk}"


class TestList:
    def test_lists_the_organisations_series_active_first(self, api: Any, org: Any) -> None:
        paused = weekly(org, name="A paused one", is_active=False)
        second = weekly(org, name="Yoga")
        first = weekly(org, name="Climbing")
        weekly(make_org(), name="Another organisation's")
        response = api(org.owner).get(listing(org))
        assert response.status_code == 200, response.json()
        body = response.json()
        assert body["count"] == 3
        assert [item["id"] for item in body["results"]] == [
            str(first.pk),
            str(second.pk),
            str(paused.pk),
        ]
        item = body["results"][0]
        assert item["recurrence_rule"]["frequency"] == "weekly"
        assert item["template_event"]["id"] == str(first.template_event_id)

    def test_is_paginated(self, api: Any, org: Any) -> None:
        for n in range(3):
            weekly(org, name=f"Series {n}")
        body = api(org.owner).get(listing(org), page_size=2).json()
        assert body["count"] == 3
        assert len(body["results"]) == 2
        assert body["next"] is not None

    def test_costs_the_same_queries_for_one_series_or_many(self, api: Any, org: Any) -> None:
        weekly(org)
        client = api(org.owner)

        def queries() -> int:
            with CaptureQueriesContext(connection) as captured:
                assert client.get(listing(org)).status_code == 200
            return len(captured)

        few = queries()
        for n in range(6):
            weekly(org, name=f"More {n}")
        assert EventSeries.objects.filter(organization=org).count() == 7
        assert queries() == few

    def test_permissions(self, api: Any, org: Any) -> None:
        weekly(org)
        assert api(None).get(listing(org)).status_code == 401
        assert api(make_staff(org)).get(listing(org)).status_code == 200  # on by default
        blind = make_staff(org, view_organization_details=False)
        assert api(blind).get(listing(org)).status_code == 403
        private = make_org(visibility=Organization.Visibility.PRIVATE)
        assert api(org.owner).get(listing(private)).status_code == 404


class TestPatch:
    def test_renames_and_describes(self, api: Any, org: Any) -> None:
        series = weekly(org)
        response = api(org.owner).patch(
            one(org, series), {"name": "  Tuesday climbing ", "description": "Bring shoes."}
        )
        assert response.status_code == 200, response.json()
        assert response.json()["name"] == "Tuesday climbing"
        assert response.json()["description"] == "Bring shoes."
        series.refresh_from_db()
        assert (series.name, series.description) == ("Tuesday climbing", "Bring shoes.")

    def test_switches_change_and_a_window_change_resets_the_cursor(
        self, api: Any, org: Any
    ) -> None:
        series = weekly(org, auto_publish=False)
        assert series.last_generated_until is not None
        response = api(org.owner).patch(
            one(org, series), {"auto_publish": True, "generation_window_weeks": 6}
        )
        assert response.status_code == 200, response.json()
        series.refresh_from_db()
        assert series.auto_publish is True
        assert series.generation_window_weeks == 6
        assert series.last_generated_until is None

    def test_a_new_slug_keeps_the_old_address_working(
        self, api: Any, org: Any, client: Client
    ) -> None:
        series = weekly(org, slug="yoga")
        response = api(org.owner).patch(one(org, series), {"slug": "morning-yoga"})
        assert response.status_code == 200, response.json()
        assert response.json()["slug"] == "morning-yoga"
        page = client.get(f"/events/{org.slug}/series/yoga")
        assert page.status_code == 301
        assert page["Location"] == f"/events/{org.slug}/series/morning-yoga"
        assert client.get(page["Location"]).status_code == 200
        public_api = client.get(f"/api/events/{org.slug}/series/yoga")
        assert public_api.status_code == 301
        assert public_api["Location"] == f"/api/events/{org.slug}/series/morning-yoga"
        assert client.get(public_api["Location"]).json()["id"] == str(series.pk)

    def test_every_former_slug_redirects_and_a_series_may_take_one_back(
        self, api: Any, org: Any, client: Client
    ) -> None:
        series = weekly(org, slug="one")
        owner = api(org.owner)
        assert owner.patch(one(org, series), {"slug": "two"}).status_code == 200
        assert owner.patch(one(org, series), {"slug": "three"}).status_code == 200
        for old in ("one", "two"):
            assert client.get(f"/events/{org.slug}/series/{old}")["Location"].endswith("/three")
        assert owner.patch(one(org, series), {"slug": "one"}).status_code == 200
        assert client.get(f"/events/{org.slug}/series/one").status_code == 200
        assert client.get(f"/events/{org.slug}/series/three")["Location"].endswith("/one")
        assert sorted(EventSeriesSlug.objects.values_list("slug", flat=True)) == ["three", "two"]

    def test_the_public_page_lists_the_upcoming_occurrences(
        self, api: Any, org: Any, client: Client
    ) -> None:
        series = weekly(org, slug="before")
        api(org.owner).patch(one(org, series), {"slug": "after"})
        body = client.get(f"/events/{org.slug}/series/after").content.decode()
        upcoming = [e for e in occurrences(series) if e.start >= timezone.now()]
        assert upcoming
        for event in upcoming:
            assert f'<a href="/events/{event.pk}">' in body

    @pytest.mark.parametrize("holder", ["current", "former"])
    def test_a_slug_another_series_uses_or_used_is_409(
        self, api: Any, org: Any, client: Client, holder: str
    ) -> None:
        other = weekly(org, slug="taken")
        if holder == "former":
            api(org.owner).patch(one(org, other), {"slug": "elsewhere"})
        series = weekly(org, slug="mine")
        response = api(org.owner).patch(one(org, series), {"slug": "taken", "name": "New"})
        assert response.status_code == 409, response.json()
        assert response.json()["code"] == "slug_taken"
        series.refresh_from_db()
        assert (series.slug, series.name) == ("mine", series.name)
        assert series.name != "New"
        assert not EventSeriesSlug.objects.filter(series=series).exists()
        target = client.get(f"/events/{org.slug}/series/taken")
        assert target.status_code == (200 if holder == "current" else 301)

    def test_the_same_slug_in_another_organisation_is_fine(self, api: Any, org: Any) -> None:
        weekly(make_org(), slug="shared")
        series = weekly(org, slug="mine")
        assert api(org.owner).patch(one(org, series), {"slug": "shared"}).status_code == 200

    def test_a_new_series_does_not_take_a_former_slug(self, api: Any, org: Any) -> None:
        series = weekly(org, slug="monday-yoga")
        api(org.owner).patch(one(org, series), {"slug": "yoga-on-mondays"})
        dtstart = _next_monday_10()
        created = recurrence_service.create_recurring_event_series(
            org,
            {"name": "Yoga", "end": dtstart + timedelta(hours=1)},
            "Monday yoga",
            {"frequency": "weekly", "weekdays": [0], "dtstart": dtstart},
        )
        assert created.slug != "monday-yoga"
        assert created.slug.startswith("monday-yoga")

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"slug": "not a slug!"}, "slug"),
            ({"name": "   "}, "name"),
            ({"name": None}, "name"),
            ({"generation_window_weeks": 0}, "generation_window_weeks"),
            ({"generation_window_weeks": 53}, "generation_window_weeks"),
        ],
    )
    def test_bad_values_are_400_and_change_nothing(
        self, api: Any, org: Any, body: dict[str, Any], field: str
    ) -> None:
        series = weekly(org, slug="kept")
        before = EventSeries.objects.filter(pk=series.pk).values().get()
        response = api(org.owner).patch(one(org, series), {**body, "description": "changed"})
        assert response.status_code == 400, response.json()
        assert response.json()["code"] == "invalid"
        assert field in response.json()["errors"]
        assert EventSeries.objects.filter(pk=series.pk).values().get() == before

    def test_an_unknown_field_is_422(self, api: Any, org: Any) -> None:
        series = weekly(org)
        response = api(org.owner).patch(one(org, series), {"frequency": "daily"})
        assert response.status_code == 422

    def test_switches_on_a_plain_series_are_409(self, api: Any, org: Any) -> None:
        plain = EventSeries.objects.create(organization=org, name="Plain", slug="plain")
        response = api(org.owner).patch(one(org, plain), {"auto_publish": True, "name": "P2"})
        assert response.status_code == 409
        assert response.json()["code"] == "not_a_recurring_series"
        plain.refresh_from_db()
        assert plain.name == "Plain"
        assert api(org.owner).patch(one(org, plain), {"name": "P2"}).status_code == 200

    def test_permissions(self, api: Any, org: Any) -> None:
        series = weekly(org)
        body = {"name": "Renamed"}
        assert api(None).patch(one(org, series), body).status_code == 401
        assert api(make_staff(org)).patch(one(org, series), body).status_code == 403
        other = weekly(make_org())
        path = f"/organization-admin/{org.slug}/event-series/{other.pk}"
        assert api(org.owner).patch(path, body).status_code == 404
        assert EventSeries.objects.filter(name="Renamed").count() == 0
        editor = make_staff(org, edit_event_series=True)
        assert api(editor).patch(one(org, series), body).status_code == 200

    def test_the_old_address_of_an_invisible_series_is_a_404(
        self, api: Any, client: Client
    ) -> None:
        hidden = make_org(visibility=Organization.Visibility.PRIVATE)
        series = weekly(hidden, slug="old")
        assert api(hidden.owner).patch(one(hidden, series), {"slug": "new"}).status_code == 200
        assert client.get(f"/events/{hidden.slug}/series/old").status_code == 404
        assert client.get(f"/api/events/{hidden.slug}/series/old").status_code == 404
        client.force_login(hidden.owner)
        assert client.get(f"/events/{hidden.slug}/series/old").status_code == 301
