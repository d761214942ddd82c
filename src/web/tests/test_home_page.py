"""`/`: upcoming visible events, soonest first, in a fixed number of queries."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event, make_org
from events.models import Event
from events.series.tests.recurrence_builders import make_series

pytestmark = pytest.mark.django_db


def test_upcoming_visible_events_soonest_first_each_a_link_by_name(client: Client) -> None:
    now = timezone.now()
    later = make_event(name="Later", start=now + timedelta(days=9))
    sooner = make_event(name="Sooner", start=now + timedelta(days=2))
    make_event(name="Past", start=now - timedelta(days=3), end=now - timedelta(days=2))
    make_event(name="Draft", status=Event.Status.DRAFT)
    make_event(name="Unlisted", visibility=Event.Visibility.UNLISTED)
    body = client.get("/").content.decode()
    assert f'<a href="/events/{sooner.pk}">Sooner</a>' in body
    assert f'<a href="/events/{later.pk}">Later</a>' in body
    assert body.index("Sooner") < body.index("Later")
    for hidden in ("Past", "Draft", "Unlisted"):
        assert hidden not in body


def _home_queries(client: Client) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/").status_code == 200
    return len(queries)


def test_the_home_page_costs_the_same_queries_for_one_event_or_many(client: Client) -> None:
    organization = make_org()
    make_event(organization)
    one = _home_queries(client)
    for _ in range(10):
        make_event(make_org())
    assert _home_queries(client) == one
    assert one <= 3  # the events, their ticket tiers (prefetch), nothing per row


def test_times_are_in_the_events_zone_for_visitors_and_the_viewers_zone_when_signed_in(
    client: Client,
) -> None:
    start = datetime(2030, 7, 1, 16, 0, tzinfo=UTC)
    make_event(name="Zoned", start=start, end=start + timedelta(hours=2), timezone="Asia/Tokyo")
    assert "Tue 2 Jul 2030, 01:00 JST" in client.get("/").content.decode()
    client.force_login(make_user(timezone="Europe/Berlin"))
    assert "Mon 1 Jul 2030, 18:00 CEST" in client.get("/").content.decode()


def test_a_german_viewer_reads_german_dates(client: Client) -> None:
    start = datetime(2030, 7, 1, 16, 0, tzinfo=UTC)
    make_event(name="Zoned", start=start, end=start + timedelta(hours=2))
    client.force_login(make_user(timezone="Europe/Berlin", language="de"))
    body = client.get("/").content.decode()
    assert "Montag, 1. Juli 2030, 18:00 CEST" in body
    assert '<html lang="de">' in body
    assert "Kommende Veranstaltungen" in body and "Abmelden" in body


def test_an_organiser_never_sees_their_own_drafts_or_draft_series_dates(client: Client) -> None:
    organization = make_org()
    make_event(organization, name="Draft Party", status=Event.Status.DRAFT)
    series = make_series(organization)
    make_event(organization, name="Draft Date", status=Event.Status.DRAFT, event_series=series)
    shown = make_event(organization, name="Open Party")
    client.force_login(organization.owner)
    body = client.get("/").content.decode()
    assert f'<a href="/events/{shown.pk}">Open Party</a>' in body
    assert "Draft Party" not in body and "Draft Date" not in body
    assert "Yoga" not in body  # the series' template, a draft too


def test_a_cancelled_event_stays_listed_marked_cancelled(client: Client) -> None:
    cancelled = make_event(name="Called Off", status=Event.Status.CANCELLED)
    make_event(name="Still On")
    body = client.get("/").content.decode()
    line = body[body.index(f'<a href="/events/{cancelled.pk}">Called Off</a>') :]
    assert line[: line.index("</li>")].count("Cancelled") == 1
    still_on = body[body.index("Still On") :]
    assert "Cancelled" not in still_on[: still_on.index("</li>")]


def test_an_organiser_with_drafts_costs_no_more_queries(client: Client) -> None:
    organization = make_org()
    make_event(organization)
    client.force_login(organization.owner)
    one = _home_queries(client)
    for _ in range(5):
        make_event(organization, status=Event.Status.DRAFT)
        make_event(organization, status=Event.Status.CANCELLED)
    assert _home_queries(client) == one
