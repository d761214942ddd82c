"""A running series changed: time of day, duration, cadence; stale dates kept or cancelled.

The series is "Mondays 10:00 Europe/Vienna" from 5 January 2026; the clock is moved past
the first occurrences, so every test has past, future and (where it matters) edited ones.
"""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.exceptions import ValidationError

from accounts.tests.factories import make_user
from common.errors import InvalidInput
from events.core.services import event_service
from events.models import Event, EventRSVP, EventSeries, WaitlistOffer
from events.series import services as recurrence_service
from events.series.services import SeriesChange
from events.series.tests.recurrence_builders import (
    generate,
    make_rule,
    make_series,
    occurrences,
    template_of,
    utc,
)
from events.waitlist.tests.waitlist_builders import give_offer
from notifications.models import Notification, NotificationType

pytestmark = pytest.mark.django_db

VIENNA = ZoneInfo("Europe/Vienna")


@pytest.fixture
def clock():
    with time_machine.travel(utc(2026, 1, 1, 12), tick=False) as traveller:
        yield traveller


def local(moment: datetime) -> datetime:
    return moment.astimezone(VIENNA)


def fresh(series: EventSeries) -> EventSeries:
    return EventSeries.objects.select_related("recurrence_rule", "template_event").get(pk=series.pk)


def apply(series: EventSeries, **change) -> recurrence_service.AppliedChange:
    return recurrence_service.apply_series_change(fresh(series), SeriesChange(**change))


def preview(series: EventSeries, **change) -> recurrence_service.ChangePlan:
    return recurrence_service.preview_series_change(fresh(series), SeriesChange(**change))


def vienna_series(dtstart: datetime, weeks: int = 16, **rule) -> EventSeries:
    series = make_series(
        rule=make_rule(dtstart=dtstart, **rule),
        template={"end": dtstart + timedelta(hours=1)},
        generation_window_weeks=weeks,
        auto_publish=True,
    )
    generate(series)
    return series


def at_local(moment: datetime, hour: int) -> datetime:
    """`moment`'s local date in Vienna at `hour`:00, as a UTC instant."""
    day = local(moment).date()
    return datetime(day.year, day.month, day.day, hour, tzinfo=VIENNA).astimezone(UTC)


class TestTimeOfDay:
    @pytest.mark.parametrize(
        ("dtstart", "today", "switch"),
        [
            (utc(2026, 1, 5, 9), utc(2026, 1, 20), utc(2026, 3, 29, 1)),  # into summer time
            (utc(2026, 9, 7, 8), utc(2026, 9, 22), utc(2026, 10, 25, 1)),  # back to winter
        ],
        ids=["late_march", "late_october"],
    )
    def test_future_unmodified_move_keeping_the_wall_clock_across_dst(
        self, clock, dtstart, today, switch, django_capture_on_commit_callbacks
    ):
        clock.move_to(dtstart - timedelta(days=4))
        series = vienna_series(dtstart)
        events = occurrences(series)
        assert events[0].start < switch < events[-1].start  # the window spans the switch
        clock.move_to(today)
        past = [e for e in events if e.start < today]
        edited = [e for e in events if e.start > today][1]
        event_service.update_event(edited, {"description": "Guest teacher"})
        guest = make_user()
        moving = [e for e in events if e.start > today and e.pk != edited.pk]
        EventRSVP.objects.create(event=moving[0], user=guest, status="yes")
        offer = give_offer(moving[0], make_user(), expires_at=today + timedelta(days=1))

        with django_capture_on_commit_callbacks(execute=True):
            applied = apply(series, rule_changes={"dtstart": at_local(dtstart, 11)})

        after = {e.pk: e for e in occurrences(series)}
        days = [local(e.start).date() for e in after.values()]
        assert len(set(days)) == len(days), "no second occurrence for any date"
        assert set(after) == {e.pk for e in events} | set(applied.created)
        assert sorted(applied.moved) == sorted(e.pk for e in moving)
        for event in moving:
            moved = after[event.pk]
            assert (local(moved.start).date(), local(moved.start).hour) == (
                local(event.start).date(),
                11,
            )
            assert moved.end - moved.start == timedelta(hours=1)
        for event in [*past, edited]:
            assert after[event.pk].start == event.start
        assert template_of(series).start == at_local(dtstart, 11)
        told = Notification.objects.filter(notification_type=NotificationType.EVENT_UPDATED)
        assert list(told.values_list("user_id", flat=True)) == [guest.pk]
        assert EventRSVP.objects.filter(event=moving[0], user=guest, status="yes").exists()
        assert WaitlistOffer.objects.get(pk=offer.pk).status == offer.status

    def test_a_time_already_passed_today_leaves_todays_occurrence_stale(self, clock):
        series = vienna_series(utc(2026, 1, 5, 17), weeks=4)  # Mondays 18:00
        clock.move_to(utc(2026, 1, 12, 11))  # Monday 12:00: today's class is still ahead
        today, *later = [e for e in occurrences(series) if e.start > utc(2026, 1, 12)]
        plan = preview(series, rule_changes={"dtstart": utc(2026, 1, 5, 9)})  # to 10:00
        assert [entry.event_id for entry in plan.stale] == [today.pk]
        assert sorted(m.event_id for m in plan.moved) == sorted(e.pk for e in later)
        apply(series, rule_changes={"dtstart": utc(2026, 1, 5, 9)})
        assert Event.objects.get(pk=today.pk).start == today.start

    def test_a_rescan_after_the_move_creates_nothing(self, clock):
        series = vienna_series(utc(2026, 1, 5, 9))
        clock.move_to(utc(2026, 1, 20))
        edited = occurrences(series)[4]
        event_service.update_event(edited, {"description": "Guest teacher"})
        apply(series, rule_changes={"dtstart": utc(2026, 1, 5, 10)})
        before = len(occurrences(series))
        EventSeries.objects.filter(pk=series.pk).update(last_generated_until=None)
        assert generate(series) == []
        assert len(occurrences(series)) == before

    def test_a_cancelled_date_stays_cancelled_at_the_new_time(self, clock):
        series = vienna_series(utc(2026, 1, 5, 9), weeks=4)
        cancelled = occurrences(series)[2]
        recurrence_service.cancel_occurrence(fresh(series), cancelled.start)
        beyond = utc(2026, 3, 2, 9)  # a Monday beyond the window, excluded in advance
        recurrence_service.cancel_occurrence(fresh(series), beyond)
        apply(series, rule_changes={"dtstart": utc(2026, 1, 5, 10)}, generation_window_weeks=12)
        days = [local(e.start).date() for e in occurrences(series)]
        assert days.count(local(cancelled.start).date()) == 1
        assert local(beyond).date() not in days
        assert Event.objects.get(pk=cancelled.pk).status == Event.Status.CANCELLED


class TestDuration:
    def test_a_new_duration_moves_the_ends_of_future_unmodified_ones(self, clock):
        series = vienna_series(utc(2026, 1, 5, 9), weeks=6)
        clock.move_to(utc(2026, 1, 14))
        past, future = occurrences(series)[:2], occurrences(series)[2:]
        applied = apply(series, duration=timedelta(minutes=90))
        assert sorted(applied.moved) == sorted(e.pk for e in future)
        after = {e.pk: e for e in occurrences(series)}
        future = [e for e in after.values() if e.start > utc(2026, 1, 14)]
        assert len(future) == 4 + len(applied.created)
        assert all(e.end - e.start == timedelta(minutes=90) for e in future)
        assert all(e.check_in_ends_at == e.end for e in future)
        assert all(after[e.pk].end == e.end for e in past)
        template = template_of(series)
        assert template.end - template.start == timedelta(minutes=90)

    @pytest.mark.parametrize("minutes", [0, -30, 60 * 24 * 32])
    def test_a_duration_out_of_bounds_is_400_and_writes_nothing(self, clock, minutes):
        series = vienna_series(utc(2026, 1, 5, 9), weeks=4)
        ends = [e.end for e in occurrences(series)]
        with pytest.raises(InvalidInput) as refused:
            apply(series, duration=timedelta(minutes=minutes))
        assert "duration" in refused.value.extra["errors"]
        assert [e.end for e in occurrences(series)] == ends


def mon_wed_fri(weeks: int = 6) -> EventSeries:
    return vienna_series(utc(2026, 1, 5, 9), weeks=weeks, weekdays=[0, 2, 4])


class TestCadenceTurnover:
    def test_one_call_turns_the_series_over(self, clock):
        series = mon_wed_fri()
        old = occurrences(series)
        applied = apply(series, rule_changes={"weekdays": [1, 3]}, stale="cancel")
        live = [e for e in occurrences(series) if e.status != Event.Status.CANCELLED]
        assert {local(e.start).weekday() for e in live} == {1, 3}
        assert sorted(applied.cancelled) == sorted(e.pk for e in old)
        assert sorted(applied.created) == sorted(e.pk for e in live)
        assert len(live) == len({local(e.start).date() for e in live})
        assert recurrence_service.detect_cadence_drift(series) == []

    def test_keep_leaves_the_stale_ones_open_and_drift_reports_exactly_them(self, clock):
        series = mon_wed_fri()
        plan = preview(series, rule_changes={"weekdays": [0, 3]})
        applied = apply(series, rule_changes={"weekdays": [0, 3]})
        stale_ids = sorted(s.event_id for s in plan.stale)
        assert applied.cancelled == []
        assert sorted(recurrence_service.detect_cadence_drift(series)) == stale_ids
        kept = Event.objects.filter(pk__in=stale_ids)
        assert {local(e.start).weekday() for e in kept} == {2, 4}
        assert {e.status for e in kept} == {Event.Status.OPEN}

    def test_the_preview_counts_attendees_and_queue_and_writes_nothing(self, clock):
        series = mon_wed_fri()
        wednesday = next(e for e in occurrences(series) if local(e.start).weekday() == 2)
        Event.objects.filter(pk=wednesday.pk).update(attendee_count=3)
        wednesday.waitlist.create(user=make_user())
        rule_before = recurrence_service.rule_of(fresh(series)).rrule_string
        plan = preview(series, rule_changes={"weekdays": [0, 4]})
        entry = next(s for s in plan.stale if s.event_id == wednesday.pk)
        assert (entry.attendees, entry.queued) == (3, 1)
        assert recurrence_service.rule_of(fresh(series)).rrule_string == rule_before
        assert recurrence_service.detect_cadence_drift(series) == []

    def test_an_invalid_rule_is_400_and_changes_nothing(self, clock):
        series = mon_wed_fri()
        before = [(e.pk, e.start, e.status) for e in occurrences(series)]
        with pytest.raises(ValidationError):
            apply(series, rule_changes={"weekdays": [9]}, stale="cancel")
        assert [(e.pk, e.start, e.status) for e in occurrences(series)] == before
        assert recurrence_service.rule_of(fresh(series)).weekdays == [0, 2, 4]
