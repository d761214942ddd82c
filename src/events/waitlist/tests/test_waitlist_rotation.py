"""Seconds, not hours (issue 12, items 1 and 2): each batch schedules its own expiry, a
lapsed hold is handed on at its deadline, and a holder may decline and stay queued.

Celery is eager here, so a processing pass runs inside
`django_capture_on_commit_callbacks(execute=True)`; the ETA dispatches are recorded
(`scheduled`), and the expiry task is run by hand at the times it was scheduled for.
"""

from contextlib import contextmanager
from datetime import timedelta

import pytest
import time_machine
from django.db import transaction

from events import tasks
from events.models import EventWaitList
from events.waitlist import services as waitlist_service
from events.waitlist.services.triggering import EXPIRY_HOP
from events.waitlist.tests.rotation_support import scheduled
from events.waitlist.tests.waitlist_builders import (
    T0,
    WINDOW,
    Status,
    active_event,
    give_offer,
    offer_of,
    offered_ids,
    queue_in_order,
)
from notifications.models import Notification, NotificationType

__all__ = ["scheduled"]  # the fixture, imported for pytest

pytestmark = pytest.mark.django_db

DEADLINE = T0 + WINDOW


def rotated_at(event, user):
    return EventWaitList.objects.get(event=event, user=user).last_offer_expired_at


@contextmanager
def committed_at(moment, capture):
    """At `moment` (the clock stopped), with the after-commit work of the block run at
    its end, as a real commit would (the test's transaction never commits)."""
    with time_machine.travel(moment, tick=False), capture(execute=True):
        yield


def first_batch(event, capture):
    """The first pass at T0: one seat, the head of the queue is offered."""
    with committed_at(T0, capture):
        waitlist_service.enqueue_waitlist_processing(event.pk)


class TestEachBatchSchedulesItsExpiry:
    def test_a_batch_schedules_the_expiry_task_for_its_deadline_after_commit(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        event = active_event(1)
        [head, _] = queue_in_order(event, 2)

        first_batch(event, django_capture_on_commit_callbacks)

        [expiry] = scheduled.expiries()
        assert offered_ids(event) == {head.pk}
        assert expiry.args[0] == str(event.pk)
        assert expiry.due == DEADLINE == offer_of(event, head).expires_at
        # a two-hour window is waited for in hops (see the next test), the deadline last
        assert expiry.eta == min(DEADLINE, T0 + EXPIRY_HOP)

    def test_a_long_window_is_waited_for_in_hops_shorter_than_the_redis_visibility(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        event = active_event(1, waitlist_time_window=timedelta(days=3))
        queue_in_order(event, 1)

        first_batch(event, django_capture_on_commit_callbacks)

        [expiry] = scheduled.expiries()
        assert expiry.due == T0 + timedelta(days=3)
        assert T0 < expiry.eta <= T0 + timedelta(hours=1)

    def test_a_rolled_back_batch_schedules_nothing(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        event = active_event(1)
        queue_in_order(event, 1)

        with (
            committed_at(T0, django_capture_on_commit_callbacks),
            pytest.raises(RuntimeError),
            transaction.atomic(),
        ):
            waitlist_service.process_waitlist_for_event(event.pk)
            raise RuntimeError("rolled back")

        assert scheduled.expiries() == []


class TestTheExpiryTaskAtTheDeadline:
    def test_the_lapsed_holder_rotates_and_the_next_member_is_offered_in_the_same_run(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        event = active_event(1)
        [head, second] = queue_in_order(event, 2)
        first_batch(event, django_capture_on_commit_callbacks)

        with committed_at(DEADLINE, django_capture_on_commit_callbacks):
            outcome = tasks.expire_event_offers_task(str(event.pk), DEADLINE.isoformat())

        assert outcome == {"expired": 1, "offers_created": 1, "early": False}
        assert offer_of(event, head).status == Status.EXPIRED
        assert offer_of(event, head).declined_at is None
        assert rotated_at(event, head) == DEADLINE
        assert offered_ids(event) == {second.pk}
        # the next batch schedules its own expiry
        assert [s.due for s in scheduled.expiries()] == [DEADLINE, DEADLINE + WINDOW]

    def test_the_lapsed_holder_is_told_they_are_back_in_line_as_after_the_sweep(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        event = active_event(1)
        [head, _] = queue_in_order(event, 2)
        first_batch(event, django_capture_on_commit_callbacks)

        with committed_at(DEADLINE, django_capture_on_commit_callbacks):
            waitlist_service.expire_event_offers(event.pk, DEADLINE)

        assert Notification.objects.filter(
            user=head, notification_type=NotificationType.WAITLIST_OFFER_EXPIRED
        ).exists()

    def test_running_twice_or_late_changes_nothing_more(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        event = active_event(1)
        [head, second, third] = queue_in_order(event, 3)
        first_batch(event, django_capture_on_commit_callbacks)
        with committed_at(DEADLINE, django_capture_on_commit_callbacks):
            waitlist_service.expire_event_offers(event.pk, DEADLINE)

        with time_machine.travel(DEADLINE + timedelta(minutes=5), tick=False):
            again = waitlist_service.expire_event_offers(event.pk, DEADLINE)

        assert again == waitlist_service.EventExpiry()
        assert offered_ids(event) == {second.pk}
        assert offer_of(event, second).expires_at == DEADLINE + WINDOW
        assert rotated_at(event, head) == DEADLINE
        assert rotated_at(event, third) is None

    def test_an_early_run_touches_nothing_and_sends_itself_again_for_the_deadline(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        event = active_event(1)
        [head, _] = queue_in_order(event, 2)
        give_offer(event, head, expires_at=DEADLINE)

        with committed_at(DEADLINE - timedelta(seconds=30), django_capture_on_commit_callbacks):
            early = waitlist_service.expire_event_offers(event.pk, DEADLINE)

        assert early.early and early.expired == 0
        assert offer_of(event, head).status == Status.PENDING
        [again] = scheduled.expiries()
        assert (again.due, again.eta) == (DEADLINE, DEADLINE)

    def test_a_run_after_the_sweep_got_there_first_does_nothing(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        event = active_event(1)
        [_, second] = queue_in_order(event, 2)
        first_batch(event, django_capture_on_commit_callbacks)
        with time_machine.travel(T0 + timedelta(hours=3), tick=False):
            with django_capture_on_commit_callbacks(execute=True):
                waitlist_service.expire_waitlist_offers()
            late = waitlist_service.expire_event_offers(event.pk, DEADLINE)

        assert late.expired == 0
        assert offered_ids(event) == {second.pk}

    def test_offers_of_other_events_are_left_to_their_own_task(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        event, other = active_event(1), active_event(1)
        [holder] = queue_in_order(event, 1)
        [other_holder] = queue_in_order(other, 1)
        give_offer(event, holder, expires_at=DEADLINE)
        give_offer(other, other_holder, expires_at=DEADLINE)

        with time_machine.travel(DEADLINE, tick=False):
            waitlist_service.expire_event_offers(event.pk, DEADLINE)

        assert offer_of(event, holder).status == Status.EXPIRED
        assert offer_of(other, other_holder).status == Status.PENDING


class TestAdminOffersReschedule:
    def test_an_organiser_offer_schedules_the_expiry_for_its_own_deadline(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        event = active_event(1)
        [member] = queue_in_order(event, 1)
        entry = EventWaitList.objects.get(event=event, user=member)
        chosen = T0 + timedelta(minutes=8)  # within one hop (EXPIRY_HOP)

        with committed_at(T0, django_capture_on_commit_callbacks):
            waitlist_service.create_admin_offer(event.pk, entry.pk, expires_at=chosen)
            assert scheduled.expiries() == []  # only once committed

        [expiry] = scheduled.expiries()
        assert (expiry.args[0], expiry.due, expiry.eta) == (str(event.pk), chosen, chosen)

    def test_a_reactivation_reschedules_for_the_new_deadline(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        event = active_event(1)
        [member] = queue_in_order(event, 1)
        offer = give_offer(event, member, expires_at=T0 + timedelta(minutes=5))
        offer.status = Status.EXPIRED
        offer.save(update_fields=["status"])
        new_deadline = T0 + timedelta(minutes=19)  # within one hop of the reactivation

        with committed_at(T0 + timedelta(minutes=11), django_capture_on_commit_callbacks):
            waitlist_service.reactivate_admin_offer(event.pk, offer.pk, expires_at=new_deadline)

        [expiry] = scheduled.expiries()
        assert (expiry.due, expiry.eta) == (new_deadline, new_deadline)


class TestDecline:
    def test_the_declined_offer_is_expired_with_declined_at_and_the_holder_rotates(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        event = active_event(1)
        [head, second, third] = queue_in_order(event, 3)
        first_batch(event, django_capture_on_commit_callbacks)
        now = T0 + timedelta(minutes=7)

        with committed_at(now, django_capture_on_commit_callbacks):
            waitlist_service.decline_offer(head, event)

        declined = offer_of(event, head)
        assert (declined.status, declined.declined_at) == (Status.EXPIRED, now)
        assert EventWaitList.objects.filter(event=event, user=head).exists()
        assert rotated_at(event, head) == now
        assert offered_ids(event) == {second.pk}  # the seat went on at once
        assert rotated_at(event, third) is None

    def test_the_seat_is_the_next_members_in_the_declines_own_transaction(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        """Never free for a walk-in between the decline and a later pass."""
        event = active_event(1)
        [head, second] = queue_in_order(event, 2)
        first_batch(event, django_capture_on_commit_callbacks)

        with time_machine.travel(T0 + timedelta(minutes=2), tick=False):
            waitlist_service.decline_offer(head, event)  # nothing after commit has run

            assert offered_ids(event) == {second.pk}

    def test_the_decliner_waits_behind_the_members_who_never_passed(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        event = active_event(1)
        [head, second, third] = queue_in_order(event, 3)
        first_batch(event, django_capture_on_commit_callbacks)
        with time_machine.travel(T0 + timedelta(minutes=1), tick=False):
            with django_capture_on_commit_callbacks(execute=True):
                waitlist_service.decline_offer(head, event)
            with django_capture_on_commit_callbacks(execute=True):
                waitlist_service.decline_offer(second, event)

        assert offered_ids(event) == {third.pk}

    def test_no_decline_notice_of_a_lapse_is_sent(
        self, scheduled, django_capture_on_commit_callbacks
    ):
        event = active_event(1)
        [head, _] = queue_in_order(event, 2)
        first_batch(event, django_capture_on_commit_callbacks)

        with committed_at(T0 + timedelta(minutes=1), django_capture_on_commit_callbacks):
            waitlist_service.decline_offer(head, event)

        assert not Notification.objects.filter(
            user=head, notification_type=NotificationType.WAITLIST_OFFER_EXPIRED
        ).exists()

    def test_without_a_live_offer_it_is_no_live_offer_and_nothing_changes(self, user):
        event = active_event(1)
        queue_in_order(event, [user])

        with pytest.raises(waitlist_service.NoLiveOffer) as refused:
            waitlist_service.decline_offer(user, event)

        assert (refused.value.status_code, refused.value.code) == (404, "no_live_offer")
        assert rotated_at(event, user) is None

    def test_an_offer_past_its_deadline_has_lapsed_and_cannot_be_declined(self, user):
        event = active_event(1)
        queue_in_order(event, [user])
        give_offer(event, user, expires_at=DEADLINE)

        with (
            time_machine.travel(DEADLINE + timedelta(seconds=1), tick=False),
            pytest.raises(waitlist_service.NoLiveOffer),
        ):
            waitlist_service.decline_offer(user, event)

        assert offer_of(event, user).declined_at is None

    def test_a_claimed_offer_cannot_be_declined(self, user):
        event = active_event(1)
        queue_in_order(event, [user])
        offer = give_offer(event, user, expires_at=DEADLINE)
        offer.status = Status.CLAIMED
        offer.save(update_fields=["status"])

        with time_machine.travel(T0, tick=False), pytest.raises(waitlist_service.NoLiveOffer):
            waitlist_service.decline_offer(user, event)
