"""An RSVP's confirmation is sent once, and is not lost with the broker (issue 34).

The task `events.send_rsvp_confirmation` may run twice (redelivered after its worker
died; published again after the broker came back empty) and may never run (lost with
the broker). The first sends nothing the second time; the recovery after a broker loss
sends what is missing and nothing else."""

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.db import connection
from django.utils import timezone

from accounts.tests.factories import make_user
from common.tests.dispatch_recorder import SentTasks
from common.tests.racing import run_together, succeeded
from events.core.services import event_notifications
from events.core.tests.factories import make_event
from events.models import EventRSVP
from notifications.models import Notification, NotificationType

CONFIRMATION = NotificationType.RSVP_CONFIRMATION


def confirmations(user: Any) -> list[str]:
    return [
        n.context["status"]
        for n in Notification.objects.filter(user=user, notification_type=CONFIRMATION).order_by(
            "created_at"
        )
    ]


def answered(event: Any, user: Any, status: str) -> EventRSVP:
    """The answer as stored, with its confirmation task never run (lost on its way)."""
    rsvp, _ = EventRSVP.objects.update_or_create(
        event=event, user=user, defaults={"status": status, "guests": 0}
    )
    return rsvp


@pytest.mark.django_db
def test_the_task_run_twice_confirms_once_and_a_new_answer_again() -> None:
    event, user = make_event(max_attendees=5), make_user()
    answered(event, user, "yes")

    assert event_notifications.send_rsvp_confirmation(event.pk, user.pk, "yes") == 1
    assert event_notifications.send_rsvp_confirmation(event.pk, user.pk, "yes") == 0
    with time_machine.travel(timezone.now() + timedelta(minutes=1)):
        answered(event, user, "no")
        assert event_notifications.send_rsvp_confirmation(event.pk, user.pk, "no") == 1
        answered(event, user, "yes")  # yes again, later: a confirmation of its own
    with time_machine.travel(timezone.now() + timedelta(minutes=2)):
        assert event_notifications.send_rsvp_confirmation(event.pk, user.pk, "yes") == 1

    assert confirmations(user) == ["yes", "no", "yes"]


@pytest.mark.django_db
def test_after_a_broker_loss_only_the_unconfirmed_answers_are_sent_again(
    sent_tasks: SentTasks,
) -> None:
    event = make_event(max_attendees=5)
    confirmed, lost, gone = make_user(), make_user(), make_user(is_active=False)
    for user in (confirmed, lost, gone):
        answered(event, user, "yes")
    event_notifications.send_rsvp_confirmation(event.pk, confirmed.pk, "yes")

    again = event_notifications.resend_lost_rsvp_confirmations(timezone.now())

    assert again == [(str(event.pk), str(lost.pk), "yes")]
    assert sent_tasks.named("events.send_rsvp_confirmation") == [list(again[0])]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_copies_of_the_task_at_once_confirm_once() -> None:
    event, user = make_event(max_attendees=5), make_user()
    answered(event, user, "yes")

    def copy() -> int:
        try:
            return event_notifications.send_rsvp_confirmation(event.pk, user.pk, "yes")
        finally:
            connection.close()

    assert sorted(succeeded(run_together([copy, copy]))) == [0, 1]
    assert confirmations(user) == ["yes"]
