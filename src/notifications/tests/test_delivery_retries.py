"""Mail is never given up while the server may come back (ADR 0036).

The SMTP server is real (aiosmtpd) and answers `451` while it is "down". Tasks are run as
a worker runs them: a chain follows its own retries; the re-dispatch job is called every
minute of the simulated clock, as the beat calls it, and what it queues is run at once.
"""

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine

from accounts.models import User
from common.tests.dispatch_recorder import SentTasks
from notifications.models import NotificationDelivery
from notifications.service import delivery as delivery_service
from notifications.tasks import redispatch_stranded_deliveries
from notifications.tests.builders import make_delivery, make_notification, run_deliver_task
from notifications.tests.servers import SmtpServer, smtp_backend

pytestmark = pytest.mark.django_db

Status = NotificationDelivery.Status
T0 = datetime(2031, 5, 1, 12, 0, tzinfo=UTC)
DOWN = "451 4.3.0 Mail server temporarily unavailable"
#: A round of attempts while the server is down: the task's own two retries, then failed.
ROUND = ["retry in 30.0s", "retry in 60.0s", "failed"]


@pytest.fixture
def smtp(settings: Any) -> Iterator[SmtpServer]:
    with smtp_backend(settings) as server:
        yield server


def smtp_down(smtp: SmtpServer) -> None:
    """From now on the server refuses every message, until `smtp_up`."""
    smtp.handler.fail_next(*[DOWN] * 10_000)


def smtp_up(smtp: SmtpServer) -> None:
    smtp.handler.replies.clear()


def sweep_every_minute(
    minutes: range, sent_tasks: SentTasks, *, until: Any = None
) -> dict[int, list[str]]:
    """The beat's job at T0 + each minute, then the worker running what it queued; returns
    {minute: what each run of the task answered then}. Stops early once `until()` is true."""
    attempts_at: dict[int, list[str]] = {}
    for minute in minutes:
        with time_machine.travel(T0 + timedelta(minutes=minute), tick=False):
            sent_tasks.calls.clear()
            redispatch_stranded_deliveries()
            for name, args, _, _ in sent_tasks.calls:
                delivery = NotificationDelivery.objects.get(pk=args[0])
                runs = run_deliver_task(delivery, name.removeprefix("notifications."))
                attempts_at[minute] = [str(run) for run in runs]
        if until is not None and until():
            break
    return attempts_at


def first_round(user: User, notification_type: str) -> NotificationDelivery:
    """Written and tried at T0 while the server is down: a round of three attempts fails."""
    with time_machine.travel(T0, tick=False):
        delivery = make_delivery(make_notification(user, notification_type), "email")
        runs = run_deliver_task(delivery, "deliver")
    assert runs == ROUND, runs
    delivery.refresh_from_db()
    return delivery


def test_a_confirmation_outlives_a_three_hour_outage_and_arrives_once(
    user: User, smtp: SmtpServer, sent_tasks: SentTasks
) -> None:
    smtp_down(smtp)
    delivery = first_round(user, "rsvp_confirmation")
    assert (delivery.status, delivery.transient_failure) == (Status.FAILED, True)
    assert delivery.next_attempt_at == T0 + timedelta(minutes=5)

    rounds = sweep_every_minute(range(1, 181), sent_tasks)
    smtp_up(smtp)
    sweep_every_minute(range(181, 300), sent_tasks, until=lambda: len(smtp.messages) > 0)

    # The rounds came 5, 10, 20, 40 minutes apart, then hourly: the server was asked
    # again and again, never more than an hour apart, and never between rounds.
    assert list(rounds) == [5, 15, 35, 75, 135]
    assert list(rounds.values()) == [ROUND] * 5  # each a whole round, 30 s and 60 s apart
    (message,) = smtp.messages
    assert message["To"] == user.email
    assert message["Message-ID"] == f"<notification-{delivery.notification_id}@encore.local>"
    delivery.refresh_from_db()
    assert (delivery.status, delivery.next_attempt_at) == (Status.SENT, None)
    assert delivery.attempts == 3 * 6 + 1


def test_a_time_critical_delivery_is_tried_more_often(
    user: User, smtp: SmtpServer, sent_tasks: SentTasks
) -> None:
    smtp_down(smtp)
    offer = first_round(user, "waitlist_spot_available")
    assert offer.next_attempt_at == T0 + timedelta(minutes=1)

    rounds = sweep_every_minute(range(1, 31), sent_tasks)

    assert list(rounds) == [1, 3, 7, 12, 17, 22, 27]  # 1, 2, 4, then every 5 minutes


def test_after_a_day_the_delivery_is_given_up_with_its_reason(
    user: User, smtp: SmtpServer, sent_tasks: SentTasks, settings: Any
) -> None:
    settings.NOTIFICATION_RETRY_FOR_HOURS = 2
    smtp_down(smtp)
    delivery = first_round(user, "event_updated")

    sweep_every_minute(range(1, 240), sent_tasks)

    delivery.refresh_from_db()
    assert (delivery.status, delivery.next_attempt_at) == (Status.FAILED, None)
    assert delivery.error.startswith("given up after 2 hours of attempts: ")
    assert "451" in delivery.error
    assert smtp.messages == []


def test_a_retry_lost_with_the_broker_is_taken_up_by_the_job(
    user: User, smtp: SmtpServer, sent_tasks: SentTasks
) -> None:
    """The first attempt failed and its chain's retry (30 s later) never ran: the job
    sends the row once the retry is overdue, and a late retry finds nothing to do."""
    smtp.handler.fail_next(DOWN)
    with time_machine.travel(T0, tick=False):
        delivery = make_delivery(make_notification(user, "rsvp_confirmation"), "email")
        outcome = delivery_service.deliver(delivery.pk)
    assert (outcome.status, outcome.retry_in) == (Status.FAILED, 30.0)

    early = sweep_every_minute(range(1, 3), sent_tasks)
    sweep_every_minute(range(3, 4), sent_tasks)
    with time_machine.travel(T0 + timedelta(minutes=4), tick=False):
        late = delivery_service.deliver(delivery.pk, retry_of_attempt=outcome.attempts)

    assert early == {}  # the chain's retry may still come: not before it is overdue
    assert late.status == delivery_service.NOT_CLAIMED
    assert len(smtp.messages) == 1


def test_a_row_whose_worker_died_mid_send_is_sent_again_once(
    user: User, smtp: SmtpServer, sent_tasks: SentTasks, settings: Any
) -> None:
    settings.NOTIFICATION_SENDING_STALE_SECONDS = 120
    with time_machine.travel(T0, tick=False):
        stuck = make_delivery(
            make_notification(user, "rsvp_confirmation"), "email", status=Status.SENDING, attempts=1
        )

    sweep_every_minute(range(1, 6), sent_tasks)

    (message,) = smtp.messages
    assert message["To"] == user.email
    stuck.refresh_from_db()
    assert (stuck.status, stuck.attempts) == (Status.SENT, 2)
