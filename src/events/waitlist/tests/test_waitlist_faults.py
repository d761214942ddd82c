"""Faults around the waitlist: lost dispatches, failing notifications, a broker that is
down when a request commits. None may cost a user their request; a pass or an offer
notification the broker refused is kept in the outbox and runs at its next flush (every
minute), and a pass lost any other way waits at most for the hourly nudge.

The broker and notification tests use `transaction=True` on purpose: only with real
commits do the on-commit hooks run inside the request, where a raised error would turn
the response into a 500 or roll the batch back.
"""

from datetime import timedelta

import pytest
import time_machine
from django_celery_beat.models import PeriodicTask
from kombu.exceptions import OperationalError

from accounts.tests.factories import make_user
from common import dispatch, outbox
from common.models import OutboxMessage
from common.tasks import flush_outbox
from events import tasks
from events.core.tests.event_admin_support import DispatchRecorder
from events.core.tests.factories import fill_with_rsvps
from events.models import EventWaitList, Ticket, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_builders import (
    T0,
    Status,
    active_event,
    active_ticketed_event,
    give_offer,
    ids,
    offered_ids,
    offers_of,
    queue_in_order,
    reload,
)
from notifications.models import Notification, NotificationType

SPOT = NotificationType.WAITLIST_SPOT_AVAILABLE


def lose_dispatches(monkeypatch) -> list:
    """The processing pass never reaches the broker (a worker died, a message was lost)."""
    lost = DispatchRecorder(dispatch.send)
    monkeypatch.setattr(dispatch, "send", lost)
    return lost


def break_broker(monkeypatch, error: Exception, task=tasks.process_waitlist_for_event_task) -> None:
    """The broker refuses `task`'s publish (`apply_async`: what `.delay` and the outbox call)."""

    def refuse(*args, **kwargs):
        raise error

    monkeypatch.setattr(task, "apply_async", refuse)
    # Only that task is refused: the others still go out (no pause after the refusal,
    # which would keep them too; common.circuit).
    monkeypatch.setattr(outbox.BROKER, "pause", 0.0)


def break_notifications(monkeypatch) -> list:
    """Every notification raises; returns the users a spot offer was attempted for."""
    attempts: list = []

    def refuse(*args, **kwargs):
        if kwargs.get("notification_type") == SPOT:
            attempts.append(kwargs.get("user"))
        raise RuntimeError("the notifications app is broken")

    monkeypatch.setattr(
        "events.waitlist.services.notifications.notification_requested.send", refuse
    )
    return attempts


# -- a lost dispatch ---------------------------------------------------------------------------
@pytest.mark.django_db
class TestLostDispatch:
    def test_the_hourly_nudge_recovers_a_lost_pass(
        self, api, monkeypatch, django_capture_on_commit_callbacks
    ):
        event = active_event(3)
        attendees = fill_with_rsvps(event, 3)
        queue = queue_in_order(event, 2)
        lost = lose_dispatches(monkeypatch)

        with django_capture_on_commit_callbacks(execute=True):
            assert api(attendees[0]).post(f"/events/{event.pk}/rsvp/no").status_code == 200

        assert lost == [event.pk]
        assert offers_of(event) == []  # soft-locked: a free seat, a queue, no offer

        monkeypatch.undo()
        with django_capture_on_commit_callbacks(execute=True):
            nudged = tasks.nudge_open_waitlists_task()

        assert str(event.pk) in nudged
        assert offered_ids(event) == ids(queue[:1])

    def test_the_nudge_recovers_a_lost_pass_after_the_sweep(
        self, monkeypatch, django_capture_on_commit_callbacks
    ):
        event = active_event(3, attendees=2)
        _first, second = queue_in_order(event, 2)
        waitlist_service.process_waitlist_for_event(event.pk)
        WaitlistOffer.objects.filter(event=event).update(expires_at=event.start.replace(year=2000))
        lose_dispatches(monkeypatch)

        with django_capture_on_commit_callbacks(execute=True):
            assert waitlist_service.expire_waitlist_offers().expired == 1
        assert offered_ids(event) == set()

        monkeypatch.undo()
        with django_capture_on_commit_callbacks(execute=True):
            waitlist_service.nudge_open_waitlists()

        assert offered_ids(event) == {second.pk}  # the lapsed first rotated behind


# -- failing notifications ----------------------------------------------------------------------
@pytest.mark.django_db(transaction=True)
class TestFailingNotifications:
    def test_a_failing_notification_never_rolls_a_batch_back(self, api, monkeypatch):
        event = active_event(3)
        attendees = fill_with_rsvps(event, 3)
        queue = queue_in_order(event, 2)
        attempts = break_notifications(monkeypatch)

        response = api(attendees[0]).post(f"/events/{event.pk}/rsvp/no")

        assert response.status_code == 200
        assert attempts == [queue[0]]
        [offer] = offers_of(event)
        assert (offer.user_id, offer.status) == (queue[0].pk, Status.PENDING)
        assert offer.notified_at is None
        assert not Notification.objects.filter(notification_type=SPOT).exists()
        assert reload(event).attendee_count == 2

    def test_a_direct_pass_keeps_its_batch_when_every_notification_fails(self, monkeypatch):
        event = active_event(5, attendees=2)
        queue = queue_in_order(event, 3)
        attempts = break_notifications(monkeypatch)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert (result.status, result.offers_created) == ("ok", 3)
        assert len(attempts) == 3
        assert offered_ids(event) == ids(queue)

    def test_notifications_that_cannot_be_enqueued_leave_the_batch_alone(self, api, monkeypatch):
        event = active_event(3)
        attendees = fill_with_rsvps(event, 3)
        queue = queue_in_order(event, 1)

        break_broker(
            monkeypatch,
            OperationalError("broker down for notifications"),
            tasks.send_waitlist_offer_notification_task,
        )

        response = api(attendees[0]).post(f"/events/{event.pk}/rsvp/no")

        assert response.status_code == 200
        assert offered_ids(event) == {queue[0].pk}
        [kept] = OutboxMessage.objects.all()
        assert (kept.task_name, kept.args) == ("events.send_waitlist_offer_notification", [
            str(WaitlistOffer.objects.get(event=event).pk)
        ])  # fmt: skip
        assert not Notification.objects.filter(notification_type=SPOT).exists()

        monkeypatch.undo()  # the broker is back: the flush announces the offer, once
        assert outbox.flush().published == 1
        assert Notification.objects.filter(user=queue[0], notification_type=SPOT).count() == 1


# -- the broker is down when a request commits -------------------------------------------------
BROKER_ERRORS = [
    ConnectionError("Connection refused"),
    OperationalError("[Errno 111] Connection refused"),
]


@pytest.mark.django_db(transaction=True)
class TestBrokerDown:
    @pytest.mark.parametrize("error", BROKER_ERRORS, ids=["ConnectionError", "kombu"])
    def test_a_refused_pass_is_kept_and_the_flush_offers_the_seat_without_the_nudge(
        self, api, monkeypatch, error
    ):
        event, _, holders = active_ticketed_event(3, sold=3)
        [waiting] = queue_in_order(event, 1)
        ticket = Ticket.objects.get(event=event, user=holders[0])
        break_broker(monkeypatch, error)

        response = api(holders[0]).post(f"/events/{event.pk}/tickets/{ticket.pk}/cancel")

        assert response.status_code == 200
        assert response.json()["status"] == Ticket.Status.CANCELLED
        ticket.refresh_from_db()
        assert ticket.status == Ticket.Status.CANCELLED
        assert reload(event).attendee_count == 2
        assert offers_of(event) == []
        [kept] = OutboxMessage.objects.filter(sent_at__isnull=True)
        assert (kept.task_name, kept.args) == ("events.process_waitlist_for_event", [str(event.pk)])

        assert outbox.flush().waiting == 1  # still down: kept for the next minute
        assert offers_of(event) == []

        monkeypatch.undo()  # the broker is back
        assert flush_outbox() == {"published": 1, "waiting": 0, "dropped": 0}  # beat's task

        assert offered_ids(event) == {waiting.pk}
        assert Notification.objects.filter(user=waiting, notification_type=SPOT).exists()

    def test_a_pass_published_twice_makes_one_offer_per_seat(self, api, monkeypatch):
        """At least once: a flush that died after its publish publishes the pass again."""
        event, _, holders = active_ticketed_event(3, sold=3)
        [waiting, _next] = queue_in_order(event, 2)
        ticket = Ticket.objects.get(event=event, user=holders[0])
        break_broker(monkeypatch, ConnectionError("Connection refused"))
        api(holders[0]).post(f"/events/{event.pk}/tickets/{ticket.pk}/cancel")
        monkeypatch.undo()

        outbox.flush()
        OutboxMessage.objects.update(sent_at=None)  # as if its `sent_at` never got written
        outbox.flush()

        assert offered_ids(event) == {waiting.pk}
        assert Notification.objects.filter(user=waiting, notification_type=SPOT).count() == 1

    @pytest.mark.parametrize("error", BROKER_ERRORS, ids=["ConnectionError", "kombu"])
    def test_an_rsvp_change_and_a_waitlist_join_still_succeed(self, api, monkeypatch, error):
        event = active_event(3)
        attendees = fill_with_rsvps(event, 3)
        joiner = make_user()
        break_broker(monkeypatch, error)

        joined = api(joiner).post(f"/events/{event.pk}/waitlist/join")
        answered = api(attendees[0]).post(f"/events/{event.pk}/rsvp/no")

        assert (joined.status_code, answered.status_code) == (201, 200)
        assert EventWaitList.objects.filter(event=event, user=joiner).exists()
        assert offers_of(event) == []


# -- a lost offer notification -------------------------------------------------------------------
@pytest.mark.django_db
class TestLostOfferNotification:
    """The offer's own safety net: a notification whose task never ran goes out with the
    next resend (every 15 minutes), once, and only for offers still live."""

    def _spot_notices(self, user) -> int:
        return Notification.objects.filter(notification_type=SPOT, user=user).count()

    def test_the_resend_announces_an_offer_whose_notification_was_lost(self):
        event = active_event(3, attendees=2)
        [member] = queue_in_order(event, 1)
        with time_machine.travel(T0, tick=False):
            offer = give_offer(event, member)  # issued; its notification task never ran

        with time_machine.travel(T0 + timedelta(minutes=11), tick=False):
            resent = tasks.resend_waitlist_offer_notifications_task()
            again = tasks.resend_waitlist_offer_notifications_task()

        assert resent == [str(offer.pk)]
        assert again == []
        assert self._spot_notices(member) == 1
        offer.refresh_from_db()
        assert offer.notified_at == T0 + timedelta(minutes=11)

    def test_a_fresh_offer_is_left_to_its_own_task(self):
        event = active_event(3, attendees=2)
        [member] = queue_in_order(event, 1)
        with time_machine.travel(T0, tick=False):
            give_offer(event, member)

        with time_machine.travel(T0 + timedelta(minutes=9), tick=False):
            assert tasks.resend_waitlist_offer_notifications_task() == []

        assert self._spot_notices(member) == 0

    def test_offers_no_longer_live_are_not_announced(self):
        event = active_event(5, attendees=2)
        lapsed, claimed, revoked = queue_in_order(event, 3)
        with time_machine.travel(T0, tick=False):
            give_offer(event, lapsed, expires_at=T0 + timedelta(minutes=5))
            for user, status in ((claimed, Status.CLAIMED), (revoked, Status.REVOKED)):
                give_offer(event, user)
                WaitlistOffer.objects.filter(user=user).update(status=status)

        with time_machine.travel(T0 + timedelta(minutes=11), tick=False):
            assert tasks.resend_waitlist_offer_notifications_task() == []

        assert not Notification.objects.filter(notification_type=SPOT).exists()

    def test_a_task_that_runs_twice_announces_once(self):
        event = active_event(3, attendees=2)
        [member] = queue_in_order(event, 1)
        offer = give_offer(event, member)

        first = tasks.send_waitlist_offer_notification_task(str(offer.pk))
        late_duplicate = tasks.send_waitlist_offer_notification_task(str(offer.pk))

        assert (first, late_duplicate) == (True, False)
        assert self._spot_notices(member) == 1

    def test_the_resend_is_scheduled_every_15_minutes_clear_of_the_other_jobs(self):
        periodic = PeriodicTask.objects.select_related("crontab").get(
            task="events.resend_waitlist_offer_notifications"
        )
        crontab = periodic.crontab
        assert periodic.enabled
        assert (crontab.minute, crontab.hour, str(crontab.timezone)) == ("5,20,35,50", "*", "UTC")
