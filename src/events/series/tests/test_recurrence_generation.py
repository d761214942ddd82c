"""generate_series_events: the window, idempotency, exdates, the cursor, cloning, queries.

"Now" is pinned with time_machine. The default series is "Mondays 10:00 Europe/Vienna"
from Monday 5 January 2026 (09:00 UTC in winter), with the default 8-week window.
"""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from common.errors import InvalidInput
from events.core.tests.factories import make_event, make_org, make_tier
from events.models import Event, EventSeries, TicketTier
from events.series import services as recurrence_service
from events.series.tests.recurrence_builders import (
    MONDAY_10_VIENNA,
    generate,
    make_rule,
    make_series,
    occurrences,
    starts,
    template_of,
    utc,
)

pytestmark = pytest.mark.django_db

NEW_YEAR = utc(2026, 1, 1, 12)  # a Thursday; the first Monday is 5 January
MONDAYS_JAN_FEB = [
    utc(2026, 1, 5, 9),
    utc(2026, 1, 12, 9),
    utc(2026, 1, 19, 9),
    utc(2026, 1, 26, 9),
    utc(2026, 2, 2, 9),
    utc(2026, 2, 9, 9),
    utc(2026, 2, 16, 9),
    utc(2026, 2, 23, 9),
]


@pytest.fixture
def now():
    with time_machine.travel(NEW_YEAR, tick=False) as traveller:
        yield traveller


def cursor(series: EventSeries) -> datetime | None:
    return EventSeries.objects.get(pk=series.pk).last_generated_until


# -- the window --------------------------------------------------------------------------------
class TestWindow:
    def test_the_first_pass_materialises_every_monday_of_the_next_8_weeks(self, now):
        series = make_series()
        created = generate(series)
        assert [event.start for event in created] == MONDAYS_JAN_FEB
        assert starts(series) == MONDAYS_JAN_FEB
        assert cursor(series) == NEW_YEAR + timedelta(weeks=8)

    def test_occurrences_are_drafts_of_the_series_with_increasing_indexes(self, now):
        series = make_series()
        generate(series)
        events = occurrences(series)
        assert {(e.status, e.is_template, e.is_modified, e.attendee_count) for e in events} == {
            (Event.Status.DRAFT, False, False, 0)
        }
        assert [e.occurrence_index for e in events] == list(range(1, 9))
        assert {e.event_series_id for e in events} == {series.pk}

    def test_auto_publish_creates_open_occurrences(self, now):
        series = make_series(auto_publish=True)
        generate(series)
        assert {e.status for e in occurrences(series)} == {Event.Status.OPEN}

    def test_the_template_is_never_an_occurrence_but_its_start_is(self, now):
        series = make_series()
        generate(series)
        first = occurrences(series)[0]
        assert first.start == template_of(series).start == MONDAY_10_VIENNA
        assert first.pk != series.template_event_id

    def test_nothing_in_the_past_is_materialised(self):
        series = make_series(rule=make_rule(weekdays=[0], dtstart=utc(2025, 11, 3, 9)))
        with time_machine.travel(NEW_YEAR, tick=False):
            generate(series)
        assert starts(series)[0] == utc(2026, 1, 5, 9)

    def test_an_occurrence_exactly_at_the_horizon_is_included_and_not_repeated(self):
        series = make_series()
        at_horizon = utc(2026, 2, 23, 9)
        with time_machine.travel(at_horizon - timedelta(weeks=8), tick=False):
            assert generate(series)[-1].start == at_horizon
        with time_machine.travel(at_horizon + timedelta(hours=1), tick=False):
            generate(series)
        assert starts(series).count(at_horizon) == 1

    def test_the_window_rolls_forward_one_week_at_a_time(self, now):
        series = make_series()
        generate(series)
        now.shift(timedelta(weeks=1))
        created = generate(series)
        assert [(e.start, e.occurrence_index) for e in created] == [(utc(2026, 3, 2, 9), 9)]

    def test_a_manual_until_extends_the_pass(self, now):
        series = make_series()
        created = generate(series, until_override=utc(2026, 3, 31))
        assert created[-1].start == utc(2026, 3, 30, 8)  # 10:00 Vienna, summer time
        assert cursor(series) == utc(2026, 3, 31)

    @pytest.mark.parametrize(
        "until", [NEW_YEAR + timedelta(weeks=52, seconds=1), datetime(2026, 3, 1)]
    )
    def test_a_manual_until_beyond_52_weeks_or_without_offset_is_refused(self, now, until):
        series = make_series()
        with pytest.raises(InvalidInput):
            generate(series, until_override=until)
        assert occurrences(series) == []

    def test_until_and_count_end_the_series(self, now):
        counted = make_series(rule=make_rule(weekdays=[0], count=3))
        until = make_series(rule=make_rule(weekdays=[0], until=utc(2026, 1, 19, 9)))
        generate(counted)
        generate(until)
        assert starts(counted) == starts(until) == MONDAYS_JAN_FEB[:3]

    def test_inactive_or_incomplete_series_generate_nothing(self, now):
        paused = make_series(is_active=False)
        plain = EventSeries.objects.create(organization=make_org(), name="Plain", slug="plain")
        assert generate(paused) == generate(plain) == []
        assert cursor(paused) is None


# -- idempotency and exdates -------------------------------------------------------------------
class TestIdempotency:
    def test_two_passes_create_each_occurrence_once(self, now):
        series = make_series()
        generate(series)
        assert generate(series) == []
        assert starts(series) == MONDAYS_JAN_FEB

    def test_a_rescan_after_a_cursor_reset_creates_nothing_new(self, now):
        series = make_series()
        generate(series)
        EventSeries.objects.filter(pk=series.pk).update(last_generated_until=None)
        assert generate(series) == []
        assert len(occurrences(series)) == 8

    def test_an_exdate_is_never_materialised(self, now):
        series = make_series()
        EventSeries.objects.filter(pk=series.pk).update(
            exdates=[recurrence_service.exdate_key(utc(2026, 1, 12, 9))]
        )
        generate(series)
        EventSeries.objects.filter(pk=series.pk).update(last_generated_until=None)
        generate(series)
        assert utc(2026, 1, 12, 9) not in starts(series)
        assert len(starts(series)) == 7

    def test_an_exdate_written_in_another_offset_still_matches_its_instant(self, now):
        series = make_series()
        vienna_text = "2026-01-12T10:00:00+01:00"  # = 09:00 UTC
        EventSeries.objects.filter(pk=series.pk).update(exdates=[vienna_text])
        generate(series)
        assert utc(2026, 1, 12, 9) not in starts(series)

    def test_an_existing_occurrence_at_an_instant_is_not_duplicated(self, now):
        series = make_series()
        make_event(
            series.organization,
            event_series=series,
            start=utc(2026, 1, 19, 9),
            occurrence_index=40,
            status=Event.Status.DRAFT,
        )
        created = generate(series)
        assert utc(2026, 1, 19, 9) not in [e.start for e in created]
        assert starts(series).count(utc(2026, 1, 19, 9)) == 1
        assert [e.occurrence_index for e in created] == list(range(41, 48))


# -- the cursor --------------------------------------------------------------------------------
class TestCursor:
    def test_shrinking_the_window_cannot_stall_generation(self, now):
        series = make_series()
        generate(series)
        recurrence_service.update_series_recurrence(series, {}, generation_window_weeks=2)
        assert cursor(series) is None
        assert generate(series) == []
        assert cursor(series) == NEW_YEAR + timedelta(weeks=2)
        now.shift(timedelta(weeks=7))  # 19 February: horizon 5 March
        created = generate(series)
        assert [e.start for e in created] == [utc(2026, 3, 2, 9)]
        assert len(set(starts(series))) == len(starts(series)) == 9

    def test_a_cursor_beyond_the_horizon_is_clamped_to_it(self, now):
        series = make_series()
        EventSeries.objects.filter(pk=series.pk).update(
            last_generated_until=NEW_YEAR + timedelta(weeks=30)
        )
        assert generate(series) == []
        assert cursor(series) == NEW_YEAR + timedelta(weeks=8)
        now.shift(timedelta(weeks=1))
        assert [e.start for e in generate(series)] == [utc(2026, 3, 2, 9)]

    def test_growing_the_window_backfills_the_new_horizon(self, now):
        series = make_series()
        generate(series)
        recurrence_service.update_series_recurrence(series, {}, generation_window_weeks=12)
        created = generate(series)
        assert [e.start for e in created] == [
            utc(2026, 3, 2, 9),
            utc(2026, 3, 9, 9),
            utc(2026, 3, 16, 9),
            utc(2026, 3, 23, 9),
        ]

    def test_a_cadence_change_backfills_the_new_days_from_now(self, now):
        series = make_series()
        generate(series)
        recurrence_service.update_series_recurrence(series, {"weekdays": [0, 3]})
        created = generate(series)
        assert {e.start.weekday() for e in created} == {3}  # Thursdays at 09:00 UTC
        assert created[0].start == utc(2026, 1, 8, 9)
        assert len(created) == 8
        assert [e.occurrence_index for e in created] == list(range(9, 17))
        assert starts(series).count(utc(2026, 1, 5, 9)) == 1

    def test_an_unchanged_schedule_keeps_the_cursor(self, now):
        series = make_series(rule=make_rule(weekdays=[0]))
        generate(series)
        before = cursor(series)
        recurrence_service.update_series_recurrence(series, {"weekdays": [0]}, auto_publish=True)
        assert cursor(series) == before
        assert EventSeries.objects.get(pk=series.pk).auto_publish is True

    def test_pause_and_resume_leave_occurrences_and_cursor_alone(self, now):
        series = make_series()
        generate(series)
        before = [(e.pk, e.status, e.start) for e in occurrences(series)]
        recurrence_service.pause_series(series)
        now.shift(timedelta(weeks=2))
        assert generate(series) == []
        assert cursor(series) == NEW_YEAR + timedelta(weeks=8)
        recurrence_service.resume_series(series)
        assert [(e.pk, e.status, e.start) for e in occurrences(series)] == before
        assert cursor(series) == NEW_YEAR + timedelta(weeks=8)
        assert [e.start for e in generate(series)] == [utc(2026, 3, 2, 9), utc(2026, 3, 9, 9)]


# -- cloning -----------------------------------------------------------------------------------
class TestCloning:
    def test_every_datetime_shifts_by_the_occurrence_offset(self, now):
        start = MONDAY_10_VIENNA
        series = make_series(
            template={
                "end": start + timedelta(hours=2),
                "rsvp_before": start - timedelta(days=1),
                "check_in_starts_at": start - timedelta(minutes=30),
                "check_in_ends_at": start + timedelta(hours=3),
                "waitlist_time_window": timedelta(hours=2),
                "waitlist_cutoff_date": start - timedelta(hours=6),
            }
        )
        generate(series, until_override=utc(2026, 4, 10))
        for event in occurrences(series):
            shift = event.start - start
            assert event.end == event.start + timedelta(hours=2)
            assert event.rsvp_before == start - timedelta(days=1) + shift
            assert event.check_in_starts_at == event.start - timedelta(minutes=30)
            assert event.check_in_ends_at == event.start + timedelta(hours=3)
            assert event.waitlist_cutoff_date == event.start - timedelta(hours=6)

    def test_content_and_configuration_are_copied(self, now):
        org = make_org(timezone="Europe/Vienna")
        series = make_series(
            org,
            template={
                "description": "Bring a mat",
                "visibility": Event.Visibility.MEMBERS_ONLY,
                "requires_ticket": True,
                "max_attendees": 12,
                "visibility_settings": {"show_capacity": False, "show_attendee_count": True},
                "waitlist_open": True,
                "waitlist_batch_size": 3,
                "waitlist_lottery_mode": True,
            },
        )
        generate(series)
        template = template_of(series)
        event = occurrences(series)[0]
        for name in (
            "name",
            "description",
            "visibility",
            "requires_ticket",
            "max_attendees",
            "visibility_settings",
            "waitlist_open",
            "waitlist_batch_size",
            "waitlist_lottery_mode",
            "timezone",
            "organization_id",
        ):
            assert getattr(event, name) == getattr(template, name), name

    def test_tiers_are_cloned_with_shifted_sale_windows_and_nothing_sold(self, now):
        series = make_series(template={"requires_ticket": True})
        template = template_of(series)
        make_tier(
            template,
            name="Standard",
            price=Decimal("12.50"),
            total_quantity=20,
            payment_method=TicketTier.PaymentMethod.OFFLINE,
            sales_start_at=template.start - timedelta(days=14),
            sales_end_at=template.start - timedelta(hours=1),
        )
        TicketTier.objects.filter(event=template).update(quantity_sold=4)
        generate(series)
        clones = list(
            TicketTier.objects.filter(event__in=occurrences(series)).select_related("event")
        )
        assert len(clones) == 8
        for tier in clones:
            assert (tier.name, tier.price, tier.total_quantity, tier.quantity_sold) == (
                "Standard",
                Decimal("12.50"),
                20,
                0,
            )
            assert tier.payment_method == TicketTier.PaymentMethod.OFFLINE
            assert tier.sales_start_at == tier.event.start - timedelta(days=14)
            assert tier.sales_end_at == tier.event.start - timedelta(hours=1)
        assert TicketTier.objects.get(event=template).quantity_sold == 4

    def test_slugs_carry_the_date_in_the_rules_timezone(self, now):
        # 00:30 in Vienna on a Monday is still Sunday in UTC.
        rule = make_rule(weekdays=[0], dtstart=datetime(2026, 1, 4, 23, 30, tzinfo=UTC))
        series = make_series(rule=rule, template={"slug": "night-owls"})
        generate(series)
        assert occurrences(series)[0].slug == "night-owls-2026-01-05"

    def test_a_taken_slug_gets_a_short_random_suffix(self, now):
        series = make_series(template={"slug": "yoga"})
        make_event(series.organization, slug="yoga-2026-01-12")
        generate(series)
        second = occurrences(series)[1]
        assert second.slug.startswith("yoga-2026-01-12-")
        assert len(second.slug) == len("yoga-2026-01-12-") + 6
        assert occurrences(series)[0].slug == "yoga-2026-01-05"


# -- query counts ------------------------------------------------------------------------------
def count_queries(series: EventSeries, **kwargs) -> tuple[int, int]:
    fresh = EventSeries.objects.get(pk=series.pk)
    with CaptureQueriesContext(connection) as captured:
        created = recurrence_service.generate_series_events(fresh, **kwargs)
    return len(created), len(captured.captured_queries)


class TestQueryCounts:
    def _series_with_tier(self) -> EventSeries:
        series = make_series(rule=make_rule(weekdays=[0, 2, 4]), template={"requires_ticket": True})
        make_tier(template_of(series), name="General admission")
        return series

    def test_generation_costs_at_most_2_queries_per_occurrence_plus_a_constant(self, now):
        small, large = self._series_with_tier(), self._series_with_tier()
        created_small, queries_small = count_queries(small, until_override=utc(2026, 1, 10))
        created_large, queries_large = count_queries(large, until_override=utc(2026, 3, 14))
        assert (created_small, created_large) == (3, 30)
        assert queries_large - queries_small <= 2 * (30 - 3)
        # The constant includes the lock and the read after it (`locks.lock_series`: two
        # statements, so that the rule and template are read fresh after a lock wait).
        assert queries_small <= 13
        assert queries_large <= 2 * 30 + 13

    def test_bulk_inserts_make_the_cost_flat(self, now):
        small, large = self._series_with_tier(), self._series_with_tier()
        _, queries_small = count_queries(small, until_override=utc(2026, 1, 10))
        _, queries_large = count_queries(large, until_override=utc(2026, 12, 31))
        assert queries_large - queries_small <= 12  # a few extra bulk batches on SQLite

    def test_a_pass_with_nothing_to_create_costs_at_most_6_queries(self, now):
        series = self._series_with_tier()
        generate(series)
        created, queries = count_queries(series)
        assert (created, queries <= 6) == (0, True)
        EventSeries.objects.filter(pk=series.pk).update(last_generated_until=None)
        created, queries = count_queries(series)
        assert (created, queries <= 6) == (0, True)
