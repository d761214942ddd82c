"""Drift detection, cancelling one occurrence, cancelling stale dates, is_modified."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.tests.factories import make_user
from common.errors import InvalidInput
from events.core.services import event_service
from events.models import Event, EventRSVP, EventSeries, WaitlistOffer
from events.series import services as recurrence_service
from events.series.errors import NotAnOccurrence
from events.series.tests.recurrence_builders import (
    generate,
    make_rule,
    make_series,
    occurrences,
    starts,
    template_of,
    utc,
)
from events.waitlist.tests.waitlist_builders import give_offer
from notifications.models import Notification, NotificationType

pytestmark = pytest.mark.django_db

NEW_YEAR = utc(2026, 1, 1, 12)


@pytest.fixture
def now():
    with time_machine.travel(NEW_YEAR, tick=False) as traveller:
        yield traveller


def drift(series: EventSeries) -> list:
    return recurrence_service.detect_cadence_drift(series)


def by_start(series: EventSeries) -> dict[datetime, Event]:
    return {event.start: event for event in occurrences(series)}


def exdates(series: EventSeries) -> list[str]:
    return EventSeries.objects.get(pk=series.pk).exdates


# -- drift ---------------------------------------------------------------------------------------
class TestDrift:
    def test_an_untouched_series_has_no_drift(self, now):
        series = make_series()
        generate(series)
        assert drift(series) == []

    @pytest.mark.parametrize("zone", ["Europe/Vienna", "America/New_York"])
    def test_daylight_saving_switches_are_not_drift(self, now, zone):
        dtstart = datetime(2026, 1, 5, 10, tzinfo=ZoneInfo(zone))
        series = make_series(rule=make_rule(weekdays=[0], timezone=zone, dtstart=dtstart))
        generate(series, until_override=utc(2026, 12, 20))
        assert {event.start.astimezone(ZoneInfo(zone)).hour for event in occurrences(series)} == {
            10
        }
        assert len({event.start.hour for event in occurrences(series)}) == 2  # two UTC offsets
        assert drift(series) == []

    def test_after_moving_mondays_to_thursdays_future_unmodified_mondays_drift(self, now):
        series = make_series()
        generate(series)
        events = by_start(series)
        modified = events[utc(2026, 2, 9, 9)]
        event_service.update_event(modified, {"description": "Special guest"})
        cancelled = events[utc(2026, 2, 16, 9)]
        event_service.change_status(cancelled, Event.Status.CANCELLED)
        recurrence_service.update_series_recurrence(series, {"weekdays": [3]})
        now.move_to(utc(2026, 1, 20))  # 5, 12 and 19 January are past
        expected = [
            events[utc(2026, 1, 26, 9)].pk,
            events[utc(2026, 2, 2, 9)].pk,
            events[utc(2026, 2, 23, 9)].pk,
        ]
        assert drift(series) == expected

    def test_an_occurrence_on_an_exdate_is_drift(self, now):
        series = make_series()
        generate(series)
        target = by_start(series)[utc(2026, 1, 19, 9)]
        EventSeries.objects.filter(pk=series.pk).update(exdates=["2026-01-19T09:00:00+00:00"])
        assert drift(series) == [target.pk]

    def test_drift_costs_a_fixed_number_of_queries(self, now):
        small = make_series(rule=make_rule(weekdays=[0], count=3))
        large = make_series(rule=make_rule(weekdays=[0, 1, 2, 3, 4]))
        generate(small)
        generate(large, until_override=utc(2026, 2, 14))
        recurrence_service.update_series_recurrence(large, {"weekdays": [5]})
        counts = []
        for series in (small, large):
            fresh = EventSeries.objects.get(pk=series.pk)
            with CaptureQueriesContext(connection) as captured:
                found = drift(fresh)
            counts.append((len(found), len(captured.captured_queries)))
        assert counts == [(0, 2), (30, 2)]


# -- cancel one occurrence -----------------------------------------------------------------------
class TestCancelOccurrence:
    def test_a_materialised_occurrence_is_cancelled_and_excluded(self, now):
        series = make_series()
        generate(series)
        target = by_start(series)[utc(2026, 1, 12, 9)]
        result = recurrence_service.cancel_occurrence(series, utc(2026, 1, 12, 9))
        assert result.exdate == "2026-01-12T09:00:00+00:00"
        assert result.cancelled_event_ids == [target.pk]
        assert exdates(series) == ["2026-01-12T09:00:00+00:00"]
        assert Event.objects.get(pk=target.pk).status == Event.Status.CANCELLED
        others = [e for e in occurrences(series) if e.pk != target.pk]
        assert {e.status for e in others} == {Event.Status.DRAFT}

    def test_its_pending_offers_are_revoked_as_event_cancelled(self, now):
        series = make_series(auto_publish=True)
        generate(series)
        target = by_start(series)[utc(2026, 1, 12, 9)]
        other = by_start(series)[utc(2026, 1, 19, 9)]
        offer = give_offer(target, make_user(), expires_at=NEW_YEAR + timedelta(hours=3))
        untouched = give_offer(other, make_user(), expires_at=NEW_YEAR + timedelta(hours=3))
        recurrence_service.cancel_occurrence(series, utc(2026, 1, 12, 9))
        offer.refresh_from_db()
        untouched.refresh_from_db()
        assert (offer.status, offer.revoked_reason) == ("revoked", "event_cancelled")
        assert untouched.status == WaitlistOffer.WaitlistOfferStatus.PENDING

    def test_its_attendees_hear_of_the_cancellation(self, now, django_capture_on_commit_callbacks):
        series = make_series(auto_publish=True)
        generate(series)
        target = by_start(series)[utc(2026, 1, 12, 9)]
        guest = make_user()
        EventRSVP.objects.create(event=target, user=guest, status=EventRSVP.Status.YES)
        with django_capture_on_commit_callbacks(execute=True):
            recurrence_service.cancel_occurrence(series, utc(2026, 1, 12, 9))
        cancelled = Notification.objects.filter(notification_type=NotificationType.EVENT_CANCELLED)
        assert list(cancelled.values_list("user_id", flat=True)) == [guest.pk]

    def test_a_future_instant_not_yet_materialised_is_excluded_for_good(self, now):
        series = make_series()
        generate(series)
        later = utc(2026, 4, 6, 8)  # a Monday 10:00 Vienna in summer time
        result = recurrence_service.cancel_occurrence(series, later)
        assert result.cancelled_event_ids == []
        generate(series, until_override=utc(2026, 4, 30))
        assert later not in starts(series)
        assert utc(2026, 3, 30, 8) in starts(series)

    def test_another_offset_for_the_same_instant_is_one_exdate(self, now):
        series = make_series()
        vienna = datetime(2026, 1, 12, 10, tzinfo=ZoneInfo("Europe/Vienna"))
        recurrence_service.cancel_occurrence(series, vienna)
        recurrence_service.cancel_occurrence(series, utc(2026, 1, 12, 9))
        assert exdates(series) == ["2026-01-12T09:00:00+00:00"]

    def test_a_date_that_is_no_occurrence_is_refused_and_writes_nothing(self, now):
        series = make_series()
        generate(series)
        with pytest.raises(NotAnOccurrence) as refused:
            recurrence_service.cancel_occurrence(series, utc(2026, 1, 13, 9))
        assert (refused.value.status_code, refused.value.code) == (400, "not_an_occurrence")
        assert exdates(series) == []

    def test_a_moved_occurrence_can_be_cancelled_at_its_new_time(self, now):
        series = make_series()
        generate(series)
        moved = by_start(series)[utc(2026, 1, 12, 9)]
        event_service.update_event(moved, {"start": utc(2026, 1, 13, 17)})
        result = recurrence_service.cancel_occurrence(series, utc(2026, 1, 13, 17))
        assert result.cancelled_event_ids == [moved.pk]

    def test_a_moved_occurrence_keeps_its_slot_when_the_rule_is_scanned_again(self, now):
        """Moving an occurrence does not free its date: after a cadence change resets the
        cursor, the re-scan must not create a second event for the original instant."""
        series = make_series()
        generate(series)
        moved = by_start(series)[utc(2026, 1, 12, 9)]
        event_service.update_event(moved, {"start": utc(2026, 1, 13, 17)})
        recurrence_service.update_series_recurrence(series, {"weekdays": [0, 2]})

        created = generate(series)

        assert utc(2026, 1, 12, 9) not in by_start(series)
        assert by_start(series)[utc(2026, 1, 13, 17)].pk == moved.pk
        assert created and {event.start.weekday() for event in created} == {2}

    def test_a_naive_datetime_is_refused(self, now):
        series = make_series()
        with pytest.raises(InvalidInput):
            recurrence_service.cancel_occurrence(series, datetime(2026, 1, 12, 9))
        assert exdates(series) == []


# -- cancel stale --------------------------------------------------------------------------------
def test_cancel_stale_cancels_exactly_what_drift_reports(now):
    series = make_series()
    generate(series)
    recurrence_service.update_series_recurrence(series, {"weekdays": [0, 3]})
    generate(series)  # Thursdays join the Mondays
    recurrence_service.update_series_recurrence(series, {"weekdays": [3]})
    reported = drift(series)
    cancelled = recurrence_service.cancel_stale_occurrences(series)
    assert cancelled == reported
    assert len(cancelled) == 8
    statuses: dict[int, set[str]] = {e.start.weekday(): set() for e in occurrences(series)}
    for event in occurrences(series):
        statuses[event.start.weekday()].add(event.status)
    assert statuses == {0: {Event.Status.CANCELLED}, 3: {Event.Status.DRAFT}}
    assert drift(series) == []


# -- is_modified -----------------------------------------------------------------------------------
class TestIsModified:
    def test_an_organisers_edit_of_an_occurrence_marks_it_modified(self, now):
        series = make_series()
        generate(series)
        target = occurrences(series)[0]
        event_service.update_event(target, {"max_attendees": 30})
        assert Event.objects.get(pk=target.pk).is_modified is True
        assert {e.is_modified for e in occurrences(series)[1:]} == {False}

    def test_an_edit_that_changes_nothing_does_not(self, now):
        series = make_series()
        generate(series)
        target = occurrences(series)[0]
        event_service.update_event(target, {"name": target.name})
        assert Event.objects.get(pk=target.pk).is_modified is False

    def test_the_template_is_never_marked_modified(self, now):
        series = make_series()
        event_service.update_event(template_of(series), {"description": "New text"})
        assert template_of(series).is_modified is False


def test_exdates_are_utc_iso_strings(now):
    series = make_series()
    recurrence_service.cancel_occurrence(series, utc(2026, 2, 2, 9))
    stored = exdates(series)[0]
    assert datetime.fromisoformat(stored).utcoffset() == timedelta(0)
    assert datetime.fromisoformat(stored) == datetime(2026, 2, 2, 9, tzinfo=UTC)
