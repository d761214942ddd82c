"""`/metrics` counts what the waitlist did: offers made, claimed, lapsed, registrations
refused, series passes, notification deliveries; and nothing that rolled back.

Each test reads the scraped text before and after, so counts of other tests in the same
process do not matter.
"""

from datetime import timedelta

import pytest
import time_machine
from django.db import transaction
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from events.series.tests.recurrence_builders import generate, make_series
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_builders import T0, WINDOW, active_event, queue_in_order

pytestmark = pytest.mark.django_db


def scrape() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = Client().get("/metrics")
    assert response.status_code == 200
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def grew(before: dict, after: dict, name: str, **labels: str) -> float:
    key = (name, tuple(sorted(labels.items())))
    return after.get(key, 0.0) - before.get(key, 0.0)


OFFERS_CREATED = "encore_waitlist_offers_created_total"


def test_a_batch_adds_its_size_to_offers_created_and_its_mails_to_deliveries(
    django_capture_on_commit_callbacks,
) -> None:
    with time_machine.travel(T0, tick=False):
        event = active_event(capacity=5, attendees=2)
        queue_in_order(event, 4)
        before = scrape()

        with django_capture_on_commit_callbacks(execute=True):
            result = waitlist_service.process_waitlist_for_event(event.pk)

        after = scrape()
    assert result.offers_created == 3
    assert grew(before, after, OFFERS_CREATED, kind="batch") == 3
    assert (
        grew(before, after, "encore_notification_deliveries_total", channel="email", outcome="sent")
        == 3
    )


def test_a_rolled_back_batch_counts_nothing(django_capture_on_commit_callbacks) -> None:
    with time_machine.travel(T0, tick=False):
        event = active_event(capacity=5, attendees=2)
        queue_in_order(event, 4)
        before = scrape()

        with (
            django_capture_on_commit_callbacks(execute=True),
            pytest.raises(RuntimeError),
            transaction.atomic(),
        ):
            assert waitlist_service.process_waitlist_for_event(event.pk).offers_created == 3
            raise RuntimeError("the pass fails after writing its batch")

        after = scrape()
    assert grew(before, after, OFFERS_CREATED, kind="batch") == 0


def test_claims_refusals_and_expiries_are_counted(api, django_capture_on_commit_callbacks) -> None:
    with time_machine.travel(T0, tick=False):
        event = active_event(capacity=3, attendees=1)
        first, _second, third = queue_in_order(event, 3)
        with django_capture_on_commit_callbacks(execute=True):
            waitlist_service.process_waitlist_for_event(event.pk)
        before = scrape()

        with django_capture_on_commit_callbacks(execute=True):
            claimed = api(first).post(f"/events/{event.pk}/rsvp/yes")
            refused = api(third).post(f"/events/{event.pk}/rsvp/yes")

        after_claims = scrape()
    assert claimed.status_code == 200, claimed.content
    assert refused.status_code in (400, 409)
    reason = refused.json()["code"]
    assert grew(before, after_claims, "encore_waitlist_offers_claimed_total") == 1
    assert grew(before, after_claims, "encore_claims_refused_total", reason=reason) == 1

    with time_machine.travel(T0 + WINDOW + timedelta(minutes=1), tick=False):
        with django_capture_on_commit_callbacks(execute=True):
            sweep = waitlist_service.expire_waitlist_offers()
        after_sweep = scrape()
    assert sweep.expired == 1  # the second member's offer lapsed
    assert grew(after_claims, after_sweep, "encore_waitlist_offers_expired_total") == 1


def test_series_generation_passes_are_counted_by_whether_they_created_events(
    django_capture_on_commit_callbacks,
) -> None:
    series = make_series()
    before = scrape()

    with django_capture_on_commit_callbacks(execute=True):
        created = generate(series)
        again = generate(series)  # nothing new in the window

    after = scrape()
    assert created and not again
    assert grew(before, after, "encore_series_generation_passes_total", created="true") == 1
    assert grew(before, after, "encore_series_generation_passes_total", created="false") == 1


def test_metrics_can_be_switched_off_or_need_a_token(settings) -> None:
    settings.METRICS_TOKEN = "scrape-secret"
    client = Client()
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
    allowed = client.get("/metrics", headers={"Authorization": "Bearer scrape-secret"})
    assert allowed.status_code == 200 and b"encore_waitlist_offers_created" in allowed.content

    settings.METRICS_ENABLED = False
    assert client.get("/metrics").status_code == 404
