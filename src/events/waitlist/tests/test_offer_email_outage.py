"""An offer e-mail lost to an SMTP outage longer than its retries (~90 s) is sent again
while the offer is live, once, and never after the offer was claimed or lapsed.

The SMTP server is real (aiosmtpd) and answers `451` during the outage. The delivery
tasks are run as a worker runs them: each chain follows its retries; the re-dispatch job
(every minute on the beat) is called at the times the beat would call it.
"""

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import time_machine

from common import dispatch
from events.models import WaitlistOffer
from events.waitlist.services import notifications as waitlist_notifications
from events.waitlist.tests.waitlist_builders import (
    T0,
    Status,
    active_event,
    give_offer,
    queue_in_order,
)
from notifications import tasks as notification_tasks
from notifications.models import NotificationDelivery
from notifications.tests.builders import run_deliver_task
from notifications.tests.servers import SmtpServer, smtp_backend

pytestmark = pytest.mark.django_db

OUTAGE = "451 4.3.0 Mail server temporarily unavailable"
Delivery = NotificationDelivery.Status


@pytest.fixture
def smtp(settings: Any) -> Iterator[SmtpServer]:
    with smtp_backend(settings) as server:
        yield server


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The time-critical delivery tasks published (the test runs them, as a worker would)."""
    published: list[str] = []
    send = dispatch.send

    def record(name: str, args: list[Any], kwargs: dict[str, Any], queue: str) -> bool:
        if name == "notifications.deliver":
            pytest.fail("bulk!")
        if name == "notifications.deliver_critical":
            published.append(args[0])
            return True
        return send(name, args, kwargs, queue)

    monkeypatch.setattr(dispatch, "send", record)
    return published


def announce_during_outage(
    smtp: SmtpServer, queued: list[str], django_capture_on_commit_callbacks: Any
) -> tuple[WaitlistOffer, NotificationDelivery]:
    """An offer (2-hour window) announced at T0 while SMTP refuses: the e-mail's three
    attempts (T0, +30 s, +60 s) all fail."""
    event = active_event(3, attendees=2)
    [member] = queue_in_order(event, 1)
    with time_machine.travel(T0, tick=False):
        offer = give_offer(event, member)
        with django_capture_on_commit_callbacks(execute=True):
            assert waitlist_notifications.send_offer_notification(offer.pk)
    (delivery_id,) = queued
    queued.clear()
    delivery = NotificationDelivery.objects.select_related("notification").get(pk=delivery_id)
    assert delivery.channel == "email"
    assert delivery.notification.expires_at == offer.expires_at
    smtp.handler.fail_next(OUTAGE, OUTAGE, OUTAGE)
    with time_machine.travel(T0 + timedelta(seconds=1), tick=False):
        runs = run_deliver_task(delivery, "deliver_critical")
    assert runs[-1] == "failed" and len(runs) == 3, runs
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.transient_failure) == (
        Delivery.FAILED,
        3,
        True,
    )
    assert smtp.messages == []
    return offer, delivery


def redispatch_at(minutes: int, queued: list[str]) -> list[str]:
    """The beat's re-dispatch job at T0 + minutes, then the worker running what it queued."""
    with time_machine.travel(T0 + timedelta(minutes=minutes), tick=False):
        revived = notification_tasks.redispatch_stranded_deliveries()
        assert sorted(queued) == sorted(revived)
        for delivery_id in list(queued):
            run_deliver_task(NotificationDelivery.objects.get(pk=delivery_id), "deliver_critical")
        queued.clear()
    return revived


def test_the_offer_email_arrives_after_the_outage_while_the_offer_is_live_exactly_once(
    smtp: SmtpServer, queued: list[str], django_capture_on_commit_callbacks: Any
) -> None:
    offer, delivery = announce_during_outage(smtp, queued, django_capture_on_commit_callbacks)

    # Still down at the first revival: another round of three attempts fails.
    smtp.handler.fail_next(OUTAGE, OUTAGE, OUTAGE)
    assert redispatch_at(5, queued) == [str(delivery.pk)]
    assert smtp.messages == []
    # Up again: the next revival sends it.
    assert redispatch_at(10, queued) == [str(delivery.pk)]
    assert redispatch_at(15, queued) == []
    assert redispatch_at(20, queued) == []

    (message,) = smtp.messages
    assert message["To"] == offer.user.email
    assert f"waitlist_spot_available {delivery.notification_id}" in message["X-Encore-Notification"]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.redispatches) == (Delivery.SENT, 7, 2)


def test_no_resend_after_the_offer_was_claimed(
    smtp: SmtpServer, queued: list[str], django_capture_on_commit_callbacks: Any
) -> None:
    offer, delivery = announce_during_outage(smtp, queued, django_capture_on_commit_callbacks)
    WaitlistOffer.objects.filter(pk=offer.pk).update(status=Status.CLAIMED)  # seen in-app

    assert redispatch_at(5, queued) == []
    assert redispatch_at(10, queued) == []

    assert smtp.messages == []
    delivery.refresh_from_db()
    assert (delivery.status, delivery.next_attempt_at) == (Delivery.SKIPPED, None)


def test_no_resend_after_the_offer_lapsed(
    smtp: SmtpServer, queued: list[str], django_capture_on_commit_callbacks: Any
) -> None:
    offer, _ = announce_during_outage(smtp, queued, django_capture_on_commit_callbacks)
    minutes_to_lapse = int((offer.expires_at - T0).total_seconds() // 60)

    assert redispatch_at(minutes_to_lapse + 1, queued) == []

    assert smtp.messages == []


def test_a_retry_after_the_offer_was_declined_sends_nothing(
    smtp: SmtpServer, queued: list[str], django_capture_on_commit_callbacks: Any
) -> None:
    """The chain's own retry checks too: the offer left the user's hands meanwhile."""
    event = active_event(3, attendees=2)
    [member] = queue_in_order(event, 1)
    with time_machine.travel(T0, tick=False):
        offer = give_offer(event, member)
        with django_capture_on_commit_callbacks(execute=True):
            waitlist_notifications.send_offer_notification(offer.pk)
    delivery = NotificationDelivery.objects.get(pk=queued[0])
    WaitlistOffer.objects.filter(pk=offer.pk).update(status=Status.EXPIRED)  # declined

    with time_machine.travel(T0 + timedelta(seconds=1), tick=False):
        assert run_deliver_task(delivery, "deliver_critical") == [Delivery.SKIPPED]

    assert smtp.messages == []
