"""At most once: a delivery is claimed under a row lock before anything is sent."""

import threading
from typing import Any

import pytest
from django.db import connection

from accounts.models import User
from notifications.models import NotificationDelivery
from notifications.service import delivery as delivery_service
from notifications.service.delivery import NOT_CLAIMED, retry_delay
from notifications.tasks import deliver
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
    def test_backoff_doubles_from_the_configured_base(self, settings: Any) -> None:
        settings.NOTIFICATION_RETRY_BACKOFF_SECONDS = 10

        assert [retry_delay(attempt) for attempt in (1, 2, 3)] == [10, 20, 40]

    def test_the_remote_sides_retry_after_wins(self) -> None:
        assert retry_delay(1, retry_after=42) == 42
        assert retry_delay(2, retry_after=0) == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_for_one_delivery_send_once(
    recipient: User, bot_api: BotApiStub
) -> None:
    """Both claim at the same moment; the row lock lets exactly one of them send."""
    delivery = make_delivery(make_notification(recipient), "telegram")
    bot_api.delay_seconds = 0.3  # keep the first sender busy while the second tries
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def worker() -> None:
        try:
            start.wait(timeout=5)
            outcomes.append(delivery_service.deliver(delivery.pk).status)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(outcomes) == sorted(["sent", NOT_CLAIMED])
    assert len(bot_api.requests) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (Status.SENT, 1)
