"""At most once: a delivery is claimed under a row lock before anything is sent."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django_celery_beat.models import PeriodicTask

from accounts.models import User
from common.tests.dispatch_recorder import SentTasks
from common.tests.racing import run_together, succeeded
from notifications.models import NotificationDelivery
from notifications.service import delivery as delivery_service
from notifications.service.delivery import NOT_CLAIMED, retry_delay
from notifications.tasks import deliver, redispatch_stranded_deliveries
from notifications.tests.builders import make_delivery, make_notification
from notifications.tests.servers import BotApiStub, SmtpServer

pytestmark = pytest.mark.django_db

Status = NotificationDelivery.Status


def test_task_name_is_pinned() -> None:
    assert deliver.name == "notifications.deliver"


class TestClaim:
    def test_running_the_task_twice_for_one_delivery_sends_once(
        self, user: User, smtp_server: SmtpServer
    ) -> None:
        delivery = make_delivery(make_notification(user), "email")

        first = deliver.delay(str(delivery.pk)).get()
        second = deliver.delay(str(delivery.pk)).get()

        assert (first, second) == ("sent", NOT_CLAIMED)
        assert len(smtp_server.messages) == 1
        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts) == (Status.SENT, 1)

    @pytest.mark.parametrize("status", [Status.SENDING, Status.SENT, Status.SKIPPED])
    def test_a_row_that_is_not_pending_is_left_alone(
        self, user: User, smtp_server: SmtpServer, status: str
    ) -> None:
        delivery = make_delivery(make_notification(user), "email", status=status, attempts=1)

        assert delivery_service.deliver(delivery.pk).status == NOT_CLAIMED

        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts) == (status, 1)
        assert smtp_server.messages == []

    def test_a_failed_row_is_picked_up_only_by_the_retry_of_that_attempt(
        self, user: User, smtp_server: SmtpServer
    ) -> None:
        delivery = make_delivery(make_notification(user), "email", status=Status.FAILED, attempts=1)

        stray = delivery_service.deliver(delivery.pk)  # a duplicate first-run message
        stale = delivery_service.deliver(delivery.pk, retry_of_attempt=2)
        retry = delivery_service.deliver(delivery.pk, retry_of_attempt=1)

        assert (stray.status, stale.status, retry.status) == (NOT_CLAIMED, NOT_CLAIMED, "sent")
        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts, delivery.error) == (Status.SENT, 2, "")
        assert len(smtp_server.messages) == 1

    def test_a_row_with_three_attempts_is_never_tried_again(
        self, user: User, smtp_server: SmtpServer
    ) -> None:
        delivery = make_delivery(make_notification(user), "email", status=Status.FAILED, attempts=3)

        assert delivery_service.deliver(delivery.pk, retry_of_attempt=3).status == NOT_CLAIMED
        assert smtp_server.messages == []

    def test_an_unknown_delivery_is_ignored(self) -> None:
        import uuid

        assert delivery_service.deliver(uuid.uuid4()).status == NOT_CLAIMED


class TestOutcomes:
    def test_a_bug_in_a_channel_fails_the_row_and_propagates(
        self, user: User, smtp_server: SmtpServer, monkeypatch: Any
    ) -> None:
        delivery = make_delivery(make_notification(user), "email")

        def broken(notification: Any) -> None:
            raise KeyError("template variable")

        monkeypatch.setitem(delivery_service.SENDERS, "email", broken)

        with pytest.raises(KeyError):
            delivery_service.deliver(delivery.pk)

        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts) == (Status.FAILED, 1)
        assert delivery.error.startswith("unexpected error: KeyError")

    def test_sent_rows_record_when(self, user: User, smtp_server: SmtpServer) -> None:
        delivery = make_delivery(make_notification(user), "email")

        delivery_service.deliver(delivery.pk)

        delivery.refresh_from_db()
        assert delivery.sent_at is not None
        assert delivery.error == ""


class TestRetryDelay:
    def test_backoff_doubles_from_the_configured_base_within_each_round(
        self, settings: Any
    ) -> None:
        settings.NOTIFICATION_RETRY_BACKOFF_SECONDS = 10

        assert [retry_delay(attempt) for attempt in (1, 2, 3)] == [10, 20, 40]
        assert [retry_delay(attempt) for attempt in (4, 5, 7)] == [10, 20, 10]  # new rounds

    def test_the_remote_sides_retry_after_wins(self) -> None:
        assert retry_delay(1, retry_after=42) == 42
        assert retry_delay(2, retry_after=0) == 1


class TestStrandedDeliveries:
    """A delivery whose task never ran (the broker was down at dispatch) gets another,
    from the job that runs every 5 minutes; fresh and settled rows are left alone."""

    T0 = datetime(2031, 5, 1, 12, 0, tzinfo=UTC)

    def _delivery(self, user: User, *, age: timedelta, **fields: Any) -> NotificationDelivery:
        with time_machine.travel(self.T0 - age, tick=False):
            return make_delivery(make_notification(user), "email", **fields)

    def test_a_stranded_delivery_is_sent_once(self, user: User, smtp_server: SmtpServer) -> None:
        stranded = self._delivery(user, age=timedelta(minutes=11))

        with time_machine.travel(self.T0, tick=False):
            first = redispatch_stranded_deliveries()
            again = redispatch_stranded_deliveries()

        assert (first, again) == ([str(stranded.pk)], [])
        assert len(smtp_server.messages) == 1
        stranded.refresh_from_db()
        assert (stranded.status, stranded.attempts) == (Status.SENT, 1)

    def test_fresh_settled_and_day_old_rows_are_left_alone(
        self, user: User, smtp_server: SmtpServer
    ) -> None:
        rows = [
            self._delivery(user, age=timedelta(minutes=9)),  # its task may be on its way
            self._delivery(user, age=timedelta(hours=25)),  # news no more
            self._delivery(user, age=timedelta(hours=1), status=Status.FAILED, attempts=1),
            self._delivery(user, age=timedelta(hours=1), status=Status.SENT, attempts=1),
        ]

        with time_machine.travel(self.T0, tick=False):
            assert redispatch_stranded_deliveries() == []

        assert smtp_server.messages == []
        assert [NotificationDelivery.objects.get(pk=r.pk).status for r in rows] == [
            r.status for r in rows
        ]

    def test_the_job_runs_every_minute(self) -> None:
        periodic = PeriodicTask.objects.select_related("crontab").get(
            task="notifications.redispatch_stranded_deliveries"
        )
        crontab = periodic.crontab
        assert periodic.enabled
        assert (crontab.minute, crontab.hour, str(crontab.timezone)) == ("*", "*", "UTC")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_for_one_delivery_send_once(
    recipient: User, bot_api: BotApiStub
) -> None:
    """Both claim at the same moment; the row lock lets exactly one of them send."""
    delivery = make_delivery(make_notification(recipient), "telegram")
    bot_api.delay_seconds = 0.3  # keep the first sender busy while the second tries

    def worker() -> str:
        return delivery_service.deliver(delivery.pk).status

    outcomes = succeeded(run_together([worker] * 2, timeout=30))

    assert sorted(outcomes) == sorted(["sent", NOT_CLAIMED])
    assert len(bot_api.requests) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (Status.SENT, 1)


class TestQueues:
    """Time-critical sends go to `notifications.deliver_critical` (queue `notify`)."""

    def test_dispatch_picks_the_critical_task_for_time_critical_types_only(
        self, user: User, sent_tasks: SentTasks
    ) -> None:
        from notifications.service import dispatch

        offer = make_notification(user, "waitlist_spot_available")
        opened = make_notification(user, "event_open")

        [offer_mail] = [d for d in dispatch.dispatch_notification(offer.pk) if d.channel == "email"]
        [open_mail] = [d for d in dispatch.dispatch_notification(opened.pk) if d.channel == "email"]

        assert [(name, args) for name, args, _, _ in sent_tasks.calls] == [
            ("notifications.deliver_critical", [str(offer_mail.pk)]),
            ("notifications.deliver", [str(open_mail.pk)]),
        ]


class TestWorkerLostMidSend:
    """(c) A row left `sending` by a killed worker: the send almost surely did not leave
    (ADR 0036), so every type is tried again, once; one no longer useful is skipped."""

    T0 = datetime(2031, 5, 1, 12, 0, tzinfo=UTC)

    def _stuck(self, user: User, notification_type: str, expires_in: timedelta | None) -> Any:
        with time_machine.travel(self.T0 - timedelta(minutes=11), tick=False):
            notification = make_notification(user, notification_type)
            if expires_in is not None:
                notification.expires_at = self.T0 + expires_in
                notification.save(update_fields=["expires_at"])
            return make_delivery(notification, "email", status=Status.SENDING, attempts=1)

    def test_a_stale_sending_row_is_sent_again_unless_no_longer_useful(
        self, user: User, smtp_server: SmtpServer, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from notifications.signals import notification_still_wanted

        # Judged by its sender alone (events: the offer is live); this test has no sender.
        monkeypatch.setattr(notification_still_wanted, "receivers", [])
        offer = self._stuck(user, "waitlist_spot_available", timedelta(hours=1))
        lapsed = self._stuck(user, "waitlist_spot_available", timedelta(minutes=-1))
        ordinary = self._stuck(user, "event_open", None)

        with time_machine.travel(self.T0, tick=False):
            revived = redispatch_stranded_deliveries()
            assert redispatch_stranded_deliveries() == []

        assert sorted(revived) == sorted([str(offer.pk), str(ordinary.pk)])
        assert sorted(m["X-Encore-Notification"].split()[0] for m in smtp_server.messages) == [
            "event_open",
            "waitlist_spot_available",
        ]
        for row, status in (
            (offer, Status.SENT),
            (ordinary, Status.SENT),
            (lapsed, Status.SKIPPED),
        ):
            row.refresh_from_db()
            assert row.status == status


def test_a_send_stopped_by_the_soft_time_limit_is_a_transient_failure_and_retried(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The prefork pool raises SoftTimeLimitExceeded inside a send that hangs too long."""
    from celery.exceptions import SoftTimeLimitExceeded

    def hang(notification: Any) -> None:
        raise SoftTimeLimitExceeded()

    monkeypatch.setitem(delivery_service.SENDERS, "email", hang)
    delivery = make_delivery(make_notification(user, "event_open"), "email")

    outcome = delivery_service.deliver(delivery.pk)

    assert (outcome.status, outcome.retry_in) == (Status.FAILED, 30.0)
    delivery.refresh_from_db()
    assert delivery.transient_failure and "longer than 45 s" in delivery.error
