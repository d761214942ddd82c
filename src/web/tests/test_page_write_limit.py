"""Every page POST shares the API's write limit; beyond it the view does not run."""

from collections.abc import Iterator

import pytest
from django.core.cache import cache
from django.test import Client

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event, make_org
from events.models import EventSeries, EventWaitList
from web.tests.series.test_builder import builder_data

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _two_writes_a_minute(settings) -> Iterator[None]:
    settings.THROTTLE_ENABLED = True
    settings.WRITE_THROTTLE_RATE = "2/min"
    cache.clear()
    yield
    cache.clear()


def test_a_page_write_beyond_the_rate_answers_429_and_changes_nothing(client: Client) -> None:
    event = make_event(max_attendees=1)
    queued = [make_user() for _ in range(3)]
    for user in queued:
        EventWaitList.objects.create(event=event, user=user)
    client.force_login(event.organization.owner)
    base = f"/manage/events/{event.pk}/waitlist/entries"
    entries = list(EventWaitList.objects.filter(event=event).order_by("created_at"))
    for entry in entries[:2]:
        assert client.post(f"{base}/{entry.pk}/remove").status_code in (200, 302)
    refused = client.post(f"{base}/{entries[2].pk}/remove")
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Too many requests" in refused.content.decode()
    assert EventWaitList.objects.filter(pk=entries[2].pk).exists()


def test_reads_are_not_counted_by_the_write_limit(client: Client) -> None:
    client.force_login(make_user())
    for _ in range(5):
        assert client.get("/").status_code == 200
    assert client.post("/logout").status_code == 302


def test_the_series_builders_live_preview_is_not_counted_as_a_write(client: Client) -> None:
    organization = make_org()
    client.force_login(organization.owner)
    for _ in range(5):  # the organiser types: one preview per pause
        preview = client.post(f"/manage/{organization.slug}/series/new/preview", builder_data())
        assert preview.status_code == 200
        assert 'aria-label="Next dates"' in preview.content.decode()
    created = client.post(f"/manage/{organization.slug}/series/new", builder_data())
    assert created.status_code == 302
    assert EventSeries.objects.filter(organization=organization).count() == 1
