"""Series slugs under contention, on PostgreSQL: two series take the same slug at once.

Each series has its own row lock, so the two edits do not queue; the unique constraint
decides, and the loser gets the same 409 `slug_taken` as a sequential edit would.
"""

from typing import Any

import pytest

from events.core.tests.factories import make_org
from events.models import EventSeries, EventSeriesSlug
from events.series import services as recurrence_service
from events.series.errors import SeriesSlugTaken
from events.series.tests.recurrence_builders import make_series
from events.series.tests.test_recurrence_race import race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_two_series_taking_one_slug_at_once_leave_one_owner() -> None:
    org = make_org()
    first = make_series(org, slug="first")
    second = make_series(org, slug="second")

    def take(series: EventSeries) -> Any:
        return recurrence_service.update_series(
            EventSeries.objects.get(pk=series.pk), {"slug": "wanted"}
        )

    for _ in range(3):
        results = race(lambda: take(first), lambda: take(second))
        refused = [r for r in results if isinstance(r, SeriesSlugTaken)]
        saved = [r for r in results if isinstance(r, EventSeries)]
        assert len(refused) == 1 and len(saved) == 1, results
        assert EventSeries.objects.filter(organization=org, slug="wanted").count() == 1
        loser = first if saved[0].pk == second.pk else second
        assert EventSeries.objects.get(pk=loser.pk).slug == loser.slug
        assert not EventSeriesSlug.objects.filter(series=loser).exists()
        # reset for the next round
        winner = saved[0]
        EventSeriesSlug.objects.all().delete()
        EventSeries.objects.filter(pk=winner.pk).update(
            slug="first" if winner.pk == first.pk else "second"
        )
