"""One slug rule for one-off events, series occurrences and series (events/core/services/slugs.py)."""

import pytest
import time_machine

from events.core.services import event_service, slugs
from events.core.tests.factories import make_event, make_org
from events.models import Event, EventSeries
from events.series.services import generation
from events.series.tests.recurrence_builders import generate, make_series, occurrences, utc

pytestmark = pytest.mark.django_db


@pytest.fixture
def now():
    with time_machine.travel(utc(2026, 1, 1, 12), tick=False) as traveller:
        yield traveller


class TestFreeSlug:
    def test_the_first_free_candidate_wins(self) -> None:
        assert slugs.free_slug("a", "a-2031-03-14", taken={"a"}) == "a-2031-03-14"

    def test_all_taken_gives_the_last_candidate_a_suffix(self) -> None:
        slug = slugs.free_slug("a", "a-2031-03-14", taken={"a", "a-2031-03-14"})
        assert slug.startswith("a-2031-03-14-") and len(slug) == len("a-2031-03-14-") + 6


class TestOneLength:
    def test_the_longest_event_slug_fits_its_column(self) -> None:
        longest = "x" * slugs.SLUG_BASE_MAX + "-2031-03-14-abcdef"
        assert len(longest) == 220 == Event._meta.get_field("slug").max_length

    def test_the_longest_series_slug_fits_its_column(self) -> None:
        longest = "x" * slugs.SERIES_SLUG_BASE_MAX + "-abcdef"
        assert len(longest) <= 160 == EventSeries._meta.get_field("slug").max_length

    def test_a_long_event_name_keeps_what_the_column_has_room_for(self) -> None:
        """The event path cut names at 190 characters, occurrences at 202 (the column's
        room): two names differing after the 190th character shared a base, and the
        second event was pushed to a dated slug. Both paths now keep 202."""
        org = make_org()
        start = utc(2031, 3, 14, 18)
        first = event_service.create_event(org, {"name": "x" * 194 + " one", "start": start})
        second = event_service.create_event(org, {"name": "x" * 194 + " two", "start": start})
        assert (first.slug, second.slug) == ("x" * 194 + "-one", "x" * 194 + "-two")

    def test_an_occurrence_of_a_long_template_slug_fits(self, now) -> None:
        series = make_series(template={"slug": "y" * 220})
        make_event(series.organization, slug="y" * 202 + "-2026-01-05")
        generate(series)
        first = occurrences(series)[0]
        assert first.slug.startswith("y" * 202 + "-2026-01-05-")
        assert len(first.slug) == 220


class TestOccurrenceInsertRace:
    def test_a_slug_taken_between_the_check_and_the_insert_gets_a_suffix(
        self, now, monkeypatch
    ) -> None:
        """A one-off event takes a dated slug while the pass runs (the series lock does not
        cover it): the bulk insert fails and the batch is retried with fresh slugs."""
        series = make_series(template={"slug": "yoga"})
        real = generation.occurrence_slugs
        calls: list[list[str]] = []

        def slugs_then_race(template, starts, zone_name):
            chosen = real(template, starts, zone_name)
            if not calls:
                make_event(series.organization, slug=chosen[0])  # the concurrent writer
            calls.append(chosen)
            return chosen

        monkeypatch.setattr(generation, "occurrence_slugs", slugs_then_race)
        generate(series)
        first, second = occurrences(series)[:2]
        assert len(calls) == 2
        assert first.slug.startswith("yoga-2026-01-05-") and len(first.slug) == 22
        assert second.slug == "yoga-2026-01-12"
