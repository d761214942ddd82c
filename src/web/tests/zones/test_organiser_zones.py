"""Organiser pages show an event's times in the event's zone, with its abbreviation,
whatever the organiser's own zone (a series: the series' zone)."""

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event, make_org
from events.models import Event, WaitlistOffer
from events.series.tests.recurrence_builders import generate, make_rule, make_series
from web.tests.series.support import client_of, manage_url

pytestmark = pytest.mark.django_db


def in_zone(moment: datetime, zone: str) -> str:
    """ "18:00 CET": the time and the abbreviation the pages write."""
    return moment.astimezone(ZoneInfo(zone)).strftime("%H:%M %Z")


def next_month_at(hour: int) -> datetime:
    day = timezone.now().astimezone(UTC) + timedelta(days=30)
    return day.replace(hour=hour, minute=0, second=0, microsecond=0)


@pytest.fixture
def tokyo_organiser_client() -> tuple[Client, Any]:
    owner = make_user(timezone="Asia/Tokyo")
    return client_of(owner), make_org(owner)


def berlin_event(organization: Any) -> Event:
    start = next_month_at(17)
    return make_event(
        organization, start=start, end=start + timedelta(hours=2), timezone="Europe/Berlin"
    )


def test_the_event_overview_uses_the_event_s_zone(tokyo_organiser_client: Any) -> None:
    client, organization = tokyo_organiser_client
    event = berlin_event(organization)
    body = client.get(f"/manage/events/{event.pk}").content.decode()
    assert in_zone(event.start, "Europe/Berlin") in body
    assert in_zone(event.start, "Asia/Tokyo") not in body


def test_the_waitlist_page_uses_the_event_s_zone(tokyo_organiser_client: Any) -> None:
    client, organization = tokyo_organiser_client
    event = berlin_event(organization)
    deadline = next_month_at(9)
    WaitlistOffer.objects.create(
        event=event,
        user=make_user(),
        batch_id=uuid.uuid4(),
        status=WaitlistOffer.WaitlistOfferStatus.PENDING,
        expires_at=deadline,
    )
    body = client.get(f"/manage/events/{event.pk}/waitlist").content.decode()
    assert in_zone(deadline, "Europe/Berlin") in body
    assert "JST" not in body


def test_the_organisation_page_shows_each_event_in_its_own_zone(
    tokyo_organiser_client: Any,
) -> None:
    client, organization = tokyo_organiser_client
    berlin = berlin_event(organization)
    start = next_month_at(23)
    york = make_event(
        organization, start=start, end=start + timedelta(hours=1), timezone="America/New_York"
    )
    body = client.get(f"/manage/{organization.slug}").content.decode()
    assert in_zone(berlin.start, "Europe/Berlin") in body
    assert in_zone(york.start, "America/New_York") in body
    assert "JST" not in body


def test_the_organisation_page_costs_a_fixed_number_of_queries(
    tokyo_organiser_client: Any, django_assert_max_num_queries: Any
) -> None:
    client, organization = tokyo_organiser_client
    for zone in ("Europe/Berlin", "America/New_York", "Asia/Kolkata", "UTC") * 5:
        make_event(organization, start=next_month_at(12), timezone=zone)
    with django_assert_max_num_queries(10):
        assert client.get(f"/manage/{organization.slug}").status_code == 200


def test_the_series_page_uses_the_series_zone(tokyo_organiser_client: Any) -> None:
    client, organization = tokyo_organiser_client
    rule = make_rule(dtstart=next_month_at(17), timezone="Europe/Berlin", weekdays=[])
    series = make_series(organization, rule=rule, auto_publish=True, generation_window_weeks=8)
    generate(series)
    body = client.get(manage_url(series)).content.decode()
    assert in_zone(rule.dtstart, "Europe/Berlin") in body
    assert "JST" not in body
