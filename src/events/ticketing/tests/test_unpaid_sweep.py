"""The hourly sweep of unpaid offline tickets: `events.expire_unpaid_tickets`."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django_celery_beat.models import PeriodicTask

from accounts.tests.factories import make_user
from events import tasks
from events.models import Event, Ticket, TicketTier
from events.ticketing.services import ticket_admin as ticket_admin_service
from events.ticketing.tests.ticket_helpers import (
    assert_counters_true,
    buy,
    free_tier,
    offline_tier,
    ticketed_event,
)

pytestmark = pytest.mark.django_db

T0 = datetime(2031, 3, 1, 12, 0, tzinfo=UTC)


def buy_at(moment: datetime, event: Event, tier: TicketTier, count: int = 1) -> list[Ticket]:
    with time_machine.travel(moment, tick=False):
        return buy(event, tier, make_user(), count)


def sweep_at(moment: datetime) -> ticket_admin_service.UnpaidSweepResult:
    with time_machine.travel(moment, tick=False):
        return ticket_admin_service.expire_unpaid_tickets()


def event_and_tier(**tier_fields: object) -> tuple[Event, TicketTier]:
    event = ticketed_event(start=T0 + timedelta(days=30), max_attendees=5)
    return event, offline_tier(event, **tier_fields)


def test_unpaid_ticket_past_its_deadline_is_cancelled_and_frees_its_seat(
    dispatched, django_capture_on_commit_callbacks
):
    event, tier = event_and_tier(payment_due_hours=72)
    [ticket] = buy_at(T0, event, tier)

    with django_capture_on_commit_callbacks(execute=True):
        result = sweep_at(T0 + timedelta(hours=72, minutes=1))

    ticket.refresh_from_db()
    assert (ticket.status, ticket.cancellation_reason) == (Ticket.Status.CANCELLED, "unpaid")
    assert ticket.cancelled_at == T0 + timedelta(hours=72, minutes=1)
    assert result.cancelled_tickets == 1
    assert result.event_ids == (event.pk,)
    assert dispatched == [event.pk]
    assert_counters_true(event)
    assert event.attendee_count == 0


def test_ticket_inside_its_payment_window_is_left_alone(
    dispatched, django_capture_on_commit_callbacks
):
    event, tier = event_and_tier(payment_due_hours=72)
    [ticket] = buy_at(T0, event, tier)

    with django_capture_on_commit_callbacks(execute=True):
        result = sweep_at(T0 + timedelta(hours=71, minutes=59))

    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.PENDING
    assert result.cancelled_tickets == 0
    assert dispatched == []
    assert_counters_true(event)


def test_each_tier_has_its_own_deadline():
    event, quick = event_and_tier(payment_due_hours=24)
    slow = offline_tier(event, payment_due_hours=72)
    [quick_ticket] = buy_at(T0, event, quick)
    [slow_ticket] = buy_at(T0, event, slow)

    sweep_at(T0 + timedelta(hours=25))

    quick_ticket.refresh_from_db()
    slow_ticket.refresh_from_db()
    assert quick_ticket.status == Ticket.Status.CANCELLED
    assert slow_ticket.status == Ticket.Status.PENDING
    assert_counters_true(event)


def test_paid_and_free_tickets_are_never_swept():
    event, tier = event_and_tier(payment_due_hours=1)
    [paid] = buy_at(T0, event, tier)
    buy_at(T0, event, free_tier(event))
    ticket_admin_service.confirm_payment(event, paid.pk)

    result = sweep_at(T0 + timedelta(days=10))

    assert result.cancelled_tickets == 0
    assert set(Ticket.objects.values_list("status", flat=True)) == {Ticket.Status.ACTIVE}
    assert_counters_true(event)


def test_one_processing_pass_per_affected_event(dispatched, django_capture_on_commit_callbacks):
    first, first_tier = event_and_tier(payment_due_hours=1)
    second, second_tier = event_and_tier(payment_due_hours=1)
    untouched, untouched_tier = event_and_tier(payment_due_hours=100)
    buy_at(T0, first, first_tier, 2)
    buy_at(T0 + timedelta(minutes=5), first, first_tier, 1)
    buy_at(T0, second, second_tier, 1)
    buy_at(T0, untouched, untouched_tier, 1)

    with django_capture_on_commit_callbacks(execute=True):
        result = sweep_at(T0 + timedelta(hours=2))

    assert result.cancelled_tickets == 4
    assert sorted(dispatched) == sorted([first.pk, second.pk])
    for event in (first, second, untouched):
        assert_counters_true(event)


def test_second_sweep_finds_nothing(dispatched, django_capture_on_commit_callbacks):
    event, tier = event_and_tier(payment_due_hours=1)
    buy_at(T0, event, tier, 2)
    sweep_at(T0 + timedelta(hours=2))

    with django_capture_on_commit_callbacks(execute=True):
        again = sweep_at(T0 + timedelta(hours=3))

    assert again.cancelled_tickets == 0
    assert dispatched == []
    assert_counters_true(event)


def test_swept_seat_can_be_sold_again():
    event, tier = event_and_tier(payment_due_hours=1)
    Event.objects.filter(pk=event.pk).update(max_attendees=1)
    event.refresh_from_db()
    buy_at(T0, event, tier)

    sweep_at(T0 + timedelta(hours=2))
    [ticket] = buy_at(T0 + timedelta(hours=2), event, tier)

    assert ticket.status == Ticket.Status.PENDING
    assert_counters_true(event)
    assert event.attendee_count == 1


def test_celery_task_runs_the_sweep():
    event, tier = event_and_tier(payment_due_hours=1)
    buy_at(T0, event, tier)

    with time_machine.travel(T0 + timedelta(hours=2), tick=False):
        outcome = tasks.expire_unpaid_tickets.delay().get()

    assert outcome == {
        "cancelled_tickets": 1,
        "event_ids": [str(event.pk)],
        "skipped_busy_event_ids": [],
    }
    assert tasks.expire_unpaid_tickets.name == "events.expire_unpaid_tickets"


def test_beat_schedule_runs_the_sweep_hourly_at_minute_15_utc():
    task = PeriodicTask.objects.select_related("crontab").get(task="events.expire_unpaid_tickets")

    assert task.enabled
    crontab = task.crontab
    assert crontab is not None
    assert (crontab.minute, crontab.hour, crontab.day_of_week) == ("15", "*", "*")
    assert (crontab.day_of_month, crontab.month_of_year) == ("*", "*")
    assert str(crontab.timezone) == "UTC"
