"""Saving the waitlist settings: the PATCH's schema and service, field errors next to
their field, nothing saved on a refusal, the sentence right after Save (no JS)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from events.models import Event
from web.tests.waitlist.support import active_event, url

pytestmark = pytest.mark.django_db


def _form(**fields: str | None) -> dict[str, str]:
    data: dict[str, str | None] = {
        "waitlist_open": "on",
        "waitlist_time_window": "2",
        "waitlist_batch_size": "0",
        "waitlist_cutoff_date": "",
    }
    data.update(fields)
    return {name: value for name, value in data.items() if value is not None}


def _settings(event: Event) -> tuple[object, ...]:
    event.refresh_from_db()
    return (
        event.waitlist_open,
        event.waitlist_time_window,
        event.waitlist_batch_size,
        event.waitlist_cutoff_date,
        event.waitlist_lottery_mode,
    )


def test_the_form_shows_the_saved_settings(client: Client) -> None:
    event = active_event(waitlist_batch_size=5, waitlist_lottery_mode=True)
    client.force_login(event.organization.owner)
    body = client.get(url(event)).content.decode()
    assert 'name="waitlist_time_window" value="2"' in body
    assert 'name="waitlist_batch_size" value="5"' in body
    assert 'name="waitlist_lottery_mode" id="id_waitlist_lottery_mode" checked' in body
    for label in ("Active waitlist", "Offer window", "Batch size", "Lottery", "Cutoff"):
        assert f"{label}</label>" in body


def test_save_writes_every_setting_and_the_page_says_what_they_do(client: Client) -> None:
    start = (timezone.now() + timedelta(days=7)).replace(second=0, microsecond=0)
    event = active_event(timezone="Europe/Vienna", start=start)
    owner = event.organization.owner
    owner.timezone = "Europe/Vienna"
    owner.save()
    client.force_login(owner)
    cutoff_local = (event.start - timedelta(hours=3)).astimezone(
        __import__("zoneinfo").ZoneInfo("Europe/Vienna")
    )
    response = client.post(
        url(event),
        _form(
            waitlist_time_window="3",
            waitlist_batch_size="4",
            waitlist_lottery_mode="on",
            waitlist_cutoff_date=cutoff_local.strftime("%Y-%m-%dT%H:%M"),
        ),
    )
    assert response.status_code == 302
    assert _settings(event) == (
        True,
        timedelta(hours=3),
        4,
        event.start - timedelta(hours=3),
        True,
    )
    body = client.get(response["Location"]).content.decode()
    assert "Settings saved." in body
    assert "4 people drawn at random from the queue get 3 hours to claim it" in body
    assert "3 hours before the event" in body


def test_unticking_active_waitlist_closes_it(client: Client) -> None:
    event = active_event()
    client.force_login(event.organization.owner)
    response = client.post(url(event), _form(waitlist_open=None, waitlist_time_window=""))
    assert response.status_code == 302
    assert _settings(event)[:2] == (False, None)
    assert "The waitlist is closed" in client.get(url(event)).content.decode()


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"waitlist_time_window": "0.5"}, "waitlist_time_window", "between 1 hour and 7 days"),
        ({"waitlist_time_window": "200"}, "waitlist_time_window", "between 1 hour and 7 days"),
        ({"waitlist_batch_size": "-1"}, "waitlist_batch_size", "greater than or equal to 0"),
        ({"waitlist_batch_size": "many"}, "waitlist_batch_size", "Enter a whole number."),
        (
            {"waitlist_time_window": "", "waitlist_cutoff_date": "2031-01-01T10:00"},
            "waitlist_cutoff_date",
            "A waitlist cutoff needs a waitlist time window.",
        ),
        (
            {"waitlist_cutoff_date": "2099-01-01T10:00"},
            "waitlist_cutoff_date",
            "strictly before the event starts",
        ),
    ],
)
def test_a_refused_value_is_shown_next_to_its_field_and_nothing_is_saved(
    client: Client, fields: dict[str, str], field: str, message: str
) -> None:
    event = active_event(waitlist_batch_size=2)
    before = _settings(event)
    client.force_login(event.organization.owner)
    response = client.post(url(event), _form(**{"waitlist_batch_size": "7", **fields}))
    assert response.status_code == 400
    body = response.content.decode()
    errors = body.index(f'id="id_{field}_error"')
    assert message in body[errors : errors + 400]
    assert body.index(f'name="{field}"') < errors  # next to its own field
    assert _settings(event) == before
