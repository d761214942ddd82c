"""A cutoff typed into the waitlist settings must lie ahead; one saved earlier that has
passed since (its final round went out) stays through a save of the other settings."""

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from events.models import Event
from web.tests.waitlist.support import active_event, url

pytestmark = pytest.mark.django_db


def _local(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%dT%H:%M}"


def _save(client: Client, event: Event, cutoff: str) -> str:
    response = client.post(
        url(event),
        {
            "waitlist_open": "on",
            "waitlist_time_window": "2",
            "waitlist_batch_size": "3",
            "waitlist_cutoff_date": cutoff,
        },
    )
    return f"{response.status_code} {response.content.decode()}"


def test_a_cutoff_in_the_past_is_refused_next_to_it_and_nothing_is_saved(client: Client) -> None:
    event = active_event(timezone="UTC", waitlist_batch_size=2)
    client.force_login(event.organization.owner)
    answer = _save(client, event, _local(timezone.now() - timedelta(hours=1)))
    assert answer.startswith("400 ")
    errors = answer.index('id="id_waitlist_cutoff_date_error"')
    assert "The cutoff is in the past: choose a time still to come." in answer[errors:][:300]
    event.refresh_from_db()
    assert (event.waitlist_batch_size, event.waitlist_cutoff_date) == (2, None)


def test_a_saved_cutoff_that_has_passed_stays_through_a_save(client: Client) -> None:
    passed = (timezone.now() - timedelta(hours=1)).replace(second=0, microsecond=0)
    event = active_event(timezone="UTC", waitlist_cutoff_date=passed)
    client.force_login(event.organization.owner)
    assert _save(client, event, _local(passed)).startswith("302 ")
    event.refresh_from_db()
    assert (event.waitlist_batch_size, event.waitlist_cutoff_date) == (3, passed)


def test_the_help_text_says_the_cutoff_lies_ahead(client: Client) -> None:
    event = active_event(timezone="UTC")
    client.force_login(event.organization.owner)
    page = client.get(url(event)).content.decode()
    assert "Date and time in UTC, still to come; empty: no cutoff." in page
